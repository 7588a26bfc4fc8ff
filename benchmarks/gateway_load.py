"""Load test of gateways sharing one PostgreSQL journal (not a timed test).

Four gateway processes x eight threads call three tools through one journal for a
while: ``pay`` (deduplicating on a ``requestId`` drawn from a small pool, so keys
repeat within and across processes), ``render`` (``maxConcurrent`` 3) and ``notify``
(a global rate limit). One process is SIGKILLed part-way through. The backends log
each dispatch (start and end) to a file per process; afterwards the script checks,
from those logs and the journal:

- no ``pay`` key was dispatched twice;
- at no moment were more than ``maxConcurrent`` ``render`` calls running, across
  processes (a dead process's places count until its lease expired);
- ``notify`` never ran faster than its token bucket allows, across processes: the
  calls that started in any window took their tokens no earlier than the earliest
  of their reservations began (logged too), and the bucket allows capacity + rate x
  that span (+1 per refund), with no other slack;
- every intent the killed process left open was closed by another gateway after the
  killed owner's lease expired: ambiguous when it had been dispatched, interrupted
  before dispatch otherwise; none is still open.

It reports throughput, call latency and the part of it spent in the journal and the
shared limits (timed around each journal and limiter call in the calling thread).

    python -m benchmarks.gateway_load             # starts a throwaway server (30 s run)
    python -m benchmarks.gateway_load --quick     # 8 s, for CI
    python -m benchmarks.gateway_load --dsn postgresql://user@host/db

Exit status 1 when a check fails.
"""

from __future__ import annotations

import argparse
import bisect
import copy
import json
import math
import os
import random
import signal
import statistics
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT / "src") not in sys.path:
    sys.path.insert(0, str(ROOT / "src"))

PROCESSES = 4
THREADS = 8
KEYS = 400
MAX_CONCURRENT = 3
RATE: dict[str, Any] = {"requests": 20, "perSeconds": 2, "scope": "global"}

_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"requestId": {"type": "string"}, "n": {"type": "integer"}},
    "required": ["requestId"],
    "additionalProperties": False,
}
_BASE: dict[str, Any] = {
    "contractVersion": "aruntime.tool-contract.v1",
    "description": "A load-test tool.",
    "version": "1.0.0",
    "inputSchema": _SCHEMA,
    "outputSchema": None,
    "authenticationRef": None,
    "permissionClass": "read",
    "sideEffectClass": "none",
    "dataClassification": "internal",
    "egressPolicy": {"allowed": False, "destinations": []},
    "timeoutMs": 10_000,
    "retryPolicy": {"maxAttempts": 1, "backoff": "none", "retryableErrors": []},
    "idempotency": {"supported": False, "keyLocation": None, "deduplicationWindowSeconds": None},
    "concurrency": {"mode": "parallel", "maxConcurrent": 1000},
    "approvalTriggers": [],
    "compensation": {"supported": False, "toolRef": None, "deadlineSeconds": None},
    "errorTaxonomy": [],
    "rateLimits": {"requests": 1_000_000, "perSeconds": 1, "scope": "global"},
    "observability": {"requiredSpans": [], "requiredMetrics": [], "logPayloads": False},
    "auditFields": [],
    "deprecation": {"status": "active", "replacementRef": None, "sunsetUtc": None},
}


def _contracts() -> dict[str, dict[str, Any]]:
    pay = copy.deepcopy(_BASE)
    pay.update(
        toolId="load.pay.v1",
        permissionClass="irreversible",
        sideEffectClass="irreversible",
        idempotency={
            "supported": True,
            "keyLocation": "argument:requestId",
            "deduplicationWindowSeconds": 3600,
        },
    )
    render = copy.deepcopy(_BASE)
    render.update(
        toolId="load.render.v1", concurrency={"mode": "parallel", "maxConcurrent": MAX_CONCURRENT}
    )
    notify = copy.deepcopy(_BASE)
    notify.update(toolId="load.notify.v1", rateLimits=dict(RATE))
    return {"pay": pay, "render": render, "notify": notify}


# -- one gateway process ------------------------------------------------------------------


def worker(dsn: str, schema: str, owner: str, seconds: float, lease: float, out: Path) -> None:
    from schemacore import runtime
    from schemacore.runtime.gateway import FunctionBackend, Gateway, PostgresJournal
    from schemacore.runtime.gateway.shared_limits import SharedSlot

    spent = threading.local()

    def timed(function: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                spent.seconds = getattr(spent, "seconds", 0.0) + time.perf_counter() - started

        return wrapper

    log = os.open(out.with_suffix(".dispatch"), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    pauses = {"pay": 0.010, "render": 0.020, "notify": 0.001}

    # The process the run kills (the first) stops finishing its calls shortly before
    # the kill, so that it certainly dies with dispatched intents open, whatever the
    # load on the machine (the recovery check needs some to recover).
    hang_after = time.monotonic() + seconds * 0.3 if owner == "gw-0" else math.inf

    def handler(request: Any) -> dict[str, Any]:
        key = request.arguments["requestId"]
        os.write(log, f"start {request.tool} {key} {time.time():.6f} {owner}\n".encode())
        if time.monotonic() > hang_after:
            time.sleep(3600)  # killed in here
        time.sleep(pauses[request.tool])
        os.write(log, f"end {request.tool} {key} {time.time():.6f} {owner}\n".encode())
        return {"content": []}

    contracts = _contracts()
    descriptors = [
        runtime.ToolDescriptor.from_mcp(
            {"name": name, "description": c["description"], "inputSchema": c["inputSchema"]},
            backend="local",
        )
        for name, c in contracts.items()
    ]
    bundle = runtime.ToolCatalog().admit_batch(
        descriptors,
        contracts=contracts,
        authority=runtime.Authority("load", "run", {name: True for name in contracts}),
    )
    journal = PostgresJournal(dsn, schema=schema, lease_seconds=lease, pool_size=THREADS + 2)
    for name in ("begin", "find", "mark_dispatched", "close"):
        setattr(journal, name, timed(getattr(journal, name)))
    release = SharedSlot.release

    def logged_release(slot: Any, *, refund: bool) -> None:
        # A refunded token may be drawn again: the rate check allows for each one.
        if refund and slot.tool_id == "load.notify.v1":
            os.write(log, f"refund notify - {time.time():.6f} {owner}\n".encode())
        release(slot, refund=refund)

    SharedSlot.release = timed(logged_release)  # type: ignore[method-assign]
    backends = {"local": FunctionBackend(handler)}
    gateway = Gateway(bundle, backends=backends, journal=journal, owner=owner)
    reserve = gateway._limiter.reserve

    def logged_reserve(contract: Any, key: Any) -> Any:
        # The token is taken inside this call, by the database's clock: no earlier
        # than its start. The rate check bounds each call's token by that time.
        asked = time.time()
        got = reserve(contract, key)
        if contract.tool_id == "load.notify.v1" and not isinstance(got, tuple):
            os.write(log, f"reserved notify {spent.key} {asked:.6f} {owner}\n".encode())
        return got

    gateway._limiter.reserve = timed(logged_reserve)  # type: ignore[method-assign]
    print("ready", flush=True)

    records: list[tuple[str, str, str | None, bool, float, float]] = []
    lock = threading.Lock()
    deadline = time.monotonic() + seconds

    def calls(seed: int) -> None:
        rng = random.Random(seed)
        while time.monotonic() < deadline:
            roll = rng.random()
            tool = "pay" if roll < 0.5 else "render" if roll < 0.75 else "notify"
            key = f"k{rng.randrange(KEYS)}" if tool == "pay" else uuid.uuid4().hex
            spent.seconds = 0.0
            spent.key = key
            started = time.perf_counter()
            outcome = gateway.call(tool, {"requestId": key}, caller="load", run="run")
            took = time.perf_counter() - started
            with lock:
                records.append(
                    (tool, outcome.status, outcome.code, outcome.replayed, took, spent.seconds)
                )
            if outcome.code in ("rate-limited", "concurrency-limited", "intent-in-progress"):
                time.sleep(0.002)  # a real caller backs off before trying again

    threads = [threading.Thread(target=calls, args=(hash(owner) + n,)) for n in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    gateway.close()
    journal.close_connection()
    out.write_text(json.dumps(records))


# -- the run and its checks ---------------------------------------------------------------


def _quantile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _dispatches(folder: Path) -> list[tuple[str, str, str, float, str]]:
    events = []
    for path in sorted(folder.glob("*.dispatch")):
        for line in path.read_text().splitlines():
            kind, tool, key, at, owner = line.split()
            events.append((kind, tool, key, float(at), owner))
    return events


def _rate_excess(events: list[tuple[str, str, str, float, str]]) -> float:
    """How far the notify calls went over their token bucket (<= 0: never)."""
    reserved = {key: at for kind, tool, key, at, _ in events if kind == "reserved"}
    # A start whose reservation was not logged is bounded by its own start (strict).
    refunds = sorted(at for kind, tool, _, at, _ in events if kind == "refund")
    starts = sorted(
        (at, reserved.get(key, at))
        for kind, tool, key, at, _ in events
        if kind == "start" and tool == "notify"
    )
    rate = RATE["requests"] / RATE["perSeconds"]
    excess = -math.inf
    for i in range(len(starts)):
        earliest = math.inf
        for j in range(i, len(starts)):
            earliest = min(earliest, starts[j][1])
            refunded = bisect.bisect_right(refunds, starts[j][0])
            allowed = RATE["requests"] + rate * (starts[j][0] - earliest) + refunded
            excess = max(excess, (j - i + 1) - allowed)
    return excess


def check(dsn: str, schema: str, folder: Path, killed: str, killed_at: float) -> dict[str, Any]:
    import psycopg

    events = _dispatches(folder)
    problems: list[str] = []
    pay_starts: dict[str, int] = {}
    for kind, tool, key, _, _ in events:
        if kind == "start" and tool == "pay":
            pay_starts[key] = pay_starts.get(key, 0) + 1
    twice = sorted(key for key, count in pay_starts.items() if count > 1)
    if twice:
        problems.append(f"keys dispatched twice: {twice[:10]}")

    with psycopg.connect(dsn) as db:
        lease = db.execute(
            f"SELECT extract(epoch FROM expired_at), extract(epoch FROM recovered_at), "
            f"recovered_by FROM {schema}.leases WHERE owner = %s",
            (killed,),
        ).fetchone()
        rows = db.execute(
            f"SELECT owner, dispatched_at, closed_at, outcome FROM {schema}.intents "
            "WHERE owner = %s OR closed_at IS NULL",
            (killed,),
        ).fetchall()
    expired = float(lease[0]) if lease and lease[0] is not None else None
    recovered_at = float(lease[1]) if lease and lease[1] is not None else None
    recovered_by = lease[2] if lease else None
    still_open = [row for row in rows if row[2] is None]
    if still_open:
        problems.append(f"{len(still_open)} intent(s) still open")
    interrupted = {"ambiguous": 0, "before-dispatch": 0}
    for owner, dispatched_at, closed_at, outcome in rows:
        if owner != killed or closed_at is None:
            continue
        recorded = json.loads(outcome)
        if recorded["code"] not in ("interrupted", "interrupted-before-dispatch"):
            continue  # ended before the kill
        wanted = "ambiguous" if dispatched_at is not None else "refused"
        if recorded["status"] != wanted:
            problems.append(f"a recovered intent is {recorded['status']}, not {wanted}")
        if expired is None or closed_at < expired:
            problems.append("an intent was recovered before its owner's lease expired")
        interrupted["ambiguous" if dispatched_at is not None else "before-dispatch"] += 1
    if recovered_by in (None, killed):
        problems.append(f"the killed owner's lease was recovered by {recovered_by!r}")

    # Concurrency: render calls running at once, a dead owner's until its lease expired.
    spans: dict[tuple[str, str], list[float]] = {}
    for _, tool, key, at, owner in events:
        if tool == "render":
            spans.setdefault((owner, key), []).append(at)
    points: list[tuple[float, int]] = []
    for (owner, _), times in spans.items():
        end = times[1] if len(times) > 1 else (expired if owner == killed and expired else 1e12)
        points += [(times[0], 1), (end, -1)]
    running = most = 0
    for _, step in sorted(points, key=lambda p: (p[0], p[1])):
        running += step
        most = max(most, running)
    if most > MAX_CONCURRENT:
        problems.append(f"{most} render calls ran at once (maxConcurrent {MAX_CONCURRENT})")

    # Rate: a token bucket lets at most capacity + rate * (b - a) tokens be taken in
    # any interval [a, b], plus one per refund before b. A call's token is taken
    # between the start of its reservation and its backend start, so the calls that
    # started in [s_i, s_j] took theirs in [earliest reservation among them, s_j].
    excess = _rate_excess(events)
    if excess > 1e-6:
        problems.append(f"notify exceeded its token bucket by {excess:.2f} call(s)")
    starts = sorted(at for kind, tool, _, at, _ in events if kind == "start" and tool == "notify")
    rate = RATE["requests"] / RATE["perSeconds"]
    span = (starts[-1] - starts[0]) if len(starts) > 1 else 0.0
    # A check that saw nothing proves nothing.
    if not pay_starts or most == 0 or not starts:
        problems.append("a tool was never dispatched: the run checked nothing")
    if interrupted["ambiguous"] == 0:
        problems.append("the killed process left no dispatched intent open to recover")
    return {
        "problems": problems,
        "pay_keys_dispatched": len(pay_starts),
        "render_most_at_once": most,
        "notify_dispatched": len(starts),
        "notify_allowed_at_most": round(RATE["requests"] + rate * span),
        "notify_excess_over_bucket": round(max(excess, 0.0), 2),
        "killed_intents_recovered": interrupted,
        "killed_lease_expired_after_kill_s": round(expired - killed_at, 2) if expired else None,
        "killed_recovered_after_expiry_s": (
            round(recovered_at - expired, 2) if recovered_at and expired else None
        ),
        "killed_recovered_by": recovered_by,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dsn", help="a server to use (default: start a throwaway one)")
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--lease", type=float, default=3.0)
    parser.add_argument("--quick", action="store_true", help="8 s, lease 2 s")
    parser.add_argument("--worker", nargs=5, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        dsn, schema, owner, seconds, out = args.worker
        worker(dsn, schema, owner, float(seconds), args.lease, Path(out))
        return 0
    if args.quick:
        args.seconds, args.lease = 8.0, 2.0

    from tests.runtime import pg_cluster

    parent = pg_cluster.scratch_parent()
    cluster_dir = parent / "cluster"
    try:
        dsn = args.dsn or pg_cluster.start(cluster_dir, durable=True).dsn
        return _run(dsn, args, parent)
    finally:
        pg_cluster.stop(cluster_dir)
        for path in parent.iterdir():
            path.unlink()
        parent.rmdir()


def _run(dsn: str, args: argparse.Namespace, folder: Path) -> int:
    from schemacore.runtime.gateway import PostgresJournal

    schema = f"load_{uuid.uuid4().hex[:12]}"
    PostgresJournal(dsn, schema=schema).close_connection()  # migrate once, up front
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "src"), str(ROOT)]))
    owners = [f"gw-{n}" for n in range(PROCESSES)]
    children = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "benchmarks.gateway_load",
                "--lease",
                str(args.lease),
                "--worker",
                dsn,
                schema,
                owner,
                str(args.seconds),
                str(folder / f"{owner}.json"),
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        for owner in owners
    ]
    for child in children:
        assert child.stdout is not None
        if child.stdout.readline().strip() != "ready":
            raise SystemExit("a gateway process did not start")
    started = time.monotonic()
    time.sleep(args.seconds * 0.35)
    children[0].send_signal(signal.SIGKILL)
    killed_at = time.time()
    for child in children:
        child.wait(args.seconds + 120)
    elapsed = time.monotonic() - started
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as db:
        report = check(dsn, schema, folder, owners[0], killed_at)
        db.execute(f"DROP SCHEMA {schema} CASCADE")
    records = [
        r for owner in owners[1:] for r in json.loads((folder / f"{owner}.json").read_text())
    ]
    latency = [r[4] * 1000 for r in records]
    journal = [r[5] * 1000 for r in records]
    statuses: dict[str, int] = {}
    for r in records:
        label = f"{r[1]}{' replayed' if r[3] else ''}" + (f" ({r[2]})" if r[2] else "")
        statuses[label] = statuses.get(label, 0) + 1
    summary = {
        "processes": PROCESSES,
        "threads_per_process": THREADS,
        "seconds": round(elapsed, 1),
        "calls_by_survivors": len(records),
        "throughput_calls_per_s": round(len(records) / elapsed, 1),
        "call_latency_ms": {
            "p50": round(_quantile(latency, 0.5), 2),
            "p99": round(_quantile(latency, 0.99), 2),
        },
        "journal_and_limits_ms_per_call": {
            "p50": round(_quantile(journal, 0.5), 2),
            "p99": round(_quantile(journal, 0.99), 2),
            "mean": round(statistics.fmean(journal), 2) if journal else None,
        },
        "outcomes": dict(sorted(statuses.items(), key=lambda kv: -kv[1])),
        **report,
    }
    print(json.dumps(summary, indent=2))
    if report["problems"]:
        print("FAILED:", "; ".join(report["problems"]), file=sys.stderr)
        return 1
    print("all checks held")
    return 0


if __name__ == "__main__":
    sys.exit(main())
