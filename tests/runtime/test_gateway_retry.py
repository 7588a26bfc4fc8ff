"""Retries follow ``retryPolicy`` only where repeating is safe; rate and concurrency
limits come from the contract."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from schemacore.runtime.gateway import DispatchRequest
from tests.runtime.gateway_support import (
    NO_IDEMPOTENCY,
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


def _search(
    recorder: Recorder, clock: Clock | None = None, options: Any = None, **changes: Any
) -> Any:
    return gateway(
        admit({"search": search_contract(**changes)}), recorder, clock=clock, **(options or {})
    )


def test_a_retryable_declared_error_is_retried_with_backoff() -> None:
    recorder, clock = Recorder(), Clock()
    recorder.answers = [failure("busy"), failure("busy"), OK]
    outcome = _search(recorder, clock).call("search", {"query": "x"}, caller="alice", run="r")
    assert outcome.ok and outcome.attempts == 3
    assert clock.slept == [0.2, 0.4]  # "exponential" from the gateway's 0.2 s base
    assert [r.attempt for r in recorder.requests] == [1, 2, 3]
    assert len({r.intent_id for r in recorder.requests}) == 1  # one intent, three attempts


def test_each_backoff_curve_waits_as_documented() -> None:
    jitter = iter([0.5, 0.25, 1.0])
    cases = [
        ("none", {}, []),
        ("fixed", {"backoff_seconds": 0.3}, [0.3, 0.3, 0.3]),
        ("exponential", {"backoff_seconds": 1.0, "backoff_max_seconds": 3.0}, [1.0, 2.0, 3.0]),
        (
            "exponential-jitter",
            {"backoff_seconds": 1.0, "jitter": lambda: next(jitter)},
            [0.5, 0.5, 4.0],
        ),
    ]
    for curve, options, waits in cases:
        recorder, clock = Recorder(), Clock()
        recorder.answers = [failure("busy")] * 3 + [OK]
        policy = {"maxAttempts": 4, "backoff": curve, "retryableErrors": ["busy"]}
        gw = _search(recorder, clock, options, retryPolicy=policy)
        assert gw.call("search", {"query": "x"}, caller="alice", run="r").attempts == 4
        assert clock.slept == waits, curve


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
        retryPolicy={"maxAttempts": 5, "backoff": "none", "retryableErrors": []},
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
    # The contract rules allow "timeout" as a retryable error of a compensatable
    # tool; the gateway still does not repeat it when the tool does not deduplicate.
    recorder = Recorder()
    recorder.answers = [RuntimeError("connection reset"), {"content": []}]
    contract = book_contract(idempotency=NO_IDEMPOTENCY)
    assert "timeout" in contract["retryPolicy"]["retryableErrors"]
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
    gw = _search(recorder, clock, rateLimits={"requests": 2, "perSeconds": 2, "scope": "global"})
    verdicts = [gw.call("search", {"query": "x"}, caller="alice", run="r") for _ in range(3)]
    assert [o.status for o in verdicts] == ["succeeded", "succeeded", "refused"]
    assert (verdicts[2].step, verdicts[2].code, verdicts[2].retryable) == (
        "budget",
        "rate-limited",
        True,
    )
    clock.now += 1.0  # one token back (2 per 2 seconds)
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
        concurrency={"mode": "serial", "maxConcurrent": 1},
        retryPolicy={"maxAttempts": 1, "backoff": "none", "retryableErrors": []},
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


def test_a_tenant_scoped_rate_limit_gives_each_tenant_its_own_budget() -> None:
    recorder, clock = Recorder(), Clock()
    gw = _search(recorder, clock, rateLimits={"requests": 1, "perSeconds": 60, "scope": "tenant"})
    assert gw.call("search", {"query": "x"}, caller="alice", run="r", tenant="acme").ok
    again = gw.call("search", {"query": "x"}, caller="bob", run="r", tenant="acme")
    assert (again.step, again.code) == ("budget", "rate-limited")
    assert gw.call("search", {"query": "x"}, caller="alice", run="r", tenant="globex").ok
    # Without a tenant the call cannot be counted: refused before anything runs.
    recorder.events.clear()
    missing = gw.call("search", {"query": "x"}, caller="alice", run="r")
    assert (missing.step, missing.code, missing.dispatched) == ("lookup", "tenant-missing", False)
    assert recorder.events == ["evidence"]
    assert len(recorder.requests) == 2


def test_global_and_actor_scoped_rate_limits() -> None:
    for scope, second_ok in (("global", False), ("actor", True)):
        recorder, clock = Recorder(), Clock()
        gw = _search(recorder, clock, rateLimits={"requests": 1, "perSeconds": 60, "scope": scope})
        assert gw.call("search", {"query": "x"}, caller="alice", run="r", tenant="a").ok
        # Another caller in another tenant: shares the budget only when it is global.
        other = gw.call("search", {"query": "x"}, caller="bob", run="r", tenant="b")
        assert other.ok is second_ok, scope
        same = gw.call("search", {"query": "x"}, caller="alice", run="r", tenant="b")
        assert (same.step, same.code) == ("budget", "rate-limited"), scope


def _calls_in_threads(gw: Any, count: int) -> list[Any]:
    results: list[Any] = []
    lock = threading.Lock()

    def one() -> None:
        outcome = gw.call("search", {"query": "x"}, caller="alice", run="r")
        with lock:
            results.append(outcome)

    threads = [threading.Thread(target=one) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(20)
    return results


@pytest.mark.parametrize(("mode", "limit"), [("parallel", 2), ("serial", 1)])
def test_concurrency_mode_parallel_admits_up_to_max_concurrent_and_serial_one(
    mode: str, limit: int
) -> None:
    recorder = Recorder()
    inside = threading.Semaphore(0)
    release = threading.Event()

    def held(request: DispatchRequest) -> Any:
        inside.release()
        release.wait(10)
        return OK

    recorder.answers = [held] * 4
    gw = _search(recorder, concurrency={"mode": mode, "maxConcurrent": limit}, timeoutMs=20_000)
    results: list[Any] = []
    worker = threading.Thread(target=lambda: results.extend(_calls_in_threads(gw, 4)))
    worker.start()
    try:
        for _ in range(limit):
            assert inside.acquire(timeout=10)  # the admitted calls are in the backend
        for _ in range(1000):  # the others are refused without waiting
            if recorder.events.count("evidence") >= 4 - limit:
                break
            threading.Event().wait(0.01)
    finally:
        release.set()
        worker.join(30)
    refused = [o for o in results if not o.ok]
    assert len(results) == 4 and len(refused) == 4 - limit
    assert {(o.step, o.code, o.retryable) for o in refused} == {
        ("budget", "concurrency-limited", True)
    }
    assert len(recorder.requests) == limit
