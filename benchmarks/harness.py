"""Building blocks shared by the benchmark workloads: runners, rows, results, agreement.

A runner times one sample of work; a :class:`Row` holds one measurement's runners and
samples for every peer taking part; a :class:`Probe` times many single shots per sample
(one list per round and peer) that are reduced to :class:`Figure` values after the rounds.
Nobody is timed on work whose answers differ from schemacore's: the agreement helpers
here decide who is kept.
"""

from __future__ import annotations

import statistics
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from benchmarks.peers import Compiled, Compiler

REFERENCE = "schemacore"
SHOWN_DISAGREEMENTS = 5

Runner = Callable[[int], int]
# Drains an iterator at C speed, keeping nothing.
consume: Callable[[Iterable[Any]], None] = deque(maxlen=0).extend

# ---------------------------------------------------------------------------------------
# Runners: each returns the nanoseconds taken by ``loops`` repetitions of its work.


def looped(fn: Callable[[Any], Any], instances: Sequence[Any]) -> Runner:
    def run(loops: int) -> int:
        repeat = range(loops)
        start = time.perf_counter_ns()
        for _ in repeat:
            for instance in instances:
                fn(instance)
        return time.perf_counter_ns() - start

    return run


def drained(fn: Callable[[Any], Iterable[Any]], instances: Sequence[Any]) -> Runner:
    def run(loops: int) -> int:
        repeat = range(loops)
        start = time.perf_counter_ns()
        for _ in repeat:
            for instance in instances:
                consume(fn(instance))
        return time.perf_counter_ns() - start

    return run


def paired(pairs: Sequence[tuple[Callable[[Any], Any], Any]], drain: bool) -> Runner:
    def run(loops: int) -> int:
        repeat = range(loops)
        start = time.perf_counter_ns()
        for _ in repeat:
            if drain:
                for fn, instance in pairs:
                    consume(fn(instance))
            else:
                for fn, instance in pairs:
                    fn(instance)
        return time.perf_counter_ns() - start

    return run


def compile_shot(compile: Compiler, schema: Any) -> Runner:
    def run(loops: int) -> int:
        start = time.perf_counter_ns()
        compile(schema)
        return time.perf_counter_ns() - start

    return run


def first_call_shot(compile: Compiler, schema: Any, instance: Any) -> Runner:
    def run(loops: int) -> int:
        start = time.perf_counter_ns()
        compile(schema).is_valid(instance)
        return time.perf_counter_ns() - start

    return run


def compile_all(compile: Compiler, schemas: Sequence[Any]) -> Runner:
    def run(loops: int) -> int:
        start = time.perf_counter_ns()
        for _ in range(loops):
            for schema in schemas:
                compile(schema)
        return time.perf_counter_ns() - start

    return run


def end_to_end(compile: Compiler, groups: Sequence[tuple[Any, Sequence[Any]]]) -> Runner:
    def run(loops: int) -> int:
        start = time.perf_counter_ns()
        for _ in range(loops):
            for schema, instances in groups:
                is_valid = compile(schema).is_valid
                for instance in instances:
                    is_valid(instance)
        return time.perf_counter_ns() - start

    return run


def raising(fn: Callable[[Any], Any], instance: Any) -> Runner:
    """``fn(instance)`` expected to raise (a validate call on an invalid instance)."""

    def run(loops: int) -> int:
        repeat = range(loops)
        start = time.perf_counter_ns()
        for _ in repeat:
            # try/except, not contextlib.suppress: no context manager inside the loop.
            try:  # noqa: SIM105
                fn(instance)
            except Exception:
                pass
        return time.perf_counter_ns() - start

    return run


# ---------------------------------------------------------------------------------------
# Results


@dataclass
class Row:
    """One measurement of one workload, for every peer that takes part."""

    key: str
    label: str
    per: str
    ops: int  # units of ``per`` done by one loop of a runner
    shot: bool  # single shots (compile, first call) rather than calibrated loops
    runners: dict[str, Runner]
    loops: dict[str, int] = field(default_factory=dict)
    shots: dict[str, int] = field(default_factory=dict)
    samples: dict[str, list[float]] = field(default_factory=dict)
    # Sampled in the first rounds only: for samples of many seconds each.
    max_rounds: int | None = None

    def median(self, peer: str) -> float | None:
        samples = self.samples.get(peer)
        return statistics.median(samples) if samples else None

    def ratio(self, peer: str) -> float | None:
        mine, reference = self.median(peer), self.median(REFERENCE)
        if mine is None or not reference:
            return None
        return mine / reference


FigureKind = Literal["time", "bytes", "ratio", "count"]


@dataclass
class Figure:
    """A number derived after the rounds, one value per peer: a sum of minimums, a
    percentile of single calls, the ratio of two rows, bytes held."""

    key: str
    label: str
    kind: FigureKind  # "time" in ns; "ratio" is dimensionless (already a quotient)
    values: dict[str, float]

    def ratio(self, peer: str) -> float | None:
        """Peer / schemacore, for amounts (time, bytes); None for quotients."""
        mine, reference = self.values.get(peer), self.values.get(REFERENCE)
        if self.kind not in ("time", "bytes") or mine is None or not reference:
            return None
        return mine / reference


# One sample of a probe: a duration (ns) per item, in a layout its reducer knows.
ProbeRunner = Callable[[], list[int]]


@dataclass
class Probe:
    """Single shots that must be seen one by one (each call of a fresh validator, each
    compile of a corpus): one list of durations per round and peer, reduced to figures
    after the rounds."""

    key: str
    runners: dict[str, ProbeRunner]
    reduce: Callable[[dict[str, list[list[int]]]], list[Figure]]
    samples: dict[str, list[list[int]]] = field(default_factory=dict)


@dataclass
class Result:
    name: str
    title: str
    notes: list[str] = field(default_factory=list)
    rows: list[Row] = field(default_factory=list)
    growth_sizes: list[int] = field(default_factory=list)
    seconds: float = 0.0
    probes: list[Probe] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    # Run after the rounds, for figures computed from rows (a ratio of two of them).
    derive: list[Callable[[], list[Figure]]] = field(default_factory=list)


def row_quotient(key: str, label: str, top: Row, bottom: Row) -> Callable[[], list[Figure]]:
    """A figure: ``top``'s median / ``bottom``'s, for every peer that ran both."""

    def derive() -> list[Figure]:
        values: dict[str, float] = {}
        for peer in top.samples:
            a, b = top.median(peer), bottom.median(peer)
            if a is not None and b:
                values[peer] = a / b
        return [Figure(key, label, "ratio", values)]

    return derive


# ---------------------------------------------------------------------------------------
# Agreement: nobody is timed on work whose answers differ from schemacore's.


def verdict(compiled: Compiled, instance: Any) -> tuple[bool | None, bool | None, str]:
    """``(is_valid, has_errors, problem)``; ``problem`` is set when the peer raised."""
    try:
        valid = bool(compiled.is_valid(instance))
    except Exception as exc:
        return None, None, f"is_valid raised {type(exc).__name__}: {str(exc)[:120]}"
    if compiled.iter_errors is None:
        return valid, None, ""
    try:
        has_errors = any(True for _ in compiled.iter_errors(instance))
    except Exception as exc:
        return valid, None, f"iter_errors raised {type(exc).__name__}: {str(exc)[:120]}"
    return valid, has_errors, ""


def disagreement(reference: Compiled, compiled: Compiled, instance: Any, label: str) -> str | None:
    """Why ``compiled`` disagrees with ``reference`` on ``instance``, or None."""
    expected = verdict(reference, instance)[0]
    valid, has_errors, problem = verdict(compiled, instance)
    if problem:
        return f"{label}: {problem}"
    if valid != expected:
        return f"{label}: is_valid {valid}, schemacore says {expected}"
    if has_errors is not None and has_errors == valid:
        yields = "some" if has_errors else "none"
        return f"{label}: is_valid {valid} but iter_errors yields {yields}"
    return None


def compile_all_peers(
    compilers: dict[str, Compiler], schema: Any, notes: list[str]
) -> dict[str, Compiled]:
    compiled: dict[str, Compiled] = {}
    for name, compile in compilers.items():
        try:
            compiled[name] = compile(schema)
        except Exception as exc:
            if name == REFERENCE:
                raise
            notes.append(
                f"!! {name}: DROPPED, it failed to compile the schema: "
                f"{type(exc).__name__}: {str(exc)[:200]}"
            )
    return compiled


def check_peers(
    compiled: dict[str, Compiled],
    labelled: Sequence[tuple[str, Any, bool]],
    notes: list[str],
) -> dict[str, Compiled]:
    """Keep the peers that agree with schemacore on every instance; say who does not.

    ``labelled`` holds ``(description, instance, valid by construction)``."""
    reference = compiled[REFERENCE]
    for label, instance, expected in labelled:
        valid, has_errors, problem = verdict(reference, instance)
        if problem or valid != expected or (has_errors is not None and has_errors == valid):
            notes.append(
                f"!! schemacore disagrees with the workload's label on {label}: "
                f"is_valid {valid}, iter_errors {'some' if has_errors else 'none'} {problem}"
            )
    kept = {REFERENCE: reference}
    for name, peer in compiled.items():
        if name == REFERENCE:
            continue
        problems = [
            issue
            for label, instance, _ in labelled
            if (issue := disagreement(reference, peer, instance, label)) is not None
        ]
        if problems:
            shown = "; ".join(problems[:SHOWN_DISAGREEMENTS])
            notes.append(
                f"!! {name}: DROPPED, DISAGREES with schemacore on {len(problems)} of "
                f"{len(labelled)} instances: {shown}"
            )
        else:
            kept[name] = peer
    return kept
