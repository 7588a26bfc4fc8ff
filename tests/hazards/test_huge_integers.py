"""Integers too long for Python to write as text (``sys.get_int_max_str_digits``):
valid JSON numbers in principle, but a message that quotes one must not raise."""

from __future__ import annotations

from typing import Any

import pytest

import schemacore
from schemacore import runtime

from .support import warmed

HUGE = 10**5000

SCHEMAS: list[Any] = [
    {"type": "string"},
    {"maximum": 5},
    {"exclusiveMinimum": 5},
    {"multipleOf": 0.5},
    {"multipleOf": 3},
    {"enum": [1, 2]},
    {"const": 1},
    {"items": {"maximum": 1}},
    {"anyOf": [{"type": "string"}, {"maximum": 1}]},
    {"not": {"type": "integer"}},
    # The integer inside the schema's own values, which messages quote.
    {"const": [HUGE]},
    {"const": {"a": [1, -HUGE]}},
    {"enum": [{"a": HUGE}, 1]},
    {"enum": [1, [HUGE], "x"]},
    {"items": {"const": [HUGE]}},
    {"anyOf": [{"const": [HUGE]}, {"enum": [[HUGE, 2]]}]},
    {"uniqueItems": True, "type": "string"},
]


@pytest.mark.parametrize("schema", SCHEMAS)
@pytest.mark.parametrize(
    "instance",
    [HUGE, -HUGE, [HUGE], {"a": HUGE}, [1], {"a": [HUGE, HUGE]}],
    ids=["huge", "-huge", "[huge]", "{a: huge}", "[1]", "{a: [huge, huge]}"],
)
def test_every_path_answers_for_a_huge_integer(schema: Any, instance: Any) -> None:
    validator = schemacore.compile(schema)
    errors = list(validator.iter_errors(instance))
    assert validator.is_valid(instance) is (not errors)
    assert warmed(schemacore.compile(schema)).is_valid(instance) is (not errors)
    evaluation = validator.evaluate(instance)
    assert evaluation.valid is (not errors)
    for fmt in ("basic", "detailed", "verbose"):
        evaluation.output(fmt)
    if errors:
        with pytest.raises(schemacore.ValidationError) as caught:
            validator.validate(instance)
        assert len(caught.value.message) < 300
    for error in errors:
        assert len(error.message) < 300
        assert str(error) and repr(error)


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        ({"const": [HUGE]}, "the value must be [an integer of about 5001 digits]"),
        (
            {"enum": [{"a": -HUGE}]},
            "the value must be one of: {'a': an integer of about 5001 digits}",
        ),
    ],
)
def test_a_huge_integer_inside_a_quoted_value_is_described_by_its_size(
    schema: Any, message: str
) -> None:
    validator = schemacore.compile(schema)
    (error,) = validator.iter_errors([1])
    assert error.message == message
    with pytest.raises(schemacore.ValidationError) as caught:
        validator.validate([1])
    assert caught.value.message == message
    assert validator.evaluate([1]).output("basic")["errors"][0]["error"] == message


def test_the_message_describes_the_integer_by_its_size() -> None:
    (error,) = schemacore.compile({"maximum": 5}).iter_errors(HUGE)
    assert error.message == "an integer of about 5001 digits is greater than the maximum 5"


def test_tool_arguments_refuse_an_integer_no_json_text_could_hold() -> None:
    tool = runtime.validate_schema({"type": "object"})
    result = runtime.validate_tool_args({"n": HUGE}, tool)
    assert not result.ok and result.issues[0].code == "arguments-value-not-json"
    assert runtime.validate_tool_args({"n": 10**4000}, tool).ok
