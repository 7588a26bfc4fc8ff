"""schemacore.compat: python-jsonschema's validator protocol, attribute by attribute."""

from __future__ import annotations

import pickle
from collections import deque
from typing import Any

import pytest

import schemacore
from schemacore import compat
from schemacore.compat import (
    Draft202012Validator,
    ErrorTree,
    FormatChecker,
    SchemaError,
    UnsupportedDialect,
    ValidationError,
    best_match,
    validator_for,
)

SCHEMA: dict[str, Any] = {
    "$id": "https://example.com/root",
    "$defs": {"count": {"type": "integer", "minimum": 0}},
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "counts": {"type": "array", "items": {"$ref": "#/$defs/count"}},
        "id": {"anyOf": [{"type": "string"}, {"type": "integer", "minimum": 10}]},
        "never": False,
        "odd key.x": {"type": "null"},
    },
    "required": ["name"],
}
INSTANCE: dict[str, Any] = {"counts": [1, -2, "x"], "id": 3, "never": 1, "odd key.x": 0}


def _errors() -> dict[str, ValidationError]:
    errors = Draft202012Validator(SCHEMA).iter_errors(INSTANCE)
    return {error.json_path + " " + str(error.validator): error for error in errors}


def test_errors_have_python_jsonschema_paths() -> None:
    errors = _errors()
    assert set(errors) == {
        "$ required",
        "$.counts[1] minimum",
        "$.counts[2] type",
        "$.id anyOf",
        "$.never None",
        "$['odd key.x'] type",
    }
    minimum = errors["$.counts[1] minimum"]
    assert minimum.path == deque(["counts", 1])
    assert minimum.absolute_path == deque(["counts", 1])
    assert minimum.relative_path == minimum.path
    # The $ref hop names no place to fail: python-jsonschema leaves it out too.
    assert minimum.schema_path == deque(["properties", "counts", "items", "minimum"])
    assert minimum.absolute_schema_path == minimum.relative_schema_path
    assert minimum.validator == "minimum"
    assert minimum.validator_value == 0
    assert minimum.schema == {"type": "integer", "minimum": 0}
    assert minimum.instance == -2
    assert minimum.cause is None and minimum.parent is None and minimum.context == ()
    assert minimum.message == "-2 is less than the minimum 0"
    # The engine's own fields stay as they were.
    assert isinstance(minimum, schemacore.ValidationError)
    assert minimum.instance_location == "/counts/1"
    assert minimum.keyword_location == "/properties/counts/items/$ref/minimum"
    assert minimum.absolute_keyword_location == "https://example.com/root#/$defs/count/minimum"


def test_context_errors_are_relative_to_their_parent() -> None:
    any_of = _errors()["$.id anyOf"]
    assert any_of.validator_value == SCHEMA["properties"]["id"]["anyOf"]
    assert len(any_of.context) == 2
    branch = {tuple(error.relative_schema_path): error for error in any_of.context}
    assert set(branch) == {(0, "type"), (1, "minimum")}
    minimum = branch[(1, "minimum")]
    assert minimum.parent is any_of
    assert minimum.relative_path == deque()
    assert minimum.absolute_path == deque(["id"])
    assert minimum.absolute_schema_path == deque(["properties", "id", "anyOf", 1, "minimum"])
    assert minimum.schema == {"type": "integer", "minimum": 10}


def test_false_schema_error() -> None:
    never = _errors()["$.never None"]
    assert never.validator is None and never.validator_value is None
    assert never.schema is False
    assert never.path == deque(["never"])
    assert never.schema_path == deque(["properties", "never"])


def test_paths_are_fresh_deques() -> None:
    error = _errors()["$.counts[2] type"]
    error.path.appendleft("mutated")
    error.schema_path.appendleft("mutated")
    assert error.path == deque(["counts", 2])
    assert error.schema_path[0] == "properties"


def test_str_names_keyword_schema_and_instance() -> None:
    text = str(_errors()["$.counts[2] type"])
    assert text.splitlines()[0] == "string is not of type integer"
    assert "'type'" in text and "['counts'][2]" in text and "'x'" in text


def test_is_valid_validate_and_best_match() -> None:
    validator = Draft202012Validator(SCHEMA)
    assert validator.is_valid({"name": "Ada", "counts": [0, 4]})
    assert not validator.is_valid(INSTANCE)
    validator.validate({"name": "Ada"})
    closest = Draft202012Validator(
        {"anyOf": [{"required": ["a"], "minProperties": 2}, {"required": ["b"]}]}
    )
    with pytest.raises(ValidationError) as raised:
        closest.validate({})
    # schemacore's rule: inside a failed anyOf, the branch that came closest.
    assert raised.value.validator == "required"
    assert raised.value.validator_value == ["b"]
    assert raised.value.absolute_schema_path == deque(["anyOf", 1, "required"])
    assert raised.value.relative_schema_path == deque([1, "required"])
    best = best_match(validator.iter_errors(INSTANCE))
    assert best is not None and best.json_path in {"$.counts[1]", "$.counts[2]", "$.id"}
    assert best_match([]) is None


def test_check_schema_raises_a_schema_error() -> None:
    Draft202012Validator.check_schema(SCHEMA)
    with pytest.raises(SchemaError) as raised:
        Draft202012Validator.check_schema({"properties": {"a": {"minLength": -1}}})
    error = raised.value
    assert isinstance(error, schemacore.SchemaError)
    assert error.path == deque(["properties", "a", "minLength"])
    assert error.validator == "minimum"
    assert error.instance == -1
    # Formats of the meta-schema are asserted: "pattern" must be an ECMA-262 regex.
    with pytest.raises(SchemaError) as bad_regex:
        Draft202012Validator.check_schema({"pattern": "(("})
    assert bad_regex.value.validator == "format"
    # As in python-jsonschema, format_checker=None checks no format of the meta-schema.
    Draft202012Validator.check_schema({"pattern": "(("}, format_checker=None)
    assert Draft202012Validator.META_SCHEMA["$id"] == "https://json-schema.org/draft/2020-12/schema"


def test_construction_never_compiles() -> None:
    validator = Draft202012Validator({"type": 12})  # invalid, as python-jsonschema allows
    with pytest.raises(schemacore.SchemaError):
        validator.is_valid(1)
    with pytest.raises(TypeError, match="RefResolver"):
        Draft202012Validator({}, resolver=object())


def test_evolve() -> None:
    checker = Draft202012Validator.FORMAT_CHECKER
    validator = Draft202012Validator({"format": "email"}, format_checker=checker)
    evolved = validator.evolve(schema={"format": "uuid"})
    assert type(evolved) is Draft202012Validator
    assert evolved.format_checker is checker and evolved.schema == {"format": "uuid"}
    assert not evolved.is_valid("not a uuid")
    assert validator.evolve(format_checker=None).is_valid("not an email")
    with pytest.raises(TypeError, match="unexpected"):
        validator.evolve(colour="red")


def test_format_is_an_annotation_unless_a_checker_is_given() -> None:
    schema = {"format": "email"}
    assert Draft202012Validator(schema).is_valid("nope")
    checker = Draft202012Validator.FORMAT_CHECKER
    assert not Draft202012Validator(schema, format_checker=checker).is_valid("nope")
    assert Draft202012Validator(schema, format_checker=checker).is_valid("a@example.com")
    # python-jsonschema's positional order: schema, resolver, format_checker.
    assert not Draft202012Validator(schema, None, checker).is_valid("nope")
    only_uuid = FormatChecker(["uuid"])
    assert Draft202012Validator(schema, format_checker=only_uuid).is_valid("nope")
    assert not Draft202012Validator({"format": "uuid"}, format_checker=only_uuid).is_valid("x")
    assert FormatChecker().conforms("a@example.com", "email")
    assert not FormatChecker().conforms("nope", "email")
    with pytest.raises(KeyError):
        FormatChecker(["no-such-format"])


def test_custom_and_foreign_format_checkers() -> None:
    checker = FormatChecker()

    @checker.checks("even-length", raises=ValueError)
    def even_length(value: str) -> bool:
        if value == "boom":
            raise ValueError("boom")
        return len(value) % 2 == 0

    validator = Draft202012Validator({"format": "even-length"}, format_checker=checker)
    assert validator.is_valid("ab")
    assert not validator.is_valid("abc")
    assert not validator.is_valid("boom")
    assert validator.is_valid(3)  # format checkers see strings only

    class Foreign:
        """python-jsonschema's FormatChecker shape: checkers and conforms()."""

        def __init__(self) -> None:
            self.checkers = {"date": None, "shout": None}

        def conforms(self, instance: object, format: str) -> bool:
            return format != "shout" or str(instance).isupper()

    foreign = Foreign()
    assert not Draft202012Validator({"format": "shout"}, format_checker=foreign).is_valid("hi")
    assert Draft202012Validator({"format": "shout"}, format_checker=foreign).is_valid("HI")
    # Listed but checked by the foreign object, which here accepts anything...
    assert Draft202012Validator({"format": "date"}, format_checker=foreign).is_valid("x")
    # ... and names it does not list are not asserted at all.
    assert Draft202012Validator({"format": "email"}, format_checker=foreign).is_valid("x")


def test_mapping_registry() -> None:
    registry = {"https://example.com/int": {"type": "integer"}}
    validator = Draft202012Validator({"$ref": "https://example.com/int"}, registry=registry)
    assert validator.is_valid(1) and not validator.is_valid("1")
    [error] = validator.iter_errors("1")
    assert error.schema == {"type": "integer"} and error.validator_value == "integer"
    with pytest.raises(TypeError, match="registry"):
        Draft202012Validator({}, registry=42)


def test_referencing_registry() -> None:
    referencing = pytest.importorskip("referencing")
    from referencing.jsonschema import DRAFT202012

    seen: list[str] = []

    def retrieve(uri: str) -> Any:
        seen.append(uri)
        return referencing.Resource.from_contents({"type": "string"}, DRAFT202012)

    registry = referencing.Registry(retrieve=retrieve).with_resource(
        "https://example.com/int", DRAFT202012.create_resource({"type": "integer"})
    )
    schema = {
        "properties": {
            "a": {"$ref": "https://example.com/int"},
            "b": {"$ref": "https://example.com/retrieved"},
        }
    }
    validator = Draft202012Validator(schema, registry=registry)
    assert validator.is_valid({"a": 1, "b": "x"})
    assert not validator.is_valid({"a": "1"})
    assert not validator.is_valid({"b": 2})
    assert seen == ["https://example.com/retrieved"]


def test_unretrievable_reference_is_a_schema_error() -> None:
    referencing = pytest.importorskip("referencing")
    validator = Draft202012Validator(
        {"$ref": "https://example.com/missing"}, registry=referencing.Registry()
    )
    with pytest.raises(schemacore.SchemaError, match="missing"):
        validator.is_valid(1)


def test_validator_for_and_the_dialect_table() -> None:
    assert validator_for({}) is Draft202012Validator
    assert validator_for(True) is Draft202012Validator
    assert validator_for({"$schema": "https://json-schema.org/draft/2020-12/schema#"}) is (
        Draft202012Validator
    )
    assert validator_for({"$schema": "https://example.com/custom"}, default=None) is None
    with pytest.raises(UnsupportedDialect, match="Draft 3"):
        validator_for({"$schema": "http://json-schema.org/draft-03/schema#"})
    supported = [entry.class_name for entry in compat.DIALECTS if entry.supported]
    assert supported == [
        "Draft202012Validator",
        "Draft201909Validator",
        "Draft7Validator",
        "Draft6Validator",
        "Draft4Validator",
    ]
    for entry in compat.DIALECTS:
        assert hasattr(compat, entry.class_name) is entry.supported
        if entry.supported:
            declared = {"$schema": entry.meta_schema_uri + "#"}
            assert validator_for(declared) is getattr(compat, entry.class_name)


# Array-form items is a tuple before 2020-12: each class reads a schema without
# $schema under its own draft.
@pytest.mark.parametrize(
    "name", ["Draft201909Validator", "Draft7Validator", "Draft6Validator", "Draft4Validator"]
)
def test_each_class_reads_its_own_draft(name: str) -> None:
    cls = getattr(compat, name)
    schema = {"items": [{"type": "integer"}], "additionalItems": False}
    cls.check_schema(schema)
    validator = cls(schema)
    assert validator.is_valid([1])
    assert not validator.is_valid([1, 2])
    with pytest.raises(compat.SchemaError):
        Draft202012Validator.check_schema(schema)


def test_draft_3_class_does_not_exist() -> None:
    with pytest.raises(UnsupportedDialect, match="Draft 3") as raised:
        compat.Draft3Validator  # noqa: B018
    assert isinstance(raised.value, schemacore.UnsupportedCapability)
    assert isinstance(raised.value, AttributeError)
    with pytest.raises(ImportError):
        exec("from schemacore.compat import Draft3Validator")


def test_error_tree() -> None:
    validator = Draft202012Validator(SCHEMA)
    tree = ErrorTree(validator.iter_errors(INSTANCE))
    assert "counts" in tree and "name" not in tree
    assert set(tree) == {"counts", "id", "never", "odd key.x"}
    assert set(tree["counts"]) == {1, 2}
    assert tree["counts"][1].errors["minimum"].instance == -2
    assert set(tree.errors) == {"required"}
    assert tree.total_errors == len(tree) == 6
    assert tree["counts"][0].errors == {}  # no error there
    assert "6 total errors" in repr(tree)
    array = ErrorTree(
        Draft202012Validator({"minItems": 3, "items": {"type": "integer"}}).iter_errors(["a"])
    )
    assert set(array.errors) == {"minItems"} and set(array[0].errors) == {"type"}
    with pytest.raises(IndexError):
        array[7]  # not an index of the failing array


def test_module_validate() -> None:
    compat.validate({"name": "Ada"}, SCHEMA)
    with pytest.raises(ValidationError):
        compat.validate({}, SCHEMA)
    with pytest.raises(SchemaError):
        compat.validate(1, {"type": 12})


def test_errors_pickle_as_engine_errors() -> None:
    error = _errors()["$.counts[2] type"]
    restored = pickle.loads(pickle.dumps(error))
    assert type(restored) is schemacore.ValidationError
    assert restored.instance_location == "/counts/2" and restored.message == error.message


def test_type_checker() -> None:
    checker = Draft202012Validator.TYPE_CHECKER
    assert checker.is_type(1.0, "integer") and not checker.is_type(True, "integer")
    assert checker.is_type(True, "boolean") and not checker.is_type(1, "boolean")
    assert Draft202012Validator({}).is_type([], "array")
    with pytest.raises(compat.UndefinedTypeCheck):
        checker.is_type(1, "decimal")


def test_jsonschema_extend_hands_the_whole_schema_to_schemacore() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    called: list[object] = []

    def pattern(*args: object) -> Any:
        called.append(args)
        return iter(())

    extended = jsonschema.validators.extend(Draft202012Validator, {"pattern": pattern})
    # Lookbehind is ECMA-262; \p{L} is a Unicode property only schemacore's regex knows.
    schema = {"properties": {"word": {"pattern": "^\\p{L}+$"}}, "required": ["word"]}
    validator = extended(schema, format_checker=None)
    assert validator.is_valid({"word": "schön"})
    errors = list(validator.iter_errors({"word": "a1"}))
    assert [error.json_path for error in errors] == ["$.word"]
    assert isinstance(errors[0], ValidationError)
    assert errors[0].schema_path == deque(["properties", "word", "pattern"])
    assert called == []  # per-keyword functions are not schemacore's way
    # python-jsonschema's own best_match reads what it needs from these errors.
    anyof = extended({"anyOf": [{"type": "string"}, {"minimum": 3}]})
    [error] = anyof.iter_errors(1)
    assert jsonschema.exceptions.best_match(error.context) in error.context


def test_extended_class_never_fetches() -> None:
    """python-jsonschema's default registry retrieves http(s) references; a class made
    from ours must not: an unknown reference is a SchemaError, with no network."""
    jsonschema = pytest.importorskip("jsonschema")
    extended = jsonschema.validators.extend(Draft202012Validator, {})
    validator = extended({"$ref": "https://example.com/not-registered.json"})
    with pytest.raises(schemacore.SchemaError, match="never fetches"):
        validator.is_valid(1)
