"""Instruction counts of the agent workload's parts, for A/B of one engine change.

Timings on a shared machine move by tens of percent between runs; instruction
counts under ``valgrind --tool=callgrind`` repeat to a fraction of a percent. Over
the MCP corpus's Draft 2020-12 tool input schemas and their seeded generated
arguments (those of the ``agent`` workload), one run under callgrind counts:

- ``compile``: ``schemacore.compile`` of every schema, per schema;
- ``closures``: ``is_valid`` of every argument object on fresh validators, which
  run on closures (their tiering held back, so no code is written meanwhile);
- ``generated``: the same calls once every validator's code is written;
- ``suite``: over the JSON-Schema-Test-Suite's required Draft 2020-12 groups (those
  of the ``suite`` workload), compiling each group's schema and ``is_valid`` of its
  cases, per group (left out when the suite is not there).

The garbage collector is off in every phase: its pauses depend on the heap, not on
the code measured (``gc_objects`` reports what a compile leaves for it instead)::

    python -m benchmarks.instructions            # needs valgrind
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import sys
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import schemacore
from benchmarks import argsgen, mcp_corpus
from benchmarks.callgrind import phase_counts


def _corpus() -> list[tuple[Any, list[Any]]]:
    tools, _ = mcp_corpus.load()
    groups = []
    for tool in tools:
        try:
            schemacore.compile(tool.schema)
        except schemacore.SchemaCoreError:
            continue  # not a valid 2020-12 schema (the agent workload drops it too)
        made = argsgen.generate(tool.schema, random.Random(f"agent:{tool.id}"), 10, 10)
        groups.append((tool.schema, [g.instance for g in made]))
    return groups


def _phases() -> None:
    """Each phase between two ``os.getppid()`` calls (callgrind's dump points)."""
    groups = _corpus()
    schemas = [schema for schema, _ in groups]
    for schema in schemas:  # warm: meta-schemas, caches, code shared by source
        schemacore.compile(schema)._promote()
    gc.collect()
    gc.disable()
    os.getppid()
    validators = [schemacore.compile(schema) for schema in schemas]
    os.getppid()
    for validator in validators:
        validator._calls[2] = float("inf")  # stay on closures
    pairs = [(v.is_valid, x) for v, (_, xs) in zip(validators, groups, strict=True) for x in xs]
    os.getppid()
    for check, instance in pairs:
        check(instance)
    os.getppid()
    for validator in validators:
        validator._promote()
    os.getppid()
    for check, instance in pairs:
        check(instance)
    os.getppid()
    print(f"schemas: {len(schemas)}; calls: {len(pairs)}")
    suite = _suite_groups()
    for schema, _cases, registry in suite:  # warm, as above
        schemacore.compile(schema, registry=registry)
    os.getppid()
    for schema, cases, registry in suite:
        validator = schemacore.compile(schema, registry=registry)
        for case in cases:
            validator.is_valid(case)
    os.getppid()
    print(f"suite groups: {len(suite)}")


def _suite_groups() -> list[tuple[Any, list[Any], dict[str, Any]]]:
    """The suite workload's groups that compile: (schema, cases, registry)."""
    from benchmarks import workloads

    found = workloads.build("suite", quick=False)
    if not isinstance(found, workloads.SuiteWorkload):
        return []
    registry = dict(found.registry)
    groups = []
    for group in found.groups:
        try:
            schemacore.compile(group.schema, registry=registry)
        except schemacore.SchemaCoreError:
            continue
        groups.append((group.schema, [data for data, _ in group.cases], registry))
    return groups


def _gc_objects(schemas: list[Any]) -> int:
    gc.collect()
    gc.disable()
    before = {id(o) for o in gc.get_objects()}
    kept = [schemacore.compile(schema) for schema in schemas]
    found = sum(1 for o in gc.get_objects() if id(o) not in before)
    del kept
    gc.enable()
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--phases", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    if options.phases:
        _phases()
        return 0
    stdout, found = phase_counts("benchmarks.instructions", ["--phases"])
    counts = stdout.split("schemas: ")[1].split("; calls: ")
    schemas, calls = int(counts[0]), int(counts[1].split()[0])
    # Phases: compile, setup, closures, writing code, generated.
    compiled, _, closures, _, generated = found[:5]
    print(f"MCP corpus: {schemas} tool schemas, {calls:,} generated argument objects")
    print(f"  compile    {compiled / schemas:>10,.0f} instructions per schema")
    print(f"  closures   {closures / calls:>10,.0f} instructions per call")
    print(f"  generated  {generated / calls:>10,.0f} instructions per call")
    print(f"  gc objects {_gc_objects([s for s, _ in _corpus()]) / schemas:>10,.1f} per schema")
    groups = int(stdout.split("suite groups: ")[1].split()[0])
    if groups:
        print(f"test suite: {groups} Draft 2020-12 groups, compile + is_valid of their cases")
        print(f"  suite      {found[6] / groups:>10,.0f} instructions per group")
    return 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
