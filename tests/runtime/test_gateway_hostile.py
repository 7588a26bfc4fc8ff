"""Hooks, backends, callers and a second gateway that misbehave: the gateway still
ends every call with a structured outcome and never dispatches what it should not."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest

from schemacore.runtime.gateway import Decision, DispatchRequest, LeaseHeld, ToolFailure
from tests.runtime.gateway_support import (
    BOOK_SCHEMA,
    Clock,
    Recorder,
    admit,
    book_contract,
    gateway,
    pay_contract,
    search_contract,
)
from tests.runtime.journal_backends import JournalBackend, Stall

PAY = {"recipient": "acct-1", "amountCents": 500}


def test_a_second_gateway_with_the_same_owner_cannot_cause_a_second_dispatch(
    journal_backend: JournalBackend,
) -> None:
    # The second gateway's start-up recovery closes the first one's live intent
    # before it dispatched; the first must then not dispatch at all.
    bundle = admit({"book": book_contract()})
    recorder = Recorder()
    arguments = {"flight": "LH1", "requestId": "q1"}
    second: list[Any] = []

    first_journal = journal_backend.new()
    stall = Stall(first_journal) if journal_backend.shared else None

    def credentials(reference: str) -> str:
        if stall is not None:
            # A live lease keeps a second gateway with the same owner from starting...
            with pytest.raises(LeaseHeld):
                gateway(bundle, recorder, journal=journal_backend.new(acquire_timeout=0.2))
            # ...so the way to this race is a lease that lapsed because the process
            # stalled (its heartbeat too, or it would take the lease back at once):
            # then any gateway recovers the intent.
            stall.pause()
            journal_backend.expire_lease("gateway")
            other = gateway(bundle, recorder, journal=journal_backend.new(), owner="gateway-2")
        else:
            other = gateway(bundle, recorder, journal=journal_backend.new())  # same owner
        second.append(other.recovered)
        second.append(other.call("book", arguments, caller="alice", run="r"))
        if stall is not None:
            stall.resume()
        return "secret"

    first = gateway(
        admit({"book": book_contract(authenticationRef="secretref://travel/api")}),
        recorder,
        journal=first_journal,
        credentials=credentials,
    )
    outcome = first.call("book", arguments, caller="alice", run="r")
    (recovered,) = second[0]
    assert recovered.code == "interrupted-before-dispatch"
    assert second[1].ok
    assert (outcome.step, outcome.code, outcome.dispatched) == ("intent", "intent-closed", False)
    assert len(recorder.requests) == 1


def test_governance_cannot_be_changed_after_admission_through_the_callers_envelope() -> None:
    envelope = pay_contract()
    bundle = admit({"send_payment": envelope})
    recorder = Recorder()
    recorder.approve = Decision(False, "no")
    recorder.destinations = {"send_payment": ["evil.example.net"]}
    gw = gateway(bundle, recorder)
    envelope["approvalTriggers"].clear()
    envelope["egressPolicy"]["destinations"].append("evil.example.net")
    outcome = gw.call("send_payment", PAY, caller="alice", run="r")
    assert (outcome.step, outcome.code) == ("approval", "approval-denied")
    recorder.approve = True
    outcome = gw.call("send_payment", PAY, caller="alice", run="r")
    assert (outcome.step, outcome.code) == ("egress", "egress-denied")


def test_hooks_see_a_read_only_snapshot_and_backends_a_private_copy() -> None:
    recorder = Recorder()
    arguments = {"query": "original", "limit": 3}

    def authorizer(request: Any, authority: Any) -> bool:
        request.arguments["limit"] = "not-an-int"  # refused: the snapshot is read-only
        return True

    gw = gateway(admit({"search": search_contract()}), recorder, authorizer=authorizer)
    outcome = gw.call("search", arguments, caller="alice", run="r")
    assert (outcome.step, outcome.code) == ("authorization", "authorizer-failed")

    def mutate(request: DispatchRequest) -> Any:
        request.arguments["query"] = "MUTATED"  # type: ignore[index]
        return {"content": [], "structuredContent": {"hits": []}}

    recorder.answers = [mutate]
    gw = gateway(admit({"search": search_contract()}), recorder)
    outcome = gw.call("search", arguments, caller="alice", run="r")
    assert outcome.ok and arguments == {"query": "original", "limit": 3}
    assert outcome.evidence["arguments"] == {"query": "original", "limit": 3}


def test_a_gateway_key_does_not_stand_in_for_the_key_argument() -> None:
    # The tool deduplicates on its requestId argument; a call without it is refused
    # before anything runs, whatever key the host passes: the tool would never see it.
    schema = dict(BOOK_SCHEMA, required=["flight"])
    recorder = Recorder()
    gw = gateway(admit({"book": book_contract(inputSchema=schema)}), recorder)
    outcome = gw.call("book", {"flight": "LH1"}, caller="alice", run="r", idempotency_key="K")
    assert (outcome.status, outcome.step, outcome.code, outcome.path) == (
        "refused",
        "arguments",
        "contract-validation-failed",
        "/idempotencyKey",
    )
    assert recorder.events == ["evidence"] and recorder.requests == []
    # A host key that disagrees with the argument is refused too.
    outcome = gw.call(
        "book", {"flight": "LH1", "requestId": "q1"}, caller="alice", run="r", idempotency_key="K"
    )
    assert (outcome.step, outcome.code) == ("arguments", "idempotency-key-mismatch")
    assert recorder.requests == []


def test_an_open_intent_holds_its_key_past_the_window(journal_backend: JournalBackend) -> None:
    recorder, clock = Recorder(), Clock()
    entered, release = threading.Event(), threading.Event()

    def slow(request: DispatchRequest) -> Any:
        entered.set()
        release.wait(10)
        return {"content": []}

    recorder.answers = [slow]
    idempotency = {
        "supported": True,
        "keyLocation": "argument:requestId",
        "deduplicationWindowSeconds": 1,
    }
    contract = book_contract(idempotency=idempotency, timeoutMs=60_000)
    gw = gateway(admit({"book": contract}), recorder, clock=clock, journal=journal_backend.new())
    arguments = {"flight": "LH1", "requestId": "q1"}
    worker = threading.Thread(
        target=gw.call, args=("book", arguments), kwargs={"caller": "alice", "run": "r"}
    )
    worker.start()
    try:
        assert entered.wait(10)
        clock.now += 60
        late = gw.call("book", arguments, caller="alice", run="r")
        assert (late.status, late.code) == ("in-progress", "intent-in-progress")
    finally:
        release.set()
        worker.join(10)
    assert len(recorder.requests) == 1


def test_malformed_hook_answers_fail_closed_and_stay_json() -> None:
    recorder = Recorder()
    recorder.authorize = Decision("no")  # type: ignore[arg-type]
    gw = gateway(admit({"search": search_contract()}), recorder)
    outcome = gw.call("search", {"query": "x"}, caller="alice", run="r")
    assert (outcome.step, outcome.code) == ("authorization", "not-authorized")

    recorder = Recorder()
    recorder.destinations = {"send_payment": ["api.payments.example.com"]}
    recorder.approve = Decision(True, reason=object(), by=object())  # type: ignore[arg-type]
    gw = gateway(admit({"send_payment": pay_contract()}), recorder)
    first = gw.call("send_payment", PAY, caller="alice", run="r", idempotency_key="k")
    assert first.ok and first.approval == {
        "triggers": ["side-effect-irreversible"],
        "approved": True,
    }
    json.dumps(dict(first.evidence))
    assert gw.call("send_payment", PAY, caller="alice", run="r", idempotency_key="k").replayed


def test_a_backend_failure_with_a_non_string_code_is_an_undeclared_error() -> None:
    recorder = Recorder()
    recorder.answers = [ToolFailure(["x"])]  # type: ignore[arg-type]
    gw = gateway(admit({"search": search_contract()}), recorder)
    outcome = gw.call("search", {"query": "x"}, caller="alice", run="r", idempotency_key="k")
    assert (outcome.status, outcome.code) == ("failed", "tool-error-undeclared")
    assert gw.call("search", {"query": "x"}, caller="alice", run="r", idempotency_key="k").replayed


def test_a_huge_integer_argument_gets_an_outcome_not_an_exception() -> None:
    recorder = Recorder()
    gw = gateway(admit({"search": search_contract()}), recorder)
    outcome = gw.call("search", {"query": "x", "limit": 10**5000}, caller="alice", run="r")
    assert outcome.status == "refused" and outcome.step == "arguments"
    assert recorder.requests == []


def test_structured_output_may_be_any_json_value() -> None:
    recorder = Recorder()
    recorder.answers = [{"content": [], "structuredContent": ["a", "b"]}]
    contract = search_contract(outputSchema={"type": "array", "items": {"type": "string"}})
    bundle = admit({"search": contract})
    outcome = gateway(bundle, recorder).call("search", {"query": "x"}, caller="alice", run="r")
    assert outcome.ok and outcome.result["structuredContent"] == ["a", "b"]


def test_an_unknown_tool_name_is_echoed_only_when_it_is_a_tool_name() -> None:
    recorder = Recorder()
    gw = gateway(admit({"search": search_contract()}), recorder)
    huge = "x" * 1_000_000
    outcome = gw.call(huge, {}, caller="alice", run="r")
    assert outcome.code == "tool-unknown"
    assert len(json.dumps(outcome.to_dict())) < 2_000
    named = gw.call("serach", {}, caller="alice", run="r")
    assert '"serach"' in named.result["content"][0]["text"]
