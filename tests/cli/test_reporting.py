"""--error-format json, --quiet, --jobs, and the progress line."""

from __future__ import annotations

import functools
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import schemacore
from schemacore.commandline import pool
from schemacore.commandline import validate as validate_module
from schemacore.commandline.checking import Checker, ChunkTask, Plan
from schemacore.commandline.lines import read_chunks
from schemacore.commandline.progress import Progress

from .helpers import SCHEMA, SRC, run_cli, write_json, write_lines

FIELDS = ["file", "line", "instanceLocation", "keyword", "keywordLocation", "message", "kind"]


@pytest.fixture
def schema(tmp_path: Path) -> str:
    return write_json(tmp_path, "schema.json", SCHEMA)


def _expected(name: str, line: int | None, instance: object) -> list[dict[str, object]]:
    return [
        {
            "file": name,
            "line": line,
            "instanceLocation": error.instance_location,
            "keyword": error.keyword,
            "keywordLocation": error.keyword_location,
            "message": error.message,
            "kind": "invalid",
        }
        for error in schemacore.compile(SCHEMA).iter_errors(instance)
    ]


def test_error_format_json_prints_one_object_per_error(tmp_path: Path, schema: str) -> None:
    good = write_json(tmp_path, "good.json", {"name": "a"})
    bad = write_json(tmp_path, "bad.json", {"age": -1})
    data = write_lines(tmp_path, "data.jsonl", [{"name": "a"}, {"name": 1}])
    broken = tmp_path / "broken.jsonl"
    broken.write_bytes(b'{"name": "a"}\n{oops\n')
    missing = str(tmp_path / "missing.json")

    result = run_cli(
        "validate", "--error-format", "json", schema, good, bad, data, str(broken), missing
    )
    assert result.status == 2
    records = [json.loads(line) for line in result.out_lines]
    assert all(list(record) == FIELDS for record in records)
    assert records == [
        *_expected(bad, None, {"age": -1}),
        *_expected(data, 2, {"name": 1}),
        {
            "file": str(broken),
            "line": 2,
            "instanceLocation": None,
            "keyword": None,
            "keywordLocation": None,
            "message": "invalid JSON: Expecting property name enclosed in double quotes (column 2)",
            "kind": "input",
        },
        {
            "file": missing,
            "line": None,
            "instanceLocation": None,
            "keyword": None,
            "keywordLocation": None,
            "message": "cannot read: No such file or directory",
            "kind": "input",
        },
    ]
    # Problems are still the usual error lines on stderr, for a person reading the log.
    assert len(result.err_lines) == 2 and all(
        line.startswith("error: ") for line in result.err_lines
    )


def test_error_format_json_with_an_output_format_is_a_usage_error(schema: str) -> None:
    result = run_cli("validate", "--error-format", "json", "--output", "basic", schema, schema)
    assert result.status == 2
    assert result.err == "error: --error-format json and --output cannot be combined\n"


@pytest.mark.parametrize("flag", ["-q", "--quiet"])
def test_quiet_prints_nothing_but_keeps_the_status(tmp_path: Path, schema: str, flag: str) -> None:
    good = write_json(tmp_path, "good.json", {"name": "a"})
    bad = write_lines(tmp_path, "bad.jsonl", [{"name": "a"}, {}])
    broken = tmp_path / "broken.json"
    broken.write_text("{", encoding="utf-8")
    assert run_cli("validate", flag, schema, good) == (0, "", "")
    assert run_cli("validate", flag, schema, good, bad) == (1, "", "")
    result = run_cli("validate", flag, schema, good, bad, str(broken))
    assert (result.status, result.out) == (2, "")
    assert result.err.startswith(f"error: {broken}: invalid JSON"), result.err


def _mixed_inputs(tmp_path: Path) -> list[str]:
    """Files of every kind, good and bad, and a JSON Lines file of several chunks."""
    names = [
        write_json(tmp_path, "a.json", {"name": "a"}),
        write_json(tmp_path, "b.json", {"age": -2}),
        str(tmp_path / "missing.json"),
    ]
    (tmp_path / "c.yaml").write_text("name: 5\n", encoding="utf-8")
    (tmp_path / "d.toml").write_text('name = "d"\n', encoding="utf-8")
    (tmp_path / "e.json").write_text("[1, 2", encoding="utf-8")
    names += [str(tmp_path / "c.yaml"), str(tmp_path / "d.toml"), str(tmp_path / "e.json")]
    # About 2.5 MB: more than two chunks of 1 MiB, an invalid record every 997 lines
    # and a malformed one every 4999.
    big = tmp_path / "big.jsonl"
    padding = "x" * 100
    with big.open("w", encoding="utf-8") as out:
        for n in range(20_000):
            if n % 4999 == 4998:
                out.write("{broken\n")
            elif n % 997 == 0:
                out.write(json.dumps({"name": n, "pad": padding}) + "\n")
            else:
                out.write(json.dumps({"name": str(n), "pad": padding}) + "\n")
    names.append(str(big))
    names += [
        write_json(tmp_path, f"many{n}.json", {"name": "x" if n % 2 else n}) for n in range(6)
    ]
    return names


@pytest.mark.parametrize("error_format", ["text", "json"])
def test_jobs_print_the_same_report_in_the_same_order(
    tmp_path: Path, schema: str, error_format: str
) -> None:
    names = _mixed_inputs(tmp_path)
    flags = ["validate", "--error-format", error_format, schema, *names]
    one = run_cli(*flags)
    two = run_cli("validate", "--jobs", "2", *flags[1:])
    assert one.status == 2
    assert two == one
    # The report is not trivial: errors from the first, middle and last inputs.
    assert len(one.out_lines) > 20 and len(one.err_lines) == 6, one.err


def test_jobs_zero_means_one_per_cpu_and_bad_counts_are_usage_errors(
    tmp_path: Path, schema: str
) -> None:
    from schemacore.cli import _parser

    parsed = _parser().parse_args(["validate", "-j", "0", schema, schema])
    assert parsed.jobs == (os.cpu_count() or 1)
    good = write_json(tmp_path, "good.json", {"name": "a"})
    assert run_cli("validate", "-j", "0", schema, good, good) == (0, f"{good}: valid\n" * 2, "")
    for bad in ("-1", "two"):
        result = run_cli("validate", "--jobs", bad, schema, schema)
        assert result.status == 2 and "usage:" in result.err, result.err


def test_jobs_with_a_single_document_runs_in_process(
    tmp_path: Path, schema: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_workers(*args: object, **kwargs: object) -> None:
        raise AssertionError("a pool was started for one document")

    monkeypatch.setattr(validate_module, "in_workers", no_workers)
    good = write_json(tmp_path, "good.json", {"name": "a"})
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    from schemacore.cli import main

    assert main(["validate", "-j", "2", schema, good]) == 0, err.getvalue()
    assert out.getvalue() == f"{good}: valid\n"


# -- the progress line ---------------------------------------------------------------------


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_progress_shows_records_errors_and_rate_after_a_delay_on_a_terminal() -> None:
    terminal, clock = _Terminal(), _Clock()
    progress = Progress(terminal, 1000, clock=clock, delay=1.0, interval=0.5)
    progress.advance(10, 1, 100)
    assert terminal.getvalue() == ""  # a short run never shows it
    clock.now += 2.0
    progress.advance(990, 2, 400)
    shown = terminal.getvalue()
    assert shown == "\r\x1b[K[##########----------]  50%  1,000 records  3 errors  500 records/s"
    clock.now += 0.1
    progress.advance(1, 0, 1)
    assert terminal.getvalue() == shown  # redrawn at most every interval
    progress.erase()
    assert terminal.getvalue().endswith("\r\x1b[K")


def test_progress_is_silent_when_stderr_is_not_a_terminal() -> None:
    stream, clock = io.StringIO(), _Clock()
    progress = Progress(stream, None, clock=clock, delay=0.0)
    clock.now += 5
    progress.advance(100, 0, 0)
    progress.erase()
    assert stream.getvalue() == ""
    assert progress.records == 100


def test_the_command_draws_progress_on_a_terminal_and_erases_it(
    tmp_path: Path, schema: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = write_lines(tmp_path, "data.jsonl", [{"name": "a"}, {}] * 10)
    terminal = _Terminal()
    ticks = iter(range(0, 10_000, 5))  # every reading of the clock is 5 s later
    clocked = functools.partial(Progress, clock=lambda: float(next(ticks)))
    monkeypatch.setattr(validate_module, "Progress", clocked)
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    from schemacore.cli import main

    assert main(["validate", schema, data, data]) == 1
    drawn = terminal.getvalue()
    assert "20 records  10 errors" in drawn and "records/s" in drawn, drawn
    assert drawn.endswith("\r\x1b[K")
    terminal.truncate(0)
    terminal.seek(0)
    assert main(["validate", "--no-progress", schema, data]) == 1
    assert terminal.getvalue() == ""


def test_no_progress_in_a_pipe(tmp_path: Path, schema: str) -> None:
    data = write_lines(tmp_path, "data.jsonl", [{"name": "a"}] * 5000)
    assert run_cli("validate", schema, data).err == ""


def test_a_closed_pipe_ends_quietly_with_jobs(tmp_path: Path, schema: str) -> None:
    # Far more error lines than a pipe holds, from worker processes.
    data = write_lines(tmp_path, "data.jsonl", [{"age": n} for n in range(100_000)])
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(SRC), os.environ.get("PYTHONPATH")])
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "schemacore", "validate", "--jobs", "2", schema, data],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=environment,
    )
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.readline().startswith(f"{data}:1: ".encode())
    process.stdout.close()  # as `| head -1` does
    stderr = process.stderr.read()
    assert process.wait(timeout=120) == 2
    assert stderr == b"", stderr


@pytest.mark.parametrize("method", ["spawn", "fork"])
def test_workers_started_either_way_give_the_in_process_outcomes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, method: str
) -> None:
    # spawn pickles the compiled validator to each worker (fork inherits it).
    monkeypatch.setattr(pool, "_start_method", lambda: method)
    validator = schemacore.compile(SCHEMA)
    plan = Plan()
    text = b"".join(
        json.dumps({"name": f"n{n}"} if n % 4 else {}).encode() + b"\n" for n in range(40)
    )
    tasks = [ChunkTask("d.jsonl", chunk) for chunk in read_chunks(io.BytesIO(text), 64)]
    assert len(tasks) > 4
    here = list(pool.in_process(Checker(validator, plan), tasks))
    there = list(pool.in_workers(validator, plan, tasks, 2))
    assert there == here
    assert sum(outcome.invalid for outcome in here) == 10
