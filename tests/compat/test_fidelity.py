"""What a user migrating from python-jsonschema meets next (issue #30's compat
points): each test names the class of inputs it pins, and where python-jsonschema is
installed it is asked for the expected answer instead of a hard-coded one."""

from __future__ import annotations

import os
import sys
import warnings
from typing import Any

import pytest

import schemacore
from schemacore import compat
from schemacore.compat import (
    Draft4Validator,
    Draft6Validator,
    Draft7Validator,
    Draft201909Validator,
    Draft202012Validator,
    FormatChecker,
    SchemaError,
    UnknownType,
    ValidationError,
)

if os.environ.get("SCHEMACORE_REQUIRE_CLIENTS") != "1":  # CI: a missing one fails
    pytest.importorskip("jsonschema", reason="python-jsonschema is not installed")
import jsonschema

CLASSES = [
    Draft4Validator,
    Draft6Validator,
    Draft7Validator,
    Draft201909Validator,
    Draft202012Validator,
]


def _theirs(cls: Any) -> Any:
    return getattr(jsonschema, cls.__name__)


def _views(error: Any) -> tuple[Any, ...]:
    return (
        error.validator,
        error.validator_value,
        error.schema,
        list(error.schema_path),
        list(error.absolute_schema_path),
        list(error.path),
    )


# A member named like its own keyword, and one nested below it.
NAMED_LIKE_THE_KEYWORD = [
    (
        Draft202012Validator,
        {"dependentRequired": {"dependentRequired": ["b"]}},
        {"dependentRequired": 1},
    ),
    (Draft7Validator, {"dependencies": {"dependencies": ["b"]}}, {"dependencies": 1}),
    (Draft4Validator, {"dependencies": {"dependencies": ["b"]}}, {"dependencies": 1}),
    (
        Draft202012Validator,
        {"properties": {"dependentRequired": {"dependentRequired": {"x": ["y"]}}}},
        {"dependentRequired": {"x": 1}},
    ),
    (
        Draft7Validator,
        {"properties": {"a": {"dependencies": {"a": ["b"]}}}},
        {"a": {"a": 1}},
    ),
    (Draft6Validator, {"dependencies": {"a": {"required": ["dependencies"]}}}, {"a": 1}),
]


@pytest.mark.parametrize(("cls", "schema", "instance"), NAMED_LIKE_THE_KEYWORD)
def test_keywords_located_below_themselves_report_python_jsonschemas_views(
    cls: Any, schema: Any, instance: Any
) -> None:
    ours = [_views(e) for e in cls(schema).iter_errors(instance)]
    theirs = [_views(e) for e in _theirs(cls)(schema).iter_errors(instance)]
    assert ours == theirs


@pytest.mark.parametrize("cls", CLASSES)
@pytest.mark.parametrize("value", [1, 1.0, 1.5, True, None, "1", -0.0, 10**30])
def test_is_type_counts_integers_as_the_classs_draft_does(cls: Any, value: Any) -> None:
    ours = cls({}).is_type(value, "integer")
    assert ours == _theirs(cls)({}).is_type(value, "integer")
    # And as the same class validates.
    assert ours == cls({"type": "integer"}).is_valid(value)


@pytest.mark.parametrize("cls", CLASSES)
def test_an_unknown_type_name_raises_unknown_type(cls: Any) -> None:
    with pytest.raises(UnknownType) as caught:
        cls({}).is_type(12, "nope")
    assert (caught.value.type, caught.value.instance) == ("nope", 12)
    with pytest.raises(jsonschema.exceptions.UnknownType):
        _theirs(cls)({}).is_type(12, "nope")


BAD_REGEXES = [
    {"pattern": "["},
    {"patternProperties": {"[": {}}},
    {"properties": {"a": {"pattern": "(?<"}}},
]


@pytest.mark.parametrize("cls", CLASSES)
@pytest.mark.parametrize("schema", BAD_REGEXES)
def test_check_schema_refuses_every_regex_the_class_refuses_to_compile(
    cls: Any, schema: Any
) -> None:
    with pytest.raises(SchemaError) as caught:
        cls.check_schema(schema)
    assert caught.value.validator == "format"
    with pytest.raises(schemacore.SchemaError, match="regular expression"):
        cls(schema).is_valid({})


@pytest.mark.parametrize("cls", CLASSES)
def test_describing_an_error_on_a_huge_integer_never_raises(cls: Any) -> None:
    huge = 10 ** (sys.get_int_max_str_digits() + 10)
    (error,) = cls({"type": "string"}).iter_errors(huge)
    text = str(error)
    assert "digits" in text and "Failed validating 'type'" in text


@pytest.mark.parametrize("cls", CLASSES)
def test_id_of_reads_the_identifier_keyword_of_the_classs_draft(cls: Any) -> None:
    schema = {"id": "http://e.com/old", "$id": "http://e.com/new"}
    assert cls.ID_OF(schema) == _theirs(cls).ID_OF(schema)
    assert cls.ID_OF({"id": 1, "$id": 2}) is None and cls.ID_OF(True) is None


def test_every_class_of_the_engines_drafts_exists_and_the_docs_say_so() -> None:
    assert {cls.__name__ for cls in CLASSES} <= set(compat.__all__)
    assert not hasattr(compat, "Draft3Validator")
    assert "do not exist" not in (compat.__doc__ or "")


def test_format_checker_lists_every_registered_format_on_the_class() -> None:
    assert set(FormatChecker.checkers) == set(FormatChecker().checkers)
    assert {"email", "uuid", "regex", "date-time"} <= set(FormatChecker.checkers)
    assert set(FormatChecker(["email"]).checkers) == {"email"}
    # Registering on an instance leaves the class's list as it was.
    checker = FormatChecker()
    checker.checks("even")(lambda value: True)
    assert "even" in checker.checkers and "even" not in FormatChecker.checkers


def test_a_schema_error_is_worded_against_the_metaschema() -> None:
    with pytest.raises(SchemaError) as caught:
        Draft202012Validator.check_schema({"type": 12})
    text = str(caught.value)
    assert "in metaschema[" in text and "On schema['type']: 12" in text
    assert "On instance" not in text


def test_an_unknown_schema_uri_warns_as_python_jsonschema_does() -> None:
    with pytest.warns(DeprecationWarning):
        assert compat.validator_for({"$schema": "unknownSchema"}) is Draft202012Validator
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert compat.validator_for({"$schema": "unknownSchema"}, default=Draft7Validator) is (
            Draft7Validator
        )
        assert compat.validator_for({}) is Draft202012Validator


def test_user_code_can_make_and_raise_its_own_validation_error() -> None:
    error = ValidationError("the value is wrong")
    assert str(error) == "the value is wrong" and error.message == "the value is wrong"
    full = ValidationError(
        "m",
        validator="type",
        path=["a", 0],
        schema_path=["properties", "a", "type"],
        validator_value="string",
        instance=1,
        schema={"type": "string"},
    )
    theirs = jsonschema.ValidationError(
        "m",
        validator="type",
        path=["a", 0],
        schema_path=["properties", "a", "type"],
        validator_value="string",
        instance=1,
        schema={"type": "string"},
    )
    assert _views(full) == _views(theirs)
    text = str(full)
    assert "Failed validating 'type' in schema['properties']['a']" in text
    assert text.endswith("On instance['a'][0]:\n    1") or text.endswith("On instance['a'][0]: 1")
    with pytest.raises(ValidationError):
        raise full


# -- classes made by jsonschema.validators.extend (issue #30, real-world fidelity) --


def _is_even(validator: Any, value: Any, instance: Any, schema: Any) -> Any:
    if value and isinstance(instance, int) and instance % 2:
        yield jsonschema.ValidationError(f"{instance} is odd")


@pytest.mark.parametrize("cls", CLASSES)
def test_extend_with_a_custom_keyword_refuses_to_validate(cls: Any) -> None:
    made = jsonschema.validators.extend(cls, {"isEven": _is_even})
    validator = made({"isEven": True})
    for call in (validator.is_valid, validator.validate, lambda x: list(validator.iter_errors(x))):
        with pytest.raises(compat.UnsupportedExtension, match="'isEven'") as caught:
            call(3)
        assert isinstance(caught.value, TypeError)
    # Whatever the schema: the class itself carries the function compat never calls.
    with pytest.raises(compat.UnsupportedExtension) as again:
        made({}).is_valid(2)
    # It travels as itself (a worker process reports it whole).
    import pickle

    copy = pickle.loads(pickle.dumps(again.value))
    assert (type(copy), copy.args) == (compat.UnsupportedExtension, again.value.args)


def test_extend_with_a_foreign_type_checker_refuses_to_validate() -> None:
    checker = jsonschema.Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda checker, value: isinstance(value, str)
    )
    made = jsonschema.validators.extend(Draft202012Validator, type_checker=checker)
    with pytest.raises(compat.UnsupportedExtension, match="type checker"):
        made({"type": "integer"}).is_valid("4")


def test_extend_with_the_drafts_own_keywords_validates_with_schemacore() -> None:
    # check-jsonschema replaces pattern and patternProperties: schemacore's ECMA-262
    # implementation of them is used, and nothing is refused.
    def never(validator: Any, value: Any, instance: Any, schema: Any) -> Any:
        raise AssertionError("compat never calls keyword functions")

    made = jsonschema.validators.extend(
        Draft202012Validator, {"pattern": never, "patternProperties": never}
    )
    validator = made({"pattern": "^\\p{L}+$", "patternProperties": {"^x": {"type": "null"}}})
    assert validator.is_valid("schön")
    assert [e.validator for e in validator.iter_errors({"x": 1})] == ["type"]
    # Extending the extended class again keeps working.
    again = jsonschema.validators.extend(made, {"pattern": never})
    assert not again({"pattern": "^a"}).is_valid("b")


# -- errors made by user code ------------------------------------------------------


def test_an_error_tree_keeps_every_validator_user_code_gave() -> None:
    errors = [ValidationError("e", validator=i) for i in range(3)]
    theirs = [jsonschema.ValidationError("e", validator=i) for i in range(3)]
    tree = compat.ErrorTree(errors)
    assert tree.total_errors == jsonschema.exceptions.ErrorTree(theirs).total_errors == 3
    assert tree.errors == {0: errors[0], 1: errors[1], 2: errors[2]}
    assert [e.validator for e in errors] == [e.validator for e in theirs]


def test_user_code_can_make_a_schema_error() -> None:
    import pickle

    plain = SchemaError("the schema is wrong")
    assert {plain} and str(plain) == "the schema is wrong"
    assert isinstance(plain, schemacore.SchemaError)
    full = SchemaError(
        "m",
        validator="type",
        path=["properties"],
        schema_path=["properties", "type"],
        validator_value="object",
        instance=12,
        schema={"type": "object"},
    )
    theirs = jsonschema.SchemaError(
        "m",
        validator="type",
        path=["properties"],
        schema_path=["properties", "type"],
        validator_value="object",
        instance=12,
        schema={"type": "object"},
    )
    assert _views(full) == _views(theirs)
    again = pickle.loads(pickle.dumps(full))
    assert (_views(again), str(again)) == (_views(full), str(full))
    with pytest.raises(SchemaError):
        raise full


def test_check_schema_still_raises_the_meta_schema_failure() -> None:
    with pytest.raises(SchemaError) as caught:
        Draft7Validator.check_schema({"minItems": "1"})
    with pytest.raises(jsonschema.SchemaError) as theirs:
        jsonschema.Draft7Validator.check_schema({"minItems": "1"})
    assert _views(caught.value) == _views(theirs.value)
    assert "in metaschema[" in str(caught.value)
