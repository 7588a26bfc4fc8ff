"""Gateways that stall (GC, SIGSTOP, a VM pause) longer than a lease, on a real
PostgreSQL server: whatever step a call or a recovery is at when its process
stops, a key is dispatched at most once and no record calls a dispatched call
"never dispatched". A stall is simulated deterministically: the stalled thread
blocks in a hook and the journal's heartbeat is paused (:class:`Stall`), so
nothing renews the process's lease or claims meanwhile."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

import pytest

from schemacore.runtime.gateway import DispatchRequest, Gateway, Intent
from tests.runtime.gateway_support import Decision, Recorder, admit, gateway, pay_contract
from tests.runtime.journal_backends import JournalBackend, Stall

PAY = {"recipient": "acct-1", "amountCents": 500}
KEY = "pay-42"
BOUND = 30.0  # seconds any wait of these tests may take before it fails


def _wait_for(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + BOUND
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting until {what}")
        time.sleep(0.02)


def _lease(journal: Any, owner: str) -> Mapping[str, Any]:
    (row,) = [row for row in journal.leases() if row["owner"] == owner]
    return row


class _Thread(threading.Thread):
    """A thread that keeps its target's result or exception."""

    def __init__(self, target: Callable[[], Any]) -> None:
        super().__init__(daemon=True)
        self._work = target
        self.result: Any = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.result = self._work()
        except BaseException as exc:
            self.error = exc

    def outcome(self) -> Any:
        self.join(BOUND)
        assert not self.is_alive(), "the call did not end"
        if self.error is not None:
            raise self.error
        return self.result


def _payments(recorder: Recorder, journal: Any, owner: str, **hooks: Any) -> Gateway:
    recorder.destinations = {"send_payment": ["api.payments.example.com"]}
    return gateway(
        admit({"send_payment": pay_contract()}), recorder, journal=journal, owner=owner, **hooks
    )


def _pay(gw: Gateway) -> Any:
    return gw.call("send_payment", PAY, caller="alice", run="run-1", idempotency_key=KEY)


def _dispatched_false_records(recorder: Recorder) -> list[Mapping[str, Any]]:
    return [e for e in recorder.evidence if e.get("intentId") and e.get("dispatched") is False]


@pytest.mark.parametrize("b_resumes", ["during-dispatch", "after-the-outcome"])
def test_a_recovery_that_stalls_past_its_claim_cannot_free_a_key_its_owner_dispatched(
    postgres_backend: JournalBackend, b_resumes: str
) -> None:
    # Gateway A publishes an intent and stalls before dispatch; its lease lapses.
    recorder = Recorder()
    journal_a = postgres_backend.new()
    stall_a = Stall(journal_a)
    a_stalled, a_go = threading.Event(), threading.Event()
    entered, release = threading.Event(), threading.Event()

    def credentials(reference: str) -> str:
        stall_a.pause()
        a_stalled.set()
        a_go.wait(BOUND)
        return "secret"

    def slow(request: DispatchRequest) -> Any:
        entered.set()
        release.wait(BOUND)
        return {"content": [], "structuredContent": {"paymentId": "p-1"}}

    recorder.answers = [slow]
    gw_a = _payments(recorder, journal_a, "a", credentials=credentials)
    call_a = _Thread(lambda: _pay(gw_a))
    call_a.start()
    assert a_stalled.wait(BOUND)
    _wait_for(lambda: not _lease(journal_a, "a")["held"], "A's lease lapsed")

    # Gateway B claims A, reads its open intent, then stalls past its claim.
    journal_b = postgres_backend.new()
    stall_b = Stall(journal_b)
    b_read, b_go = threading.Event(), threading.Event()
    read = journal_b.open_intents

    def open_intents(owner: str) -> list[Intent]:
        intents: list[Intent] = read(owner)
        if owner == "a":
            stall_b.pause()
            b_read.set()
            b_go.wait(BOUND)
        return intents

    journal_b.open_intents = open_intents
    start_b = _Thread(lambda: _payments(recorder, journal_b, "b"))
    start_b.start()
    assert b_read.wait(BOUND)
    _wait_for(lambda: not _lease(journal_a, "a")["held"], "B's recovery claim lapsed")

    # A wakes: its heartbeat takes its lease back, and it dispatches.
    stall_a.resume()
    _wait_for(lambda: _lease(journal_a, "a")["held"], "A took its lease back")
    a_go.set()
    assert entered.wait(BOUND)
    if b_resumes == "after-the-outcome":
        release.set()
        assert call_a.outcome().status == "succeeded"
    # B wakes and finishes its recovery from what it read before it stalled.
    stall_b.resume()
    b_go.set()
    gw_b = start_b.outcome()
    release.set()
    first = call_a.outcome()

    assert first.status == "succeeded" and len(recorder.requests) == 1
    assert gw_b.recovered == ()  # nothing of A's was B's to decide any more
    assert _dispatched_false_records(recorder) == []
    stored = journal_b.get(first.intent_id)
    assert stored is not None and stored.outcome is not None
    assert stored.outcome["status"] == "succeeded"
    # The key is still held: a retry anywhere gets the recorded outcome.
    for gw in (gw_b, gw_a):
        again = _pay(gw)
        assert again.replayed and again.status == "succeeded"
    assert len(recorder.requests) == 1


def test_the_recovery_verdict_is_decided_on_the_row_not_on_an_earlier_read(
    journal_backend: JournalBackend,
) -> None:
    # A recovery read the intent before its dispatch was marked; by the time it
    # writes, dispatch has started: it records "ambiguous", and the key stays held.
    journal = journal_backend.new()
    if journal_backend.shared:
        journal.hold_lease("gateway")
    intent = Intent(
        "i-1", "send_payment", "pay.v1", "alice", "r", "k" * 64, "a" * 64, "gateway", 1.0
    )
    assert journal.begin(intent, window=60) is None
    (snapshot,) = journal.open_intents("gateway")
    assert snapshot.dispatched_at is None
    assert journal.mark_dispatched("i-1", 2.0)
    verdicts = ({"dispatched": False, "code": "before"}, {"dispatched": None, "code": "after"})
    assert journal.close_interrupted("i-1", verdicts, 3.0, recoverer="gateway") is False
    stored = journal.get("i-1")
    assert stored is not None and stored.outcome == {"dispatched": None, "code": "after"}
    assert journal.begin(replace(intent, intent_id="i-2", created_at=4.0), window=60) == stored
    # Closed already: a second recovery writes nothing.
    assert journal.close_interrupted("i-1", verdicts, 5.0, recoverer="gateway") is None
    # Before dispatch, the same call records the before verdict, which frees the key.
    fresh = replace(intent, intent_id="i-3", key_digest="c" * 64, created_at=6.0)
    assert journal.begin(fresh, window=60) is None
    assert journal.close_interrupted("i-3", verdicts, 7.0, recoverer="gateway") is True
    assert not journal.mark_dispatched("i-3", 8.0)
    assert journal.begin(replace(fresh, intent_id="i-4", created_at=9.0), window=60) is None


def test_a_gateway_without_its_lease_or_claim_closes_nothing(
    postgres_backend: JournalBackend,
) -> None:
    owner, stranger = postgres_backend.new(), postgres_backend.new()
    owner.hold_lease("a")
    intent = Intent("i-1", "send_payment", "pay.v1", "alice", "r", None, "a" * 64, "a", 1.0)
    assert owner.begin(intent, window=60) is None
    verdicts = ({"dispatched": False}, {"dispatched": None})
    # Not the owner, no claim: nothing is written, whatever it passes as recoverer.
    assert stranger.close_interrupted("i-1", verdicts, 2.0, recoverer="a") is None
    stranger.hold_lease("b")
    assert stranger.close_interrupted("i-1", verdicts, 2.0, recoverer="b") is None
    # A claim that lapsed (its holder stalled) is not renewed and writes nothing.
    Stall(owner).pause()  # the owner stalls too, and does not take its lease back
    postgres_backend.expire_lease("a")
    stall = Stall(stranger)
    assert stranger.claim_expired("b") == ["a"]
    stall.pause()
    postgres_backend.expire_lease("a")
    assert stranger.close_interrupted("i-1", verdicts, 3.0, recoverer="b") is None
    stored = stranger.get("i-1")
    assert stored is not None and stored.is_open
    stall.resume()


def test_a_recovery_claim_is_renewed_while_its_holder_lives(
    postgres_backend: JournalBackend,
) -> None:
    dead, live = postgres_backend.new(), postgres_backend.new()
    dead.hold_lease("a")
    live.hold_lease("b")
    intent = Intent("i-1", "send_payment", "pay.v1", "alice", "r", None, "a" * 64, "a", 1.0)
    assert dead.begin(intent, window=60) is None
    dead.close_connection()  # its lease expires now, with an intent open
    assert live.claim_expired("b") == ["a"]
    claimed = _lease(live, "a")["expires"]
    # Renewed by the heartbeat past the lease it was taken for.
    _wait_for(lambda: _lease(live, "a")["expires"] > claimed + 0.5, "the claim was renewed")
    assert _lease(live, "a")["held"]
    live.finish_recovery("a", "b")
    assert not _lease(live, "a")["held"] and _lease(live, "a")["recovered_by"] == "b"


class _StallingRecorder(Recorder):
    """A recorder whose every hook may be where the call's process stalls."""

    def __init__(self, at: str, stall: Callable[[], None]) -> None:
        super().__init__()
        self.at = at
        self._stall = stall

    def _maybe(self, step: str) -> None:
        if step == self.at:
            self._stall()

    def authorizer(self, request: Any, authority: Any) -> Decision | bool:
        self._maybe("authorization")
        return super().authorizer(request, authority)

    def approver(self, request: Any, triggers: tuple[str, ...]) -> Decision | bool:
        self._maybe("approval")
        return super().approver(request, triggers)

    def reserve(self, request: Any) -> bool:
        self._maybe("budget")
        return super().reserve(request)

    def egress(self, request: DispatchRequest) -> list[str]:
        self._maybe("egress")
        return super().egress(request)

    def credentials(self, reference: str) -> Any:
        self._maybe("credentials")
        return super().credentials(reference)

    def call(self, request: DispatchRequest) -> Mapping[str, Any]:
        answer = super().call(request)  # the effect happened; the process stalls
        self._maybe("dispatch")
        return answer

    def sink(self, record: Mapping[str, Any]) -> None:
        if not record.get("recovered"):
            self._maybe("evidence")
        super().sink(record)


STEPS = ["authorization", "approval", "budget", "egress", "credentials", "dispatch", "evidence"]


@pytest.mark.parametrize("at", STEPS)
def test_a_pause_longer_than_a_lease_at_any_step_never_dispatches_a_key_twice(
    postgres_backend: JournalBackend, at: str
) -> None:
    journal_a = postgres_backend.new()
    journal_b = postgres_backend.new()
    stall_a = Stall(journal_a)
    stalled = threading.Event()

    def stall() -> None:
        # Stopped longer than a lease, until the live gateway has recovered A.
        if stalled.is_set():
            return
        stalled.set()
        stall_a.pause()
        since = time.time()
        _wait_for(
            lambda: (
                (lease := _lease(journal_a, "a"))["recovered_by"] == "b"
                and (lease["recovered"] or 0) >= since
            ),
            "gateway B recovered the stalled owner",
        )
        stall_a.resume()

    recorder = _StallingRecorder(at, stall)
    gw_a = _payments(recorder, journal_a, "a")
    gw_b = _payments(recorder, journal_b, "b")
    first = _pay(gw_a)
    assert stalled.is_set()
    after_first = len(recorder.requests)
    # Retries through both gateways, once A holds its lease again.
    _wait_for(lambda: _lease(journal_a, "a")["held"], "A took its lease back")
    retries = [_pay(gw_b), _pay(gw_a)]

    assert after_first <= 1 and len(recorder.requests) <= 1
    if after_first == 1:
        # Dispatched: nothing says otherwise, and every retry replays it.
        assert first.dispatched is not False
        assert _dispatched_false_records(recorder) == []
        assert all(r.replayed and r.status in {"succeeded", "ambiguous"} for r in retries)
    else:
        # Never dispatched: the key is free, and the first retry that ran is the one call.
        assert first.dispatched is False and first.status == "refused"
    (stored,) = [journal_b.get(first.intent_id)] if first.intent_id else [None]
    if stored is not None:
        assert stored.outcome is not None
        assert (stored.outcome.get("dispatched") is False) == (after_first == 0)
