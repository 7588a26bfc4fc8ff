"""A worker killed mid-run (SIGKILL) loses no line and counts none twice: Dask
computes the partitions it held or was running again, and each result is keyed by
its (file, line). On a LocalCluster of its own, two worker processes."""

from __future__ import annotations

import io
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.dask.conftest import need_dask, start_cluster
from tests.dask.helpers import kill_once

need_dask()

import dask  # noqa: E402
from distributed import Client  # noqa: E402

import schemacore  # noqa: E402
import schemacore.dask as scd  # noqa: E402
from schemacore.commandline.checking import Plan  # noqa: E402
from schemacore.commandline.progress import Progress  # noqa: E402
from schemacore.commandline.validate import _print  # noqa: E402

_TIMEOUT = 180
_LINES = 3_000
_INVALID_EVERY = 97

# "name" goes through the kill-once format: the record holding "kill:<marker>"
# kills the first worker process that checks it.
_SCHEMA = {
    "type": "object",
    "properties": {
        "id": {"type": "integer", "minimum": 0},
        "name": {"type": "string", "format": "kill-once"},
    },
}
_OPTIONS: dict[str, Any] = {"format_assertion": True, "formats": {"kill-once": kill_once}}


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    with start_cluster(threads=1) as cluster, Client(cluster, timeout=60) as connected:
        yield connected


def _files(folder: Path, marker: Path) -> list[str]:
    """Three files of 3,000 lines (every 97th invalid); the kill is in the middle of
    the second."""
    names = []
    for number in range(3):
        lines = []
        for index in range(_LINES):
            record: dict[str, Any] = {"id": -index if index % _INVALID_EVERY == 5 else index}
            record["name"] = f"kill:{marker}" if (number, index) == (1, _LINES // 2) else "x"
            lines.append(json.dumps(record) + "\n")
        path = folder / f"part-{number}.jsonl"
        path.write_text("".join(lines), encoding="utf-8")
        names.append(str(path))
    return names


def _pids(client: Any) -> set[int]:
    return set(client.run(os.getpid).values())


def test_a_killed_worker_loses_no_line_and_counts_none_twice(client: Any, tmp_path: Path) -> None:
    marker = tmp_path / "killed"
    names = _files(tmp_path, marker)
    before = _pids(client)
    results = scd.validate_files(names, _SCHEMA, blocksize=4096, **_OPTIONS)
    assert results.npartitions > 30
    found, summary = client.gather(client.compute([results, scd.counts(results)]))
    assert marker.exists(), "no worker was killed"
    client.wait_for_workers(2, timeout=60)
    assert len(_pids(client) - before) == 1  # one worker process was started again

    places = [(result.file, result.line) for result in found]
    assert places == [(name, line) for name in names for line in range(1, _LINES + 1)]
    invalid = len([index for index in range(_LINES) if index % _INVALID_EVERY == 5])
    for name in names:
        counts = summary[name]
        assert (counts.valid, counts.invalid, counts.not_checked) == (_LINES - invalid, invalid, 0)
    # And the same as computed in this process (the marker now keeps it alive).
    with dask.config.set(scheduler="synchronous"):
        (again,) = scd.compute(results, progress=False)
    assert found == again


def test_the_command_line_outcomes_survive_a_killed_worker(client: Any, tmp_path: Path) -> None:
    marker = tmp_path / "killed"
    names = _files(tmp_path, marker)
    validator = schemacore.compile(_SCHEMA, **_OPTIONS)
    plan = Plan(error_format="json")

    def printed() -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        outcomes = scd.iter_outcomes(client, validator, plan, names, blocksize=4096)
        status = _print(outcomes, plan, Progress(None, None, enabled=False), out, err)
        return status, out.getvalue(), err.getvalue()

    killed = printed()
    assert marker.exists(), "no worker was killed"
    client.wait_for_workers(2, timeout=60)
    assert killed == printed()
    status, out, _ = killed
    invalid = len([index for index in range(_LINES) if index % _INVALID_EVERY == 5])
    assert status == 1 and len(out.splitlines()) == 3 * invalid
