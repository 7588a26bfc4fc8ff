"""Idempotency keys and the intent journal: a repeated key gets the recorded outcome
without dispatching again, within the contract's window. Every test runs on each
journal backend (``journal_backend``: SQLite and PostgreSQL)."""

from __future__ import annotations

import threading
from typing import Any

from schemacore.runtime.gateway import DispatchRequest
from tests.runtime.gateway_support import (
    Clock,
    Recorder,
    admit,
    book_contract,
    gateway,
    pay_contract,
    search_contract,
)
from tests.runtime.journal_backends import JournalBackend

PAY = {"recipient": "acct-1", "amountCents": 500}


def _pay(recorder: Recorder, backend: JournalBackend, **options: Any) -> Any:
    recorder.destinations = {"send_payment": ["api.payments.example.com"]}
    journal = backend.recording(recorder.events)
    return gateway(admit({"send_payment": pay_contract()}), recorder, journal=journal, **options)


def test_a_repeated_key_returns_the_recorded_outcome_without_dispatching(
    journal_backend: JournalBackend,
) -> None:
    recorder = Recorder()
    gw = _pay(recorder, journal_backend)
    first = gw.call("send_payment", PAY, caller="alice", run="r", idempotency_key="pay-1")
    recorder.events.clear()
    second = gw.call("send_payment", PAY, caller="alice", run="r", idempotency_key="pay-1")
    assert first.ok and not first.replayed
    assert second.replayed and second.status == "succeeded"
    assert second.intent_id == first.intent_id and second.result == first.result
    assert len(recorder.requests) == 1
    # Validated and authorised again; no approval, budget, intent or dispatch.
    assert recorder.events == ["authorization", "evidence"]
    assert second.evidence["replayed"] is True and "result" not in second.evidence


def test_the_key_argument_is_the_key(journal_backend: JournalBackend) -> None:
    recorder = Recorder()
    gw = gateway(
        admit({"book": book_contract()}),
        recorder,
        journal=journal_backend.recording(recorder.events),
    )
    arguments = {"flight": "LH1", "requestId": "q-77"}
    assert gw.call("book", arguments, caller="alice", run="r").ok
    assert gw.call("book", dict(arguments), caller="alice", run="r").replayed
    assert len(recorder.requests) == 1
    assert recorder.requests[0].idempotency_key == "q-77"


def test_a_key_reused_with_other_arguments_is_a_conflict(journal_backend: JournalBackend) -> None:
    recorder = Recorder()
    gw = _pay(recorder, journal_backend)
    gw.call("send_payment", PAY, caller="alice", run="r", idempotency_key="pay-1")
    other = dict(PAY, amountCents=900)
    outcome = gw.call("send_payment", other, caller="alice", run="r", idempotency_key="pay-1")
    assert (outcome.step, outcome.code, outcome.dispatched) == (
        "intent",
        "idempotency-key-conflict",
        False,
    )
    assert len(recorder.requests) == 1


def test_the_window_comes_from_the_contract_or_the_gateway(journal_backend: JournalBackend) -> None:
    idempotency = {
        "supported": True,
        "keyLocation": "argument:requestId",
        "deduplicationWindowSeconds": 60,
    }
    cases: list[tuple[str, dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any], int]] = [
        # A tool that supports idempotency: its own window.
        (
            "book",
            book_contract(idempotency=idempotency),
            {},
            {"flight": "LH1", "requestId": "q1"},
            {},
            60,
        ),
        # A tool that does not: the host's key, the gateway's window.
        (
            "search",
            search_contract(),
            {"dedup_window_seconds": 300},
            {"query": "x"},
            {"idempotency_key": "k"},
            300,
        ),
    ]
    for name, contract, options, arguments, key, window in cases:
        recorder, clock = Recorder(), Clock()
        journal = journal_backend.recording(recorder.events)
        gw = gateway(admit({name: contract}), recorder, clock=clock, journal=journal, **options)
        gw.call(name, arguments, caller="alice", run="r", **key)
        clock.now += window - 1
        assert gw.call(name, arguments, caller="alice", run="r", **key).replayed
        clock.now += 2
        again = gw.call(name, arguments, caller="alice", run="r", **key)
        assert again.ok and not again.replayed
        assert len(recorder.requests) == 2
        gw.close()  # the next case's gateway takes the same owner name


def _header_contract() -> dict[str, Any]:
    return search_contract(
        idempotency={
            "supported": True,
            "keyLocation": "header:Idempotency-Key",
            "deduplicationWindowSeconds": 600,
        }
    )


def test_a_tool_that_supports_idempotency_is_not_called_without_a_key(
    journal_backend: JournalBackend,
) -> None:
    recorder = Recorder()
    gw = gateway(
        admit({"search": _header_contract()}),
        recorder,
        journal=journal_backend.recording(recorder.events),
    )
    outcome = gw.call("search", {"query": "x"}, caller="alice", run="r")
    assert (outcome.status, outcome.step, outcome.code, outcome.path) == (
        "refused",
        "arguments",
        "contract-validation-failed",
        "/idempotencyKey",
    )
    # The published description's own words, and nothing after the refusal.
    assert outcome.message == "A stable idempotency key is required."
    meta = outcome.result["_meta"]["schemacore/gateway"]
    assert (meta["path"], meta["retryable"], meta["dispatched"]) == (
        "/idempotencyKey",
        False,
        False,
    )
    assert "idempotency key is required" in outcome.result["content"][0]["text"]
    assert recorder.events == ["evidence"]
    assert outcome.evidence["code"] == "contract-validation-failed"


def test_a_header_key_travels_to_the_backend_in_its_header(journal_backend: JournalBackend) -> None:
    recorder = Recorder()
    gw = gateway(
        admit({"search": _header_contract()}),
        recorder,
        journal=journal_backend.recording(recorder.events),
    )
    outcome = gw.call("search", {"query": "x"}, caller="alice", run="r", idempotency_key="k-9")
    assert outcome.ok
    (request,) = recorder.requests
    assert request.headers == {"Idempotency-Key": "k-9"}
    assert request.idempotency_key == "k-9"
    assert "k-9" not in str(outcome.evidence)  # the key only as its digest
    assert gw.call(
        "search", {"query": "x"}, caller="alice", run="r", idempotency_key="k-9"
    ).replayed
    assert len(recorder.requests) == 1


def test_keys_are_scoped_to_the_caller(journal_backend: JournalBackend) -> None:
    recorder = Recorder()
    gw = gateway(
        admit({"book": book_contract()}),
        recorder,
        journal=journal_backend.recording(recorder.events),
    )
    arguments = {"flight": "LH1", "requestId": "q1"}
    gw.call("book", arguments, caller="alice", run="r")
    bob = gw.call("book", arguments, caller="bob", run="r")
    assert bob.ok and not bob.replayed and len(recorder.requests) == 2


def test_a_call_stopped_before_dispatch_does_not_hold_its_key(
    journal_backend: JournalBackend,
) -> None:
    recorder = Recorder()
    calls = {"n": 0}

    def flaky(reference: str) -> str:
        calls["n"] += 1
        if calls["n"] == 1:
            raise TimeoutError("vault")
        return "secret"

    gw = _pay(recorder, journal_backend, credentials=flaky)
    first = gw.call("send_payment", PAY, caller="alice", run="r", idempotency_key="k")
    assert (first.step, first.code, first.retryable) == (
        "credentials",
        "credential-unavailable",
        True,
    )
    second = gw.call("send_payment", PAY, caller="alice", run="r", idempotency_key="k")
    assert second.ok and not second.replayed


def test_an_ambiguous_outcome_is_replayed_not_re_run(journal_backend: JournalBackend) -> None:
    recorder = Recorder()
    recorder.answers = [RuntimeError("lost")]
    gw = _pay(recorder, journal_backend)
    first = gw.call("send_payment", PAY, caller="alice", run="r", idempotency_key="k")
    assert first.status == "ambiguous"
    second = gw.call("send_payment", PAY, caller="alice", run="r", idempotency_key="k")
    assert second.replayed and second.status == "ambiguous"
    assert len(recorder.requests) == 1


def test_a_key_in_flight_is_reported_in_progress(journal_backend: JournalBackend) -> None:
    recorder = Recorder()
    entered, release = threading.Event(), threading.Event()

    def slow(request: DispatchRequest) -> Any:
        entered.set()
        release.wait(10)
        return {"content": [], "structuredContent": {"hits": []}}

    recorder.answers = [slow]
    gw = gateway(
        admit({"search": search_contract(timeoutMs=60_000)}),
        recorder,
        journal=journal_backend.recording(recorder.events),
    )
    results: list[Any] = []
    worker = threading.Thread(
        target=lambda: results.append(
            gw.call("search", {"query": "x"}, caller="alice", run="r", idempotency_key="k")
        )
    )
    worker.start()
    try:
        assert entered.wait(10)
        busy = gw.call("search", {"query": "x"}, caller="alice", run="r", idempotency_key="k")
        assert (busy.status, busy.code, busy.retryable) == (
            "in-progress",
            "intent-in-progress",
            True,
        )
    finally:
        release.set()
        worker.join(10)
    assert results[0].ok
    assert gw.call("search", {"query": "x"}, caller="alice", run="r", idempotency_key="k").replayed


def test_two_gateways_sharing_a_journal_file_deduplicate_between_them(
    journal_backend: JournalBackend,
) -> None:
    recorder = Recorder()
    bundle = admit({"book": book_contract()})
    one = gateway(bundle, recorder, journal=journal_backend.new(), owner="worker-1")
    two = gateway(bundle, recorder, journal=journal_backend.new(), owner="worker-2")
    arguments = {"flight": "LH1", "requestId": "q1"}
    assert one.call("book", arguments, caller="alice", run="r").ok
    assert two.call("book", arguments, caller="alice", run="r").replayed
    assert len(recorder.requests) == 1


def test_purge_drops_closed_intents_but_keeps_open_ones(journal_backend: JournalBackend) -> None:
    journal = journal_backend.new()
    recorder, clock = Recorder(), Clock()
    gw = gateway(admit({"book": book_contract()}), recorder, journal=journal, clock=clock)
    gw.call("book", {"flight": "LH1", "requestId": "q1"}, caller="alice", run="r")
    assert journal.purge(before=clock.now + 1) == 1
    again = gw.call("book", {"flight": "LH1", "requestId": "q1"}, caller="alice", run="r")
    assert again.ok and not again.replayed
