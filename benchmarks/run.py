"""Run the benchmarks: ``python -m benchmarks.run`` (or ``python benchmarks/run.py``).

One process, interleaved rounds: in every round each peer takes one sample of every
measurement, in a rotating order, so drift (thermal, frequency, other load) hits all
peers alike. Loop samples are auto-scaled to last at least ``--min-sample-ms``; compile
and first-call samples are single shots, repeated. Tables show medians and the ratio
peer time / schemacore time (above 1: schemacore is faster).

Before anything is timed every peer must agree with schemacore on the validity of every
instance (and, where it has an error iterator, yield errors exactly for the invalid
ones). A peer that disagrees is reported loudly and dropped from that workload; for the
test suite, made of independent schemas, the disagreeing schemas are dropped for every
peer instead, so all peers still run the same cases.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import platform
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TextIO

# The suite helpers live in tests/ and the package in benchmarks/: both need the root.
_ROOT = str(Path(__file__).resolve().parents[1])
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from benchmarks import agentic  # noqa: E402
from benchmarks import workloads as wl  # noqa: E402
from benchmarks.harness import (  # noqa: E402
    REFERENCE,
    Figure,
    Result,
    Row,
    check_peers,
    compile_all,
    compile_all_peers,
    compile_shot,
    disagreement,
    drained,
    end_to_end,
    first_call_shot,
    looped,
    paired,
)
from benchmarks.peers import Compiled, Compiler, Peer, PeerSkipped, WorkloadInfo, all_peers  # noqa: E402

__all__ = ["main"]

MAX_SHOTS = 10
MAX_LOOPS = 10_000_000
# Steady-state workloads first, then those of one-off use (issue 16).
NAMES: tuple[str, ...] = (*wl.NAMES, *agentic.NAMES)


# ---------------------------------------------------------------------------------------
# Building the rows of each kind of workload


def _single_rows(
    workload: wl.Workload, compilers: dict[str, Compiler], peers: dict[str, Peer], notes: list[str]
) -> list[Row]:
    compiled = compile_all_peers(compilers, workload.schema, notes)
    labelled = [(f"valid #{i}", x, True) for i, x in enumerate(workload.valid)]
    labelled += [(f"invalid #{i}", x, False) for i, x in enumerate(workload.invalid)]
    compiled = check_peers(compiled, labelled, notes)
    timed = [name for name in compilers if name in compiled]
    with_compile = [name for name in timed if peers[name].has_compile]
    with_errors = [name for name in timed if compiled[name].iter_errors is not None]
    unit = workload.unit
    first = workload.valid[0]
    return [
        Row(
            "compile",
            "compile",
            "call",
            1,
            True,
            {n: compile_shot(compilers[n], workload.schema) for n in with_compile},
        ),
        Row(
            "first_call",
            "compile + first is_valid",
            "call",
            1,
            True,
            {n: first_call_shot(compilers[n], workload.schema, first) for n in with_compile},
        ),
        Row(
            "is_valid_valid",
            f"is_valid, {len(workload.valid)} valid",
            unit,
            len(workload.valid),
            False,
            {n: looped(compiled[n].is_valid, workload.valid) for n in timed},
        ),
        Row(
            "is_valid_invalid",
            f"is_valid, {len(workload.invalid)} invalid",
            unit,
            len(workload.invalid),
            False,
            {n: looped(compiled[n].is_valid, workload.invalid) for n in timed},
        ),
        Row(
            "iter_errors_invalid",
            f"iter_errors, {len(workload.invalid)} invalid",
            unit,
            len(workload.invalid),
            False,
            {
                n: drained(compiled[n].iter_errors, workload.invalid)  # type: ignore[arg-type]
                for n in with_errors
            },
        ),
    ]


def _suite_rows(
    workload: wl.SuiteWorkload, compilers: dict[str, Compiler], notes: list[str]
) -> list[Row]:
    groups = list(workload.groups)
    compiled: dict[str, list[Compiled | None]] = {name: [] for name in compilers}
    bad: dict[str, list[str]] = {}
    for group in groups:
        reference = compilers[REFERENCE](group.schema)
        compiled[REFERENCE].append(reference)
        for i, (data, expected) in enumerate(group.cases):
            if reference.is_valid(data) != expected:
                notes.append(
                    f"!! schemacore fails suite case {group.id} #{i} "
                    f"(expected {'valid' if expected else 'invalid'})"
                )
        for name, compile in compilers.items():
            if name == REFERENCE:
                continue
            try:
                peer = compile(group.schema)
            except Exception as exc:
                compiled[name].append(None)
                bad.setdefault(group.id, []).append(
                    f"{name} failed to compile: {type(exc).__name__}: {str(exc)[:100]}"
                )
                continue
            compiled[name].append(peer)
            for i, (data, _) in enumerate(group.cases):
                problem = disagreement(reference, peer, data, f"case #{i}")
                if problem is not None:
                    bad.setdefault(group.id, []).append(f"{name} {problem}")
    keep = [i for i, group in enumerate(groups) if group.id not in bad]
    if bad:
        dropped_cases = sum(len(g.cases) for g in groups if g.id in bad)
        notes.append(
            f"!! {len(bad)} schemas ({dropped_cases} cases) DROPPED FOR EVERY PEER because a "
            "peer disagreed with schemacore there:"
        )
        for group_id, problems in bad.items():
            notes.append(f"!!   {group_id}: {'; '.join(problems[:2])}")
    kept_groups = [groups[i] for i in keep]
    cases = sum(len(g.cases) for g in kept_groups)
    notes.append(f"timed: {len(kept_groups)} schemas, {cases} cases")

    schemas = [g.schema for g in kept_groups]
    by_schema = [(g.schema, [data for data, _ in g.cases]) for g in kept_groups]
    rows = [
        Row(
            "suite_compile",
            "compile every schema",
            "schema",
            len(schemas),
            False,
            {n: compile_all(c, schemas) for n, c in compilers.items()},
        ),
    ]
    valid_pairs: dict[str, list[tuple[Callable[[Any], Any], Any]]] = {}
    error_pairs: dict[str, list[tuple[Callable[[Any], Any], Any]]] = {}
    for name in compilers:
        pairs: list[tuple[Callable[[Any], Any], Any]] = []
        errors: list[tuple[Callable[[Any], Any], Any]] = []
        for i in keep:
            mine, ref = compiled[name][i], compiled[REFERENCE][i]
            assert mine is not None and ref is not None
            for data, _ in groups[i].cases:
                pairs.append((mine.is_valid, data))
                if mine.iter_errors is not None and not ref.is_valid(data):
                    errors.append((mine.iter_errors, data))
        valid_pairs[name] = pairs
        if errors:
            error_pairs[name] = errors
    invalid_count = len(error_pairs.get(REFERENCE, ()))
    rows += [
        Row(
            "suite_is_valid",
            "is_valid, every case (precompiled)",
            "case",
            cases,
            False,
            {n: paired(p, drain=False) for n, p in valid_pairs.items()},
        ),
        Row(
            "iter_errors_invalid",
            f"iter_errors, {invalid_count} invalid cases",
            "case",
            invalid_count,
            False,
            {n: paired(p, drain=True) for n, p in error_pairs.items()},
        ),
        Row(
            "suite_end_to_end",
            "end to end: compile + every case",
            "suite run",
            1,
            False,
            {n: end_to_end(c, by_schema) for n, c in compilers.items()},
        ),
    ]
    return rows


def _growth_rows(
    workload: wl.GrowthWorkload, compilers: dict[str, Compiler], notes: list[str]
) -> list[Row]:
    compiled = compile_all_peers(compilers, workload.schema, notes)
    labelled: list[tuple[str, Any, bool]] = []
    for size, good, bad in workload.sizes:
        labelled += [
            (f"{size:,} records valid", good, True),
            (f"{size:,} records invalid", bad, False),
        ]
    compiled = check_peers(compiled, labelled, notes)
    rows: list[Row] = []
    for size, good, _ in workload.sizes:
        rows.append(
            Row(
                f"growth_is_valid_{size}",
                f"is_valid, {size:,} records",
                "document",
                1,
                False,
                {n: looped(c.is_valid, [good]) for n, c in compiled.items()},
            )
        )
    for size, _, bad in workload.sizes:
        rows.append(
            Row(
                f"growth_iter_errors_{size}",
                f"iter_errors, {size:,} (1% bad)",
                "document",
                1,
                False,
                {
                    n: drained(c.iter_errors, [bad])
                    for n, c in compiled.items()
                    if c.iter_errors is not None
                },
            )
        )
    return rows


# ---------------------------------------------------------------------------------------
# Timing


def _calibrate(row: Row, target_ns: int) -> None:
    for name, run in row.runners.items():
        if row.shot:
            elapsed = run(1)  # warm-up: caches, lazy imports, first-time regex compiles
            if elapsed < target_ns:
                elapsed = run(1)
            row.shots[name] = max(1, min(MAX_SHOTS, target_ns // max(elapsed, 1)))
            continue
        loops = 1
        elapsed = run(loops)  # doubles as the warm-up
        while elapsed < target_ns and loops < MAX_LOOPS:
            # Aim 20% past the target so the next try usually lands.
            wanted = math.ceil(loops * target_ns * 1.2 / max(elapsed, 1))
            loops = min(MAX_LOOPS, max(loops * 2, wanted))
            elapsed = run(loops)
        row.loops[name] = loops


def _measure(result: Result, rounds: int, target_ns: int, log: TextIO) -> None:
    rows = [row for row in result.rows if row.runners]
    for row in rows:
        _calibrate(row, target_ns)
        row.samples = {name: [] for name in row.runners}
    probes = [probe for probe in result.probes if probe.runners]
    for probe in probes:
        for run_probe in probe.runners.values():
            run_probe()  # the warm-up: process-wide caches, lazy imports
        probe.samples = {name: [] for name in probe.runners}
    for r in range(rounds):
        print(f"[{result.name}] round {r + 1}/{rounds}", file=log, flush=True)
        for probe in probes:
            names = list(probe.runners)
            turn = r % len(names)
            for name in names[turn:] + names[:turn]:
                gc.collect()
                probe.samples[name].append(probe.runners[name]())
        for row in rows:
            if row.max_rounds is not None and r >= row.max_rounds:
                continue
            names = list(row.runners)
            turn = r % len(names)
            for name in names[turn:] + names[:turn]:
                run = row.runners[name]
                gc.collect()
                if row.shot:
                    for _ in range(row.shots[name]):
                        row.samples[name].append(run(1) / row.ops)
                else:
                    loops = row.loops[name]
                    row.samples[name].append(run(loops) / (loops * row.ops))


def run_workload(
    workload: wl.Workload | wl.SuiteWorkload | wl.GrowthWorkload | agentic.OneOff,
    peers: list[Peer],
    rounds: int,
    target_ns: int,
    log: TextIO,
) -> Result:
    started = time.perf_counter()
    result = Result(workload.name, workload.title)
    if isinstance(workload, agentic.OneOff):
        print(
            f"[{workload.name}] preparing; checking that every peer agrees with schemacore",
            file=log,
            flush=True,
        )
        workload.prepare(peers, result, log)
        return _finish(result, rounds, target_ns, log, started)
    registry = workload.registry if not isinstance(workload, wl.GrowthWorkload) else {}
    info = WorkloadInfo(workload.name, workload.draft7, registry)
    compilers: dict[str, Compiler] = {}
    by_name = {peer.name: peer for peer in peers}
    for peer in peers:
        if peer.missing:
            continue
        try:
            compilers[peer.name] = peer.compiler(info)
        except PeerSkipped as exc:
            result.notes.append(f"{peer.name}: skipped: {exc}")

    print(
        f"[{workload.name}] checking that every peer agrees with schemacore", file=log, flush=True
    )
    if isinstance(workload, wl.SuiteWorkload):
        result.rows = _suite_rows(workload, compilers, result.notes)
    elif isinstance(workload, wl.GrowthWorkload):
        result.rows = _growth_rows(workload, compilers, result.notes)
        result.growth_sizes = [size for size, _, _ in workload.sizes]
    else:
        result.rows = _single_rows(workload, compilers, by_name, result.notes)
    return _finish(result, rounds, target_ns, log, started)


def _finish(result: Result, rounds: int, target_ns: int, log: TextIO, started: float) -> Result:
    """Measure the rows and probes, then derive the figures."""
    # The workload's data lives for the whole measurement: freezing it keeps the cyclic
    # collector from rescanning megabytes of instances inside somebody's timed loop.
    gc.collect()
    gc.freeze()
    try:
        _measure(result, rounds, target_ns, log)
    finally:
        gc.unfreeze()
    for probe in result.probes:
        result.figures += probe.reduce(probe.samples)
        probe.runners = {}
        probe.samples = {}  # single shots by the ten thousand: the figures say it
    for derive in result.derive:
        result.figures += derive()
    result.derive = []
    for row in result.rows:
        row.runners = {}  # drop the closures (and the validators they hold)
    result.seconds = time.perf_counter() - started
    return result


# ---------------------------------------------------------------------------------------
# Reporting


def _time(ns: float | None) -> str:
    if ns is None:
        return "-"
    unit, value = "ns", ns
    for name, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if ns >= scale:
            unit, value = name, ns / scale
            break
    return f"{value:.3g} {unit}" if value < 100 else f"{value:.0f} {unit}"


def _ratio(ratio: float | None) -> str:
    if ratio is None:
        return ""
    return f"{ratio:.2f}x" if ratio < 10 else f"{ratio:.1f}x" if ratio < 100 else f"{ratio:.0f}x"


def _bytes(count: float) -> str:
    for name, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if count >= scale:
            return f"{count / scale:.3g} {name}"
    return f"{count:.0f} B"


def _figure_value(figure: Figure, peer: str) -> str:
    value = figure.values.get(peer)
    if value is None:
        return "-"
    if figure.kind == "time":
        return _time(value)
    if figure.kind == "bytes":
        return _bytes(value)
    if figure.kind == "ratio":
        return f"{value:.2f}" if value < 100 else f"{value:.0f}"
    return f"{value:,.0f}"


def _table(result: Result, peer_names: list[str], out: TextIO) -> None:
    print(f"\n== {result.name}: {result.title}", file=out)
    print(
        "   median time per unit; (ratio) = peer time / schemacore time, above 1 means "
        "schemacore is faster",
        file=out,
    )
    shown = [
        p
        for p in peer_names
        if any(p in row.samples for row in result.rows)
        or any(p in figure.values for figure in result.figures)
    ]
    others = [p for p in shown if p != REFERENCE]
    labels = [row.label for row in result.rows] + [f.label for f in result.figures]
    label_width = max([len(label) for label in labels] + [11])
    header = f"   {'measurement':<{label_width}}  {'per':<9} {REFERENCE:>10}"
    for name in others:
        header += f"  {name:>18}"
    print(header, file=out)
    for row in result.rows:
        line = f"   {row.label:<{label_width}}  {row.per:<9} {_time(row.median(REFERENCE)):>10}"
        for name in others:
            median = row.median(name)
            cell = "n/a" if median is None else f"{_time(median)} {_ratio(row.ratio(name)):>7}"
            line += f"  {cell:>18}"
        print(line, file=out)
    for figure in result.figures:
        # Figures are derived numbers (no "per"); quotients carry no ratio to schemacore.
        mine = _figure_value(figure, REFERENCE)
        line = f"   {figure.label:<{label_width}}  {figure.kind:<9} {mine:>10}"
        for name in others:
            value = _figure_value(figure, name)
            cell = "n/a" if value == "-" else f"{value} {_ratio(figure.ratio(name)):>7}"
            line += f"  {cell:>18}"
        print(line, file=out)
    if result.growth_sizes:
        _linearity(result, shown, out)
    for note in result.notes:
        print(f"   {note}", file=out)
    print(f"   ({result.seconds:.1f} s)", file=out)


def _linearity(result: Result, peers: list[str], out: TextIO) -> None:
    sizes = result.growth_sizes
    print(
        "   linearity: time per record; 'growth' = per-record time at the largest size / "
        "at the smallest (1.00 is linear)",
        file=out,
    )
    header = f"   {'peer':<15} {'measure':<12}" + "".join(f"{n:>10,}" for n in sizes)
    print(header + f"{'growth':>9}", file=out)
    for kind in ("is_valid", "iter_errors"):
        for peer in peers:
            per_record: list[float] = []
            for size in sizes:
                row = next(r for r in result.rows if r.key == f"growth_{kind}_{size}")
                median = row.median(peer)
                if median is None:
                    break
                per_record.append(median / size)
            if len(per_record) != len(sizes):
                continue
            cells = "".join(f"{_time(v):>10}" for v in per_record)
            print(
                f"   {peer:<15} {kind:<12}{cells}{per_record[-1] / per_record[0]:>8.2f}x", file=out
            )


@dataclass(frozen=True)
class Target:
    text: str
    workloads: tuple[str, ...] | None  # None: every workload where the peer ran
    rows: tuple[str, ...]
    peer: str
    at_least: float


# The targets, as ratios peer / schemacore from this run.
TARGETS: tuple[Target, ...] = (
    Target(
        "is_valid >= 30x jsonschema",
        ("tool-args",),
        ("is_valid_valid", "is_valid_invalid"),
        "jsonschema",
        30,
    ),
    Target(
        "is_valid >= 0.7x the hand-written checker",
        ("tool-args",),
        ("is_valid_valid", "is_valid_invalid"),
        "hand-written",
        0.7,
    ),
    Target(
        "is_valid >= 80x jsonschema",
        ("records",),
        ("is_valid_valid", "is_valid_invalid"),
        "jsonschema",
        80,
    ),
    Target(
        "is_valid >= 60x jsonschema",
        ("tree", "unevaluated", "dynamic-ref", "meta-schema"),
        ("is_valid_valid", "is_valid_invalid"),
        "jsonschema",
        60,
    ),
    Target(
        "is_valid >= 3x fastjsonschema",
        None,
        ("is_valid_valid", "is_valid_invalid"),
        "fastjsonschema",
        3,
    ),
    Target(
        "suite end to end >= 10x jsonschema", ("suite",), ("suite_end_to_end",), "jsonschema", 10
    ),
    Target(
        "compile + first call faster than jsonschema-rs",
        ("tool-args",),
        ("first_call",),
        "jsonschema-rs",
        1,
    ),
    Target("iter_errors >= 10x jsonschema", None, ("iter_errors_invalid",), "jsonschema", 10),
)


def _targets(results: dict[str, Result], out: TextIO) -> list[dict[str, Any]]:
    print("\n== targets from issue 6 (informational: nothing here fails the run)", file=out)
    report: list[dict[str, Any]] = []
    for target in TARGETS:
        for name in target.workloads or results:
            result = results.get(name)
            if result is None:
                continue
            for row in result.rows:
                if row.key not in target.rows:
                    continue
                ratio = row.ratio(target.peer)
                if ratio is None and target.workloads is None:
                    continue  # "wherever it runs"
                status = (
                    f"not measured ({target.peer} did not run)"
                    if ratio is None
                    else "met"
                    if ratio >= target.at_least
                    else "MISSED"
                )
                print(
                    f"   {target.text:<48} {name:<12} {row.label:<34} {_ratio(ratio):>8}  {status}",
                    file=out,
                )
                report.append(
                    {
                        "target": target.text,
                        "workload": name,
                        "row": row.key,
                        "peer": target.peer,
                        "ratio": ratio,
                        "status": status,
                    }
                )
    return report


@dataclass(frozen=True)
class Goal:
    """One of issue 16's goals, read from a row's median or a figure's value.

    ``measure``: ``"slower"`` is schemacore / ``peer`` (at most ``bound``),
    ``"faster"`` is ``peer`` / schemacore (at least ``bound``), ``"value"`` is
    schemacore's own number (at most ``bound``; times in ns, shown in ms)."""

    text: str
    workload: str
    keys: tuple[str, ...]
    measure: Literal["slower", "faster", "value"]
    bound: float
    peer: str = REFERENCE


GOALS: tuple[Goal, ...] = (
    Goal("agent <= 2x jsonschema-rs", "agent", ("agent_end_to_end",), "slower", 2, "jsonschema-rs"),
    Goal(
        "compile, sum of mins <= 2x jsonschema-rs",
        "agent",
        ("agent_compile_min_sum",),
        "slower",
        2,
        "jsonschema-rs",
    ),
    Goal(
        "github tools: slowest calls / compiles <= 1", "agent", ("agent_github_spikes",), "value", 1
    ),
    Goal("slowest call / compile <= 1", "first-calls", ("first_wide_spike",), "value", 1),
    Goal(
        "no call above 20 ms", "first-calls", ("first_wide_max", "first_wide_worst"), "value", 20e6
    ),
    Goal("validate() <= 1 ms", "many-errors", ("errors_validate",), "value", 1e6),
    Goal(
        "validate_tool_args / is_valid <= 1.5x",
        "runtime",
        (
            "runtime_over_is_valid_all",
            "runtime_over_is_valid_valid",
            "runtime_over_is_valid_invalid",
        ),
        "value",
        1.5,
    ),
    Goal(
        "flag / is_valid <= 2x",
        "output-formats",
        ("outputs_flag_over_is_valid_valid", "outputs_flag_over_is_valid_bad"),
        "value",
        2,
    ),
    Goal(
        "suite end to end >= 5x jsonschema",
        "suite",
        ("suite_end_to_end",),
        "faster",
        5,
        "jsonschema",
    ),
    Goal(
        "is_valid >= 3x fastjsonschema",
        "tool-args",
        ("is_valid_valid", "is_valid_invalid"),
        "faster",
        3,
        "fastjsonschema",
    ),
    Goal(
        "is_valid >= 80x jsonschema",
        "records",
        ("is_valid_valid", "is_valid_invalid"),
        "faster",
        80,
        "jsonschema",
    ),
    Goal(
        "is_valid >= 60x jsonschema",
        "unevaluated",
        ("is_valid_valid", "is_valid_invalid"),
        "faster",
        60,
        "jsonschema",
    ),
)


def _lookup(result: Result, key: str) -> tuple[str, Callable[[str], float | None], str] | None:
    """A row's or figure's label, its number for a peer, and its kind."""
    for row in result.rows:
        if row.key == key:
            return row.label, row.median, "time"
    for figure in result.figures:
        if figure.key == key:
            return figure.label, figure.values.get, figure.kind
    return None


def _goal_number(goal: Goal, number: Callable[[str], float | None]) -> float | None:
    mine = number(REFERENCE)
    if goal.measure == "value" or mine is None:
        return mine
    theirs = number(goal.peer)
    if theirs is None or not mine or not theirs:
        return None
    return mine / theirs if goal.measure == "slower" else theirs / mine


def _goals(results: dict[str, Result], out: TextIO) -> list[dict[str, Any]]:
    print("\n== goals from issue 16 (informational: nothing here fails the run)", file=out)
    report: list[dict[str, Any]] = []
    for goal in GOALS:
        result = results.get(goal.workload)
        if result is None:
            continue
        for key in goal.keys:
            found = _lookup(result, key)
            if found is None:
                continue
            label, number, kind = found
            value = _goal_number(goal, number)
            if value is None:
                status = f"not measured ({goal.peer} did not run)"
            elif goal.measure == "faster":
                status = "met" if value >= goal.bound else "MISSED"
            else:
                status = "met" if value <= goal.bound else "MISSED"
            if value is None:
                shown = ""
            elif goal.measure == "value" and kind == "time":
                shown = _time(value)
            else:
                shown = _ratio(value) if goal.measure != "value" else f"{value:.2f}"
            print(
                f"   {goal.text:<44} {goal.workload:<14} {label[:56]:<56} {shown:>9}  {status}",
                file=out,
            )
            report.append(
                {
                    "goal": goal.text,
                    "workload": goal.workload,
                    "key": key,
                    "measure": goal.measure,
                    "peer": goal.peer,
                    "bound": goal.bound,
                    "value": value,
                    "status": status,
                }
            )
    return report


def _environment(peers: list[Peer]) -> dict[str, Any]:
    return {
        "python": sys.version.replace("\n", " "),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "peers": {p.name: (p.missing or p.describe()) for p in peers},
        "peers_available": [p.name for p in peers if not p.missing],
    }


def _to_json(
    results: dict[str, Result],
    environment: dict[str, Any],
    options: dict[str, Any],
    targets: list[dict[str, Any]],
    goals: list[dict[str, Any]],
) -> dict[str, Any]:
    workloads: dict[str, Any] = {}
    for name, result in results.items():
        workloads[name] = {
            "title": result.title,
            "notes": result.notes,
            "seconds": result.seconds,
            "rows": {
                row.key: {
                    "label": row.label,
                    "per": row.per,
                    "shot": row.shot,
                    "loops": row.loops,
                    "shots": row.shots,
                    "samples_ns": row.samples,
                    "median_ns": {p: row.median(p) for p in row.samples},
                    "ratio": {p: row.ratio(p) for p in row.samples if p != REFERENCE},
                }
                for row in result.rows
            },
            "figures": {
                figure.key: {
                    "label": figure.label,
                    "kind": figure.kind,
                    "values": figure.values,
                    "ratio": {p: figure.ratio(p) for p in figure.values if p != REFERENCE},
                }
                for figure in result.figures
            },
        }
    return {
        "environment": environment,
        "options": options,
        "workloads": workloads,
        "targets": targets,
        "goals": goals,
    }


def _parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.run",
        description="schemacore side by side with other JSON Schema validators.",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="tiny sizes and few rounds (a smoke test of a few seconds)",
    )
    parser.add_argument(
        "--workload",
        action="append",
        choices=NAMES,
        metavar="NAME",
        help=f"run only this workload (repeatable): {', '.join(NAMES)}",
    )
    parser.add_argument("--rounds", type=int, help="interleaved rounds (default 10, quick 2)")
    parser.add_argument(
        "--min-sample-ms", type=float, help="shortest loop sample (default 20, quick 1)"
    )
    parser.add_argument("--json", type=Path, metavar="FILE", help="write raw results here")
    args = parser.parse_args(argv)
    if args.rounds is not None and args.rounds < 1:
        parser.error("--rounds must be at least 1")
    return args


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    log = sys.stderr
    args = _parse(argv)
    rounds = args.rounds or (2 if args.quick else 10)
    sample_ms = args.min_sample_ms or (1.0 if args.quick else 20.0)
    target_ns = int(sample_ms * 1e6)

    peers = all_peers()
    reference = next(p for p in peers if p.name == REFERENCE)
    if reference.missing:
        print(f"schemacore itself is not importable: {reference.missing}", file=sys.stderr)
        return 2
    environment = _environment(peers)
    options = {
        "quick": args.quick,
        "rounds": rounds,
        "min_sample_ms": sample_ms,
        "workloads": args.workload or list(NAMES),
        "argv": list(sys.argv),
    }
    print(
        f"Python {environment['python']} ({environment['implementation']}) on "
        f"{environment['platform']}",
        file=out,
    )
    for peer in peers:
        print(f"  {peer.name:<15} {peer.missing or peer.describe()}", file=out)
    print(
        f"rounds: {rounds}, loop samples >= {sample_ms:g} ms, "
        f"{'quick' if args.quick else 'full'} sizes",
        file=out,
        flush=True,
    )

    results: dict[str, Result] = {}
    for name in args.workload or NAMES:
        print(f"[{name}] generating", file=log, flush=True)
        workload = (
            agentic.build(name, args.quick) if name in agentic.NAMES else wl.build(name, args.quick)
        )
        if isinstance(workload, wl.Unavailable):
            print(f"\n== {name}: SKIPPED: {workload.reason}", file=out, flush=True)
            continue
        result = run_workload(workload, peers, rounds, target_ns, log)
        del workload
        results[name] = result
        _table(result, [p.name for p in peers], out)
        out.flush()

    targets = _targets(results, out)
    goals = _goals(results, out)
    if args.json:
        document = _to_json(results, environment, options, targets, goals)
        args.json.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
        print(f"\nraw results written to {args.json}", file=out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
