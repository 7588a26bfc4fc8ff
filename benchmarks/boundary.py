"""The runtime boundary's per-call cost over the real MCP tool corpus.

Admits every file of ``../shared/mcp-tools`` (Draft 2020-12, isolate mode), generates
seeded arguments for each admitted tool (valid ones and a few invalid ones, labelled
by the engine), warms the validators past their tiering, then times
``validate_tool_args(args, tool.input)`` against ``tool.input.validator.is_valid(args)``,
interleaved, the minimum of the rounds (thread CPU time: the machine may be shared).
Prints the ratio per tool (median, p90, max) and overall (total time), for valid and
invalid arguments apart; for invalid ones also against draining ``iter_errors``::

    python -m benchmarks.boundary [--rounds N] [--corpus DIR] [--per-tool]
    python -m benchmarks.boundary --callgrind [--loops N]

``--callgrind`` reruns itself under ``valgrind --tool=callgrind`` and prints the
instructions per call of ``is_valid`` and of ``validate_tool_args`` on the valid
arguments, both counted in that one run.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from benchmarks.callgrind import phase_counts
from schemacore.runtime import AdmissionRejected, ToolCatalog, validate_tool_args
from schemacore.runtime.bounds import within
from schemacore.runtime.toolschema import ToolSchema

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "mcp-tools"
VALID_PER_TOOL = 8
INVALID_PER_TOOL = 3


def _resolve(schema: Any, root: Any) -> Any:
    """Follow a local ``$ref`` (``#/...``) a few times; anything else as it is."""
    for _ in range(8):
        if not isinstance(schema, dict) or not isinstance(schema.get("$ref"), str):
            return schema
        ref = schema["$ref"]
        if not ref.startswith("#"):
            return schema
        target: Any = root
        for token in ref[1:].split("/")[1:]:
            token = token.replace("~1", "/").replace("~0", "~")
            if not isinstance(target, dict) or token not in target:
                return schema
            target = target[token]
        schema = target
    return schema


def _value(schema: Any, root: Any, rng: random.Random, depth: int) -> Any:
    """A value meant to match ``schema`` (the engine decides whether it does)."""
    schema = _resolve(schema, root)
    if not isinstance(schema, dict):
        return rng.choice(["x", 1, True, None])
    if "const" in schema:
        return schema["const"]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return rng.choice(schema["enum"])
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list) and schema[key]:
            return _value(rng.choice(schema[key]), root, rng, depth)
    if isinstance(schema.get("allOf"), list) and schema["allOf"]:
        merged: dict[str, Any] = {}
        for part in schema["allOf"]:
            part = _resolve(part, root)
            if isinstance(part, dict):
                merged.update(part)
        merged.update({k: v for k, v in schema.items() if k != "allOf"})
        return _value(merged, root, rng, depth)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = rng.choice([k for k in kind if k != "null"] or kind)
    if kind is None:
        kind = "object" if "properties" in schema else "string"
    if kind == "object":
        props = schema.get("properties") or {}
        required = set(schema.get("required") or ())
        out: dict[str, Any] = {}
        for name, sub in props.items():
            if name in required or (depth < 4 and rng.random() < 0.6):
                out[name] = _value(sub, root, rng, depth + 1)
        for name in required - out.keys():
            out[name] = "x"
        return out
    if kind == "array":
        lo = schema.get("minItems", 0)
        n = max(lo, rng.randint(0, 3)) if depth < 4 else lo
        return [_value(schema.get("items", {}), root, rng, depth + 1) for _ in range(n)]
    if kind == "integer":
        lo = schema.get("minimum", 0)
        hi = schema.get("maximum", lo + 100)
        return rng.randint(int(lo), max(int(lo), int(hi)))
    if kind == "number":
        lo = schema.get("minimum", 0)
        hi = schema.get("maximum", lo + 100)
        return rng.uniform(lo, hi)
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "null":
        return None
    lo = schema.get("minLength", 1)
    hi = schema.get("maxLength", lo + 24)
    return "".join(rng.choice("abcdefgh xyz/-_") for _ in range(rng.randint(lo, max(lo, hi))))


def _spoil(args: dict[str, Any], schema: Any, rng: random.Random) -> dict[str, Any]:
    """A copy of ``args`` with one slip: a wrong type, a missing required property or
    an unknown one."""
    spoilt = dict(args)
    required = [n for n in (schema.get("required") or ()) if n in spoilt]
    choice = rng.randrange(3)
    if choice == 0 and spoilt:
        name = rng.choice(sorted(spoilt))
        spoilt[name] = [] if isinstance(spoilt[name], str) else "wrong"
    elif choice == 1 and required:
        del spoilt[rng.choice(required)]
    else:
        spoilt["unexpected_" + str(rng.randrange(100))] = {"deep": [1, 2]}
    return spoilt


class Case:
    """One admitted tool and its labelled arguments."""

    def __init__(self, name: str, tool_schema: ToolSchema, rng: random.Random) -> None:
        self.name = name
        self.tool_schema = tool_schema
        schema = tool_schema.schema
        is_valid = tool_schema.validator.is_valid
        self.valid: list[Any] = []
        self.invalid: list[Any] = []
        for _ in range(VALID_PER_TOOL * 4):
            if len(self.valid) >= VALID_PER_TOOL:
                break
            args = _value(schema, schema, rng, 0)
            if isinstance(args, dict) and is_valid(args):
                self.valid.append(args)
        for _ in range(INVALID_PER_TOOL * 4):
            if len(self.invalid) >= INVALID_PER_TOOL or not self.valid:
                break
            args = _spoil(rng.choice(self.valid), schema, rng)
            if not is_valid(args):
                self.invalid.append(args)


def load_cases(folder: Path, seed: int = 16) -> list[Case]:
    """Every tool of the corpus that is admitted and for which arguments were made."""
    rng = random.Random(seed)
    cases = []
    for path in sorted(folder.glob("*.json")):
        catalog = ToolCatalog(dialects=("2020-12",))
        try:
            bundle = catalog.admit_batch(json.loads(path.read_bytes()), mode="isolate")
        except AdmissionRejected:
            continue
        for name in bundle.accepted:
            case = Case(f"{path.stem}/{name}", bundle.registry[name].input, rng)
            if case.valid:
                cases.append(case)
    return cases


def _time_boundary(instances: list[Any], tool_schema: ToolSchema, loops: int) -> float:
    start = time.thread_time_ns()
    for _ in range(loops):
        for instance in instances:
            validate_tool_args(instance, tool_schema)
    return (time.thread_time_ns() - start) / (loops * len(instances))


def _time_is_valid(instances: list[Any], is_valid: Callable[[Any], bool], loops: int) -> float:
    start = time.thread_time_ns()
    for _ in range(loops):
        for instance in instances:
            is_valid(instance)
    return (time.thread_time_ns() - start) / (loops * len(instances))


def _time_errors(instances: list[Any], tool_schema: ToolSchema, loops: int) -> float:
    iter_errors = tool_schema.validator.iter_errors
    start = time.thread_time_ns()
    for _ in range(loops):
        for instance in instances:
            list(iter_errors(instance))
    return (time.thread_time_ns() - start) / (loops * len(instances))


Row = tuple[str, float, float, float]  # tool, boundary ns, is_valid ns, iter_errors ns


def measure(cases: list[Case], rounds: int) -> dict[str, list[Row]]:
    """Per tool and per kind ("valid", "invalid"): the minimum over the rounds of
    validate_tool_args, is_valid and (invalid arguments) draining iter_errors."""
    rows: dict[str, list[Row]] = {"valid": [], "invalid": []}
    for case in cases:
        ts = case.tool_schema
        is_valid = ts.validator.is_valid
        for kind in ("valid", "invalid"):
            instances = getattr(case, kind)
            if not instances:
                continue
            for args in instances:  # warm up past the tiering
                for _ in range(20):
                    validate_tool_args(args, ts)
                    is_valid(args)
            loops = max(1, 20_000 // (len(instances) * 20))
            boundary = checked = errors = float("inf")
            for r in range(rounds):  # interleaved, in alternating order
                if r % 2:
                    checked = min(checked, _time_is_valid(instances, is_valid, loops))
                boundary = min(boundary, _time_boundary(instances, ts, loops))
                if not r % 2:
                    checked = min(checked, _time_is_valid(instances, is_valid, loops))
                if kind == "invalid":
                    errors = min(errors, _time_errors(instances, ts, max(1, loops // 4)))
            rows[kind].append((case.name, boundary, checked, errors))
    return rows


def _phases(cases: list[Case], loops: int) -> None:
    """is_valid, then validate_tool_args, over every valid argument object, each
    phase between two ``os.getppid()`` calls (callgrind's dump points)."""
    pairs = [(c.tool_schema, a) for c in cases for a in c.valid]
    for ts, args in pairs:
        for _ in range(20):
            ts.validator.is_valid(args)
            validate_tool_args(args, ts)
    os.getppid()
    for _ in range(loops):
        for ts, args in pairs:
            ts.validator.is_valid(args)
    os.getppid()
    for _ in range(loops):
        for ts, args in pairs:
            validate_tool_args(args, ts)
    os.getppid()
    for _ in range(loops):
        for ts, args in pairs:
            bound = ts.limits
            within(
                args, bound.max_argument_depth, bound.max_argument_nodes, bound.max_string_length
            )
    os.getppid()
    print(f"calls per phase: {loops * len(pairs)}")


def _callgrind(corpus: Path, loops: int) -> int:
    """Instructions per call of each phase, from one run under callgrind (time-based
    tiering makes separate runs differ by more than the difference measured)."""
    arguments = ["--corpus", str(corpus), "--phases", "--loops", str(loops)]
    stdout, found = phase_counts("benchmarks.boundary", arguments)
    calls = int(stdout.split("calls per phase:")[1])
    counts = [count / calls for count in found[:3]]
    is_valid, boundary, bounds = counts
    print(
        f"valid arguments, instructions per call: is_valid {is_valid:.0f}, "
        f"validate_tool_args {boundary:.0f} ({boundary / is_valid:.2f}x), "
        f"of which the bounds pass (within) {bounds:.0f}"
    )
    return 0


def _summary(kind: str, rows: list[Row], per_tool: bool) -> None:
    ratios = [(name, b / v) for name, b, v, _ in rows]
    values = [r for _, r in ratios]
    worst = max(ratios, key=lambda row: row[1])
    overall = sum(b for _, b, _, _ in rows) / sum(v for _, _, v, _ in rows)
    print(
        f"{kind:8} boundary/is_valid: median {statistics.median(values):.2f}x, "
        f"p90 {statistics.quantiles(values, n=10)[-1]:.2f}x, "
        f"max {worst[1]:.2f}x ({worst[0]}), overall {overall:.2f}x (total time)"
    )
    if kind == "invalid":
        drained = [b / e for _, b, _, e in rows]
        print(
            f"{'':8} boundary/list(iter_errors): median {statistics.median(drained):.2f}x, "
            f"overall {sum(b for _, b, _, _ in rows) / sum(e for *_, e in rows):.2f}x"
        )
    if per_tool:
        for name, ratio in ratios:
            print(f"  {ratio:6.2f}  {name}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--per-tool", action="store_true")
    parser.add_argument("--callgrind", action="store_true")
    parser.add_argument("--phases", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--loops", type=int, default=2)
    options = parser.parse_args(argv)
    if not options.corpus.is_dir():
        print(f"error: no MCP tool corpus at {options.corpus}", file=sys.stderr)
        return 2
    if options.callgrind:
        return _callgrind(options.corpus, options.loops)
    cases = load_cases(options.corpus)
    if options.phases:
        _phases(cases, options.loops)
        return 0
    valid = sum(len(c.valid) for c in cases)
    invalid = sum(len(c.invalid) for c in cases)
    print(f"{len(cases)} tools, {valid} valid and {invalid} invalid argument objects")
    for kind, rows in measure(cases, options.rounds).items():
        _summary(kind, rows, options.per_tool)
    return 0


if __name__ == "__main__":
    sys.exit(main())
