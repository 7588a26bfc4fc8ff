"""Hazard: a failed ``contains`` on a huge array.

is_valid answers a million-item array in a fraction of a second; the first error
must come as quickly and without a report per item: ``contains`` writes its
context (each item's errors) only when someone reads it, and validate() raises the
``contains`` error itself, which needs no context.
"""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import pytest

import schemacore
from schemacore import Limits

from .support import within

MILLION = 1_000_000


def timed(call: Callable[[Any], Any], argument: Any) -> float:
    start = time.perf_counter()
    call(argument)
    return time.perf_counter() - start


@pytest.fixture(scope="module")
def huge() -> list[int]:
    return list(range(MILLION))


def test_the_first_error_of_a_huge_contains_is_quick_and_small(huge: list[int]) -> None:
    validator = schemacore.compile({"contains": {"type": "string"}})
    # Relative to is_valid, so that a loaded machine cannot fail it: the error path
    # walks the array twice (the node, then contains), once more would be 3x. Before
    # contexts were written on demand it took ~90x.
    bound = 6 * timed(validator.is_valid, huge) + 0.2
    with within(bound, "the first error"):
        error = next(iter(validator.iter_errors(huge)))
    assert error.keyword == "contains"
    tracemalloc.start()  # measured apart: tracing slows every allocation
    try:
        error = next(iter(validator.iter_errors(huge)))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 10_000_000, f"{peak / 1e6:.1f} MB for one error"


def test_validate_raises_the_contains_error_quickly(huge: list[int]) -> None:
    validator = schemacore.compile({"contains": {"const": -1}})
    bound = 8 * timed(validator.is_valid, huge) + 0.2
    with within(bound, "validate"), pytest.raises(schemacore.ValidationError) as caught:
        validator.validate(huge)
    assert caught.value.keyword == "contains"


def test_the_context_is_every_item_s_errors_when_read() -> None:
    validator = schemacore.compile(
        {"contains": {"type": "string", "$ref": "#/$defs/s"}, "$defs": {"s": {"minLength": 2}}}
    )
    instance: list[Any] = [1, "a", None]
    (error,) = validator.iter_errors(instance)
    assert [(e.instance_location, e.keyword) for e in error.context] == [
        ("/0", "type"),
        ("/1", "minLength"),
        ("/2", "type"),
    ]
    assert error.context is error.context  # written once


def test_reading_the_context_later_leaves_no_trace() -> None:
    # This schema applies itself to each item twice, so its nodes memoise and count
    # repeats: the context, read outside the call, gets a call state of its own and
    # leaves the thread's as it found it.
    schema = {"type": "array", "items": {"$ref": "#"}, "contains": {"$ref": "#"}}
    for limits in (Limits(), Limits(time_budget=5.0)):
        validator = schemacore.compile(schema, limits=limits)
        errors = list(validator.iter_errors([[1], 2]))
        contains = [e for e in errors if e.keyword == "contains"]
        assert contains and contains[0].context
        state = validator._compiler.state
        assert (state.depth, state.memo, state.applied, state.repeats) == (0, None, None, 0)
        assert not validator.is_valid([[1], 2])  # nothing finite is valid here
        assert [e.keyword for e in validator.iter_errors([[1], 2])] == [e.keyword for e in errors]


def test_each_call_s_contexts_have_a_time_budget_of_their_own() -> None:
    # A cycle without fan-out (nothing memoises): the budget the contexts of one
    # report share must not carry over to the next call's report.
    schema = {"type": ["array", "integer"], "items": {"$ref": "#"}, "contains": {"type": "string"}}
    # The budget is wall-clock time: generous, so that one read on a loaded machine
    # stays inside it, while the reads of many calls add up to well past it.
    budget = 2.0
    validator = schemacore.compile(schema, limits=Limits(time_budget=budget))
    instance = list(range(20_000))
    spent = 0.0
    for _ in range(200):
        (error,) = validator.iter_errors(instance)
        start = time.perf_counter()
        assert len(error.context) == len(instance)
        spent += time.perf_counter() - start
        if spent > 2.5 * budget:
            break
    assert spent > budget, "the reads took too little time to tell"
