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


LOOP = {"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"allOf": [{"$ref": "#/$defs/a"}]}}}


def _takes_the_loop(validator: schemacore.Validator, instance: Any) -> list[str]:
    """The reasons of the failures of every path that runs ``instance``."""
    reasons = []
    for run in (
        validator.is_valid,
        lambda x: list(validator.iter_errors(x)),
        lambda x: validator.evaluate(x).valid,
    ):
        with pytest.raises(schemacore.ExecutionFailure) as caught:
            run(instance)
        assert caught.value.error_class == "execution_failure"
        reasons.append(caught.value.reason)
    return reasons


def test_a_reference_loop_fails_closed_when_it_runs_whatever_the_paths() -> None:
    schema = {**LOOP, "$ref": "#/$defs/a"}
    for limits in (None, Limits(max_inplace_applications=10**9)):
        validator = schemacore.compile(schema, limits=limits)
        assert _takes_the_loop(validator, 1) == ["reference-loop"] * 3
        validator._promote()  # generated code fails closed too
        assert _takes_the_loop(validator, {"a": [1]}) == ["reference-loop"] * 3


def test_a_reference_loop_no_instance_takes_is_no_error() -> None:
    # The loop sits behind a branch that only non-strings reach, as in real schemas
    # that validate every document they are given.
    schema = {**LOOP, "anyOf": [{"type": "string"}, {"$ref": "#/$defs/a"}]}
    validator = schemacore.compile(schema)
    assert validator.is_valid("fine")
    assert list(validator.iter_errors("fine")) == []
    # The evaluation walk applies every branch of anyOf (for their annotations): it
    # runs the loop, and fails closed when an output needs it; the verdict alone is
    # is_valid's.
    evaluation = validator.evaluate("fine")
    assert evaluation.valid and evaluation.output("flag") == {"valid": True}
    with pytest.raises(schemacore.ExecutionFailure):
        evaluation.annotations  # noqa: B018
    with pytest.raises(schemacore.ExecutionFailure):
        evaluation.output("list")
    assert _takes_the_loop(validator, 1) == ["reference-loop"] * 3
    # A loop under a keyword that never applies to the instance's type.
    typed = schemacore.compile(
        {**LOOP, "type": ["string", "object"], "properties": {"p": {"$ref": "#/$defs/a"}}}
    )
    assert typed.is_valid("x") and typed.is_valid({"q": 1})
    assert typed.evaluate("x").valid and list(typed.iter_errors({"q": 1})) == []
    assert _takes_the_loop(typed, {"p": 1}) == ["reference-loop"] * 3


@pytest.mark.parametrize(
    ("schema", "location"),
    [
        ({"maximum": float("inf")}, "/maximum"),
        ({"properties": {"a": {"minimum": float("nan")}}}, "/properties/a/minimum"),
        ({"allOf": [{"type": "string"}, (1,)]}, "/allOf/1"),
        ({"properties": {1: True}}, "/properties"),
        # Values the meta-schema does not look inside, located all the same.
        ({"const": float("nan")}, "/const"),
        ({"properties": {"a": {"enum": [1, (1, 2)]}}}, "/properties/a/enum/1"),
        ({"const": {"a": {1, 2}}}, "/const/a"),
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
