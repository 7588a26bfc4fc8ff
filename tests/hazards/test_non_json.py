"""Hazard: Python values outside the JSON data model.

The documented decision: NaN and infinities, non-string object keys, tuples, sets,
bytes and arbitrary objects make ``is_valid``, ``iter_errors`` and ``validate`` raise
ExecutionFailure with ``limit == "json_data_model"`` wherever validation reaches them
(a schema that never looks at a value, like ``{}``, does not see it). With
``Limits(max_instance_nodes=N)`` the whole instance is walked first, so such a value
anywhere raises, with its location. Never an internal traceback, never a plain answer
on one path and a failure on the other.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable
from decimal import Decimal
from enum import IntEnum
from typing import Any

import pytest

import schemacore
from schemacore import ExecutionFailure, Limits

from .support import CALLS, PATHS, Call, call_is_valid, call_iter_errors, expect_failure


class Opaque:
    """An arbitrary object."""


NON_JSON: dict[str, Any] = {
    "nan": float("nan"),
    "inf": float("inf"),
    "-inf": float("-inf"),
    "tuple": (1, 2),
    "empty-tuple": (),
    "set": {1, 2},
    "frozenset": frozenset({"a"}),
    "bytes": b"x",
    "bytearray": bytearray(b"x"),
    "object": Opaque(),
    "complex": 1j,
    "function": len,
    "type": int,
}
FLOATS = {"nan", "inf", "-inf"}

# Object keys JSON cannot have.
BAD_KEYS: dict[str, Any] = {
    "int": 1,
    "none": None,
    "tuple": (1, 2),
    "bytes": b"k",
    "float": 1.5,
    "bool": True,
}

# Schemas that look at the value they are applied to.
LOOKING: dict[str, Any] = {
    "type-string": {"type": "string"},
    "type-number": {"type": "number"},
    "type-integer": {"type": "integer"},
    "type-containers": {"type": ["array", "object"]},
    "type-null": {"type": "null"},
    "type-boolean": {"type": "boolean"},
    "minimum": {"minimum": 0},
    "multipleOf": {"multipleOf": 2},
    "maxLength": {"maxLength": 2},
    "minItems": {"minItems": 1},
    "required": {"required": ["a"]},
    "enum": {"enum": [1, "a", None]},
    "const": {"const": "a"},
    "not": {"not": {"type": "string"}},
    "anyOf": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
    "if": {"if": {"type": "string"}, "then": True, "else": False},
}

# (schema around a looking subschema S, where the value sits in the instance). The
# value comes first wherever order matters: is_valid stops at the first mismatch, so
# a value after it is not reached on that path (see the instance walk below).
NESTINGS: dict[str, tuple[Callable[[Any], Any], Callable[[Any], Any], str]] = {
    "items": (lambda s: {"items": s}, lambda v: [v, 1], "/0"),
    "prefixItems": (lambda s: {"prefixItems": [True, s]}, lambda v: [1, v], "/1"),
    "contains": (lambda s: {"contains": s}, lambda v: [v, 1], "/0"),
    "properties": (lambda s: {"properties": {"a": s}}, lambda v: {"a": v}, "/a"),
    "additionalProperties": (lambda s: {"additionalProperties": s}, lambda v: {"z": v}, "/z"),
    "patternProperties": (lambda s: {"patternProperties": {"^z": s}}, lambda v: {"z": v}, "/z"),
    "unevaluatedItems": (lambda s: {"unevaluatedItems": s}, lambda v: [v], "/0"),
    "unevaluatedProperties": (lambda s: {"unevaluatedProperties": s}, lambda v: {"b": v}, "/b"),
    "dependentSchemas": (
        lambda s: {"dependentSchemas": {"a": {"properties": {"a": s}}}},
        lambda v: {"a": v},
        "/a",
    ),
    "ref": (
        lambda s: {"$defs": {"s": s}, "properties": {"a": {"$ref": "#/$defs/s"}}},
        lambda v: {"a": v},
        "/a",
    ),
    "deep": (
        lambda s: {"properties": {"a": {"items": {"properties": {"b": s}}}}},
        lambda v: {"a": [{"b": v}]},
        "/a/0/b",
    ),
    "recursive": (
        lambda s: {"anyOf": [{"type": "array", "items": {"$ref": "#"}}, s]},
        lambda v: [[[v]]],
        "/0/0/0",
    ),
}

# Keywords that compare or inspect values as a whole, nested inside them.
WHOLE: dict[str, tuple[Any, Callable[[Any], Any]]] = {
    "uniqueItems": ({"uniqueItems": True}, lambda v: [1, v]),
    "enum": ({"enum": [[1, 2], {"a": 1}]}, lambda v: [1, v]),
    "const": ({"const": {"a": 1}}, lambda v: {"a": v}),
}

# Keywords that look at object keys.
KEY_LOOKING: dict[str, Any] = {
    "propertyNames": {"propertyNames": {"maxLength": 3}},
    "propertyNames-false": {"propertyNames": False},
    "additionalProperties": {"additionalProperties": {"type": "integer"}},
    "additionalProperties-false": {"properties": {"a": True}, "additionalProperties": False},
    "patternProperties": {"patternProperties": {"^a": {"type": "integer"}}},
    "unevaluatedProperties": {"unevaluatedProperties": False},
    "enum": {"enum": [{"1": "x"}, 1]},
    "const": {"const": {"1": "x"}},
    "nested": {"items": {"propertyNames": {"pattern": "^a"}}},
}


# -- values reached by the schema raise -----------------------------------------------


def looking_cases() -> list[Any]:
    cases = []
    for schema_id, schema in LOOKING.items():
        for value_id, value in NON_JSON.items():
            for call in CALLS:
                cases.append(
                    pytest.param(
                        schema,
                        value,
                        *call.values,
                        id=f"{schema_id}-{value_id}-{call.id}",
                    )
                )
    return cases


@pytest.mark.parametrize(("schema", "value", "call"), looking_cases())
def test_non_json_value_at_the_root_raises(schema: Any, value: Any, call: Call) -> None:
    failure = expect_failure(call, schemacore.compile(schema), value, limit="json_data_model")
    assert failure.location == ""


# A representative subset for the larger nesting matrix.
SAMPLE = ("nan", "-inf", "tuple", "frozenset", "bytearray", "object", "function")


def nested_cases() -> list[Any]:
    cases = []
    for nesting, (wrap, place, _) in NESTINGS.items():
        for schema_id in ("type-string", "minimum", "enum", "not"):
            for value_id in SAMPLE:
                value = NON_JSON[value_id]
                for call in CALLS:
                    cases.append(
                        pytest.param(
                            wrap(LOOKING[schema_id]),
                            place(value),
                            *call.values,
                            id=f"{nesting}-{schema_id}-{value_id}-{call.id}",
                        )
                    )
    return cases


@pytest.mark.parametrize(("schema", "instance", "call"), nested_cases())
def test_non_json_value_nested_raises(schema: Any, instance: Any, call: Call) -> None:
    expect_failure(call, schemacore.compile(schema), instance, limit="json_data_model")


@pytest.mark.parametrize("nesting", list(NESTINGS))
def test_non_json_value_nested_is_located(nesting: str) -> None:
    wrap, place, location = NESTINGS[nesting]
    validator = schemacore.compile(wrap({"minimum": 0}))
    failure = expect_failure(call_iter_errors, validator, place(b"x"), limit="json_data_model")
    assert failure.location == location


def whole_cases() -> list[Any]:
    cases = []
    for schema_id, (schema, place) in WHOLE.items():
        for value_id, value in NON_JSON.items():
            for call in CALLS:
                cases.append(
                    pytest.param(
                        schema,
                        place(value),
                        *call.values,
                        id=f"{schema_id}-{value_id}-{call.id}",
                    )
                )
    return cases


@pytest.mark.parametrize(("schema", "instance", "call"), whole_cases())
def test_non_json_value_compared_whole_raises(schema: Any, instance: Any, call: Call) -> None:
    expect_failure(call, schemacore.compile(schema), instance, limit="json_data_model")


def key_cases() -> list[Any]:
    cases = []
    for schema_id, schema in KEY_LOOKING.items():
        for key_id, key in BAD_KEYS.items():
            instance: Any = {key: 1, "a": 1}
            if schema_id in ("enum", "const"):
                instance = {key: "x"}  # same size as the expected object: keys compared
            elif schema_id == "nested":
                instance = [{"a": 1}, instance]
            for call in CALLS:
                cases.append(
                    pytest.param(
                        schema,
                        instance,
                        *call.values,
                        id=f"{schema_id}-{key_id}-{call.id}",
                    )
                )
    return cases


@pytest.mark.parametrize(("schema", "instance", "call"), key_cases())
def test_non_string_key_raises(schema: Any, instance: Any, call: Call) -> None:
    failure = expect_failure(call, schemacore.compile(schema), instance, limit="json_data_model")
    assert "key" in failure.message


# -- the instance walk (max_instance_nodes) finds them anywhere -----------------------

WALK = Limits(max_instance_nodes=10_000)

PLACES: dict[str, tuple[Callable[[Any], Any], str]] = {
    "root": (lambda v: v, ""),
    "item": (lambda v: [1, 2, v], "/2"),
    "member": (lambda v: {"a": v}, "/a"),
    "deep": (lambda v: {"a": [{"b": [None, {"c~/": v}]}]}, "/a/0/b/1/c~0~1"),
}


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("value_id", SAMPLE)
@pytest.mark.parametrize("schema", [{}, True, {"items": False}], ids=["empty", "true", "items"])
def test_instance_walk_finds_non_json_values_anywhere(
    schema: Any, value_id: str, place: str, call: Call
) -> None:
    wrap, location = PLACES[place]
    validator = schemacore.compile(schema, limits=WALK)
    failure = expect_failure(call, validator, wrap(NON_JSON[value_id]), limit="json_data_model")
    assert failure.location == location


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("key_id", BAD_KEYS)
def test_instance_walk_finds_non_string_keys_anywhere(key_id: str, call: Call) -> None:
    validator = schemacore.compile({}, limits=WALK)
    instance = {"a": [{"b": {BAD_KEYS[key_id]: 1}}]}
    failure = expect_failure(call, validator, instance, limit="json_data_model")
    assert failure.location == "/a/0/b"
    assert "key" in failure.message


@pytest.mark.parametrize(
    ("schema", "instance"),
    [
        pytest.param({"items": {"type": "string"}}, [1, b"x"], id="items"),
        pytest.param({"contains": {"minimum": 0}}, [1, b"x"], id="contains"),
        pytest.param({"maxItems": 1, "items": {"type": "integer"}}, [1, b"x"], id="maxItems"),
        pytest.param(
            {"allOf": [{"type": "string"}, {"items": {"type": "integer"}}]}, [b"x"], id="allOf"
        ),
        pytest.param(
            {"required": ["z"], "properties": {"a": {"type": "integer"}}},
            {"a": b"x"},
            id="required",
        ),
    ],
)
def test_instance_walk_makes_both_paths_agree(schema: Any, instance: Any) -> None:
    # Without the walk, is_valid may stop at an earlier mismatch (or an early contains
    # match) before it reaches the value that iter_errors goes on to find.
    validator = schemacore.compile(schema, limits=WALK)
    for call in PATHS:
        expect_failure(call, validator, instance, limit="json_data_model")


def test_instance_walk_counts_nodes() -> None:
    validator = schemacore.compile({}, limits=Limits(max_instance_nodes=100))
    assert validator.is_valid(list(range(99)))
    for call in PATHS:
        failure = expect_failure(call, validator, list(range(100)), limit="max_instance_nodes")
        assert failure.value == 100


def test_huge_flat_instance_is_refused_quickly_by_the_walk() -> None:
    validator = schemacore.compile({}, limits=Limits(max_instance_nodes=1000))
    for instance in (list(range(1_000_000)), {str(i): i for i in range(1_000_000)}):
        failure = expect_failure(
            call_is_valid, validator, instance, limit="max_instance_nodes", bound=0.25
        )
        assert failure.value == 1000


# -- what is not reached is not seen; messages are clear ------------------------------


@pytest.mark.parametrize("value_id", NON_JSON)
def test_schemas_that_do_not_look_do_not_see(value_id: str) -> None:
    value = NON_JSON[value_id]
    for schema in ({}, True):
        validator = schemacore.compile(schema)
        assert validator.is_valid(value)
        assert list(validator.iter_errors(value)) == []
    # A sibling that is never reached: the property "b" is not constrained.
    validator = schemacore.compile({"properties": {"a": {"type": "integer"}}})
    assert validator.is_valid({"a": 1, "b": value})


@pytest.mark.parametrize("value_id", sorted(set(NON_JSON) - FLOATS))
def test_message_names_the_offending_type(value_id: str) -> None:
    value = NON_JSON[value_id]
    validator = schemacore.compile({"type": "string"})
    with pytest.raises(ExecutionFailure) as caught:
        validator.is_valid(value)
    message = str(caught.value)
    assert type(value).__name__ in message
    assert "JSON" in message
    assert "Traceback" not in message


@pytest.mark.parametrize("value_id", sorted(FLOATS))
def test_message_names_the_float(value_id: str) -> None:
    value = NON_JSON[value_id]
    with pytest.raises(ExecutionFailure) as caught:
        schemacore.compile({"type": "number"}).is_valid(value)
    assert repr(value) in str(caught.value)
    assert "JSON" in str(caught.value)


def test_failure_is_not_a_python_type_error_in_disguise() -> None:
    # The error chain must not expose an internal TypeError/ValueError as the cause.
    for schema, value in (
        ({"multipleOf": 3}, math.inf),
        ({"maxLength": 1}, b"x"),
        ({"patternProperties": {"a": {}}}, {b"a": 1}),
    ):
        with pytest.raises(ExecutionFailure) as caught:
            schemacore.compile(schema).is_valid(value)
        assert not isinstance(caught.value.__cause__, (TypeError, ValueError))


# -- JSON values in other Python clothes are JSON -------------------------------------


class Text(str):
    pass


class Count(int):
    pass


class Level(IntEnum):
    LOW = 1


def test_subclasses_of_json_types_are_json() -> None:
    validator = schemacore.compile(
        {
            "type": "object",
            "properties": {
                "s": {"type": "string", "maxLength": 3},
                "n": {"type": "integer", "minimum": 1},
                "l": {"enum": [1]},
            },
            "required": ["s", "n", "l"],
        }
    )
    good = OrderedDict(s=Text("abc"), n=Count(2), l=Level.LOW)
    assert validator.is_valid(good)
    assert list(validator.iter_errors(good)) == []
    assert not validator.is_valid(OrderedDict(s=Text("abcd"), n=Count(2), l=1))


def test_integral_floats_and_big_integers_are_json() -> None:
    validator = schemacore.compile({"type": "integer", "minimum": 0})
    assert validator.is_valid(2.0)
    assert validator.is_valid(10**400)
    assert not validator.is_valid(-(10**400))
    assert not validator.is_valid(2.5)


def test_decimal_is_answered_or_refused_consistently() -> None:
    # Not in the documented list: whatever the answer, both paths agree.
    validator = schemacore.compile({"type": "number", "minimum": 1})
    try:
        valid: Any = validator.is_valid(Decimal("1.5"))
    except ExecutionFailure as exc:
        valid = exc.limit
    try:
        errors: Any = not list(validator.iter_errors(Decimal("1.5")))
    except ExecutionFailure as exc:
        errors = exc.limit
    assert valid == errors
