"""Results equal the command line's, line for line: on generated JSON Lines files
(blank lines, CRLF, a BOM, lines that are not JSON, any block size), and on the
JSON-Schema-Test-Suite's cases, each group's instances written as a JSON Lines file."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.dask.conftest import need_dask
from tests.dask.helpers import SCHEMA, records_of, run_cli, write_schema
from tests.suite.locate import SuiteUnavailable, locate_suite

need_dask()

import dask  # noqa: E402
import dask.bag as db  # noqa: E402

import schemacore  # noqa: E402
import schemacore.dask as scd  # noqa: E402
from schemacore.scale import Record, check_texts  # noqa: E402

_WHITESPACE = st.sampled_from(["", " ", "\t", "\r", " \t \r"])
_NOT_JSON = st.sampled_from(
    ["{", "nan", "[1,]", '{"id": 1}x', "1e999", "'a'", '{"id": 1, "id"}', "\\", "\x00"]
)
_RECORDS = st.fixed_dictionaries(
    {"id": st.integers(-2, 3) | st.text(max_size=2)},
    optional={
        "name": st.sampled_from(["ada", "Ada", "x1", "\u00e9\u202e", "\ud800"]),
        "tags": st.lists(st.text(max_size=3) | st.integers(), max_size=3),
        "other": st.none(),
    },
)
_VALUES = _RECORDS | st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=4),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=6,
)
_LINE = (
    _VALUES.map(lambda value: json.dumps(value).encode())
    | _WHITESPACE.map(str.encode)
    | _NOT_JSON.map(str.encode)
    | st.sampled_from([b"\xff\xfe", b'"\xc3"', b"\xef\xbb\xbf{}"])
)


def _file(lines: list[bytes], crlf: list[bool], bom: bool, final_newline: bool) -> bytes:
    ends = [b"\r\n" if each else b"\n" for each in crlf]
    data = b"".join(line + end for line, end in zip(lines, ends, strict=False))
    if not final_newline and data.endswith(b"\n"):
        data = data[:-1]
    return (b"\xef\xbb\xbf" if bom else b"") + data


def _record_lines(data: bytes) -> list[int]:
    """The numbers of the lines that hold a record (not blank), counted apart."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return [
        number for number, line in enumerate(data.split(b"\n"), start=1) if line.strip(b" \t\r")
    ]


@settings(
    max_examples=120,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    lines=st.lists(_LINE, max_size=25),
    crlf=st.lists(st.booleans(), min_size=25, max_size=25),
    bom=st.booleans(),
    final_newline=st.booleans(),
    blocksize=st.integers(2, 80),
)
def test_generated_files_give_the_command_lines_results(
    tmp_path: Path,
    lines: list[bytes],
    crlf: list[bool],
    bom: bool,
    final_newline: bool,
    blocksize: int,
) -> None:
    data = _file(lines, crlf, bom, final_newline)
    path = tmp_path / "data.jsonl"
    path.write_bytes(data)
    schema = write_schema(tmp_path, SCHEMA)
    cli = run_cli("--error-format", "json", schema, str(path))
    results = scd.validate_files(str(path), SCHEMA, blocksize=blocksize)
    with dask.config.set(scheduler="synchronous"):
        found, summary = scd.compute(results, scd.counts(results), progress=False)
    assert records_of(found) == cli.records
    # Every record once, with its own number: the valid ones print nothing on
    # the command line, so they are counted apart.
    assert [result.line for result in found] == _record_lines(data)
    assert summary.exit_status == cli.status
    if found:
        assert summary[str(path)].records == len(found)


def test_texts_are_checked_as_lines() -> None:
    validator = schemacore.compile(SCHEMA)
    found = check_texts(
        validator, ['{"id": 1}', "", '{"id": -1}', b"{"], file="rows", lines=[7, 8, 9, 10]
    )
    assert [(r.file, r.line, r.status) for r in found] == [
        ("rows", 7, "valid"),
        ("rows", 9, "invalid"),
        ("rows", 10, "not checked"),
    ]
    assert found[1].errors[0]["line"] == 9 and found[1].errors[0]["file"] == "rows"
    with pytest.raises(ValueError, match="one JSON text per line"):
        check_texts(validator, ['{"id":\n1}'])


def _suite_groups() -> list[tuple[str, int, dict[str, Any]]]:
    try:
        folder = locate_suite().path / "tests" / "draft2020-12"
    except SuiteUnavailable as exc:
        if os.environ.get("SCHEMACORE_REQUIRE_SUITE") == "1":
            raise
        pytest.skip(f"JSON-Schema-Test-Suite unavailable: {exc}")
    groups = []
    for path in sorted(folder.glob("*.json")):
        for index, group in enumerate(json.loads(path.read_text(encoding="utf-8"))):
            groups.append((path.stem, index, group))
    return groups


def test_the_suites_cases_give_the_command_lines_results_on_the_cluster(
    client: Any, tmp_path: Path
) -> None:
    """Each group's schema as a file and its instances as a JSON Lines file: the
    command line's records, and the same from a bag of the parsed instances."""
    compared = 0
    refused: set[str] = set()
    expected: list[tuple[list[dict[str, Any]], int]] = []
    collections: list[Any] = []
    for stem, index, group in _suite_groups():
        folder = tmp_path / f"{stem}-{index}"
        folder.mkdir()
        schema = write_schema(folder, group["schema"])
        data = folder / "cases.jsonl"
        instances = [case["data"] for case in group["tests"]]
        data.write_text("".join(json.dumps(value) + "\n" for value in instances), "utf-8")
        cli = run_cli("--error-format", "json", schema, str(data))
        try:
            validator = schemacore.compile(group["schema"])
        except schemacore.SchemaCoreError:
            # Remote references: neither the command line nor a plain compile
            # reaches them.
            assert (cli.status, cli.out) == (2, ""), (stem, index, cli.err)
            refused.add(stem)
            continue
        expected.append((cli.records, cli.status))
        placed = [Record(str(data), line, value) for line, value in enumerate(instances, 1)]
        bag = db.from_sequence(placed, npartitions=1)
        collections.append(
            (scd.validate_files(str(data), validator), scd.validate_bag(bag, validator))
        )
        compared += 1
    computed = client.gather(client.compute(collections))
    for (records, status), (from_files, from_bag) in zip(expected, computed, strict=True):
        assert records_of(from_files) == records
        assert records_of(from_bag) == records
        assert (1 if any(not r.valid for r in from_files) else 0) == status
    assert compared > 300
    # The suite's remote documents (http://localhost:1234/...) are what these need.
    assert refused <= {"refRemote", "dynamicRef", "vocabulary"}
