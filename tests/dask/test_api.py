"""The Dask API's own behaviour: arguments, scheduler specs, URLs, the local
schedulers and their progress bar."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.dask.conftest import need_dask
from tests.dask.helpers import SCHEMA, records_of, run_cli, write_lines, write_schema

need_dask()

import dask  # noqa: E402
import dask.bag as db  # noqa: E402

import schemacore  # noqa: E402
import schemacore.dask as scd  # noqa: E402
from schemacore.scale import SharedValidator, Summary  # noqa: E402


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("local:3", scd.Scheduler(workers=3)),
        ("tcp://10.1.2.3:8786", scd.Scheduler(address="tcp://10.1.2.3:8786")),
        ("scheduler:8786", scd.Scheduler(address="scheduler:8786")),
        ("tls://[::1]:8786", scd.Scheduler(address="tls://[::1]:8786")),
    ],
)
def test_scheduler_specs(text: str, expected: scd.Scheduler) -> None:
    assert scd.parse_scheduler(text) == expected


def test_local_is_one_worker_per_cpu() -> None:
    found = scd.parse_scheduler("local")
    assert found.address is None and found.workers is not None and found.workers >= 1


@pytest.mark.parametrize("text", ["local:0", "local:x", "local:-1", "scheduler", "tcp://host"])
def test_bad_scheduler_specs_say_what_was_expected(text: str) -> None:
    with pytest.raises(ValueError, match=r"local:N|HOST:PORT"):
        scd.parse_scheduler(text)


def test_connect_starts_and_stops_a_local_cluster() -> None:
    with scd.connect("local:1") as client:
        workers = client.scheduler_info()["workers"]
        assert len(workers) == 1
        assert all(address.startswith("tcp://127.0.0.1:") for address in workers)
        assert client.submit(sum, [1, 2]).result(timeout=60) == 3
    assert client.status == "closed"


def test_compile_options_go_with_a_schema_only() -> None:
    validator = schemacore.compile(SCHEMA)
    with pytest.raises(TypeError, match="compile options"):
        scd.validate_files("x.jsonl", validator, format_assertion=True)
    # A schema that does not compile fails here, before anything is sent.
    with pytest.raises(schemacore.SchemaError):
        scd.validate_files("x.jsonl", {"type": 12})


def test_the_local_scheduler_and_its_progress_bar(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = write_lines(tmp_path, "data.jsonl", [{"id": 1}, {"id": -1}, {"name": "x"}])
    results = scd.validate_files(data, SharedValidator.compile(SCHEMA), blocksize=8)
    with dask.config.set(scheduler="sync"):
        (summary,) = scd.compute(scd.counts(results))
    assert summary == Summary({data: scd.counts(results).compute(scheduler="sync")[data]})
    assert (summary[data].valid, summary[data].invalid) == (1, 2)
    assert "Completed" in capsys.readouterr().out
    with dask.config.set(scheduler="sync"):
        scd.compute(scd.counts(results), progress=False)
    assert capsys.readouterr().out == ""


def test_file_urls_are_read_through_fsspec(client: Any, tmp_path: Path) -> None:
    data = write_lines(tmp_path, "data.jsonl", [{"id": 1}, {"id": -1}, "x"])
    (tmp_path / "doc.json").write_text('{"id": "one"}', encoding="utf-8")
    cli = run_cli("--error-format", "json", write_schema(tmp_path, SCHEMA), data)
    url = f"file://{tmp_path}"
    results = scd.validate_files(
        [f"{url}/*.jsonl", f"{url}/doc.json", f"{url}/missing.jsonl"], SCHEMA, blocksize=8
    )
    found = client.compute(results).result(timeout=180)
    assert [(r.file, r.line, r.status) for r in found] == [
        (f"{url}/data.jsonl", 1, "valid"),
        (f"{url}/data.jsonl", 2, "invalid"),
        (f"{url}/data.jsonl", 3, "invalid"),
        (f"{url}/doc.json", None, "invalid"),
        (f"{url}/missing.jsonl", None, "not checked"),
    ]
    # The same records as the command line's, but for the file's name.
    renamed = json.loads(json.dumps(records_of(found[:3])).replace(f"{url}/", f"{tmp_path}/"))
    assert renamed == cli.records
    assert found[4].errors[0]["message"].startswith("cannot read: ")


def test_a_bag_keeps_its_partitions_and_order() -> None:
    bag = db.from_sequence([{"id": index} for index in range(-3, 7)], npartitions=4)
    results = scd.validate_bag(bag, SCHEMA)
    assert results.npartitions == 4
    found = results.compute(scheduler="sync")
    assert [result.valid for result in found] == [False] * 3 + [True] * 7
    assert all(result.file is None and result.line is None for result in found)
    assert json.loads(found[0].text or "") == {"id": -3}
