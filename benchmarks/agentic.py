"""Workloads of one-off use (issue 16, "Latency without spikes"): what an agent runtime
pays beyond steady-state ``is_valid``.

- ``agent``: compile every 2020-12 tool input schema of the real MCP corpus and check
  about 20 generated argument objects against each, fresh validators every round;
- ``first-calls``: the latency of each of a fresh validator's first calls;
- ``many-errors``: ``validate()`` raising one error for an array of 100,000 wrong items;
- ``runtime``: ``schemacore.runtime.validate_tool_args`` against ``is_valid``;
- ``output-formats``: ``evaluate(x).output(fmt)`` against ``is_valid``, and its memory;
- ``memory``: what a compiled validator holds (tracemalloc);
- ``import``: how long ``import`` takes, in a fresh interpreter.

Each fills a :class:`~benchmarks.harness.Result` with rows (timed in the interleaved
rounds like every other workload's), probes (single shots, reduced to figures after the
rounds) and figures measured outside the rounds (memory). Everything goes through each
library's public API; schemacore's includes ``schemacore.runtime``.
"""

from __future__ import annotations

import gc
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from benchmarks import argsgen, mcp_corpus
from benchmarks import workloads as wl
from benchmarks.harness import (
    REFERENCE,
    Figure,
    Probe,
    ProbeRunner,
    Result,
    Row,
    Runner,
    check_peers,
    compile_all,
    compile_all_peers,
    disagreement,
    end_to_end,
    looped,
    paired,
    raising,
    row_quotient,
)
from benchmarks.peers import REPO_ROOT, Compiler, Peer, PeerSkipped, WorkloadInfo

__all__ = ["NAMES", "OneOff", "build"]

GITHUB = "github-mcp-server"
SHOWN_DROPS = 8


@dataclass(frozen=True)
class Sizes:
    """Sizes of everything; ``quick`` keeps each workload to a second or two."""

    every_tool: int  # take every n-th corpus tool (quick: a sample of the corpus)
    valid_args: int  # generated argument objects per tool, meant valid and invalid
    invalid_args: int
    first_calls: int
    wide_properties: int
    wide_instances: int
    error_items: int
    records: int
    memory_calls: int
    memory_repeats: int
    import_runs: int  # fresh-interpreter imports per round and module (their min)
    quick: bool

    @classmethod
    def of(cls, quick: bool) -> Sizes:
        if quick:
            # memory: 5 calls, short of the code generation (seconds under tracemalloc).
            return cls(15, 1, 1, 20, 200, 4, 1000, 100, 5, 1, 1, True)
        # memory: 2 shots (each minutes under tracemalloc for the 2,000 properties; the
        # figures agree within a KiB from shot to shot).
        return cls(1, 10, 10, 100, 2000, 10, 100_000, 20_000, 100, 2, 1, False)


Prepare = Callable[[list[Peer], Result, TextIO], None]


@dataclass(frozen=True)
class OneOff:
    """A workload that builds its own rows, probes and figures (see the module doc)."""

    name: str
    title: str
    prepare: Prepare


# ---------------------------------------------------------------------------------------
# Shared pieces


def _compilers(
    peers: Sequence[Peer], name: str, draft7: bool, notes: list[str] | None
) -> dict[str, Compiler]:
    """Every available peer's compile function (skips are noted when ``notes`` is
    given); schemacore comes first, it is the reference."""
    out: dict[str, Compiler] = {}
    info = WorkloadInfo(name, draft7, {})
    for peer in peers:
        if peer.missing or not peer.has_compile:
            continue
        try:
            out[peer.name] = peer.compiler(info)
        except PeerSkipped as exc:
            if notes is not None:
                notes.append(f"{peer.name}: skipped: {exc}")
    return out


def _show(instance: Any, width: int = 160) -> str:
    text = json.dumps(instance, sort_keys=True, default=repr)
    return text if len(text) <= width else text[: width - 3] + "..."


def _median(values: Sequence[float]) -> float:
    return float(statistics.median(values))


def _percentile(ordered: Sequence[float], q: float) -> float:
    """Nearest rank: the smallest value with at least ``q`` of them at or below it."""
    return float(ordered[max(1, math.ceil(len(ordered) * q)) - 1])


def _cycle(items: Sequence[Any], count: int) -> list[Any]:
    return [items[i % len(items)] for i in range(count)]


def _shots(compile: Compiler, groups: Sequence[tuple[Any, Sequence[Any]]]) -> ProbeRunner:
    """Per group, the compile and then every call, each timed on its own: the layout
    is ``[compile, call, call, ..., compile, call, ...]``."""
    clock = time.perf_counter_ns

    def run() -> list[int]:
        out: list[int] = []
        append = out.append
        for schema, instances in groups:
            start = clock()
            is_valid = compile(schema).is_valid
            append(clock() - start)
            for instance in instances:
                start = clock()
                is_valid(instance)
                append(clock() - start)
        return out

    return run


@dataclass(frozen=True)
class _Spread:
    """One peer's probe samples cut along the groups of :func:`_shots`."""

    compiles: list[list[int]]  # [round][group]
    calls: list[list[list[int]]]  # [round][group][call]

    @classmethod
    def of(cls, rounds: list[list[int]], counts: Sequence[int]) -> _Spread:
        compiles: list[list[int]] = []
        calls: list[list[list[int]]] = []
        for sample in rounds:
            at = 0
            c: list[int] = []
            k: list[list[int]] = []
            for n in counts:
                c.append(sample[at])
                k.append(sample[at + 1 : at + 1 + n])
                at += 1 + n
            compiles.append(c)
            calls.append(k)
        return cls(compiles, calls)

    def position_medians(self, group: int) -> list[float]:
        """Call ``j``'s median over the rounds, for each ``j``: what the ``j``-th call
        of a fresh validator usually costs (a hiccup of the machine in one round does
        not count; a spike every fresh validator has does)."""
        per_round = [r[group] for r in self.calls]
        return [_median([r[j] for r in per_round]) for j in range(len(per_round[0]))]


# ---------------------------------------------------------------------------------------
# The corpus and its generated arguments, shared by agent, first-calls and runtime


@dataclass(frozen=True)
class ToolCase:
    tool: mcp_corpus.McpTool
    instances: tuple[Any, ...]
    labels: tuple[bool, ...]  # schemacore's verdicts


@dataclass(frozen=True)
class Corpus:
    cases: tuple[ToolCase, ...]
    total: int  # tools in the corpus
    declared: int  # tools declaring no $schema or Draft 2020-12
    refused: tuple[str, ...]  # "server/name: why": not valid 2020-12 schemas
    sampled: int  # tools taken (quick mode samples)
    off_intent: int  # instances schemacore labels otherwise than the generator meant


_CORPORA: dict[Sizes, Corpus] = {}


def _corpus(sizes: Sizes, reference: Compiler) -> Corpus:
    """The corpus tools with their generated arguments, labelled by schemacore (built
    once per run: three workloads use it)."""
    if sizes in _CORPORA:
        return _CORPORA[sizes]
    tools, total = mcp_corpus.load()
    sampled = tools[:: sizes.every_tool]
    cases: list[ToolCase] = []
    refused: list[str] = []
    off_intent = 0
    for tool in sampled:
        try:
            compiled = reference(tool.schema)
        except Exception as exc:
            refused.append(f"{tool.id}: {type(exc).__name__}: {str(exc)[:120]}")
            continue
        # Seeded per tool, so a tool's arguments do not depend on which others run.
        rng = random.Random(f"agent:{tool.id}")
        generated = argsgen.generate(tool.schema, rng, sizes.valid_args, sizes.invalid_args)
        labels = tuple(bool(compiled.is_valid(g.instance)) for g in generated)
        off_intent += sum(g.intended_valid != ok for g, ok in zip(generated, labels, strict=True))
        cases.append(ToolCase(tool, tuple(g.instance for g in generated), labels))
    corpus = Corpus(tuple(cases), total, len(tools), tuple(refused), len(sampled), off_intent)
    _CORPORA[sizes] = corpus
    return corpus


def _corpus_notes(corpus: Corpus, notes: list[str]) -> None:
    calls = sum(len(c.instances) for c in corpus.cases)
    valid = sum(sum(c.labels) for c in corpus.cases)
    notes.append(
        f"corpus: {corpus.declared} of its {corpus.total} tools declare no $schema or "
        f"Draft 2020-12; {corpus.sampled} taken, {len(corpus.refused)} not valid 2020-12 "
        f"schemas (schemacore refuses them), {len(corpus.cases)} used, {calls:,} calls "
        f"({valid:,} valid, {calls - valid:,} invalid as schemacore labels them; "
        f"{corpus.off_intent} labelled otherwise than the generator meant)"
    )
    for line in corpus.refused:
        notes.append(f"   not a 2020-12 schema: {line}")


def _agreeing(
    cases: Sequence[ToolCase], compilers: dict[str, Compiler], notes: list[str]
) -> list[ToolCase]:
    """The tools every peer compiles and agrees with schemacore on, every instance.

    A tool where one does not is dropped for every peer (as the suite's schemas are),
    so all peers still do the same work, and listed with the instance: that may be a
    real bug of one side."""
    bad: dict[str, list[str]] = {}
    for case in cases:
        reference = compilers[REFERENCE](case.tool.schema)
        for name, compile in compilers.items():
            if name == REFERENCE:
                continue
            try:
                peer = compile(case.tool.schema)
            except Exception as exc:
                bad.setdefault(case.tool.id, []).append(
                    f"{name} failed to compile: {type(exc).__name__}: {str(exc)[:100]}"
                )
                continue
            for instance in case.instances:
                problem = disagreement(reference, peer, instance, _show(instance))
                if problem is not None:
                    bad.setdefault(case.tool.id, []).append(f"{name} on {problem}")
    if bad:
        notes.append(
            f"!! {len(bad)} tools DROPPED FOR EVERY PEER because a peer disagreed "
            "with schemacore there:"
        )
        for tool_id, problems in list(bad.items())[:SHOWN_DROPS]:
            notes.append(f"!!   {tool_id}: {'; '.join(problems[:2])}")
    return [case for case in cases if case.tool.id not in bad]


# Keywords that mean the same under draft 7 as under 2020-12 (formats and defaults are
# annotations for every peer); a schema using only these, with no array-form "items"
# and no "$ref" beside other assertions, is what fastjsonschema (draft 7) may run.
_DRAFT7_ALIKE = frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "enum",
        "const",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minLength",
        "maxLength",
        "pattern",
        "items",
        "minItems",
        "maxItems",
        "uniqueItems",
        "anyOf",
        "oneOf",
        "allOf",
        "not",
        "if",
        "then",
        "else",
        "contains",
        "patternProperties",
        "propertyNames",
        "minProperties",
        "maxProperties",
        "$ref",
        "$defs",
        "title",
        "description",
        "default",
        "examples",
        "format",
        "$comment",
        "readOnly",
        "writeOnly",
        "deprecated",
        "contentEncoding",
        "contentMediaType",
    }
)
_ANNOTATIONS = frozenset(
    {
        "title",
        "description",
        "default",
        "examples",
        "$comment",
        "readOnly",
        "writeOnly",
        "deprecated",
    }
)
_IN_PLACE = (
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
)
_BY_NAME = ("properties", "patternProperties", "$defs")
_BY_INDEX = ("anyOf", "oneOf", "allOf")


def _draft7_alike(schema: Any) -> bool:
    """Whether ``schema`` means exactly the same under draft 7 (a rule over keywords,
    applied to every subschema; nothing is translated)."""
    if isinstance(schema, bool):
        return True
    if not isinstance(schema, dict) or not set(schema) <= _DRAFT7_ALIKE:
        return False
    if "$ref" in schema and not set(schema) - {"$ref"} <= _ANNOTATIONS:
        return False  # draft 7 ignores everything beside a $ref
    if isinstance(schema.get("items"), list):
        return False
    subschemas = [schema[k] for k in _IN_PLACE if k in schema]
    for key in _BY_NAME:
        subschemas += list((schema.get(key) or {}).values())
    for key in _BY_INDEX:
        subschemas += list(schema.get(key) or ())
    return all(_draft7_alike(sub) for sub in subschemas)


# ---------------------------------------------------------------------------------------
# agent


def _agent_figures(
    servers: Sequence[str], counts: Sequence[int]
) -> Callable[[dict[str, list[list[int]]]], list[Figure]]:
    """Compiles: each tool's fastest, summed. Calls: each call's median over the rounds
    (a preempted call in one round does not count), then each tool's slowest."""
    github = [i for i, server in enumerate(servers) if server == GITHUB]

    def reduce(samples: dict[str, list[list[int]]]) -> list[Figure]:
        mins: dict[str, float] = {}
        spikes: dict[str, float] = {}
        slowest: dict[str, float] = {}
        for peer, rounds in samples.items():
            if not rounds:
                continue
            spread = _Spread.of(rounds, counts)
            tools = range(len(counts))
            worst = [max(spread.position_medians(g), default=0.0) for g in tools]
            compiles = [_median([r[g] for r in spread.compiles]) for g in tools]
            mins[peer] = float(sum(min(r[g] for r in spread.compiles) for g in tools))
            if github:
                spikes[peer] = sum(worst[g] for g in github) / sum(compiles[g] for g in github)
            slowest[peer] = max(worst)
        figures = [
            Figure(
                "agent_compile_min_sum",
                f"compile: sum of each tool's fastest, {len(counts)} tools",
                "time",
                mins,
            ),
            Figure("agent_slowest_call", "slowest call of any tool", "time", slowest),
        ]
        if github:
            figures.insert(
                1,
                Figure(
                    "agent_github_spikes",
                    f"{GITHUB}, {len(github)} tools: sum of slowest calls / of compiles",
                    "ratio",
                    spikes,
                ),
            )
        return figures

    return reduce


def _prepare_agent(sizes: Sizes) -> Prepare:
    def prepare(peers: list[Peer], result: Result, log: TextIO) -> None:
        notes = result.notes
        compilers = _compilers(peers, "agent", False, notes)
        corpus = _corpus(sizes, compilers[REFERENCE])
        _corpus_notes(corpus, notes)
        kept = _agreeing(corpus.cases, compilers, notes)
        groups = [(c.tool.schema, c.instances) for c in kept]
        calls = sum(len(c.instances) for c in kept)
        result.title = (
            f"the MCP corpus's {len(kept)} Draft 2020-12 tool input schemas, {calls:,} "
            "generated argument objects: compile + every call, fresh validators each round"
        )
        compiled = {n: [c(s) for s, _ in groups] for n, c in compilers.items()}
        pairs = {
            n: [(v.is_valid, x) for v, (_, xs) in zip(vs, groups, strict=True) for x in xs]
            for n, vs in compiled.items()
        }
        result.rows += [
            Row(
                "agent_end_to_end",
                f"compile + {calls:,} calls, {len(groups)} tools",
                "corpus",
                1,
                False,
                {n: end_to_end(c, groups) for n, c in compilers.items()},
            ),
            Row(
                "agent_compile",
                "compile every tool schema",
                "schema",
                len(groups),
                False,
                {n: compile_all(c, [s for s, _ in groups]) for n, c in compilers.items()},
            ),
            Row(
                "agent_is_valid",
                "is_valid, every call (precompiled)",
                "call",
                calls,
                False,
                {n: paired(p, drain=False) for n, p in pairs.items()},
            ),
        ]
        # fastjsonschema runs draft 7 only: the tools whose schemas mean the same there.
        fast = _compilers(peers, "agent", True, None).get("fastjsonschema")
        alike = [c for c in kept if _draft7_alike(c.tool.schema)]
        if fast is not None and alike:
            with_fast = {**compilers, "fastjsonschema": fast}
            alike = _agreeing(
                alike, {REFERENCE: compilers[REFERENCE], "fastjsonschema": fast}, notes
            )
            sub = [(c.tool.schema, c.instances) for c in alike]
            sub_calls = sum(len(xs) for _, xs in sub)
            result.rows.append(
                Row(
                    "agent_end_to_end_draft7",
                    f"the same, the {len(sub)} tools draft 7 reads alike ({sub_calls:,} calls)",
                    "corpus",
                    1,
                    False,
                    {n: end_to_end(c, sub) for n, c in with_fast.items()},
                )
            )
        counts = [len(xs) for _, xs in groups]
        result.probes.append(
            Probe(
                "agent_shots",
                {n: _shots(c, groups) for n, c in compilers.items()},
                _agent_figures([c.tool.server for c in kept], counts),
            )
        )

    return prepare


# ---------------------------------------------------------------------------------------
# first-calls


def _latency_figures(
    key: str, what: str, counts: Sequence[int]
) -> Callable[[dict[str, list[list[int]]]], list[Figure]]:
    """p50/p99/max of the per-position medians of the first calls (pooled over the
    groups), the worst single sample, the compile, and slowest call / compile."""
    single = len(counts) == 1

    def reduce(samples: dict[str, list[list[int]]]) -> list[Figure]:
        values: dict[str, dict[str, float]] = {
            k: {} for k in ("compile", "p50", "p99", "max", "worst", "spike")
        }
        for peer, rounds in samples.items():
            if not rounds:
                continue
            spread = _Spread.of(rounds, counts)
            pooled: list[float] = []
            slowest = 0.0
            compile_sum = 0.0
            for g in range(len(counts)):
                medians = spread.position_medians(g)
                pooled += medians
                slowest += max(medians)
                compile_sum += _median([r[g] for r in spread.compiles])
            pooled.sort()
            values["compile"][peer] = compile_sum
            values["p50"][peer] = _percentile(pooled, 0.5)
            values["p99"][peer] = _percentile(pooled, 0.99)
            values["max"][peer] = pooled[-1]
            values["worst"][peer] = float(max(max(k) for calls in spread.calls for k in calls))
            values["spike"][peer] = slowest / compile_sum if compile_sum else 0.0
        n = counts[0] if single else max(counts)
        return [
            Figure(
                f"{key}_compile",
                f"{what}: compile" + ("" if single else ", sum"),
                "time",
                values["compile"],
            ),
            Figure(f"{key}_p50", f"{what}: first {n} calls, p50", "time", values["p50"]),
            Figure(f"{key}_p99", f"{what}: first {n} calls, p99", "time", values["p99"]),
            Figure(f"{key}_max", f"{what}: first {n} calls, max", "time", values["max"]),
            Figure(
                f"{key}_worst", f"{what}: worst single sample, any round", "time", values["worst"]
            ),
            Figure(
                f"{key}_spike",
                f"{what}: slowest call / compile"
                if single
                else f"{what}: sum of slowest calls / sum of compiles",
                "ratio",
                values["spike"],
            ),
        ]

    return reduce


def _single_probe(
    key: str,
    what: str,
    workload: wl.Workload,
    compilers: dict[str, Compiler],
    calls: int,
    notes: list[str],
) -> Probe:
    compiled = compile_all_peers(compilers, workload.schema, notes)
    labelled = [(f"{what} valid #{i}", x, True) for i, x in enumerate(workload.valid)]
    labelled += [(f"{what} invalid #{i}", x, False) for i, x in enumerate(workload.invalid)]
    kept = check_peers(compiled, labelled, notes)
    # Valid and invalid alternate, as calls of an agent do.
    mixed = [x for pair in zip(workload.valid, workload.invalid, strict=False) for x in pair]
    groups = [(workload.schema, _cycle(mixed, calls))]
    return Probe(
        key,
        {n: _shots(c, groups) for n, c in compilers.items() if n in kept},
        _latency_figures(key, what, [calls]),
    )


def _prepare_first_calls(sizes: Sizes) -> Prepare:
    def prepare(peers: list[Peer], result: Result, log: TextIO) -> None:
        notes = result.notes
        # Draft-7 compatible schemas first, so fastjsonschema takes part where it can.
        compilers = _compilers(peers, "first-calls", True, notes)
        tool_args = wl.build("tool-args", sizes.quick)
        assert isinstance(tool_args, wl.Workload)
        wide = wl.wide_object(sizes.wide_properties, sizes.wide_instances)
        result.probes += [
            _single_probe(
                "first_tool_args", "(a) tool-args", tool_args, compilers, sizes.first_calls, notes
            ),
            _single_probe(
                "first_wide",
                f"(b) {sizes.wide_properties:,} properties",
                wide,
                compilers,
                sizes.first_calls,
                notes,
            ),
        ]
        try:
            mcp_corpus.load()
        except mcp_corpus.CorpusUnavailable as exc:
            notes.append(f"(c) the MCP corpus: skipped: {exc}")
            return
        corpus_compilers = _compilers(peers, "first-calls", False, None)
        corpus = _corpus(sizes, corpus_compilers[REFERENCE])
        kept = _agreeing(corpus.cases, corpus_compilers, notes)
        groups = [
            (c.tool.schema, _cycle(c.instances, sizes.first_calls)) for c in kept if c.instances
        ]
        result.probes.append(
            Probe(
                "first_corpus",
                {n: _shots(c, groups) for n, c in corpus_compilers.items()},
                _latency_figures(
                    "first_corpus",
                    f"(c) MCP corpus, {len(groups)} tools",
                    [sizes.first_calls] * len(groups),
                ),
            )
        )
        notes.append(
            "first calls: call j's median over the rounds, for each j, then the "
            "percentiles over those (pooled over the tools for the corpus)"
        )

    return prepare


# ---------------------------------------------------------------------------------------
# many-errors


ARRAY_OF_INTEGERS: dict[str, Any] = {"type": "array", "items": {"type": "integer"}}


def _first_error(iter_errors: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda instance: next(iter(iter_errors(instance)))


def _prepare_many_errors(sizes: Sizes) -> Prepare:
    def prepare(peers: list[Peer], result: Result, log: TextIO) -> None:
        notes = result.notes
        n = sizes.error_items
        good = list(range(n))
        bad = [f"item-{i}" for i in range(n)]
        compilers = _compilers(peers, "many-errors", True, notes)
        compiled = compile_all_peers(compilers, ARRAY_OF_INTEGERS, notes)
        compiled = check_peers(
            compiled, [(f"{n:,} integers", good, True), (f"{n:,} strings", bad, False)], notes
        )
        by_name = {p.name: p for p in peers}
        raisers: dict[str, Callable[[Any], None]] = {}
        for name, c in compiled.items():
            raiser = by_name[name].raiser(c)
            if raiser is None:
                continue
            if _raises(raiser, bad) and not _raises(raiser, good):
                raisers[name] = raiser
            else:
                notes.append(
                    f"!! {name}: its validate call does not raise exactly for the "
                    "invalid array: DROPPED from the validate rows"
                )
        first: dict[str, Runner] = {
            name: looped(_first_error(c.iter_errors), [bad])
            for name, c in compiled.items()
            if c.iter_errors is not None
        }
        if "fastjsonschema" in raisers:  # its check raises the first error it meets
            first["fastjsonschema"] = raising(raisers.pop("fastjsonschema"), bad)
        result.rows += [
            Row(
                "errors_validate",
                f"validate(), {n:,} wrong items: raise one error",
                "call",
                1,
                False,
                {name: raising(r, bad) for name, r in raisers.items()},
            ),
            Row("errors_first", "the first error: next(iter_errors(x))", "call", 1, False, first),
            Row(
                "errors_is_valid",
                "is_valid (for scale)",
                "call",
                1,
                False,
                {name: looped(c.is_valid, [bad]) for name, c in compiled.items()},
            ),
        ]
        notes.append(
            "validate(): schemacore Validator.validate and jsonschema "
            "best_match(iter_errors) (what jsonschema.validate raises) pick the "
            "best error; jsonschema-rs validate raises the first"
        )

    return prepare


def _raises(fn: Callable[[Any], None], instance: Any) -> bool:
    try:
        fn(instance)
    except Exception:
        return True
    return False


# ---------------------------------------------------------------------------------------
# runtime


def _tool_args_runner(check: Callable[[Any, Any], Any], pairs: Sequence[tuple[Any, Any]]) -> Runner:
    def run(loops: int) -> int:
        repeat = range(loops)
        start = time.perf_counter_ns()
        for _ in repeat:
            for tool_schema, arguments in pairs:
                check(arguments, tool_schema)
        return time.perf_counter_ns() - start

    return run


def _prepare_runtime(sizes: Sizes) -> Prepare:
    def prepare(peers: list[Peer], result: Result, log: TextIO) -> None:
        import schemacore
        import schemacore.runtime as rt

        notes = result.notes
        compilers = _compilers(peers, "runtime", False, None)
        corpus = _corpus(sizes, compilers[REFERENCE])
        admitted: list[tuple[Any, ToolCase]] = []
        for case in corpus.cases:
            try:
                admitted.append((rt.validate_schema(case.tool.schema), case))
            except rt.BoundaryError as exc:
                notes.append(f"refused by validate_schema: {case.tool.id}: {exc.code}")
        # The verdicts must match: ok exactly when schemacore's is_valid says valid.
        calls: dict[bool, list[tuple[Any, Any]]] = {True: [], False: []}
        mismatches: list[str] = []
        for tool_schema, case in admitted:
            for instance, label in zip(case.instances, case.labels, strict=True):
                if rt.validate_tool_args(instance, tool_schema).ok != label:
                    mismatches.append(f"{case.tool.id} {_show(instance, 100)}")
                calls[label].append((tool_schema, instance))
        if mismatches:
            notes.append(
                f"!! validate_tool_args and is_valid differ on {len(mismatches)} "
                f"calls: {'; '.join(mismatches[:3])}"
            )
        schemas = [case.tool.schema for _, case in admitted]
        result.title = (
            f"schemacore.runtime on the MCP corpus: validate_tool_args against "
            f"is_valid, {len(admitted)} admitted tools"
        )
        admit = Row(
            "runtime_admit",
            "validate_schema, every tool",
            "schema",
            len(schemas),
            False,
            {REFERENCE: looped(rt.validate_schema, schemas)},
        )
        plain = Row(
            "runtime_compile",
            "schemacore.compile, every tool",
            "schema",
            len(schemas),
            False,
            {REFERENCE: looped(schemacore.compile, schemas)},
        )
        result.rows += [admit, plain]
        result.derive.append(
            row_quotient("runtime_admit_over_compile", "validate_schema / compile", admit, plain)
        )
        every = calls[True] + calls[False]
        for tag, chosen in (("valid", calls[True]), ("invalid", calls[False]), ("all", every)):
            if not chosen:
                continue
            runtime = Row(
                f"runtime_args_{tag}",
                f"validate_tool_args, {len(chosen):,} {tag}",
                "call",
                len(chosen),
                False,
                {REFERENCE: _tool_args_runner(rt.validate_tool_args, chosen)},
            )
            engine = Row(
                f"runtime_is_valid_{tag}",
                f"is_valid, the same {len(chosen):,}",
                "call",
                len(chosen),
                False,
                {REFERENCE: paired([(ts.validator.is_valid, x) for ts, x in chosen], drain=False)},
            )
            result.rows += [runtime, engine]
            result.derive.append(
                row_quotient(
                    f"runtime_over_is_valid_{tag}",
                    f"validate_tool_args / is_valid, {tag} calls",
                    runtime,
                    engine,
                )
            )

    return prepare


# ---------------------------------------------------------------------------------------
# output-formats

SLOW_ROUNDS = 3  # evaluate() on the big document takes seconds a call today


def _prepare_outputs(sizes: Sizes) -> Prepare:
    def prepare(peers: list[Peer], result: Result, log: TextIO) -> None:
        notes = result.notes
        records = wl.records(sizes.records)
        # (key tag, label, document, valid); the invalid one has 1 bad record in 100.
        docs = [
            ("valid", "valid", records.valid[0], True),
            ("bad", "1% bad", records.invalid[-1], False),
        ]
        compilers = _compilers(peers, "output-formats", True, notes)
        compiled = compile_all_peers(compilers, records.schema, notes)
        compiled = check_peers(compiled, [(f"{t} document", d, v) for _, t, d, v in docs], notes)
        by_name = {p.name: p for p in peers}
        writers: dict[str, dict[str, Callable[[Any], Any]]] = {}
        for name, c in compiled.items():
            formats = by_name[name].outputs(c)
            if not formats:
                notes.append(f"{name}: skipped: writes no standard output format")
                continue
            writers[name] = {}
            for fmt, write in formats.items():
                if all(write(d)["valid"] is v for _, _, d, v in docs):
                    writers[name][fmt] = write
                else:
                    notes.append(f"!! {name}: output({fmt!r}) disagrees on 'valid': DROPPED")
        for tag, label, doc, _ in docs:
            base = Row(
                f"outputs_is_valid_{tag}",
                f"is_valid, {label} document",
                "document",
                1,
                False,
                {n: looped(compiled[n].is_valid, [doc]) for n in writers},
            )
            result.rows.append(base)
            for fmt in ("flag", "basic", "list"):
                row = Row(
                    f"outputs_{fmt}_{tag}",
                    f'evaluate + output("{fmt}"), {label}',
                    "document",
                    1,
                    False,
                    {n: looped(w[fmt], [doc]) for n, w in writers.items() if fmt in w},
                    max_rounds=SLOW_ROUNDS,
                )
                result.rows.append(row)
                result.derive.append(
                    row_quotient(
                        f"outputs_{fmt}_over_is_valid_{tag}",
                        f"{fmt} / is_valid, {label} document",
                        row,
                        base,
                    )
                )
        notes.append(f"evaluate rows: {SLOW_ROUNDS} rounds at most (seconds a sample)")
        # Memory: what evaluate + output("basic") needs at its peak (Python heap only).
        basic = writers.get(REFERENCE, {}).get("basic")
        if basic is not None:
            print(f"[{result.name}] tracemalloc of evaluate + basic", file=log, flush=True)
            peak = _peak(basic, records.valid[0])
            result.figures.append(
                Figure(
                    "outputs_basic_peak",
                    'evaluate + output("basic"), valid: tracemalloc peak',
                    "bytes",
                    {REFERENCE: peak},
                )
            )
        result.title = (
            f"evaluate(x).output(fmt) against is_valid on the records document "
            f"({sizes.records:,} records)"
        )

    return prepare


def _peak(fn: Callable[[Any], Any], instance: Any) -> float:
    gc.collect()
    tracemalloc.start()
    try:
        fn(instance)
        return float(tracemalloc.get_traced_memory()[1])
    finally:
        tracemalloc.stop()


# ---------------------------------------------------------------------------------------
# memory


def _held(compile: Compiler, schema: Any, instances: Sequence[Any], calls: int) -> tuple[int, int]:
    """Bytes (Python heap, tracemalloc) held after a compile, then after ``calls`` calls
    (whatever the validator builds lazily or caches counts), the validator alive."""
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        compiled = compile(schema)
        gc.collect()
        after_compile = tracemalloc.get_traced_memory()[0] - base
        for i in range(calls):
            compiled.is_valid(instances[i % len(instances)])
        gc.collect()
        after_calls = tracemalloc.get_traced_memory()[0] - base
        del compiled
    finally:
        tracemalloc.stop()
    return after_compile, after_calls


def _memory_subjects(sizes: Sizes) -> list[tuple[str, str, Any, list[Any], bool]]:
    """(key, label, schema, instances, draft 7 alike) of every schema measured."""
    tool_args = wl.build("tool-args", sizes.quick)
    assert isinstance(tool_args, wl.Workload)
    records = wl.records(100)  # the validator's size does not depend on the document
    wide = wl.wide_object(sizes.wide_properties, sizes.wide_instances)
    subjects = [
        ("tool_args", "tool-args", tool_args.schema, [*tool_args.valid, *tool_args.invalid], True),
        ("records", "records", records.schema, [*records.valid, *records.invalid], True),
    ]
    try:
        tools, _ = mcp_corpus.load()
    except mcp_corpus.CorpusUnavailable:
        tools = []
    github = [t for t in tools if t.server == GITHUB]
    if github:
        # The biggest schema of the biggest server: a large real tool.
        tool = max(github, key=lambda t: len(json.dumps(t.schema)))
        made = argsgen.generate(tool.schema, random.Random(f"agent:{tool.id}"), 10, 10)
        subjects.append(
            (
                "mcp_tool",
                f"MCP {tool.id}",
                tool.schema,
                [g.instance for g in made],
                _draft7_alike(tool.schema),
            )
        )
    subjects.append(
        (
            "wide",
            f"{sizes.wide_properties:,} properties",
            wide.schema,
            [*wide.valid, *wide.invalid],
            True,
        )
    )
    return subjects


def _prepare_memory(sizes: Sizes) -> Prepare:
    def prepare(peers: list[Peer], result: Result, log: TextIO) -> None:
        notes = result.notes
        traced = [p for p in peers if not p.missing and p.has_compile and p.traced_memory]
        for peer in peers:
            if not peer.missing and peer.has_compile and not peer.traced_memory:
                notes.append(
                    f"{peer.name}: n/a: its heap is not Python's, tracemalloc cannot see it"
                )
        compilers = {
            True: _compilers(traced, "memory", True, None),
            False: _compilers(traced, "memory", False, None),
        }
        subjects = _memory_subjects(sizes)
        if not any(s[0] == "mcp_tool" for s in subjects):
            notes.append("MCP tool: skipped: the corpus is unavailable")
        calls = sizes.memory_calls
        for key, label, schema, instances, draft7 in subjects:
            print(f"[{result.name}] tracemalloc: {label}", file=log, flush=True)
            after_compile: dict[str, float] = {}
            after_calls: dict[str, float] = {}
            for name, compile in compilers[draft7].items():
                try:
                    warm = compile(schema)  # process-wide caches fill here, not below
                except Exception as exc:
                    notes.append(f"!! {name}: failed to compile {label}: {exc}"[:200])
                    continue
                for i in range(calls):
                    warm.is_valid(instances[i % len(instances)])
                del warm
                shots = [
                    _held(compile, schema, instances, calls) for _ in range(sizes.memory_repeats)
                ]
                after_compile[name] = float(min(s[0] for s in shots))
                after_calls[name] = float(min(s[1] for s in shots))
            result.figures += [
                Figure(
                    f"memory_{key}_compiled", f"{label}: held after compile", "bytes", after_compile
                ),
                Figure(
                    f"memory_{key}_warm",
                    f"{label}: held after compile + {calls} calls",
                    "bytes",
                    after_calls,
                ),
            ]
        notes.append(
            f"memory: min of {sizes.memory_repeats} fresh compiles after a warm-up "
            "compile (process-wide caches excluded); python-jsonschema builds most "
            "of its state on first use, hence the 'after calls' figures"
        )

    return prepare


# ---------------------------------------------------------------------------------------
# import

_IMPORT_CODE = (
    "import sys, time\n"
    "start = time.perf_counter_ns()\n"
    "import {module}\n"
    "elapsed = time.perf_counter_ns() - start\n"
    "print(elapsed, getattr(sys.modules[{module!r}], '__file__', ''))\n"
)


def _import_env(cache: str) -> dict[str, str]:
    env = dict(os.environ)
    # The child imports this checkout's schemacore, as the parent does.
    env["PYTHONPATH"] = os.pathsep.join(
        [str(REPO_ROOT / "src"), *filter(None, [env.get("PYTHONPATH")])]
    )
    # With bytecode cached, as an installed package has it; in a scratch folder, so
    # nothing is written into the checkout or site-packages.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = cache
    return env


def _import_once(module: str, env: dict[str, str]) -> tuple[int, str]:
    """The time of ``import module`` in a fresh interpreter (startup excluded), and the
    file it came from."""
    done = subprocess.run(
        [sys.executable, "-c", _IMPORT_CODE.format(module=module)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    elapsed, _, where = done.stdout.strip().partition(" ")
    return int(elapsed), where


def _import_runner(
    modules: Sequence[str], runs: int, cache: tempfile.TemporaryDirectory[str]
) -> ProbeRunner:
    env = _import_env(cache.name)

    def run() -> list[int]:
        # The closure keeps ``cache`` alive: the folder goes when the probe is dropped.
        assert os.path.isdir(cache.name)
        return [min(_import_once(m, env)[0] for _ in range(runs)) for m in modules]

    return run


def _prepare_import(sizes: Sizes) -> Prepare:
    def prepare(peers: list[Peer], result: Result, log: TextIO) -> None:
        modules: dict[str, list[str]] = {}
        for peer in peers:
            if peer.missing or not peer.module:
                continue
            modules[peer.name] = [peer.module]
        modules[REFERENCE].append("schemacore.runtime")
        cache = tempfile.TemporaryDirectory(prefix="schemacore-bench-pycache-")
        where = _import_once("schemacore", _import_env(cache.name))[1]
        if not where.startswith(str(REPO_ROOT / "src")):
            result.notes.append(f"!! the child imported schemacore from {where}")

        def reduce(samples: dict[str, list[list[int]]]) -> list[Figure]:
            first = {n: float(min(r[0] for r in rounds)) for n, rounds in samples.items() if rounds}
            runtime = [r[1] for r in samples.get(REFERENCE, [])]
            figures = [
                Figure(
                    "import_library",
                    "import schemacore (each peer: its own module), min over the rounds",
                    "time",
                    first,
                )
            ]
            if runtime:
                figures.append(
                    Figure(
                        "import_runtime",
                        "import schemacore.runtime",
                        "time",
                        {REFERENCE: float(min(runtime))},
                    )
                )
            return figures

        result.probes.append(
            Probe(
                "import",
                {n: _import_runner(m, sizes.import_runs, cache) for n, m in modules.items()},
                reduce,
            )
        )
        result.notes.append(
            "import: a fresh interpreter per import, timed around the "
            "import statement inside it (interpreter startup excluded), "
            "bytecode cached by the warm-up run"
        )

    return prepare


# ---------------------------------------------------------------------------------------

_BUILDERS: dict[str, tuple[str, Callable[[Sizes], Prepare]]] = {
    "agent": ("the MCP corpus, compile + calls, fresh validators", _prepare_agent),
    "first-calls": ("latency of each of a fresh validator's first calls", _prepare_first_calls),
    "many-errors": ("validate() on an array of wrong items", _prepare_many_errors),
    "runtime": ("schemacore.runtime against is_valid", _prepare_runtime),
    "output-formats": ("evaluate + output formats against is_valid", _prepare_outputs),
    "memory": ("memory held by a compiled validator (tracemalloc)", _prepare_memory),
    "import": ("import time in a fresh interpreter", _prepare_import),
}
_NEEDS_CORPUS = ("agent", "runtime")

NAMES: tuple[str, ...] = tuple(_BUILDERS)


def build(name: str, quick: bool) -> OneOff | wl.Unavailable:
    """Workload ``name`` (one of :data:`NAMES`), or why it cannot run here."""
    title, make = _BUILDERS[name]
    if name in _NEEDS_CORPUS:
        try:
            mcp_corpus.load()
        except mcp_corpus.CorpusUnavailable as exc:
            return wl.Unavailable(name, f"the MCP tool corpus is unavailable: {exc}")
    return OneOff(name, title, make(Sizes.of(quick)))
