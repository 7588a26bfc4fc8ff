"""Integers too long for Python to write as text (``sys.get_int_max_str_digits``):
valid JSON numbers in principle, but a message that quotes one must not raise."""

from __future__ import annotations

from typing import Any

import pytest

import schemacore
from schemacore import runtime

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
]


@pytest.mark.parametrize("schema", SCHEMAS)
@pytest.mark.parametrize(
    "instance", [HUGE, -HUGE, [HUGE], {"a": HUGE}], ids=["huge", "-huge", "[huge]", "{a: huge}"]
)
def test_every_path_answers_for_a_huge_integer(schema: Any, instance: Any) -> None:
    validator = schemacore.compile(schema)
    errors = list(validator.iter_errors(instance))
    assert validator.is_valid(instance) is (not errors)
    assert validator.evaluate(instance).valid is (not errors)
    for error in errors:
        assert len(error.message) < 300


def test_the_message_describes_the_integer_by_its_size() -> None:
    (error,) = schemacore.compile({"maximum": 5}).iter_errors(HUGE)
    assert error.message == "an integer of about 5001 digits is greater than the maximum 5"


def test_tool_arguments_refuse_an_integer_no_json_text_could_hold() -> None:
    tool = runtime.validate_schema({"type": "object"})
    result = runtime.validate_tool_args({"n": HUGE}, tool)
    assert not result.ok and result.issues[0].code == "arguments-value-not-json"
    assert runtime.validate_tool_args({"n": 10**4000}, tool).ok
