"""Compile-time checks that the compiler may answer without walking the schema.

Compiler.check_progress skips its loop search and in-place fan-out count when no
edge closes a cycle and the root's evaluation paths are within the limit. These
tests hold it to what the full walks (which a cycle anywhere forces) answer.
"""

from __future__ import annotations

from typing import Any

import pytest

import schemacore
from schemacore import ExecutionFailure, Limits, SchemaError


def fan_out(levels: int) -> dict[str, Any]:
    """Each level applies the next one twice in place."""
    defs: dict[str, Any] = {
        f"d{i}": {"allOf": [{"$ref": f"#/$defs/d{i + 1}"}, {"$ref": f"#/$defs/d{i + 1}"}]}
        for i in range(levels)
    }
    defs[f"d{levels}"] = {"type": "integer"}
    return {"$defs": defs, "$ref": "#/$defs/d0"}


def with_a_cycle(schema: dict[str, Any]) -> dict[str, Any]:
    """The same schema and an unrelated recursive property: the full walks run."""
    return {
        **schema,
        "properties": {"tree": {"$ref": "#/$defs/tree"}},
        "$defs": {**schema["$defs"], "tree": {"items": {"$ref": "#/$defs/tree"}}},
    }


def outcome(schema: Any, limit: int) -> tuple[str, str] | None:
    try:
        schemacore.compile(schema, limits=Limits(max_inplace_applications=limit))
    except ExecutionFailure as failure:
        assert failure.limit == "max_inplace_applications"
        return str(failure), failure.location
    return None


@pytest.mark.parametrize("levels", [1, 3, 5])
def test_in_place_fan_out_is_found_with_or_without_a_cycle(levels: int) -> None:
    plain = fan_out(levels)
    cyclic = with_a_cycle(plain)
    # The applications of one value, counted as check_progress does: each level is
    # its node, its allOf's two reference nodes and twice the next level.
    applications = 1
    for _ in range(levels):
        applications = 1 + 2 * (1 + applications)
    applications += 1  # the root, a reference to d0
    found = []
    for limit in range(applications - 3, applications + 3):
        result = outcome(plain, limit)
        assert result == outcome(cyclic, limit)
        found.append(result is not None)
    # Refused below the count, accepted from it on.
    assert found == [True, True, True, False, False, False]


def test_a_reference_loop_is_found_whatever_the_paths() -> None:
    schema = {
        "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"allOf": [{"$ref": "#/$defs/a"}]}},
        "$ref": "#/$defs/a",
    }
    with pytest.raises(schemacore.SchemaError, match="reference loop without progress"):
        schemacore.compile(schema)
    with pytest.raises(schemacore.SchemaError, match="reference loop without progress"):
        schemacore.compile(schema, limits=Limits(max_inplace_applications=10**9))


@pytest.mark.parametrize(
    ("schema", "location"),
    [
        ({"maximum": float("inf")}, "/maximum"),
        ({"properties": {"a": {"minimum": float("nan")}}}, "/properties/a/minimum"),
        ({"allOf": [{"type": "string"}, (1,)]}, "/allOf/1"),
        ({"properties": {1: True}}, "/properties"),
        # Values the meta-schema does not look inside: the keyword compiler refuses.
        ({"const": float("nan")}, "/const"),
        ({"properties": {"a": {"enum": [1, (1, 2)]}}}, "/properties/a/enum"),
        ({"const": {"a": {1, 2}}}, "/const"),
    ],
)
def test_a_schema_outside_the_json_data_model_is_a_schema_error(
    schema: dict[Any, Any], location: str
) -> None:
    # Not a limit (ExecutionFailure) and not "the instance": the schema is not JSON.
    with pytest.raises(SchemaError) as caught:
        schemacore.compile(schema)
    assert caught.value.location == location
    assert "the instance" not in str(caught.value)
