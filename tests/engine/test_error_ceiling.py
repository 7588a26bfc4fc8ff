"""The error ceiling (schemacore.ceiling) and ``validate()`` stopping once it is met.

A node's ceiling is the greatest relevance (depth below its value, then not weak) of
an error it can yield; ``validate`` stops reading errors at the first one that
reaches it. The property tests (tests/properties) and the suite check that the
answer is the one ``best_match`` gives over every error; these pin the bounds and
show that reading stops.
"""

from __future__ import annotations

from typing import Any

import pytest

import schemacore
from schemacore.ceiling import NO_ERRORS, UNBOUNDED, error_ceiling
from schemacore.relevance import relevance

ROWS = {
    "type": "object",
    "properties": {
        "rows": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"id": {"type": "integer"}},
                "required": ["id"],
            },
        }
    },
}


@pytest.mark.parametrize(
    ("schema", "ceiling"),
    [
        (True, NO_ERRORS),
        ({}, NO_ERRORS),
        ({"title": "annotations only"}, NO_ERRORS),
        (False, (0, 0)),
        ({"type": "string"}, (0, 1)),
        ({"type": "array", "items": {"type": "integer"}}, (1, 1)),
        ({"items": False}, (1, 0)),
        (ROWS, (3, 1)),
        # anyOf/oneOf sum their branches up in one weak error of their own...
        ({"anyOf": [{"type": "string"}, {"items": {"type": "integer"}}]}, (0, 0)),
        ({"items": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}, (1, 0)),
        # ... not and contains in one that is not weak; if yields none of its own.
        ({"not": {"items": {"type": "integer"}}}, (0, 1)),
        ({"contains": {"properties": {"a": {"type": "string"}}}}, (0, 1)),
        ({"if": {"items": {"type": "integer"}}, "then": {"maxItems": 1}}, (0, 1)),
        ({"if": True, "else": {"items": {"type": "integer"}}}, (1, 1)),
        # In place: allOf, dependentSchemas, references (which follow their target).
        ({"allOf": [{"properties": {"a": {"items": {"type": "string"}}}}]}, (2, 1)),
        ({"dependentSchemas": {"a": {"properties": {"a": {"type": "string"}}}}}, (1, 1)),
        ({"$ref": "#/$defs/n", "$defs": {"n": {"items": {"type": "string"}}}}, (1, 1)),
        # $defs are applied only through references.
        ({"type": "object", "$defs": {"n": {"items": {"type": "string"}}}}, (0, 1)),
        # A name, or decoded content, adds no level of its own.
        ({"propertyNames": {"maxLength": 2}}, (0, 1)),
        # additionalProperties: false is one error at the object, but its subschema
        # (false) is counted as any other: an upper bound need not be tight.
        ({"additionalProperties": False}, (1, 0)),
        ({"unevaluatedItems": {"type": "string"}}, (1, 1)),
        ({"prefixItems": [{"properties": {"a": {"type": "string"}}}]}, (2, 1)),
        # A cycle: no bound.
        ({"items": {"$ref": "#"}}, (UNBOUNDED, 1)),
    ],
)
def test_ceilings_follow_the_keywords(schema: Any, ceiling: tuple[int, int]) -> None:
    assert error_ceiling(schemacore.compile(schema)._node) == ceiling


def test_older_drafts_follow_their_own_keywords() -> None:
    legacy = {"items": [{"type": "string"}], "additionalItems": {"items": {"type": "string"}}}
    assert error_ceiling(schemacore.compile(legacy, default_dialect="draft-07")._node) == (2, 1)
    content = {"contentMediaType": "application/json", "contentSchema": {"required": ["a"]}}
    assert error_ceiling(schemacore.compile(content, content_assertion=True)._node) == (0, 1)


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "array", "items": {"type": "string", "format": "counted"}},
        {"type": "array", "items": {"anyOf": [{"format": "counted"}, {"type": "integer"}]}},
        {"type": "object", "properties": {"a": {"items": {"format": "counted"}}}},
    ],
)
def test_validate_stops_reading_errors_once_the_answer_is_known(schema: Any) -> None:
    # Every item fails; a checker that counts its calls shows how much was read.
    calls = [0]

    def counted(value: str) -> bool:
        calls[0] += 1
        return False

    validator = schemacore.compile(schema, format_assertion=True, formats={"counted": counted})
    items = ["x"] * 10_000
    instance = {"a": items} if "properties" in schema else items
    with pytest.raises(schemacore.ValidationError) as caught:
        validator.validate(instance)
    assert calls[0] < 10, "validate read more errors than its first"
    drained = schemacore.best_match(validator.iter_errors(instance))
    assert drained is not None
    assert (caught.value.instance_location, caught.value.keyword_location) == (
        drained.instance_location,
        drained.keyword_location,
    )


def test_validate_reads_on_while_a_more_relevant_error_may_follow() -> None:
    # The first error (depth 1) is below the ceiling (2): the deeper one comes later.
    schema = {"items": {"type": "object", "properties": {"a": {"type": "string"}}}}
    instance = [1, 2, {"a": 3}, {"a": 4}]
    with pytest.raises(schemacore.ValidationError) as caught:
        schemacore.compile(schema).validate(instance)
    assert caught.value.instance_location == "/2/a"
    # And the first among equals stays, as with best_match.
    validator = schemacore.compile(ROWS)
    rows = {"rows": [{"id": "x"}, {"id": "y"}]}
    with pytest.raises(schemacore.ValidationError) as caught:
        validator.validate(rows)
    assert caught.value.instance_location == "/rows/0/id"


def test_no_error_is_more_relevant_than_its_ceiling() -> None:
    validator = schemacore.compile(ROWS)
    instance = {"rows": [{"id": "x"}, {}, 3, {"id": 1.5}]}
    ceiling = error_ceiling(validator._node)
    errors = list(validator.iter_errors(instance))
    assert errors and all(relevance(error) <= ceiling for error in errors)
    assert max(relevance(error) for error in errors) == ceiling
