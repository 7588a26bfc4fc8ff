"""Streaming JSON Lines through ``schemacore validate``: memory, rate, and ``--jobs``.

``python benchmarks/cli_stream.py`` writes a seeded 1,000,000-line JSON Lines file to
a temporary folder and measures, in interleaved rounds (the minimum of each is shown,
the machine being shared and noisy):

- the CLI streaming it (``schemacore validate --quiet schema.json data.jsonl``) and
  with its error lines (a few records are invalid on purpose), one process;
- the same with ``--jobs 2``;
- a plain Python loop, ``validator.is_valid(json.loads(line))`` for each line, in a
  process of its own, for the rate the CLI is compared with.

Every command runs as a child process, timed from start to exit (interpreter start,
import and compile included, for both the CLI and the loop); peak memory is the
child's maximum resident set size from ``os.wait4`` (for ``--jobs``, the largest of
the main process and its workers), and its CPU time that of the child and its
workers together: on a machine whose other cores are busy, ``--jobs 2`` cannot be
faster, and the CPU column shows whether the work was only split or also grew.
``--quick`` uses 20,000 lines and one round: a smoke test, as CI runs it. Nothing is
asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[1]
_SRC = str(_ROOT / "src")

SCHEMA = {
    "type": "object",
    "required": ["id", "name", "email", "score"],
    "properties": {
        "id": {"type": "integer", "minimum": 0},
        "name": {"type": "string", "minLength": 1, "maxLength": 64},
        "email": {"type": "string", "pattern": "^[^@]+@[^@]+$"},
        "score": {"type": "number", "minimum": 0, "maximum": 100},
        "tags": {"type": "array", "items": {"enum": ["a", "b", "c", "d"]}, "maxItems": 4},
        "active": {"type": "boolean"},
        "address": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "zip": {"type": "string"}},
            "additionalProperties": False,
        },
    },
    "additionalProperties": False,
}

# Every this many lines one record is invalid (a negative id).
INVALID_EVERY = 10_000

LOOP = """
import json, sys
import schemacore
with open(sys.argv[1], "rb") as handle:
    validator = schemacore.compile(json.load(handle))
invalid = 0
with open(sys.argv[2], "rb") as lines:
    for line in lines:
        if not validator.is_valid(json.loads(line)):
            invalid += 1
print(invalid)
"""


def write_data(folder: Path, count: int) -> tuple[Path, Path]:
    """The schema and a JSON Lines file of ``count`` records (seeded)."""
    schema = folder / "schema.json"
    schema.write_text(json.dumps(SCHEMA), encoding="utf-8")
    data = folder / "data.jsonl"
    rnd = random.Random(19)
    tags = ["a", "b", "c", "d"]
    with data.open("w", encoding="utf-8") as out:
        for index in range(count):
            record = {
                "id": -index if index % INVALID_EVERY == 1 else index,
                "name": f"user {index}",
                "email": f"user{index}@example.com",
                "score": round(rnd.random() * 100, 3),
                "tags": rnd.sample(tags, rnd.randint(0, 3)),
                "active": index % 2 == 0,
                "address": {"city": "Springfield", "zip": f"{rnd.randint(0, 99999):05d}"},
            }
            out.write(json.dumps(record) + "\n")
    return schema, data


@dataclass(frozen=True)
class Sample:
    seconds: float
    cpu_seconds: float
    peak_mb: float
    status: int


def measure(command: Sequence[str]) -> Sample:
    """Run ``command`` with its output discarded; its time and peak memory."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [_SRC, env.get("PYTHONPATH")]))
    started = time.perf_counter()
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env
    )
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)  # already reaped
    # ru_maxrss is in kilobytes on Linux (bytes on macOS).
    scale = 1024 * 1024 if sys.platform == "darwin" else 1024
    cpu = usage.ru_utime + usage.ru_stime  # the child's and its workers'
    return Sample(seconds, cpu, usage.ru_maxrss / scale, process.returncode)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=1_000_000, help="records to write")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds")
    parser.add_argument("--quick", action="store_true", help="20,000 lines, one round")
    args = parser.parse_args(argv)
    count, rounds = (20_000, 1) if args.quick else (args.lines, args.rounds)

    with tempfile.TemporaryDirectory() as folder:
        schema, data = write_data(Path(folder), count)
        size_mb = data.stat().st_size / 1e6
        print(f"{count:,} lines, {size_mb:,.1f} MB, {rounds} round(s), min of rounds shown")
        cli = [sys.executable, "-m", "schemacore", "validate", "--no-progress"]
        commands = {
            "plain loop (is_valid)": [sys.executable, "-c", LOOP, str(schema), str(data)],
            "cli --quiet": [*cli, "--quiet", str(schema), str(data)],
            "cli (error lines)": [*cli, str(schema), str(data)],
            "cli --quiet --jobs 2": [*cli, "--quiet", "--jobs", "2", str(schema), str(data)],
        }
        samples: dict[str, list[Sample]] = {name: [] for name in commands}
        for round_index in range(rounds):
            # Rotate the order so drift on a shared machine hits every command alike.
            names = list(commands)
            shift = round_index % len(names)
            for name in names[shift:] + names[:shift]:
                samples[name].append(measure(commands[name]))

    best = {name: min(found, key=lambda sample: sample.seconds) for name, found in samples.items()}
    expected = 0 if count < 2 else 1  # some records are invalid: the CLI exits 1
    loop = best["plain loop (is_valid)"].seconds
    print(
        f"{'command':<24} {'seconds':>8} {'lines/s':>10} {'vs loop':>8} {'cpu s':>7} "
        f"{'peak MB':>8}  exit"
    )
    for name, sample in best.items():
        ratio = sample.seconds / loop
        print(
            f"{name:<24} {sample.seconds:8.2f} {count / sample.seconds:10,.0f} "
            f"{ratio:8.2f} {sample.cpu_seconds:7.2f} {sample.peak_mb:8.1f}  {sample.status}"
        )
        if name.startswith("cli") and sample.status != expected:
            print(f"  !! {name} exited {sample.status}, expected {expected}")
    single = best["cli --quiet"].seconds
    print(f"--jobs 2 / one process: {best['cli --quiet --jobs 2'].seconds / single:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
