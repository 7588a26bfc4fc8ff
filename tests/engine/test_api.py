"""The public API: Validator, ValidationError, the error classes, one-off helpers."""

from __future__ import annotations

import copy
import gc
import pickle
import threading
import weakref
from collections.abc import Iterator
from typing import Any

import pytest

import schemacore
from schemacore import (
    ExecutionFailure,
    SchemaCoreError,
    SchemaError,
    UnsupportedCapability,
    ValidationError,
    Validator,
)

PERSON: dict[str, Any] = {
    "$id": "https://example.com/person",
    "type": "object",
    "required": ["name"],
    "properties": {
        "name": {"type": "string", "minLength": 1},
        "age": {"$ref": "#/$defs/age"},
        "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
    },
    "additionalProperties": False,
    "$defs": {"age": {"type": "integer", "minimum": 0}},
}


def located(errors: Any) -> list[tuple[str, str, str]]:
    return [(e.keyword, e.instance_location, e.keyword_location) for e in errors]


# -- Validator ------------------------------------------------------------------------


def test_compile_returns_a_validator() -> None:
    validator = schemacore.compile(PERSON)
    assert isinstance(validator, Validator)
    assert validator.is_valid({"name": "Ada", "age": 36})
    assert not validator.is_valid({"name": "Ada", "age": -1})


def test_schema_is_the_very_object_passed() -> None:
    schema = {"type": "string"}
    assert schemacore.compile(schema).schema is schema
    assert schemacore.compile(True).schema is True


def test_validate_raises_the_error_or_returns_none() -> None:
    validator = schemacore.compile(PERSON)
    validator.validate({"name": "Ada"})  # valid: no exception
    with pytest.raises(ValidationError) as caught:
        validator.validate({"name": "Ada", "age": "old"})
    assert caught.value.keyword == "type"
    assert caught.value.instance_location == "/age"


def test_iter_errors_is_an_iterator_and_empty_when_valid() -> None:
    validator = schemacore.compile(PERSON)
    errors = validator.iter_errors({"name": "Ada"})
    assert isinstance(errors, Iterator)
    assert list(errors) == []


def test_iter_errors_reports_every_failure() -> None:
    errors = list(
        schemacore.compile(PERSON).iter_errors({"age": 1.5, "tags": ["a", "a", 3], "x": 1})
    )
    assert sorted(located(errors)) == sorted(
        [
            ("required", "", "/required"),
            ("type", "/age", "/properties/age/$ref/type"),
            ("uniqueItems", "/tags", "/properties/tags/uniqueItems"),
            ("type", "/tags/2", "/properties/tags/items/type"),
            ("additionalProperties", "", "/additionalProperties"),
        ]
    )


# -- ValidationError attributes ------------------------------------------------------


def test_error_attributes_of_a_nested_property() -> None:
    instance = {"a": "x"}
    (error,) = schemacore.compile({"properties": {"a": {"type": "integer"}}}).iter_errors(instance)
    assert error.keyword == "type"
    assert error.instance_location == "/a"
    assert error.keyword_location == "/properties/a/type"
    assert error.absolute_keyword_location.endswith("#/properties/a/type")
    assert error.instance == "x"
    assert isinstance(error.message, str) and error.message
    assert error.context == ()


def test_error_instance_is_the_callers_object() -> None:
    inner = {"b": 1}
    (error,) = schemacore.compile({"properties": {"a": {"required": ["c"]}}}).iter_errors(
        {"a": inner}
    )
    assert error.instance is inner


def test_error_through_a_ref() -> None:
    schema = {
        "$id": "https://example.com/s",
        "properties": {"a": {"$ref": "#/$defs/int"}},
        "$defs": {"int": {"type": "integer", "minimum": 3}},
    }
    (error,) = schemacore.compile(schema).iter_errors({"a": 1})
    assert error.keyword == "minimum"
    assert error.instance_location == "/a"
    assert error.keyword_location == "/properties/a/$ref/minimum"
    assert error.absolute_keyword_location == "https://example.com/s#/$defs/int/minimum"


def test_error_through_a_remote_ref_names_the_remote_document() -> None:
    registry = {"https://example.com/lib.json": {"$defs": {"s": {"type": "string"}}}}
    schema = {"items": {"$ref": "https://example.com/lib.json#/$defs/s"}}
    (error,) = schemacore.compile(schema, registry=registry).iter_errors(["ok", 2])
    assert error.instance_location == "/1"
    assert error.keyword_location == "/items/$ref/type"
    assert error.absolute_keyword_location == "https://example.com/lib.json#/$defs/s/type"


def test_error_through_a_dynamic_ref() -> None:
    schema = {
        "$id": "https://example.com/d",
        "$dynamicAnchor": "n",
        "type": "object",
        "properties": {"a": {"$dynamicRef": "#n"}},
    }
    (error,) = schemacore.compile(schema).iter_errors({"a": 1})
    assert error.keyword_location == "/properties/a/$dynamicRef/type"
    assert error.absolute_keyword_location == "https://example.com/d#/type"


def test_locations_escape_pointer_characters() -> None:
    schema = {"properties": {"a/b": {"properties": {"c~d": {"type": "string"}}}}}
    (error,) = schemacore.compile(schema).iter_errors({"a/b": {"c~d": 1}})
    assert error.instance_location == "/a~1b/c~0d"
    assert error.keyword_location == "/properties/a~1b/properties/c~0d/type"


def test_array_locations_use_indexes() -> None:
    schema = {"prefixItems": [{"type": "string"}], "items": {"type": "integer"}}
    errors = schemacore.compile(schema).iter_errors([1, 2, "x"])
    assert located(errors) == [
        ("type", "/0", "/prefixItems/0/type"),
        ("type", "/2", "/items/type"),
    ]


def test_if_then_else_errors_name_the_branch_taken() -> None:
    validator = schemacore.compile(
        {"if": {"type": "string"}, "then": {"minLength": 3}, "else": {"minimum": 5}}
    )
    assert located(validator.iter_errors("x")) == [("minLength", "", "/then/minLength")]
    assert located(validator.iter_errors(1)) == [("minimum", "", "/else/minimum")]


@pytest.mark.parametrize("keyword", ["anyOf", "oneOf"])
def test_failed_branches_are_in_the_context(keyword: str) -> None:
    schema = {keyword: [{"type": "string"}, {"minimum": 3}]}
    (error,) = schemacore.compile(schema).iter_errors(1)
    assert error.keyword == keyword
    assert error.keyword_location == f"/{keyword}"
    assert located(error.context) == [
        ("type", "", f"/{keyword}/0/type"),
        ("minimum", "", f"/{keyword}/1/minimum"),
    ]
    assert all(isinstance(sub, ValidationError) for sub in error.context)


def test_one_of_with_several_passing_branches() -> None:
    (error,) = schemacore.compile({"oneOf": [{"type": "integer"}, {"minimum": 0}]}).iter_errors(1)
    assert error.keyword == "oneOf"


def test_validation_error_is_an_exception_with_a_readable_str() -> None:
    (error,) = schemacore.compile({"properties": {"a": {"type": "integer"}}}).iter_errors(
        {"a": "x"}
    )
    assert isinstance(error, Exception)
    assert "/a" in str(error)


def test_validation_errors_pickle_with_their_locations() -> None:
    validator = schemacore.compile(
        {"properties": {"a/b": {"anyOf": [{"type": "integer"}, {"minimum": 3}]}}}
    )
    (error,) = validator.iter_errors({"a/b": 1.5})
    restored = pickle.loads(pickle.dumps(error))
    assert isinstance(restored, schemacore.ValidationError)
    for attribute in (
        "message",
        "keyword",
        "instance_location",
        "keyword_location",
        "absolute_keyword_location",
        "instance",
    ):
        assert getattr(restored, attribute) == getattr(error, attribute)
    assert restored.instance_location == "/a~1b"
    assert restored.keyword_location == "/properties/a~1b/anyOf"
    assert [e.keyword_location for e in restored.context] == [
        "/properties/a~1b/anyOf/0/type",
        "/properties/a~1b/anyOf/1/minimum",
    ]
    assert str(restored) == str(error)


# -- immutability, pickling ------------------------------------------------------------


@pytest.mark.parametrize("name", ["schema", "_schema", "_node", "anything_new"])
def test_validator_is_immutable(name: str) -> None:
    validator = schemacore.compile({"type": "string"})
    with pytest.raises(AttributeError):
        setattr(validator, name, None)
    with pytest.raises(AttributeError):
        delattr(validator, name)
    assert validator.is_valid("still works")
    assert not validator.is_valid(1)


INSTANCES: list[Any] = [
    {"name": "Ada"},
    {"name": ""},
    {"name": "Ada", "age": 36, "tags": ["x", "y"]},
    {"name": "Ada", "tags": ["x", "x"]},
    {"name": "Ada", "extra": True},
    {},
    [],
    "Ada",
    None,
]


def test_pickle_round_trip_gives_the_same_answers() -> None:
    registry = {"https://example.com/age": {"type": "integer", "minimum": 0}}
    schema = copy.deepcopy(PERSON)
    schema["properties"]["age"] = {"$ref": "https://example.com/age"}
    validator = schemacore.compile(schema, registry=registry)
    restored = pickle.loads(pickle.dumps(validator))
    assert isinstance(restored, Validator)
    assert restored.schema == schema
    for instance in [*INSTANCES, {"name": "Ada", "age": -1}, {"name": "Ada", "age": 2}]:
        assert restored.is_valid(instance) == validator.is_valid(instance)
        assert located(restored.iter_errors(instance)) == located(validator.iter_errors(instance))


_LOADED: list[str] = []


def _counting_loader(uri: str) -> Any:
    # Module level, so that pickle can carry it by reference.
    _LOADED.append(uri)
    return {"type": "integer"}


def test_pickle_carries_the_loader_and_recompiles() -> None:
    _LOADED.clear()
    validator = schemacore.compile(
        {"items": {"$ref": "https://example.com/int"}}, loader=_counting_loader
    )
    restored = pickle.loads(pickle.dumps(validator))
    assert _LOADED == ["https://example.com/int", "https://example.com/int"]
    assert restored.is_valid([1, 2])
    assert not restored.is_valid([1, "2"])


# -- one-off helpers ----------------------------------------------------------------


def test_one_off_helpers() -> None:
    assert schemacore.is_valid(1, {"type": "integer"}) is True
    assert schemacore.is_valid("1", {"type": "integer"}) is False
    schemacore.validate(1, {"type": "integer"})  # valid: no exception
    with pytest.raises(ValidationError):
        schemacore.validate("1", {"type": "integer"})


def test_one_off_helpers_take_compile_options() -> None:
    registry = {"https://example.com/x": {"type": "integer"}}
    schema = {"$ref": "https://example.com/x"}
    assert schemacore.is_valid(1, schema, registry=registry)
    assert not schemacore.is_valid("1", schema, registry=registry)
    with pytest.raises(SchemaError):
        schemacore.is_valid(1, schema)


# -- nothing is mutated -------------------------------------------------------------


def test_schema_instance_and_registry_are_not_mutated() -> None:
    schema: dict[str, Any] = {
        "$id": "https://example.com/root",
        "type": "object",
        "properties": {
            "a": {"$ref": "https://example.com/remote#/$defs/x", "default": 5},
            "b": {"type": "array", "prefixItems": [{"const": 1}], "unevaluatedItems": False},
        },
        "unevaluatedProperties": {"default": "filled"},
        "dependentSchemas": {"a": {"required": ["b"]}},
    }
    registry = {"https://example.com/remote": {"$defs": {"x": {"type": "integer", "default": 0}}}}
    loaded = {"$anchor": "loaded", "type": "string"}
    schema["properties"]["c"] = {"$ref": "https://example.com/loaded"}
    instance = {"a": 1, "b": [1, 2], "c": "s", "d": {"nested": [1.0, True]}}
    before = copy.deepcopy((schema, registry, loaded, instance))
    validator = schemacore.compile(schema, registry=registry, loader=lambda uri: loaded)
    validator.is_valid(instance)
    list(validator.iter_errors(instance))
    for error in validator.iter_errors(instance):
        error.context  # noqa: B018 - materialise everything the errors carry
    assert (schema, registry, loaded, instance) == before
    assert validator.schema is schema


# -- error classes -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cls", "error_class"),
    [
        (SchemaError, "validation"),
        (UnsupportedCapability, "unsupported_capability"),
        (ExecutionFailure, "execution_failure"),
    ],
)
def test_error_classes(cls: type[SchemaCoreError], error_class: str) -> None:
    assert issubclass(cls, SchemaCoreError)
    assert cls.error_class == error_class
    error = cls("message", location="/x")
    assert error.error_class == error_class
    assert error.location == "/x"
    assert error.message == "message"


def test_each_error_class_is_raised_where_documented() -> None:
    with pytest.raises(SchemaCoreError) as invalid:
        schemacore.compile({"type": 5})
    assert invalid.value.error_class == "validation"
    with pytest.raises(SchemaCoreError) as unsupported:
        schemacore.compile({"$schema": "http://json-schema.org/draft-03/schema#"})
    assert unsupported.value.error_class == "unsupported_capability"
    with pytest.raises(SchemaCoreError) as failure:
        schemacore.compile({"type": "array"}).is_valid((1, 2))
    assert failure.value.error_class == "execution_failure"


# -- is_valid and iter_errors agree --------------------------------------------------

SPREAD_SCHEMAS: list[Any] = [
    PERSON,
    {"anyOf": [{"type": "string", "maxLength": 2}, {"type": "integer", "multipleOf": 3}]},
    {"oneOf": [{"minimum": 0}, {"multipleOf": 2}]},
    {"not": {"enum": [1, "a", None]}},
    {"if": {"minimum": 10}, "then": {"multipleOf": 5}, "else": {"maximum": 3}},
    {"contains": {"type": "string"}, "minContains": 2, "maxContains": 3},
    {"dependentRequired": {"a": ["b"]}, "dependentSchemas": {"b": {"maxProperties": 2}}},
    {"patternProperties": {"^n": {"type": "number"}}, "propertyNames": {"maxLength": 3}},
    {"prefixItems": [{"type": "integer"}], "items": False},
    {"allOf": [{"properties": {"a": {}}}], "unevaluatedProperties": False},
    {"minProperties": 1, "maxItems": 2, "minLength": 1, "const": "abc"},
]
SPREAD_INSTANCES: list[Any] = [
    None, True, False, 0, 1, 3, 6, 9.0, 10, 12, 15, -4, 2.5, "", "a", "ab", "abc", "abcd",
    [], [1], [1, 2], ["a", "b"], ["a", "b", "c", "d"], [1, "x", "y"],
    {}, {"a": 1}, {"b": 1}, {"a": 1, "b": 2}, {"a": 1, "b": 2, "c": 3}, {"nx": 1}, {"nx": "s"},
    {"name": "Ada"}, {"name": "Ada", "age": 3.0}, {"name": 1, "tags": [1]}, {"long_name": 1},
]  # fmt: skip


@pytest.mark.parametrize("schema", SPREAD_SCHEMAS)
def test_is_valid_and_iter_errors_agree(schema: Any) -> None:
    validator = schemacore.compile(schema)
    for instance in SPREAD_INSTANCES:
        errors = list(validator.iter_errors(instance))
        assert validator.is_valid(instance) == (not errors), instance
        assert all(isinstance(e, ValidationError) for e in errors)
        if errors:
            with pytest.raises(ValidationError):
                validator.validate(instance)
        else:
            validator.validate(instance)


# -- sharing and lifetime -----------------------------------------------------------


def test_validator_can_be_shared_between_threads() -> None:
    validator = schemacore.compile(
        {"anyOf": [{"properties": {"a": {}}}, {"properties": {"b": {}}}],
         "unevaluatedProperties": False}
    )  # fmt: skip
    cases = [({"a": 1, "b": 2}, True), ({"a": 1, "c": 2}, False)] * 200
    failures: list[Any] = []

    def work() -> None:
        for instance, expected in cases:
            if validator.is_valid(instance) is not expected:
                failures.append(instance)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


class _Schema(dict[str, Any]):
    """A dict that can be weakly referenced."""


def test_recursive_validator_is_garbage_collected() -> None:
    # Recursion goes through reference cells; the cycles must stay collectable.
    schema = _Schema({"properties": {"a": {"$ref": "#"}}, "unevaluatedProperties": False})
    alive = weakref.ref(schema)
    validator = schemacore.compile(schema)
    assert not validator.is_valid({"a": {"b": 1}})
    list(validator.iter_errors({"a": {"b": 1}}))
    del validator, schema
    gc.collect()
    assert alive() is None


@pytest.mark.parametrize("fmt", ["flag", "basic", "detailed", "verbose"])
def test_evaluate_agrees_with_is_valid(fmt: str) -> None:
    validator = schemacore.compile({"properties": {"a": {"type": "integer"}}})
    for instance, expected in [({"a": 1}, True), ({"a": "x"}, False), ("x", True)]:
        evaluation = validator.evaluate(instance)
        assert evaluation.valid is expected
        assert evaluation.output(fmt)["valid"] is expected
    assert validator.evaluate({"a": 1}).output("flag") == {"valid": True}


def test_evaluate_basic_output_locates_the_error() -> None:
    output = schemacore.compile({"properties": {"a": {"type": "integer"}}}).evaluate({"a": "x"})
    units = output.output("basic")["errors"]
    assert any(
        unit["keywordLocation"] == "/properties/a/type" and unit["instanceLocation"] == "/a"
        for unit in units
    )
