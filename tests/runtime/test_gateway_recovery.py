"""Crash recovery: a child process is killed between intent and outcome; a restarted
gateway on the same journal reports the open intent and does not re-run it. Each test
runs on each journal backend (``journal_backend``: SQLite and PostgreSQL)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.runtime.gateway_support import Recorder, admit, gateway, pay_contract
from tests.runtime.journal_backends import JournalBackend

ROOT = Path(__file__).resolve().parents[2]
PAY = {"recipient": "acct-1", "amountCents": 500}

_CHILD = """
import sys, time
from pathlib import Path
from tests.runtime.gateway_support import Recorder, admit, gateway, pay_contract
from tests.runtime.journal_backends import open_journal

spec, marker, where = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
recorder = Recorder()
recorder.destinations = {"send_payment": ["api.payments.example.com"]}

def hang(*_):
    marker.write_text("reached")
    time.sleep(120)  # killed here

if where == "dispatch":
    recorder.answers = [hang]
    credentials = recorder.credentials
else:
    credentials = hang
gw = gateway(
    admit({"send_payment": pay_contract(timeoutMs=600_000)}),
    recorder,
    journal=open_journal(spec),
    credentials=credentials,
)
gw.call(
    "send_payment",
    {"recipient": "acct-1", "amountCents": 500},
    caller="alice",
    run="run-1",
    idempotency_key="pay-42",
)
"""


def crash_child(
    tmp_path: Path, backend: JournalBackend, where: str, *, lease_seconds: float | None = None
) -> None:
    """Run a gateway in a child process and SIGKILL it once it reaches ``where``."""
    spec = backend.spec(lease_seconds=lease_seconds)
    marker = tmp_path / "marker"
    script = tmp_path / "child.py"
    script.write_text(textwrap.dedent(_CHILD))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), *sys.path]))
    child = subprocess.Popen([sys.executable, str(script), spec, str(marker), where], env=env)
    try:
        deadline = time.monotonic() + 60
        while not marker.exists():
            if child.poll() is not None:
                pytest.fail(f"the child exited early with {child.returncode}")
            if time.monotonic() > deadline:
                pytest.fail("the child never reached the point of the crash")
            time.sleep(0.02)
        child.send_signal(signal.SIGKILL)
    finally:
        child.wait(30)
    assert child.returncode == -signal.SIGKILL


def test_an_intent_open_at_a_crash_during_dispatch_is_ambiguous_and_not_re_run(
    tmp_path: Path, journal_backend: JournalBackend
) -> None:
    crash_child(tmp_path, journal_backend, "dispatch")
    journal = journal_backend.new()
    assert len(journal.open_intents("gateway")) == 1

    recorder = Recorder()
    recorder.destinations = {"send_payment": ["api.payments.example.com"]}
    restarted = gateway(admit({"send_payment": pay_contract()}), recorder, journal=journal)
    (recovered,) = restarted.recovered
    assert (recovered.status, recovered.code, recovered.dispatched) == (
        "ambiguous",
        "interrupted",
        None,
    )
    assert recovered.retryable is False and recovered.evidence["recovered"] is True
    assert journal.open_intents("gateway") == []

    # The same call again: the recorded ambiguity, not a second payment.
    again = restarted.call(
        "send_payment", PAY, caller="alice", run="run-1", idempotency_key="pay-42"
    )
    assert again.replayed and again.status == "ambiguous"
    assert again.intent_id == recovered.intent_id
    assert recorder.requests == []
    # A new key is a new call.
    fresh = restarted.call(
        "send_payment", PAY, caller="alice", run="run-1", idempotency_key="pay-43"
    )
    assert fresh.ok and len(recorder.requests) == 1


def test_an_intent_open_at_a_crash_before_dispatch_is_safe_to_call_again(
    tmp_path: Path, journal_backend: JournalBackend
) -> None:
    crash_child(tmp_path, journal_backend, "credentials")
    recorder = Recorder()
    recorder.destinations = {"send_payment": ["api.payments.example.com"]}
    restarted = gateway(
        admit({"send_payment": pay_contract()}), recorder, journal=journal_backend.new()
    )
    (recovered,) = restarted.recovered
    assert (recovered.status, recovered.code, recovered.dispatched, recovered.retryable) == (
        "refused",
        "interrupted-before-dispatch",
        False,
        True,
    )
    again = restarted.call(
        "send_payment", PAY, caller="alice", run="run-1", idempotency_key="pay-42"
    )
    assert again.ok and not again.replayed and len(recorder.requests) == 1


def test_recovery_touches_only_its_own_owners_intents(
    tmp_path: Path, journal_backend: JournalBackend
) -> None:
    # A lease far longer than the test: the dead owner still counts as alive.
    crash_child(tmp_path, journal_backend, "dispatch", lease_seconds=600)
    other = gateway(
        admit({"send_payment": pay_contract()}),
        Recorder(),
        journal=journal_backend.new(),
        owner="worker-2",
    )
    assert other.recovered == ()
    # A live owner's open intent is "in progress" to everyone else.
    busy = other.call("send_payment", PAY, caller="alice", run="run-1", idempotency_key="pay-42")
    assert (busy.status, busy.code, busy.retryable) == ("in-progress", "intent-in-progress", True)
