"""ValidationError.params: what each keyword checked and measured, for machines."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import pytest

import schemacore

CASES: list[tuple[dict[str, Any], Any, str, dict[str, Any]]] = [
    ({"type": "string"}, 3, "type", {"type": ["string"], "actual": "number"}),
    ({"type": ["integer", "null"]}, 1.5, "type", {"type": ["integer", "null"], "actual": "number"}),
    ({"const": 1}, 2, "const", {"const": 1}),
    ({"enum": ["a", "b"]}, "c", "enum", {"enum": ["a", "b"]}),
    ({"multipleOf": 3}, 4, "multipleOf", {"multipleOf": 3}),
    ({"minimum": 3}, 2, "minimum", {"minimum": 3}),
    ({"exclusiveMaximum": 3}, 3, "exclusiveMaximum", {"exclusiveMaximum": 3}),
    ({"maxLength": 2}, "abc", "maxLength", {"maxLength": 2, "length": 3}),
    ({"minItems": 2}, [1], "minItems", {"minItems": 2, "count": 1}),
    ({"maxProperties": 0}, {"a": 1}, "maxProperties", {"maxProperties": 0, "count": 1}),
    ({"pattern": "^a"}, "b", "pattern", {"pattern": "^a"}),
    ({"uniqueItems": True}, [1, 2, 1], "uniqueItems", {"uniqueItems": True, "duplicates": [0, 2]}),
    ({"required": ["a", "b"]}, {"a": 1}, "required", {"required": ["a", "b"], "missing": ["b"]}),
    (
        {"dependentRequired": {"a": ["b"]}},
        {"a": 1},
        "dependentRequired",
        {"property": "a", "missing": ["b"]},
    ),
    (
        {"additionalProperties": False, "properties": {"a": {}}},
        {"a": 1, "x": 2},
        "additionalProperties",
        {"additionalProperties": False, "unexpected": ["x"]},
    ),
    (
        {"unevaluatedItems": False},
        [1],
        "unevaluatedItems",
        {"unevaluatedItems": False, "unexpected": [0]},
    ),
    ({"contains": {"type": "string"}}, [1], "contains", {"matched": 0}),
    (
        {"contains": {"type": "string"}, "minContains": 2},
        ["a"],
        "minContains",
        {"minContains": 2, "matched": 1},
    ),
    ({"oneOf": [{}, {}]}, 1, "oneOf", {"matched": [0, 1]}),
    ({"anyOf": [{"type": "string"}]}, 1, "anyOf", {"matched": []}),
    ({"format": "email"}, "nope", "format", {"format": "email"}),
]


@pytest.mark.parametrize(("schema", "instance", "keyword", "params"), CASES)
def test_each_keyword_reports_its_params(
    schema: dict[str, Any], instance: Any, keyword: str, params: dict[str, Any]
) -> None:
    validator = schemacore.compile(schema, format_assertion=True)
    errors = [error for error in validator.iter_errors(instance) if error.keyword == keyword]
    assert errors, f"no {keyword} error"
    assert errors[0].params == params


def test_draft_04_exclusive_maximum_reports_its_schema_value() -> None:
    schema = {
        "$schema": "http://json-schema.org/draft-04/schema#",
        "maximum": 3,
        "exclusiveMaximum": True,
    }
    (error,) = schemacore.compile(schema).iter_errors(3)
    assert error.params == {"maximum": 3}


def test_params_survive_pickling_and_copies() -> None:
    (error,) = schemacore.compile({"maxLength": 1}).iter_errors("ab")
    for other in (pickle.loads(pickle.dumps(error)), copy.copy(error), copy.deepcopy(error)):
        assert other.params == {"maxLength": 1, "length": 2}


def test_a_hand_made_error_has_empty_params() -> None:
    error = schemacore.ValidationError(
        "m",
        keyword="k",
        instance_location="",
        keyword_location="",
        absolute_keyword_location="",
        instance=1,
    )
    assert error.params == {}
