"""Hazard: recursion depth is counted once, the same way, on every path.

max_instance_depth bounds the recursive applications nested while validating: one
level per edge that closes a cycle in the schema. is_valid (closures and generated
code), iter_errors, validate and evaluate count those same edges, so they answer
an instance alike (the same verdict, or the same failure) at every depth. evaluate
used to stop at Python's recursion limit (depth 124 for ``{"items": {"$ref": "#"}}``)
and iter_errors counted instance levels instead (a 300-deep instance failed
``{"items": {"items": {"$ref": "#"}}}``, which is_valid answered).
"""

from __future__ import annotations

import sys
from typing import Any

import pytest

import schemacore
from schemacore import ExecutionFailure, Limits

from .support import nested_list, nested_object, warmed
from .test_deep import MODERATE_CASES, RECURSIVE

LIMIT = Limits().max_instance_depth


def outcomes(schema: Any, instance: Any, limits: Limits | None = None) -> list[Any]:
    """What each path says: True/False, or the limit it failed on."""
    found: list[Any] = []
    for path in ("is_valid", "warm", "iter_errors", "validate", "evaluate"):
        validator = schemacore.compile(schema, limits=limits)
        try:
            if path == "is_valid":
                found.append(validator.is_valid(instance))
            elif path == "warm":
                found.append(warmed(validator).is_valid(instance))
            elif path == "iter_errors":
                found.append(not list(validator.iter_errors(instance)))
            elif path == "validate":
                try:
                    validator.validate(instance)
                    found.append(True)
                except schemacore.ValidationError:
                    found.append(False)
            else:
                # The evaluation walk, which the list format needs (``valid`` alone
                # is is_valid's answer).
                found.append(validator.evaluate(instance).output("list")["valid"])
        except ExecutionFailure as exc:
            found.append(exc.limit)
    return found


def agreed(schema: Any, instance: Any, limits: Limits | None = None) -> Any:
    """The one answer every path gives."""
    found = outcomes(schema, instance, limits)
    assert len(set(map(repr, found))) == 1, f"the paths disagree: {found}"
    return found[0]


def sound(schema: Any, instance: Any, limits: Limits) -> Any:
    """The answer of the paths, which agree but for one case: is_valid stops at the
    first failure it meets, so it can answer False (rightly: a failure is a failure
    whatever lies deeper) where the error paths, which report every failure, need
    to go deeper than the limit and fail. Then False must be the answer without
    the limit."""
    found = outcomes(schema, instance, limits)
    if len(set(map(repr, found))) == 1:
        return found[0]
    assert found == [False, False, *["max_instance_depth"] * 3], f"the paths disagree: {found}"
    assert agreed(schema, instance, Limits(max_instance_depth=1000)) is False
    return "short-circuit"


# Schemas whose cycle crosses two instance levels: is_valid counts one level per
# two, and so must the others.
TWO_LEVELS: dict[str, tuple[Any, Any]] = {
    "items-items": ({"items": {"items": {"$ref": "#"}}, "type": ["array", "string"]}, nested_list),
    "properties-items": (
        {"properties": {"a": {"properties": {"a": {"$ref": "#"}}}}, "type": ["object", "null"]},
        nested_object,
    ),
}
SCHEMAS: dict[str, tuple[Any, Any]] = {
    **RECURSIVE,
    **{f"moderate-{name}": (schema, make) for name, (schema, make, _) in MODERATE_CASES.items()},
    **TWO_LEVELS,
}


# A sibling of the closing edge that fails at the boundary: is_valid checks it first
# and answers False; the error paths go on through the edge, past the limit.
SHORT_CIRCUITS = {"ref-with-siblings"}


@pytest.mark.parametrize("name", SCHEMAS)
def test_every_path_answers_alike_up_to_and_past_the_limit(name: str) -> None:
    schema, make = SCHEMAS[name]
    limits = Limits(max_instance_depth=12)
    answer = sound if name in SHORT_CIRCUITS else agreed
    answers = []
    for depth in range(8, 30):
        for leaf in (None, "leaf", 1):
            answers.append(answer(schema, make(depth, leaf), limits))
    # The limit was reached somewhere: this is about the boundary.
    assert "max_instance_depth" in answers
    assert ("short-circuit" in answers) == (name in SHORT_CIRCUITS)


@pytest.mark.parametrize("name", ["items", "properties", "defs-array", "dynamicRef"])
def test_evaluate_reaches_the_default_limit(name: str) -> None:
    schema, make = RECURSIVE[name]
    for depth in (124, 125, 200, LIMIT - 1):
        assert agreed(schema, make(depth)) is True
    assert agreed(schema, make(LIMIT + 2)) == "max_instance_depth"
    tree = schemacore.compile(schema).evaluate(make(LIMIT - 1))
    assert tree.valid and tree.output("list")["valid"]


def test_a_cycle_through_two_levels_counts_once_per_cycle() -> None:
    schema, make = TWO_LEVELS["items-items"]
    assert agreed(schema, make(300, 1)) is False  # the leaf 1 is not an array
    assert agreed(schema, make(301, 1)) is True  # ... unless it falls to the inner items
    assert agreed(schema, make(300)) is True
    assert agreed(schema, make(2 * LIMIT + 10)) == "max_instance_depth"


def test_deep_nested_output_formats_fail_closed() -> None:
    evaluation = schemacore.compile({"items": {"$ref": "#"}}).evaluate(nested_list(LIMIT - 6))
    assert evaluation.output("basic")["valid"] and evaluation.output("list")["valid"]
    for fmt in ("detailed", "verbose", "hierarchical"):
        try:
            evaluation.output(fmt)
        except ExecutionFailure as exc:
            assert exc.limit == "recursion"
    assert sys.getrecursionlimit() < 10_000  # untouched
