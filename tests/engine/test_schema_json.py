"""A schema is JSON in every keyword position: the rule ``compile`` enforces.

NaN and infinities (floats or Decimals, sNaN included), and every other value
outside the JSON data model, are refused wherever they are: in an assertion's value,
which the meta-schema reads, and in the values no meta-schema reads (``default``,
``examples``, ``const``, ``enum``, unknown keywords), whose annotations outputs write
as JSON. Finite Decimals, integers of any size, -0.0 and 1e308 are JSON numbers.
"""

from __future__ import annotations

import time
from decimal import Decimal
from typing import Any

import pytest

import schemacore
from schemacore import SchemaError

D4 = "http://json-schema.org/draft-04/schema#"
D7 = "http://json-schema.org/draft-07/schema#"
D2019 = "https://json-schema.org/draft/2019-09/schema"

NOT_JSON_NUMBERS: dict[str, Any] = {
    "nan": float("nan"),
    "inf": float("inf"),
    "-inf": float("-inf"),
    "Decimal-NaN": Decimal("NaN"),
    "Decimal-sNaN": Decimal("sNaN"),
    "Decimal-Infinity": Decimal("Infinity"),
    "Decimal--Infinity": Decimal("-Infinity"),
}

# Schemas with the number (N) in one position, and the pointer to it.
POSITIONS: dict[str, tuple[Any, str]] = {
    # Assertions, whose values the meta-schema reads.
    "maximum": ({"maximum": "N"}, "/maximum"),
    "multipleOf": ({"multipleOf": "N"}, "/multipleOf"),
    "minLength": ({"minLength": "N"}, "/minLength"),
    "draft-04-maximum": ({"$schema": D4, "maximum": "N"}, "/maximum"),
    # Annotations, and values no meta-schema reads.
    "default": ({"type": "number", "default": "N"}, "/default"),
    "default-nested": ({"default": {"a": [1, "N"]}}, "/default/a/1"),
    "examples": ({"examples": [1, "N"]}, "/examples/1"),
    "draft-07-examples": ({"$schema": D7, "examples": ["N"]}, "/examples/0"),
    "draft-04-examples": ({"$schema": D4, "examples": ["N"]}, "/examples/0"),
    "const": ({"const": "N"}, "/const"),
    "draft-04-const": ({"$schema": D4, "const": {"a": "N"}}, "/const/a"),
    "enum": ({"enum": [1, ["N"]]}, "/enum/1/0"),
    "unknown-keyword": ({"x-unit": "N"}, "/x-unit"),
    "unknown-keyword-nested": ({"x-unit": [{"a": "N"}]}, "/x-unit/0/a"),
    "2019-09-unknown-keyword": ({"$schema": D2019, "x-unit": "N"}, "/x-unit"),
    # Deeper in the schema: a subschema, a definition nothing refers to.
    "in-properties": ({"properties": {"p": {"default": "N"}}}, "/properties/p/default"),
    "in-items-array": ({"$schema": D7, "items": [{}, {"const": "N"}]}, "/items/1/const"),
    "unreferenced": ({"$defs": {"d": {"default": "N"}}}, "/$defs/d/default"),
}


def put(schema: Any, value: Any) -> Any:
    """``schema`` with ``value`` in place of the marker "N"."""
    if schema == "N":
        return value
    if isinstance(schema, dict):
        return {key: put(member, value) for key, member in schema.items()}
    if isinstance(schema, list):
        return [put(item, value) for item in schema]
    return schema


@pytest.mark.parametrize("number", NOT_JSON_NUMBERS)
@pytest.mark.parametrize("position", POSITIONS)
def test_a_non_json_number_is_refused_in_every_keyword_position(position: str, number: str) -> None:
    template, location = POSITIONS[position]
    with pytest.raises(SchemaError) as caught:
        schemacore.compile(put(template, NOT_JSON_NUMBERS[number]))
    assert caught.value.reason == "not-json"
    assert caught.value.location == location
    assert "the instance" not in caught.value.message


JSON_NUMBERS: dict[str, Any] = {
    "Decimal": Decimal("1.5"),
    "Decimal-exponent": Decimal("1E+400"),
    "Decimal-negative-zero": Decimal("-0"),
    "huge-integer": 10**5000,
    "negative-zero": -0.0,
    "largest-float": 1e308,
    "smallest-float": 5e-324,
}
ANNOTATIONS = [p for p in POSITIONS if p not in ("maximum", "multipleOf", "minLength")]


@pytest.mark.parametrize("number", JSON_NUMBERS)
@pytest.mark.parametrize("position", [*ANNOTATIONS, "maximum"])
def test_a_json_number_compiles_in_every_annotation_position(position: str, number: str) -> None:
    template, _ = POSITIONS[position]
    schemacore.compile(put(template, JSON_NUMBERS[number]))


def test_a_document_from_the_registry_is_held_to_the_same_rule() -> None:
    registry = {"https://example.com/r": {"default": float("nan")}}
    with pytest.raises(SchemaError) as caught:
        schemacore.compile({"$ref": "https://example.com/r"}, registry=registry)
    assert caught.value.reason == "not-json"
    assert caught.value.location == "/default"
    assert "https://example.com/r" in caught.value.message


@pytest.mark.parametrize(
    ("value", "location"),
    [
        pytest.param((1, 2), "/default", id="tuple"),
        pytest.param({1, 2}, "/default", id="set"),
        pytest.param(b"x", "/default", id="bytes"),
        pytest.param({"a": {1: "x"}}, "/default/a", id="non-string-key"),
        pytest.param([object()], "/default/0", id="object"),
    ],
)
def test_other_non_json_values_in_annotations_are_refused(value: Any, location: str) -> None:
    with pytest.raises(SchemaError) as caught:
        schemacore.compile({"default": value})
    assert caught.value.reason == "not-json"
    assert caught.value.location == location


def test_an_annotation_value_holding_itself_is_refused() -> None:
    looped: list[Any] = [1]
    looped.append({"again": looped})
    with pytest.raises(SchemaError) as caught:
        schemacore.compile({"examples": looped})
    assert caught.value.reason == "not-json"
    assert caught.value.location == "/examples/1/again"


def test_a_value_shared_at_every_level_is_read_once() -> None:
    # 2**200 paths through 200 distinct lists: the rule reads each list once.
    shared: Any = [1.5]
    for _ in range(200):
        shared = [shared, shared]
    started = time.perf_counter()
    schemacore.compile({"default": shared, "x-also": shared})
    assert time.perf_counter() - started < 5
    shared = [float("nan")]
    for _ in range(200):
        shared = [shared, shared]
    with pytest.raises(SchemaError) as caught:
        schemacore.compile({"default": shared})
    assert caught.value.location == "/default" + "/1" * 200 + "/0"


HUGE = 10**5000


@pytest.mark.parametrize(
    ("schema", "instance"),
    [
        pytest.param({"minItems": HUGE}, [1], id="minItems"),
        pytest.param({"minLength": HUGE}, "x", id="minLength"),
        pytest.param({"minProperties": HUGE}, {}, id="minProperties"),
        pytest.param({"contains": {}, "minContains": HUGE}, [1], id="minContains"),
        pytest.param({"$schema": D4, "minItems": HUGE}, [1], id="draft-04-minItems"),
    ],
)
def test_a_count_longer_than_python_writes_is_described_in_messages(
    schema: Any, instance: Any
) -> None:
    validator = schemacore.compile(schema)
    (error,) = validator.iter_errors(instance)
    assert error.message.endswith("an integer of about 5001 digits")
    evaluation = validator.evaluate(instance)
    for fmt in ("basic", "detailed", "verbose", "list", "hierarchical"):
        assert "".join(evaluation.iter_json(fmt))
