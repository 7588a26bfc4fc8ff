"""Helpers shared by the hazard tests: hostile instances, timing, and outcomes."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any

import pytest

import schemacore
from schemacore import ExecutionFailure

# Generous wall-clock bound for "well under a second": the contract with CI slack.
QUICK = 2.0

LIMIT_NAMES = frozenset(field.name for field in dataclasses.fields(schemacore.Limits))


def nested_list(depth: int, leaf: Any = None) -> Any:
    """``depth`` arrays inside each other; the innermost one holds ``leaf`` if given."""
    value: Any = [] if leaf is None else [leaf]
    for _ in range(depth - 1):
        value = [value]
    return value


def nested_object(depth: int, leaf: Any = None) -> Any:
    """``depth`` objects inside each other under the key ``"a"``."""
    value: Any = {} if leaf is None else {"a": leaf}
    for _ in range(depth - 1):
        value = {"a": value}
    return value


@contextmanager
def within(
    seconds: float, what: str = "the call", clock: Callable[[], float] = time.process_time
) -> Iterator[None]:
    """Fail if the block takes ``seconds`` or longer (checked even when it raises).

    Counted by default in this process's CPU time: runaway work (backtracking,
    exponential walks) is CPU time, while other processes on a shared machine only
    stretch the wall clock, which made a wall-clock bound fail runs that did nothing
    wrong. Waiting (a network fetch, say) needs ``clock=time.monotonic``."""
    start = clock()
    try:
        yield
    finally:
        elapsed = clock() - start
        assert elapsed < seconds, f"{what} took {elapsed:.3f} s (bound {seconds} s)"


# The three ways to ask a validator about an instance.
Call = Callable[[schemacore.Validator, Any], Any]


def call_is_valid(validator: schemacore.Validator, instance: Any) -> Any:
    return validator.is_valid(instance)


# is_valid starts on the compiled closures and switches to generated code once a
# validator is used enough: both tiers must behave the same.
WARM_UP = 64


def warmed(validator: schemacore.Validator) -> schemacore.Validator:
    """``validator`` after enough cheap calls to have moved to its fastest tier."""
    for _ in range(WARM_UP):
        with suppress(schemacore.SchemaCoreError):
            validator.is_valid(None)
    return validator


def call_is_valid_warm(validator: schemacore.Validator, instance: Any) -> Any:
    return warmed(validator).is_valid(instance)


def call_iter_errors(validator: schemacore.Validator, instance: Any) -> Any:
    return list(validator.iter_errors(instance))


def call_validate(validator: schemacore.Validator, instance: Any) -> Any:
    try:
        validator.validate(instance)
    except schemacore.ValidationError as error:
        return error
    return None


# The validation paths as a plain tuple, for loops inside a test.
PATHS = (call_is_valid, call_is_valid_warm, call_iter_errors)

CALLS = [
    pytest.param(call_is_valid, id="is_valid"),
    pytest.param(call_is_valid_warm, id="warm"),
    pytest.param(call_iter_errors, id="iter_errors"),
    pytest.param(call_validate, id="validate"),
]


def expect_failure(
    call: Call,
    validator: schemacore.Validator,
    instance: Any,
    *,
    limit: str | None = None,
    bound: float = QUICK,
) -> ExecutionFailure:
    """``call`` must raise exactly ExecutionFailure (naming ``limit``) within ``bound``."""
    with within(bound), pytest.raises(ExecutionFailure) as caught:
        call(validator, instance)
    failure = caught.value
    assert type(failure) is ExecutionFailure
    assert failure.error_class == "execution_failure"
    assert isinstance(failure.location, str)
    assert failure.message
    if limit is not None:
        assert failure.limit == limit, f"limit {failure.limit!r}, expected {limit!r}: {failure}"
    return failure


def where(failure: ExecutionFailure) -> str:
    """Where a limit was hit: the instance location when known, else the schema's."""
    return failure.location or str(getattr(failure, "schema_location", "") or "")


def outcome(validator: schemacore.Validator, instance: Any) -> Any:
    """A comparable summary of how both validation paths answer ``instance``."""
    try:
        valid = validator.is_valid(instance)
    except schemacore.SchemaCoreError as exc:
        valid = (type(exc).__name__, getattr(exc, "limit", None))
    try:
        errors: Any = sorted(
            (e.instance_location, e.keyword_location, e.message)
            for e in validator.iter_errors(instance)
        )
    except schemacore.SchemaCoreError as exc:
        errors = (type(exc).__name__, getattr(exc, "limit", None))
    return valid, errors
