"""Deep instances, limits, and values outside the JSON data model."""

from __future__ import annotations

import sys
from collections import OrderedDict
from typing import Any

import pytest

import schemacore
from schemacore import ExecutionFailure, SchemaCoreError
from tests.hazards.support import nested_list, nested_object

ITEMS_RECURSION = {"items": {"$ref": "#"}}
DEEP = 10_000


def assert_execution_failure(validator: schemacore.Validator, instance: Any) -> None:
    """Both products must raise ExecutionFailure: never False, never RecursionError."""
    with pytest.raises(ExecutionFailure) as from_is_valid:
        validator.is_valid(instance)
    assert from_is_valid.value.error_class == "execution_failure"
    assert not isinstance(from_is_valid.value, RecursionError)
    with pytest.raises(ExecutionFailure):
        list(validator.iter_errors(instance))
    with pytest.raises(ExecutionFailure):
        validator.validate(instance)


# -- very deep instances --------------------------------------------------------------


def test_very_deep_array_is_an_execution_failure() -> None:
    limit = sys.getrecursionlimit()
    validator = schemacore.compile(ITEMS_RECURSION)
    assert_execution_failure(validator, nested_list(DEEP))
    with pytest.raises(ExecutionFailure) as caught:
        validator.is_valid(nested_list(DEEP))
    assert caught.value.limit == "max_instance_depth"
    assert sys.getrecursionlimit() == limit
    # The validator is still usable afterwards.
    assert validator.is_valid([[[]]])
    assert not schemacore.compile({"items": {"$ref": "#"}, "type": "array"}).is_valid([[1]])


@pytest.mark.parametrize(
    ("schema", "instance"),
    [
        ({"properties": {"a": {"$ref": "#"}}}, nested_object(DEEP)),
        ({"additionalProperties": {"$ref": "#"}}, nested_object(DEEP)),
        ({"properties": {"a": {"$ref": "#"}}, "unevaluatedProperties": False}, nested_object(DEEP)),
        ({"prefixItems": [{"$ref": "#"}], "unevaluatedItems": False}, nested_list(DEEP)),
        ({"contains": {"$ref": "#"}}, nested_list(DEEP)),
        ({"enum": [[1]]}, nested_list(DEEP)),
        ({"uniqueItems": True}, [nested_list(DEEP), 1]),
    ],
)
def test_very_deep_instances_fail_cleanly(schema: Any, instance: Any) -> None:
    assert_execution_failure(schemacore.compile(schema), instance)


def test_deep_instance_the_schema_does_not_descend_into_is_fine() -> None:
    assert schemacore.compile({"type": "array", "minItems": 1}).is_valid(nested_list(DEEP))


# -- moderately deep instances validate -----------------------------------------------

MODERATE = 200  # within the default max_instance_depth (256)


def test_moderately_deep_array_validates() -> None:
    validator = schemacore.compile({"type": "array", "items": {"$ref": "#"}})
    assert validator.is_valid(nested_list(MODERATE))
    assert list(validator.iter_errors(nested_list(MODERATE))) == []
    bad = nested_list(MODERATE, leaf=1)
    assert not validator.is_valid(bad)
    (error,) = validator.iter_errors(bad)
    assert error.instance_location == "/0" * MODERATE
    assert error.keyword == "type"


def test_moderately_deep_object_validates() -> None:
    validator = schemacore.compile(
        {"type": "object", "properties": {"a": {"$ref": "#"}}, "required": ["a"]}
    )
    assert not validator.is_valid(nested_object(MODERATE))  # the innermost lacks "a"
    (error,) = validator.iter_errors(nested_object(MODERATE))
    assert error.keyword == "required"
    assert error.instance_location == "/a" * (MODERATE - 1)
    assert schemacore.compile({"properties": {"a": {"$ref": "#"}}}).is_valid(
        nested_object(MODERATE)
    )


@pytest.mark.parametrize(
    ("schema", "make", "bad_leaf"),
    [
        pytest.param(
            {"anyOf": [{"type": "integer"}, {"type": "array", "items": {"$ref": "#"}}]},
            nested_list,
            "s",
            id="anyOf",
        ),
        pytest.param(
            {"oneOf": [{"type": "integer"}, {"type": "array", "items": {"$ref": "#"}}]},
            nested_list,
            "s",
            id="oneOf",
        ),
        pytest.param(
            {"allOf": [{"type": "array"}, {"items": {"$ref": "#"}}]},
            nested_list,
            1,
            id="allOf",
        ),
        pytest.param(
            {"properties": {"a": {"$ref": "#"}}, "unevaluatedProperties": False},
            nested_object,
            {"z": 1},
            id="unevaluatedProperties",
        ),
        pytest.param(
            {"prefixItems": [{"$ref": "#"}], "unevaluatedItems": False},
            nested_list,
            [0, 0],
            id="unevaluatedItems",
        ),
        pytest.param(
            {"$ref": "#/$defs/n",
             "$defs": {"n": {"type": "array", "items": {"$ref": "#/$defs/n"}}}},
            nested_list,
            1,
            id="defs",
        ),
        pytest.param(
            {"$id": "https://example.com/t", "$dynamicAnchor": "n", "type": "array",
             "items": {"$dynamicRef": "#n"}},
            nested_list,
            1,
            id="dynamicRef",
        ),
    ],
)  # fmt: skip
def test_moderately_deep_instances_through_applicators(
    schema: Any, make: Any, bad_leaf: Any
) -> None:
    validator = schemacore.compile(schema)
    assert validator.is_valid(make(MODERATE))
    assert list(validator.iter_errors(make(MODERATE))) == []
    assert not validator.is_valid(make(MODERATE, bad_leaf))


@pytest.mark.parametrize(
    ("schema", "make", "bad_leaf"),
    [
        pytest.param(
            {"anyOf": [{"type": "integer"}, {"type": "array", "items": {"$ref": "#"}}]},
            nested_list,
            "s",
            id="anyOf",
        ),
        pytest.param(
            {"oneOf": [{"type": "integer"}, {"type": "array", "items": {"$ref": "#"}}]},
            nested_list,
            "s",
            id="oneOf",
        ),
        pytest.param(
            {"allOf": [{"type": "array"}, {"items": {"$ref": "#"}}]}, nested_list, 1, id="allOf"
        ),
        pytest.param(
            {"properties": {"a": {"$ref": "#"}}, "unevaluatedProperties": False},
            nested_object,
            {"z": 1},
            id="unevaluatedProperties",
        ),
    ],
)
def test_errors_of_moderately_deep_instances(schema: Any, make: Any, bad_leaf: Any) -> None:
    errors = list(schemacore.compile(schema).iter_errors(make(MODERATE, bad_leaf)))
    assert errors
    # anyOf/oneOf report at their own level with the branches' errors in .context:
    # somewhere down that tree, an error must point at the innermost value.
    assert _deepest(errors) >= MODERATE - 1


def _deepest(errors: Any) -> int:
    depth = 0
    pending = list(errors)
    while pending:
        error = pending.pop()
        depth = max(depth, error.instance_location.count("/"))
        pending.extend(error.context)
    return depth


# -- failures inside branches propagate -----------------------------------------------

_DEEP_DEF = {"deep": {"items": {"$ref": "#/$defs/deep"}}}


@pytest.mark.parametrize(
    "schema",
    [
        pytest.param({"anyOf": [{"$ref": "#/$defs/deep"}, {"type": "array"}]}, id="anyOf-first"),
        pytest.param({"anyOf": [{"type": "string"}, {"$ref": "#/$defs/deep"}]}, id="anyOf-last"),
        pytest.param({"oneOf": [{"$ref": "#/$defs/deep"}, {"type": "string"}]}, id="oneOf"),
        pytest.param({"not": {"$ref": "#/$defs/deep"}}, id="not"),
        pytest.param({"if": {"$ref": "#/$defs/deep"}, "then": {"minItems": 9}}, id="if"),
        pytest.param({"contains": {"$ref": "#/$defs/deep"}}, id="contains"),
    ],
)
def test_execution_failure_in_a_branch_is_not_a_mismatch(schema: dict[str, Any]) -> None:
    # A branch that cannot finish must not be read as "this branch failed".
    validator = schemacore.compile({**schema, "$defs": _DEEP_DEF})
    assert_execution_failure(validator, nested_list(DEEP))


@pytest.mark.parametrize(
    "schema",
    [
        pytest.param({"anyOf": [{"items": {"type": "string"}}, {"type": "array"}]}, id="anyOf"),
        pytest.param({"oneOf": [{"items": {"type": "string"}}, {"type": "array"}]}, id="oneOf"),
        pytest.param({"not": {"items": {"type": "string"}}}, id="not"),
        pytest.param({"if": {"items": {"type": "string"}}, "then": {"minItems": 5}}, id="if"),
        pytest.param({"contains": {"type": "string"}}, id="contains"),
    ],
)
def test_non_json_value_in_a_branch_is_not_a_mismatch(schema: dict[str, Any]) -> None:
    assert_execution_failure(schemacore.compile(schema), [b"bytes"])


# -- values outside the JSON data model -----------------------------------------------

NON_JSON: list[Any] = [(1, 2), {1, 2}, frozenset(), b"x", bytearray(b"x"), object(), 1j]


@pytest.mark.parametrize("value", NON_JSON, ids=lambda v: type(v).__name__)
@pytest.mark.parametrize(
    ("schema", "wrap"),
    [
        ({"type": "string"}, lambda v: v),
        ({"minimum": 1}, lambda v: v),
        ({"enum": [1, "a"]}, lambda v: v),
        ({"const": [1]}, lambda v: v),
        ({"items": {"type": "integer"}}, lambda v: [1, v]),
        ({"properties": {"a": {"not": {"type": "null"}}}}, lambda v: {"a": v}),
        ({"additionalProperties": {"type": "object"}}, lambda v: {"z": v}),
        ({"uniqueItems": True}, lambda v: [v, v]),
    ],
    ids=["type", "minimum", "enum", "const", "items", "properties", "additional", "unique"],
)
def test_non_json_values_the_schema_looks_at_raise(schema: Any, wrap: Any, value: Any) -> None:
    assert_execution_failure(schemacore.compile(schema), wrap(value))


def test_subclasses_of_json_types_are_json() -> None:
    class Text(str):
        pass

    class Number(int):
        pass

    validator = schemacore.compile(
        {"type": "object", "properties": {"s": {"type": "string", "maxLength": 3},
                                          "n": {"type": "integer", "minimum": 2}}}
    )  # fmt: skip
    assert validator.is_valid(OrderedDict(s=Text("abc"), n=Number(2)))
    assert not validator.is_valid(OrderedDict(s=Text("abcd"), n=Number(2)))
    assert not validator.is_valid({"n": Number(1)})


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
@pytest.mark.parametrize(
    "schema",
    [{"type": "number"}, {"minimum": 0}, {"maximum": 0}, {"multipleOf": 2}, {"enum": [1]},
     {"type": "integer"}],
)  # fmt: skip
def test_non_finite_floats_raise(schema: Any, value: float) -> None:
    # NaN fails every comparison and inf passes some: either would give a silent answer.
    # (multipleOf once let a raw ValueError out of Fraction("inf").)
    assert_execution_failure(schemacore.compile(schema), value)
    assert_execution_failure(schemacore.compile({"items": schema}), [value])


@pytest.mark.parametrize(
    "schema",
    [
        pytest.param({"additionalProperties": False}, id="additional-false"),
        pytest.param({"additionalProperties": {"type": "integer"}}, id="additional-schema"),
        pytest.param(
            {"propertyNames": {"maxLength": 3}},
            id="propertyNames",
        ),
        pytest.param(
            {"propertyNames": False},
            id="propertyNames-false",
        ),
        pytest.param(
            {"patternProperties": {"^a": {}}},
            id="patternProperties",
        ),
        pytest.param(
            {"unevaluatedProperties": False},
            id="unevaluated-false",
        ),
        pytest.param(
            {"unevaluatedProperties": {"type": "string"}},
            id="unevaluated-schema",
        ),
    ],
)
def test_non_string_property_name_raises(schema: Any) -> None:
    # JSON object keys are strings; an int key is outside the data model wherever a
    # keyword looks at names, in every product (is_valid, iter_errors, validate).
    assert_execution_failure(schemacore.compile(schema), {1: "x"})


# -- limits ---------------------------------------------------------------------------


def test_max_subschemas_is_an_execution_failure() -> None:
    schema = {"properties": {str(i): {"type": "string"} for i in range(50)}}
    with pytest.raises(ExecutionFailure) as caught:
        schemacore.compile(schema, limits=schemacore.Limits(max_subschemas=10))
    assert caught.value.limit == "max_subschemas"
    schemacore.compile(schema, limits=schemacore.Limits(max_subschemas=100))


def test_limits_have_safe_defaults_and_are_frozen() -> None:
    limits = schemacore.Limits()
    assert limits.max_schema_depth > 0
    assert limits.max_subschemas > 0
    assert limits.max_instance_depth > 0
    with pytest.raises(AttributeError):
        limits.max_instance_depth = 1  # type: ignore[misc]


def test_max_instance_depth_is_enforced() -> None:
    validator = schemacore.compile(ITEMS_RECURSION, limits=schemacore.Limits(max_instance_depth=5))
    assert validator.is_valid(nested_list(3))
    with pytest.raises(ExecutionFailure) as caught:
        validator.is_valid(nested_list(10))
    assert caught.value.limit == "max_instance_depth"
    assert caught.value.value == 5
    with pytest.raises(ExecutionFailure):
        list(validator.iter_errors(nested_list(10)))


def nested_schema(depth: int) -> dict[str, Any]:
    schema: dict[str, Any] = {}
    for _ in range(depth):
        schema = {"items": schema}
    return schema


def test_excessively_deep_schema_fails_cleanly() -> None:
    with pytest.raises(SchemaCoreError):
        schemacore.compile(nested_schema(DEEP))


def test_max_schema_depth_is_an_execution_failure() -> None:
    with pytest.raises(ExecutionFailure) as caught:
        schemacore.compile(nested_schema(20), limits=schemacore.Limits(max_schema_depth=10))
    assert caught.value.limit == "max_schema_depth"


def test_schema_at_the_default_depth_limit_compiles() -> None:
    depth = schemacore.Limits().max_schema_depth
    validator = schemacore.compile(nested_schema(depth))
    assert validator.is_valid(nested_list(depth))
    with pytest.raises(SchemaCoreError):
        schemacore.compile(nested_schema(depth + 1))


def test_deep_schema_error_is_not_a_recursion_error() -> None:
    with pytest.raises(SchemaCoreError) as caught:
        schemacore.compile(nested_schema(20), limits=schemacore.Limits(max_schema_depth=10))
    assert not isinstance(caught.value, RecursionError)
