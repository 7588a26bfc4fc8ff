"""Retries follow ``retryPolicy`` only where repeating is safe; rate and concurrency
limits come from the contract."""

from __future__ import annotations

import threading
from typing import Any

from schemacore.runtime.gateway import DispatchRequest
from tests.runtime.gateway_support import (
    Clock,
    Recorder,
    admit,
    book_contract,
    failure,
    gateway,
    pay_contract,
    search_contract,
)

OK = {"content": [], "structuredContent": {"hits": ["a"]}}


def _search(recorder: Recorder, clock: Clock | None = None, **changes: Any) -> Any:
    return gateway(admit({"search": search_contract(**changes)}), recorder, clock=clock)


def test_a_retryable_declared_error_is_retried_with_backoff() -> None:
    recorder, clock = Recorder(), Clock()
    recorder.answers = [failure("busy"), failure("busy"), OK]
    outcome = _search(recorder, clock).call("search", {"query": "x"}, caller="alice", run="r")
    assert outcome.ok and outcome.attempts == 3
    assert clock.slept == [0.1, 0.2]  # backoffMs 100, doubling
    assert [r.attempt for r in recorder.requests] == [1, 2, 3]
    assert len({r.intent_id for r in recorder.requests}) == 1  # one intent, three attempts


def test_retries_stop_at_max_attempts() -> None:
    recorder = Recorder()
    recorder.answers = [failure("busy")] * 3
    outcome = _search(recorder).call("search", {"query": "x"}, caller="alice", run="r")
    assert (outcome.status, outcome.code, outcome.attempts) == ("failed", "busy", 3)
    assert outcome.retryable is True and outcome.dispatched is True
    assert outcome.result["content"][0]["text"] == (
        'The tool "search" failed (busy): The index is busy.'
    )


def test_a_non_retryable_or_undeclared_error_is_not_retried() -> None:
    for code, expected in (("bad_query", "bad_query"), ("exploded", "tool-error-undeclared")):
        recorder = Recorder()
        recorder.answers = [failure(code), OK]
        outcome = _search(recorder).call("search", {"query": "x"}, caller="alice", run="r")
        assert (outcome.status, outcome.code, outcome.attempts) == ("failed", expected, 1)
        assert outcome.retryable is False


class _Hang:
    """A backend answer that blocks until released: an attempt that overruns."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.finished = threading.Event()

    def __call__(self, request: DispatchRequest) -> Any:
        self.release.wait(10)
        self.finished.set()
        return OK


def test_a_read_only_tool_is_retried_after_an_ambiguous_timeout() -> None:
    recorder, hang = Recorder(), _Hang()
    recorder.answers = [hang, OK]
    try:
        outcome = _search(recorder, timeoutMs=30).call(
            "search", {"query": "x"}, caller="alice", run="r"
        )
        assert outcome.ok and outcome.attempts == 2
    finally:
        hang.release.set()


def test_an_irreversible_tool_without_deduplication_is_never_retried_after_a_timeout() -> None:
    recorder, hang = Recorder(), _Hang()
    recorder.destinations = {"send_payment": ["api.payments.example.com"]}
    recorder.answers = [hang, OK]
    contract = pay_contract(
        timeoutMs=30,
        retryPolicy={
            "maxAttempts": 5,
            "retryOnAmbiguousTimeout": False,
            "retryableErrorCodes": [],
            "backoffMs": 0,
        },
    )
    gw = gateway(admit({"send_payment": contract}), recorder)
    try:
        outcome = gw.call(
            "send_payment", {"recipient": "a", "amountCents": 5}, caller="alice", run="r"
        )
    finally:
        hang.release.set()
    assert (outcome.status, outcome.code, outcome.dispatched) == (
        "ambiguous",
        "dispatch-timeout",
        None,
    )
    assert outcome.attempts == 1 and outcome.retryable is False
    assert len(recorder.requests) == 1


def test_a_side_effect_without_deduplication_is_not_repeated_even_if_the_policy_asks() -> None:
    # The contract allows retryOnAmbiguousTimeout for a compensatable tool; the
    # gateway still does not repeat it without a key the backend deduplicates on.
    recorder = Recorder()
    recorder.answers = [RuntimeError("connection reset"), {"content": []}]
    contract = book_contract(idempotency={"supported": False, "keyField": None})
    gw = gateway(admit({"book": contract}), recorder)
    outcome = gw.call("book", {"flight": "LH1", "requestId": "q1"}, caller="alice", run="r")
    assert (outcome.status, outcome.code, outcome.attempts) == ("ambiguous", "backend-failed", 1)


def test_a_deduplicating_tool_is_retried_with_the_same_key() -> None:
    recorder = Recorder()
    recorder.answers = [RuntimeError("connection reset"), {"content": []}]
    gw = gateway(admit({"book": book_contract()}), recorder)
    outcome = gw.call("book", {"flight": "LH1", "requestId": "q1"}, caller="alice", run="r")
    assert outcome.ok and outcome.attempts == 2
    assert [r.idempotency_key for r in recorder.requests] == ["q1", "q1"]


def test_rate_limits_come_from_the_contract_and_refunds_are_given() -> None:
    recorder, clock = Recorder(), Clock()
    gw = _search(recorder, clock, rateLimits={"requestsPerMinute": 60, "burst": 2})
    verdicts = [gw.call("search", {"query": "x"}, caller="alice", run="r") for _ in range(3)]
    assert [o.status for o in verdicts] == ["succeeded", "succeeded", "refused"]
    assert (verdicts[2].step, verdicts[2].code, verdicts[2].retryable) == (
        "budget",
        "rate-limited",
        True,
    )
    clock.now += 1.0  # one token back (60 per minute)
    assert gw.call("search", {"query": "x"}, caller="alice", run="r").ok
    # A call refused after the budget step (egress) gives its token back.
    clock.now += 1.0
    recorder.destinations = {"search": ["somewhere.example"]}
    assert gw.call("search", {"query": "x"}, caller="alice", run="r").code == "egress-denied"
    recorder.destinations = {}
    assert gw.call("search", {"query": "x"}, caller="alice", run="r").ok


def test_a_timed_out_attempt_holds_its_concurrency_place_until_it_ends() -> None:
    recorder, hang = Recorder(), _Hang()
    recorder.answers = [hang]
    gw = _search(
        recorder,
        timeoutMs=20,
        concurrency={"maxInFlight": 1},
        retryPolicy={
            "maxAttempts": 1,
            "retryOnAmbiguousTimeout": False,
            "retryableErrorCodes": [],
            "backoffMs": 0,
        },
    )
    try:
        first = gw.call("search", {"query": "x"}, caller="alice", run="r")
        assert first.status == "ambiguous"
        second = gw.call("search", {"query": "x"}, caller="alice", run="r")
        assert (second.step, second.code) == ("budget", "concurrency-limited")
    finally:
        hang.release.set()
    assert hang.finished.wait(5)
    for _ in range(100):  # the place is freed by the attempt's own thread
        third = gw.call("search", {"query": "x"}, caller="alice", run="r")
        if third.ok:
            break
        threading.Event().wait(0.01)
    assert third.ok
