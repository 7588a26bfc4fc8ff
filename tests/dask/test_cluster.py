"""schemacore.dask on a real LocalCluster (two worker processes, loopback only):
results equal the command line's, line for line; the schema is compiled once per
worker; files that cannot be read are not checked; another version is refused."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import pytest

from benchmarks.cli_stream import SCHEMA as BENCH_SCHEMA
from benchmarks.cli_stream import write_data
from tests.dask.conftest import need_dask
from tests.dask.helpers import (
    SCHEMA,
    generated_code_written,
    records_of,
    run_cli,
    set_version,
    write_lines,
    write_schema,
)

need_dask()

import schemacore  # noqa: E402
import schemacore.dask as scd  # noqa: E402
from schemacore.commandline.checking import Plan  # noqa: E402
from schemacore.commandline.progress import Progress  # noqa: E402
from schemacore.commandline.validate import _print  # noqa: E402
from schemacore.scale import (  # noqa: E402
    FileCounts,
    Record,
    Result,
    Summary,
    VersionMismatch,
    cache_info,
)

_TIMEOUT = 180  # seconds for one computation on the cluster


def _results(client: Any, bag: Any) -> list[Result]:
    future = client.compute(bag)
    return list(future.result(timeout=_TIMEOUT))


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """20,000 lines of the CLI stream benchmark's data (two invalid), and its schema."""
    folder = tmp_path_factory.mktemp("bench")
    schema, data = write_data(folder, 20_000)
    return str(schema), str(data)


def test_the_benchmark_data_gives_the_command_lines_results(
    client: Any, bench: tuple[str, str]
) -> None:
    schema, data = bench
    cli = run_cli("--error-format", "json", schema, data)
    results = scd.validate_files(data, BENCH_SCHEMA, blocksize=256 * 1024)
    assert results.npartitions > 10
    found, summary = client.gather(client.compute([results, scd.counts(results)]))
    assert records_of(found) == cli.records
    assert len(cli.records) == 2
    assert [result.line for result in found] == list(range(1, 20_001))
    assert summary == Summary({data: FileCounts(19_998, 2, 0)})
    assert summary.exit_status == cli.status == 1


def test_the_schema_is_compiled_once_per_worker_and_reaches_generated_code(
    client: Any, bench: tuple[str, str]
) -> None:
    _, data = bench
    # A schema no other test uses: its key is new to the workers.
    schema = {**BENCH_SCHEMA, "title": "compiled once per worker"}
    results = scd.validate_files(data, schema, blocksize=64 * 1024)  # 60 partitions
    assert results.npartitions > 40
    summary = client.compute(scd.counts(results)).result(timeout=_TIMEOUT)
    assert summary.total.records == 20_000
    key = scd._shared(schema, {}).key
    compiles = {
        worker: info.compiles.get(key, 0) for worker, info in client.run(cache_info).items()
    }
    # Both workers took partitions (two threads each), and each compiled once.
    assert sorted(compiles.values()) == [1, 1], compiles
    # Reused across partitions, the validator got as far as in one process.
    assert set(client.run(generated_code_written, key).values()) == {True}


def _mixed(folder: Path) -> list[str]:
    """Files of every kind, some that cannot be read or parsed."""
    good = write_lines(folder, "good.jsonl", [{"id": 1}, {"id": -1, "name": "X"}, {"id": 2}])
    messy = folder / "messy.jsonl"
    messy.write_bytes(
        b'\xef\xbb\xbf{"id": 1}\r\n\n   \n{"id": \n{"id": 3, "tags": ["a", "b", "c"]}\n'
        b'\xff\xfe\n{"id": 4}'
    )
    (folder / "doc.json").write_text('{"id": "one"}', encoding="utf-8")
    (folder / "ok.json").write_text('{"id": 7}', encoding="utf-8")
    (folder / "doc.yaml").write_text("id: 3\nname: ada\n", encoding="utf-8")
    (folder / "bad.yaml").write_text("id: [1\n", encoding="utf-8")
    (folder / "broken.json").write_text("{", encoding="utf-8")
    (folder / "folder.jsonl").mkdir()
    (folder / "folder.json").mkdir()
    return [
        good,
        str(messy),
        str(folder / "doc.json"),
        str(folder / "ok.json"),
        str(folder / "doc.yaml"),
        str(folder / "bad.yaml"),
        str(folder / "broken.json"),
        str(folder / "missing.jsonl"),
        str(folder / "missing.json"),
        str(folder / "folder.jsonl"),
        str(folder / "folder.json"),
    ]


def test_files_that_cannot_be_read_are_not_checked_as_on_the_command_line(
    client: Any, tmp_path: Path
) -> None:
    names = _mixed(tmp_path)
    schema = write_schema(tmp_path, SCHEMA)
    cli = run_cli("--error-format", "json", schema, *names)
    results = scd.validate_files([*names, str(tmp_path / "nothing-*.jsonl")], SCHEMA, blocksize=8)
    found, summary = client.gather(client.compute([results, scd.counts(results)]))
    no_match = found.pop()
    assert records_of(found) == cli.records
    assert no_match.status == "not checked" and no_match.line is None
    assert no_match.errors[0]["message"] == "cannot read: no file matches this pattern"
    assert summary.exit_status == cli.status == 2
    missing = summary[str(tmp_path / "missing.jsonl")]
    assert (missing.checked, missing.not_checked) == (0, 1)
    messy = summary[str(tmp_path / "messy.jsonl")]
    assert (messy.valid, messy.invalid, messy.not_checked) == (2, 1, 2)
    assert [r.line for r in found if r.file == str(tmp_path / "messy.jsonl")] == [1, 4, 5, 6, 7]


@pytest.mark.parametrize(
    "flags",
    [
        ("--error-format", "json"),
        (),
        ("--quiet",),
        ("--output", "basic"),
    ],
    ids=["json", "text", "quiet", "output-basic"],
)
def test_the_outcomes_for_the_command_line_print_as_a_local_run(
    client: Any, tmp_path: Path, bench: tuple[str, str], flags: tuple[str, ...]
) -> None:
    """What ``schemacore validate --dask`` will print: the outcomes rendered by the
    command line's own printer equal a local run's output and exit status."""
    names = [*_mixed(tmp_path), bench[1]]
    schema = write_schema(tmp_path, SCHEMA)
    cli = run_cli(*flags, schema, *names)
    plan = Plan(
        output=flags[1] if flags[:1] == ("--output",) else "text",
        error_format="json" if "json" in flags else "text",
        quiet="--quiet" in flags,
    )
    outcomes = scd.iter_outcomes(
        client, schemacore.compile(SCHEMA), plan, names, blocksize=100_000, window=3
    )
    out, err = io.StringIO(), io.StringIO()
    status = _print(outcomes, plan, Progress(None, None, enabled=False), out, err)
    assert (status, out.getvalue(), err.getvalue()) == (cli.status, cli.out, cli.err)


def test_standard_input_is_refused_by_the_cluster_outcomes(client: Any) -> None:
    with pytest.raises(ValueError, match="standard input"):
        next(scd.iter_outcomes(client, schemacore.compile(True), Plan(), ["-"]))


def test_a_worker_of_another_version_is_refused(client: Any, tmp_path: Path) -> None:
    data = write_lines(tmp_path, "data.jsonl", [{"id": 1}])
    old = set(client.run(set_version, "0.0.0-other").values())
    try:
        with pytest.raises(VersionMismatch, match=r"install schemacore .* on every worker"):
            client.compute(scd.validate_files(data, SCHEMA)).result(timeout=_TIMEOUT)
        outcomes = scd.iter_outcomes(client, schemacore.compile(SCHEMA), Plan(), [data])
        with pytest.raises(VersionMismatch):
            list(outcomes)
    finally:
        client.run(set_version, old.pop())


def test_failures_are_written_by_the_workers(client: Any, tmp_path: Path) -> None:
    names = _mixed(tmp_path)
    results = scd.validate_files(names, SCHEMA, blocksize=16)
    out = tmp_path / "failures"
    written = scd.write_failures(results, str(out / "*.jsonl"))
    failed = scd.failures(results)
    invalid_only = scd.failures(results, unchecked=False)
    _, found, invalid = client.gather(client.compute([written, failed, invalid_only]))
    lines = [
        json.loads(line)
        for path in sorted(out.iterdir(), key=lambda p: int(p.stem))
        for line in path.read_text(encoding="utf-8").splitlines()
    ]
    assert lines == [result.to_dict() for result in found]
    assert {result.status for result in found} == {"invalid", "not checked"}
    assert {result.status for result in invalid} == {"invalid"}
    by_place = {(line["file"], line["line"]): line for line in lines}
    assert by_place[(names[0], 2)]["text"] == '{"id": -1, "name": "X"}'
    assert by_place[(names[1], 6)]["text"] == "\\xff\\xfe"


def test_a_bag_of_values_gives_the_command_lines_results(client: Any, tmp_path: Path) -> None:
    import dask.bag as db

    values: list[Any] = [{"id": 1}, {"id": -1, "name": "X"}, [], {"id": 2, "tags": [1]}]
    data = write_lines(tmp_path, "values.jsonl", values)
    cli = run_cli("--error-format", "json", write_schema(tmp_path, SCHEMA), data)
    records = [Record(data, line, value) for line, value in enumerate(values, 1)]
    bag = db.from_sequence([*records, float("nan")], npartitions=3)
    found = _results(client, scd.validate_bag(bag, SCHEMA))
    nan = found.pop()
    assert records_of(found) == cli.records
    assert [result.line for result in found] == [1, 2, 3, 4]
    assert (nan.file, nan.line, nan.status) == (None, None, "not checked")
    assert nan.errors[0]["message"].startswith("not a JSON value")


def test_progress_is_dasks_own_bar(
    client: Any, bench: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    _, data = bench
    results = scd.validate_files(data, BENCH_SCHEMA, blocksize=1024 * 1024)
    (summary,) = scd.compute(scd.counts(results))
    assert summary.total.invalid == 2
    assert "% Completed" in capsys.readouterr().out


def test_the_worker_processes_are_the_ones_started(client: Any) -> None:
    # processes=True: two worker processes, none of them this one.
    pids = set(client.run(os.getpid).values())
    assert len(pids) == 2 and os.getpid() not in pids
