"""What only a journal shared by several gateway processes does (PostgreSQL): owner
leases, recovery of an expired owner by another gateway, limits shared across
gateways, published catalog revisions, the versioned schema, and deduplication
between processes. The journal semantics both backends share are tested on both
in the idempotency, recovery, hostile and redaction suites."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from schemacore.runtime.gateway import (
    DispatchRequest,
    LeaseHeld,
    PostgresJournal,
    SchemaTooNew,
    SharedCatalog,
    pg_schema,
)
from schemacore.runtime.gateway.pg_schema import SCHEMA_VERSION
from tests.runtime.gateway_support import Recorder, admit, gateway, pay_contract, search_contract
from tests.runtime.journal_backends import JournalBackend
from tests.runtime.test_gateway_recovery import crash_child

ROOT = Path(__file__).resolve().parents[2]
PAY = {"recipient": "acct-1", "amountCents": 500}


def _wait_for(condition: Any, seconds: float = 20.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return bool(condition())


@pytest.mark.parametrize("blocked", [False, True])
def test_the_gateway_imports_without_psycopg(blocked: bool) -> None:
    # In a fresh interpreter where psycopg cannot be imported: everything but the
    # PostgreSQL journal works, and that one says what to install.
    code = f"""
import sys
if {blocked}:
    sys.modules["psycopg"] = None  # any import of it now raises
from schemacore.runtime.gateway import PostgresJournal
from tests.runtime.gateway_support import Recorder, admit, gateway, search_contract
assert "psycopg" not in sys.modules or sys.modules["psycopg"] is None
gw = gateway(admit({{"search": search_contract()}}), Recorder())
assert gw.call("search", {{"query": "x"}}, caller="alice", run="r").ok
try:
    PostgresJournal("postgresql://nobody@127.0.0.1:1/none", connect_timeout=1)
except ImportError as exc:
    print("import-error", "schemacore[postgres]" in str(exc))
except Exception as exc:
    print("other", type(exc).__name__)
"""
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    expected = "import-error True" if blocked else "other OperationalError"
    assert done.stdout.strip() == expected, done.stdout + done.stderr


@pytest.mark.parametrize("schema", ["", "Upper", "a;drop", "x" * 64, 7])
def test_a_schema_name_that_is_not_a_plain_identifier_is_refused(schema: Any) -> None:
    with pytest.raises(ValueError, match="schema"):
        PostgresJournal("postgresql://nobody@127.0.0.1:1/none", schema=schema)


def test_the_schema_is_versioned_and_a_newer_one_is_refused(
    postgres_backend: JournalBackend,
) -> None:
    import psycopg

    postgres_backend.new()  # creates it
    postgres_backend.new()  # finds it current
    schema, dsn = postgres_backend.schema, postgres_backend.dsn
    assert dsn is not None
    with psycopg.connect(dsn, autocommit=True) as db:
        row = db.execute(f"SELECT version FROM {schema}.schema_version").fetchall()
        assert row == [(SCHEMA_VERSION,)]
        db.execute(f"UPDATE {schema}.schema_version SET version = 99")
    with pytest.raises(SchemaTooNew) as caught:
        PostgresJournal(dsn, schema=schema)
    assert (caught.value.schema, caught.value.found) == (schema, 99)


def test_gateways_starting_together_migrate_once(postgres_backend: JournalBackend) -> None:
    errors: list[BaseException] = []

    def open_one() -> None:
        try:
            postgres_backend.new()
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=open_one) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == []


def test_a_live_lease_keeps_a_second_gateway_with_the_same_owner_out(
    postgres_backend: JournalBackend,
) -> None:
    bundle = admit({"search": search_contract()})
    first = gateway(bundle, Recorder(), journal=postgres_backend.new(), owner="slot-1")
    started = time.monotonic()
    with pytest.raises(LeaseHeld) as caught:
        gateway(
            bundle, Recorder(), journal=postgres_backend.new(acquire_timeout=0.5), owner="slot-1"
        )
    assert caught.value.owner == "slot-1" and time.monotonic() - started >= 0.5
    # Given up cleanly, the name is free at once for the slot's next process.
    first.close()
    again = gateway(bundle, Recorder(), journal=postgres_backend.new(), owner="slot-1")
    assert again.call("search", {"query": "x"}, caller="alice", run="r").ok


def test_an_expired_owners_intents_are_recovered_by_another_gateway_as_ambiguous(
    tmp_path: Path, postgres_backend: JournalBackend
) -> None:
    crash_child(tmp_path, postgres_backend, "dispatch")  # owner "gateway", lease 2 s
    recorder = Recorder()
    recorder.destinations = {"send_payment": ["api.payments.example.com"]}
    journal = postgres_backend.new()
    other = gateway(
        admit({"send_payment": pay_contract()}), recorder, journal=journal, owner="worker-2"
    )
    # Its heartbeat recovers the dead owner once (and only once) its lease expired;
    # the claim ends after the last intent is closed, so wait for both.
    assert _wait_for(
        lambda: (
            journal.open_intents("gateway") == []
            and any(
                row["owner"] == "gateway" and row["recovered_by"] == "worker-2"
                for row in journal.leases()
            )
        )
    )
    (recovered,) = [e for e in recorder.evidence if e.get("recovered")]
    assert (recovered["status"], recovered["code"], recovered["dispatched"]) == (
        "ambiguous",
        "interrupted",
        None,
    )
    (lease,) = [row for row in journal.leases() if row["owner"] == "gateway"]
    assert lease["recovered_by"] == "worker-2" and not lease["held"]
    # Recovered only after the expiry its last heartbeat had set (database clock).
    assert lease["expired"] == pytest.approx(lease["renewed"] + 2.0, abs=0.01)
    assert lease["recovered"] >= lease["expired"]
    # The same call again, through the recovering gateway: the ambiguity, no payment.
    again = other.call("send_payment", PAY, caller="alice", run="run-1", idempotency_key="pay-42")
    assert again.replayed and again.status == "ambiguous" and recorder.requests == []


def test_a_gateway_that_lost_its_lease_does_not_dispatch(postgres_backend: JournalBackend) -> None:
    recorder = Recorder()
    bundle = admit({"search": search_contract(authenticationRef="secretref://x")})

    def credentials(reference: str) -> str:
        postgres_backend.expire_lease("slot-1")  # as if this process had stalled
        return "secret"

    gw = gateway(
        bundle, recorder, journal=postgres_backend.new(), owner="slot-1", credentials=credentials
    )
    outcome = gw.call("search", {"query": "x"}, caller="alice", run="r")
    assert (outcome.status, outcome.code, outcome.dispatched) == ("refused", "intent-closed", False)
    assert recorder.requests == []


def _blocking(recorder: Recorder) -> tuple[threading.Event, threading.Event]:
    entered, release = threading.Event(), threading.Event()

    def slow(request: DispatchRequest) -> Any:
        entered.set()
        release.wait(20)
        return {"content": [], "structuredContent": {"hits": []}}

    recorder.answers = [slow]
    return entered, release


def test_max_concurrent_holds_across_gateways(postgres_backend: JournalBackend) -> None:
    bundle = admit({"search": search_contract(concurrency={"mode": "serial", "maxConcurrent": 1})})
    one, two = Recorder(), Recorder()
    a = gateway(bundle, one, journal=postgres_backend.new(), owner="a")
    b = gateway(bundle, two, journal=postgres_backend.new(), owner="b")
    entered, release = _blocking(one)
    worker = threading.Thread(
        target=a.call, args=("search", {"query": "x"}), kwargs={"caller": "alice", "run": "r"}
    )
    worker.start()
    try:
        assert entered.wait(20)
        busy = b.call("search", {"query": "y"}, caller="alice", run="r")
        assert (busy.step, busy.code, busy.retryable) == ("budget", "concurrency-limited", True)
    finally:
        release.set()
        worker.join(20)
    assert b.call("search", {"query": "y"}, caller="alice", run="r").ok


def test_a_dead_gateways_places_count_no_more_once_its_lease_expired(
    postgres_backend: JournalBackend,
) -> None:
    bundle = admit({"search": search_contract(concurrency={"mode": "serial", "maxConcurrent": 1})})
    one = Recorder()
    a = gateway(bundle, one, journal=postgres_backend.new(), owner="a")
    b = gateway(bundle, Recorder(), journal=postgres_backend.new(), owner="b")
    entered, release = _blocking(one)
    worker = threading.Thread(
        target=a.call, args=("search", {"query": "x"}), kwargs={"caller": "alice", "run": "r"}
    )
    worker.start()
    try:
        assert entered.wait(20)
        assert (
            b.call("search", {"query": "y"}, caller="alice", run="r").code == "concurrency-limited"
        )
        postgres_backend.expire_lease("a")  # a stops heart-beating: its place is free
        assert b.call("search", {"query": "y"}, caller="alice", run="r").ok
    finally:
        release.set()
        worker.join(20)


def test_rate_limits_hold_across_gateways_and_refund_calls_not_dispatched(
    postgres_backend: JournalBackend,
) -> None:
    limits = {"requests": 2, "perSeconds": 3600, "scope": "global"}
    bundle = admit({"search": search_contract(rateLimits=limits)})
    one, two = Recorder(), Recorder()
    a = gateway(bundle, one, journal=postgres_backend.new(), owner="a")
    b = gateway(bundle, two, journal=postgres_backend.new(), owner="b")
    assert a.call("search", {"query": "x"}, caller="alice", run="r").ok
    two.destinations = {"search": ["elsewhere.example"]}
    denied = b.call("search", {"query": "x"}, caller="alice", run="r")
    assert (denied.step, denied.dispatched) == ("egress", False)  # its token came back
    two.destinations = {}
    assert b.call("search", {"query": "x"}, caller="alice", run="r").ok
    for gw in (a, b):
        limited = gw.call("search", {"query": "x"}, caller="alice", run="r")
        assert (limited.step, limited.code, limited.retryable) == ("budget", "rate-limited", True)
    assert len(one.requests) + len(two.requests) == 2


def _bucket(dsn: str, schema: str) -> tuple[float, float]:
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as db:
        row = db.execute(f"SELECT tokens, updated FROM {schema}.rate_buckets").fetchone()
    assert row is not None
    return float(row[0]), float(row[1])


def _reserve(dsn: str, schema: str, slot: str) -> Any:
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as db:
        db.execute(f"SET search_path TO {schema}")
        return db.execute(
            "SELECT reserve_slot(%s, 't', 'o', 'tok', 100, 'global', '', 10, 1)", (slot,)
        ).fetchone()


def test_a_reservation_that_waited_for_the_lock_reads_the_clock_after_it(
    postgres_backend: JournalBackend,
) -> None:
    # A reservation waiting on the per-tool lock while another one refills the bucket
    # must not set the bucket's clock back to when it started waiting: the next
    # reservation would refill that interval a second time.
    import psycopg

    postgres_backend.new()
    schema, dsn = postgres_backend.schema, postgres_backend.dsn
    assert dsn is not None
    assert _reserve(dsn, schema, "s0") == (None,)
    with psycopg.connect(dsn) as holder:
        holder.execute("SELECT pg_advisory_xact_lock(hashtextextended('schemacore-slots:t', 0))")
        waiting = threading.Thread(target=_reserve, args=(dsn, schema, "s1"))
        waiting.start()
        time.sleep(0.3)  # it has read its clock (version 1 did) and now waits
        written = holder.execute(
            f"UPDATE {schema}.rate_buckets SET tokens = 2, "
            "updated = extract(epoch FROM clock_timestamp()) RETURNING updated"
        ).fetchone()
        holder.commit()
    assert written is not None
    waiting.join(20)
    tokens, updated = _bucket(dsn, schema)
    assert updated >= float(written[0])
    assert 1.0 <= tokens <= 1.5  # 2 tokens, less its own, plus at most the wait's refill


def test_the_bucket_clock_never_moves_backwards(postgres_backend: JournalBackend) -> None:
    # A wall-clock step back (or a bucket written by a server whose clock runs ahead)
    # refills nothing and leaves ``updated`` where it was.
    import psycopg

    postgres_backend.new()
    schema, dsn = postgres_backend.schema, postgres_backend.dsn
    assert dsn is not None
    assert _reserve(dsn, schema, "s0") == (None,)
    with psycopg.connect(dsn, autocommit=True) as db:
        db.execute(
            f"UPDATE {schema}.rate_buckets SET tokens = 3, "
            "updated = extract(epoch FROM clock_timestamp()) + 100"
        )
    _, ahead = _bucket(dsn, schema)
    assert _reserve(dsn, schema, "s1") == (None,)
    assert _bucket(dsn, schema) == (2.0, ahead)


def test_a_version_1_schema_is_migrated(
    postgres_backend: JournalBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    import psycopg

    monkeypatch.setattr(pg_schema, "SCHEMA_VERSION", 1)
    monkeypatch.setattr(pg_schema, "_STEPS", pg_schema._STEPS[:1])
    postgres_backend.new()
    monkeypatch.undo()
    postgres_backend.new()
    schema, dsn = postgres_backend.schema, postgres_backend.dsn
    assert dsn is not None
    with psycopg.connect(dsn, autocommit=True) as db:
        assert db.execute(f"SELECT version FROM {schema}.schema_version").fetchall() == [
            (SCHEMA_VERSION,)
        ]
        row = db.execute(
            "SELECT pg_get_functiondef(p.oid) FROM pg_proc p JOIN pg_namespace n "
            "ON n.oid = p.pronamespace WHERE n.nspname = %s AND p.proname = 'reserve_slot'",
            (schema,),
        ).fetchone()
    assert row is not None and "GREATEST(updated, now_s)" in row[0]


def test_actor_scoped_rate_limits_are_per_caller_across_gateways(
    postgres_backend: JournalBackend,
) -> None:
    limits = {"requests": 1, "perSeconds": 3600, "scope": "actor"}
    bundle = admit({"search": search_contract(rateLimits=limits)}, grants={"search": True})
    a = gateway(bundle, Recorder(), journal=postgres_backend.new(), owner="a")
    b = gateway(bundle, Recorder(), journal=postgres_backend.new(), owner="b")
    assert a.call("search", {"query": "x"}, caller="alice", run="r").ok
    assert b.call("search", {"query": "x"}, caller="alice", run="r").code == "rate-limited"
    assert b.call("search", {"query": "x"}, caller="bob", run="r").ok


def test_a_published_catalog_revision_reaches_every_gateway(
    postgres_backend: JournalBackend,
) -> None:
    old = admit({"search": search_contract()})
    new = admit({"search": search_contract(version="1.1.0", description="Newer.")})
    by_checkpoint = {old.checkpoint(): old, new.checkpoint(): new}
    a_journal, b_journal = postgres_backend.new(), postgres_backend.new()
    a = gateway(old, Recorder(), journal=a_journal, owner="a")
    b = gateway(old, Recorder(), journal=b_journal, owner="b")
    shared_a = SharedCatalog(a, a_journal, by_checkpoint.__getitem__, follow=False)
    shared_b = SharedCatalog(b, b_journal, by_checkpoint.__getitem__)
    revision = shared_a.publish(new)
    assert a.bundle is new and revision >= 1
    # b's heartbeat applies it; calls from then on run on the new contract.
    assert _wait_for(lambda: b.bundle is new)
    assert shared_b.revision == revision and shared_b.problem is None
    assert b.call("search", {"query": "x"}, caller="alice", run="r").evidence["version"] == "1.1.0"
    # Publishing the same checkpoint again is the same revision.
    assert shared_a.publish(new) == revision


def test_a_revision_the_loader_cannot_match_leaves_the_catalog_as_it_was(
    postgres_backend: JournalBackend,
) -> None:
    old = admit({"search": search_contract()})
    new = admit({"search": search_contract(description="Newer.")})
    journal = postgres_backend.new()
    b = gateway(old, Recorder(), journal=journal, owner="b")
    shared = SharedCatalog(b, journal, lambda checkpoint: old, follow=False)
    journal.publish_catalog(new, by="elsewhere")
    assert shared.refresh() is False
    assert b.bundle is old and shared.revision == 0
    assert shared.problem is not None and "another catalog" in shared.problem

    def broken(checkpoint: Any) -> Any:
        raise OSError("the provider is down")

    failing = SharedCatalog(b, journal, broken, follow=False)
    assert failing.refresh() is False and "OSError" in (failing.problem or "")


_WORKER = """
import json, sys, threading
from schemacore.runtime.gateway import PostgresJournal
from tests.runtime.gateway_support import Recorder, admit, book_contract, gateway

dsn, schema, owner, keys = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
recorder = Recorder()
lock = threading.Lock()
dispatched = []

def book(request):
    with lock:
        dispatched.append(request.arguments["requestId"])
    return {"content": []}

recorder.answers = [book] * (keys * 4)
gw = gateway(
    admit({"book": book_contract()}), recorder,
    journal=PostgresJournal(dsn, schema=schema, lease_seconds=5), owner=owner,
)
outcomes = []

def work():
    for n in range(keys):
        outcome = gw.call("book", {"flight": "LH1", "requestId": f"q{n}"}, caller="alice", run="r")
        with lock:
            outcomes.append(outcome.status)

threads = [threading.Thread(target=work) for _ in range(4)]
for t in threads: t.start()
for t in threads: t.join()
print(json.dumps({"dispatched": dispatched, "outcomes": outcomes}))
"""


def test_processes_sharing_the_journal_dispatch_each_key_once(
    tmp_path: Path, postgres_backend: JournalBackend
) -> None:
    postgres_backend.new()  # the schema exists before the workers race for it
    script = tmp_path / "worker.py"
    script.write_text(textwrap.dedent(_WORKER))
    keys = 15
    workers = [
        subprocess.Popen(
            [
                sys.executable,
                str(script),
                str(postgres_backend.dsn),
                postgres_backend.schema,
                f"p{n}",
                str(keys),
            ],
            env=dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), *sys.path])),
            stdout=subprocess.PIPE,
            text=True,
        )
        for n in range(3)
    ]
    reports = []
    for worker in workers:
        out, _ = worker.communicate(timeout=120)
        assert worker.returncode == 0
        reports.append(json.loads(out))
    dispatched = sorted(key for report in reports for key in report["dispatched"])
    assert dispatched == sorted(f"q{n}" for n in range(keys))  # each once, none lost
    statuses = [status for report in reports for status in report["outcomes"]]
    assert len(statuses) == 3 * 4 * keys
    assert set(statuses) <= {"succeeded", "in-progress"}
