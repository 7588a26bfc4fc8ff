"""``schemacore validate --dask``: the same output, exit status and JSON records as a
local run, in input order, from a real local cluster; and the refusals, before
anything is read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.helpers import run_cli, write_json, write_lines

SCHEMA = {
    "type": "object",
    "properties": {"id": {"type": "integer"}, "name": {"type": "string", "maxLength": 5}},
    "required": ["id"],
}


def _files(folder: Path) -> list[str]:
    records = [{"id": n, "name": "ok"} for n in range(40)]
    records[7] = {"id": "seven"}
    records[23] = {"name": "far too long"}
    jsonl = write_lines(folder, "events.jsonl", records)
    with open(jsonl, "a", encoding="utf-8") as handle:
        handle.write("{not json\n")
    return [
        write_json(folder, "a.json", {"id": 1}),
        jsonl,
        write_json(folder, "b.json", {"id": 1.5, "name": 3}),
        str(folder / "missing.json"),
    ]


@pytest.mark.parametrize("flags", [(), ("--error-format", "json"), ("-q",), ("--output", "basic")])
def test_a_local_cluster_prints_what_a_local_run_prints(
    tmp_path: Path, flags: tuple[str, ...]
) -> None:
    schema = write_json(tmp_path, "s.json", SCHEMA)
    files = _files(tmp_path)
    local = run_cli("validate", "--no-progress", *flags, schema, *files)
    cluster = run_cli("validate", "--no-progress", "--dask", "local:2", *flags, schema, *files)
    assert local.status == 2  # the missing file is not checked, the rest is
    assert (cluster.status, cluster.out) == (local.status, local.out)
    assert sorted(cluster.err_lines) == sorted(local.err_lines)
    if flags == ("--error-format", "json"):
        assert all(json.loads(line) for line in cluster.out_lines)


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--dask", "local:2", "--jobs", "2"), "--dask and --jobs cannot be combined"),
        (("--dask", "local:0"), "--dask: local:N needs a number of workers"),
        (("--dask", "local:2", "-"), "standard input cannot be read by the cluster"),
    ],
)
def test_dask_refuses_what_it_cannot_do_before_reading_anything(
    tmp_path: Path, args: tuple[str, ...], says: str
) -> None:
    schema = write_json(tmp_path, "s.json", SCHEMA)
    instance = write_json(tmp_path, "i.json", {"id": 1})
    *flags, last = args
    names = [schema, "-"] if last == "-" else [schema, instance]
    flags = list(args) if last != "-" else flags
    result = run_cli("validate", *flags, *names, stdin=b"{}")
    assert (result.status, result.out) == (2, "")
    assert says in result.err


def test_without_the_extra_dask_names_what_to_install(tmp_path: Path) -> None:
    blocker = tmp_path / "blocker"
    blocker.mkdir()
    # A module named dask that fails to import stands for the extra being absent.
    (blocker / "dask.py").write_text("raise ImportError('No module named dask')\n")
    schema = write_json(tmp_path, "s.json", SCHEMA)
    instance = write_json(tmp_path, "i.json", {"id": 1})
    result = run_cli("validate", "--dask", "local:2", schema, instance, pythonpath=(str(blocker),))
    assert (result.status, result.out) == (2, "")
    assert "schemacore[dask]" in result.err


def test_an_unreachable_scheduler_is_one_error_line(tmp_path: Path) -> None:
    schema = write_json(tmp_path, "s.json", SCHEMA)
    instance = write_json(tmp_path, "i.json", {"id": 1})
    # A loopback port nobody listens on (the discard port needs root to bind).
    result = run_cli("validate", "--dask", "tcp://127.0.0.1:9", schema, instance)
    assert (result.status, result.out) == (2, "")
    (line,) = result.err_lines
    assert line.startswith("error: --dask: the cluster cannot be reached")
