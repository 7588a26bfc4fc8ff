"""Bulk validation on Dask against the command line: rate, memory, and where it pays.

``python benchmarks/dask_bulk.py`` writes the CLI stream benchmark's seeded JSON Lines
file (``benchmarks/cli_stream.py``'s generator: 1,000,000 lines, one invalid in 10,000)
and measures, in interleaved rounds (the minimum of each is shown):

- ``schemacore validate --quiet`` in one process, and with ``--jobs 2``;
- ``schemacore.dask`` on a ``LocalCluster`` of 2 worker processes and of 1 (one
  thread each, loopback only), in a child process that starts the cluster, then runs
  ``counts(validate_files(...))`` twice (the first run compiles the schema on each
  worker; the second is the steady rate) and the command line's path
  (``iter_outcomes``, what ``schemacore validate --dask`` prints, quiet) once.

Every command is a child process timed from start to exit; for the command line its
peak memory is the largest process of the tree (``os.wait4``), for Dask each worker's
own peak resident set (``getrusage`` run on the worker) and the client's. The Dask
child also reports, from Dask's task stream, the compute time of each block check and
newline count: the per-partition costs from which the README works out what more
workers would do. ``--quick`` uses 20,000 lines and one round: a smoke test, as CI
runs it. Nothing is asserted but the verdicts (the invalid count must be the same
everywhere).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_STARTED = time.perf_counter()  # a Dask child's own start (Dask imports after)

_ROOT = Path(__file__).resolve().parents[1]
if str(_ROOT) not in sys.path:  # run as a script: benchmarks.cli_stream importable
    sys.path.insert(0, str(_ROOT))

from benchmarks.cli_stream import INVALID_EVERY, SCHEMA, write_data  # noqa: E402

_SRC = str(_ROOT / "src")
# ru_maxrss is in kilobytes on Linux (bytes on macOS).
_RSS_SCALE = 1024 * 1024 if sys.platform == "darwin" else 1024


@dataclass(frozen=True)
class Sample:
    seconds: float
    peak_mb: float
    status: int
    report: dict[str, Any]


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [_SRC, str(_ROOT), env.get("PYTHONPATH")]))
    return env


def measure(command: Sequence[str]) -> Sample:
    """Run ``command``: its wall time, the peak memory of its largest process, and
    the JSON it printed last (the Dask child's report)."""
    started = time.perf_counter()
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=_environment()
    )
    assert process.stdout is not None
    out = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)  # already reaped
    lines = out.decode("utf-8", "replace").strip().splitlines()
    report = json.loads(lines[-1]) if lines and lines[-1].startswith("{") else {}
    return Sample(seconds, usage.ru_maxrss / _RSS_SCALE, process.returncode, report)


def _peak_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / _RSS_SCALE


def _task_costs(stream: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Compute seconds of the tasks of each kind (block checks, newline counts)."""
    costs: dict[str, list[float]] = {}
    for task in stream:
        key = str(task["key"])
        # A block's check is fused with the bag's own task for that partition.
        checks = "-check-" in key or "from-delayed" in key
        kind = "check" if checks else "count" if "-count-" in key else None
        if kind is None:
            continue
        for part in task.get("startstops", ()):
            if part.get("action") == "compute":
                costs.setdefault(kind, []).append(part["stop"] - part["start"])
    return {
        kind: {"tasks": len(found), "mean_s": sum(found) / len(found), "sum_s": sum(found)}
        for kind, found in costs.items()
    }


def child(workers: int, data: str, blocksize: int) -> None:
    """In a child process: a LocalCluster of ``workers``, the runs; one JSON line."""
    import logging

    from distributed import Client, LocalCluster, get_task_stream

    import schemacore
    import schemacore.dask as scd
    from schemacore.commandline.checking import Plan

    started = time.perf_counter()
    cluster = LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        silence_logs=logging.ERROR,
    )
    with cluster, Client(cluster) as client:
        ready = time.perf_counter()
        runs = []
        costs: dict[str, dict[str, float]] = {}
        invalid = None
        for _ in range(2):
            begun = time.perf_counter()
            with get_task_stream(client) as stream:
                results = scd.validate_files(data, SCHEMA, blocksize=blocksize)
                summary = client.compute(scd.counts(results)).result()
            runs.append(time.perf_counter() - begun)
            if len(runs) == 1:
                end_to_end = time.perf_counter() - _STARTED
            costs = _task_costs(stream.data)
            invalid = summary.total.invalid
            partitions = results.npartitions
        begun = time.perf_counter()
        plan = Plan(quiet=True)
        validator = schemacore.compile(SCHEMA)
        records = sum(
            outcome.records
            for outcome in scd.iter_outcomes(client, validator, plan, [data], blocksize=blocksize)
        )
        cli_path = time.perf_counter() - begun
        worker_peaks = sorted(client.run(_peak_mb).values())
    print(
        json.dumps(
            {
                "start_s": ready - started,
                "end_to_end_s": end_to_end,
                "first_s": runs[0],
                "warm_s": runs[1],
                "cli_path_s": cli_path,
                "invalid": invalid,
                "records": records,
                "partitions": partitions,
                "costs": costs,
                "worker_peak_mb": worker_peaks,
                "client_peak_mb": _peak_mb(),
            }
        )
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=1_000_000, help="records to write")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds")
    parser.add_argument("--quick", action="store_true", help="20,000 lines, one round")
    parser.add_argument("--blocksize", type=int, default=None, help="bytes per block")
    parser.add_argument("--child", type=int, metavar="WORKERS", help=argparse.SUPPRESS)
    parser.add_argument("--data", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child, args.data, args.blocksize)
        return 0
    from schemacore.scale import DEFAULT_BLOCKSIZE

    count, rounds = (20_000, 1) if args.quick else (args.lines, args.rounds)
    # The quick file is 4 MB: smaller blocks, so that it still has several.
    blocksize = args.blocksize or (512 * 1024 if args.quick else DEFAULT_BLOCKSIZE)

    with tempfile.TemporaryDirectory() as folder:
        schema, data = write_data(Path(folder), count)
        size_mb = data.stat().st_size / 1e6
        print(
            f"{count:,} lines, {size_mb:,.1f} MB, blocks of {blocksize / 2**20:g} MiB, "
            f"{rounds} round(s), min of rounds shown; {os.cpu_count()} CPUs"
        )
        cli = [sys.executable, "-m", "schemacore", "validate", "--no-progress", "--quiet"]
        script = [sys.executable, str(Path(__file__).resolve())]
        dask = [*script, "--data", str(data), "--blocksize", str(blocksize), "--child"]
        commands = {
            "cli, one process": [*cli, str(schema), str(data)],
            "cli --jobs 2": [*cli, "--jobs", "2", str(schema), str(data)],
            "dask, 2 workers": [*dask, "2"],
            "dask, 1 worker": [*dask, "1"],
        }
        samples: dict[str, list[Sample]] = {name: [] for name in commands}
        for round_index in range(rounds):
            # Rotate the order so drift on a shared machine hits every command alike.
            names = list(commands)
            shift = round_index % len(names)
            for name in names[shift:] + names[:shift]:
                samples[name].append(measure(commands[name]))

    expected = count // INVALID_EVERY + (1 if count % INVALID_EVERY > 1 else 0)

    def seconds(sample: Sample) -> float:
        # For Dask, one job from the script's start: imports, the cluster, one run.
        return float(sample.report["end_to_end_s"]) if sample.report else sample.seconds

    best = {name: min(found, key=seconds) for name, found in samples.items()}
    print("one job, end to end (Dask: imports, cluster start and one run)")
    print(f"{'command':<18} {'seconds':>8} {'lines/s':>10}  {'peak MB':<24} exit  invalid")
    for name, sample in best.items():
        report = sample.report
        if report:
            peaks = "/".join(f"{mb:.0f}" for mb in report["worker_peak_mb"])
            memory = f"workers {peaks}, client {report['client_peak_mb']:.0f}"
            invalid = report["invalid"]
        else:
            memory, invalid = f"{sample.peak_mb:.0f}", "-"
        print(
            f"{name:<18} {seconds(sample):8.2f} {count / seconds(sample):10,.0f}  {memory:<24} "
            f"{sample.status:>4}  {invalid}"
        )
        if report and (invalid != expected or report["records"] != count):
            print(f"  !! {name}: {invalid} invalid, {report['records']} records")
    print()
    print("dask: cluster start, first run (compiles on each worker), warm run, CLI path")
    print(
        f"{'dask, steady':<18} {'start s':>8} {'first s':>8} {'warm s':>8} {'lines/s':>10} "
        f"{'cli path s':>10} {'parts':>6} {'check ms':>9} {'count ms':>9}"
    )
    for name, found in samples.items():
        if not found[0].report:
            continue
        reports = [sample.report for sample in found]
        warm = min(report["warm_s"] for report in reports)
        cost = min(reports, key=lambda report: report["warm_s"])["costs"]
        check = cost.get("check", {}).get("mean_s", 0.0) * 1000
        counted = cost.get("count", {}).get("mean_s", 0.0) * 1000
        print(
            f"{name:<18} {min(r['start_s'] for r in reports):8.2f} "
            f"{min(r['first_s'] for r in reports):8.2f} {warm:8.2f} {count / warm:10,.0f} "
            f"{min(r['cli_path_s'] for r in reports):10.2f} {reports[0]['partitions']:6} "
            f"{check:9.1f} {counted:9.1f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
