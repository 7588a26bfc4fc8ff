"""JSON Lines: records located as file:line, blank lines, bad lines passed over, chunks."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import schemacore
from schemacore.commandline import lines as lines_module
from schemacore.commandline.lines import read_chunks, split_lines

from .helpers import SCHEMA, run_cli, run_main, write_json, write_lines


@pytest.fixture
def schema(tmp_path: Path) -> str:
    return write_json(tmp_path, "schema.json", SCHEMA)


def _messages(instance: object) -> list[tuple[str, str]]:
    validator = schemacore.compile(SCHEMA)
    return [
        (error.instance_location or "(root)", error.message)
        for error in validator.iter_errors(instance)
    ]


def test_errors_are_located_by_file_and_line(tmp_path: Path, schema: str) -> None:
    data = write_lines(tmp_path, "data.jsonl", [{"name": "a"}, {"age": -1}, {"name": 2}])
    result = run_cli("validate", schema, data)
    assert result.status == 1, result.err
    expected = [f"{data}:2: {where}: {message}" for where, message in _messages({"age": -1})]
    expected += [f"{data}:3: {where}: {message}" for where, message in _messages({"name": 2})]
    expected.append(f"{data}: 3 records: 1 valid, 2 invalid")
    assert result.out_lines == expected
    assert result.err == ""


def test_a_valid_file_says_how_many_records(tmp_path: Path, schema: str) -> None:
    data = write_lines(tmp_path, "data.ndjson", [{"name": "a"}, {"name": "b"}])
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    one = write_lines(tmp_path, "one.jsonl", [{"name": "a"}])
    result = run_cli("validate", schema, data, str(empty), one)
    assert result.out_lines == [
        f"{data}: valid (2 records)",
        f"{empty}: valid (0 records)",
        f"{one}: valid (1 record)",
    ]
    assert result.status == 0


def test_blank_lines_are_skipped_and_keep_their_numbers(tmp_path: Path, schema: str) -> None:
    # CRLF endings, a BOM, whitespace-only lines, no newline after the last record.
    path = tmp_path / "data.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"name": "a"}\r\n\r\n   \t\n\n{"age": 1}\r\n{"name": 3}')
    result = run_cli("validate", schema, str(path))
    assert result.status == 1, result.err
    assert result.out_lines == [
        f"{path}:5: (root): {_messages({'age': 1})[0][1]}",
        f"{path}:6: /name: {_messages({'name': 3})[0][1]}",
        f"{path}: 3 records: 1 valid, 2 invalid",
    ]


@pytest.mark.parametrize(
    ("line", "needle"),
    [
        (
            b"{not json",
            "invalid JSON: Expecting property name enclosed in double quotes (column 2)",
        ),
        (b'{"name": NaN}', "invalid JSON: NaN is not valid JSON"),
        (b"[1e999]", "invalid JSON: a number is outside the range of a double"),
        (b'"\xe9\xff"', "invalid JSON: not UTF-8"),
        (b"[" * 100_000 + b"]" * 100_000, "invalid JSON: nested too deeply to read"),
        (b"1" * 5000, "invalid JSON: Exceeds the limit"),
        (b'{"name": "a"} {"name": "b"}', "invalid JSON: Extra data (column 15)"),
    ],
)
def test_a_bad_line_is_reported_and_the_file_goes_on(
    tmp_path: Path, schema: str, line: bytes, needle: str
) -> None:
    path = tmp_path / "data.jsonl"
    path.write_bytes(b'{"name": "a"}\n' + line + b'\n{"age": 1}\n')
    result = run_cli("validate", schema, str(path))
    assert result.status == 2
    assert len(result.err_lines) == 1, result.err
    assert result.err_lines[0].startswith(f"error: {path}:2: {needle}"), result.err
    assert result.out_lines == [
        f"{path}:3: (root): {_messages({'age': 1})[0][1]}",
        f"{path}: 3 records: 1 valid, 1 invalid, 1 not checked",
    ]


def test_lines_flag_and_standard_input(tmp_path: Path, schema: str) -> None:
    text = b'{"name": "a"}\n{"age": 1}\n'
    from_stdin = run_cli("validate", "--lines", schema, "-", stdin=text)
    assert from_stdin.status == 1
    assert from_stdin.out_lines[0].startswith("<stdin>:2: (root): ")
    assert from_stdin.out_lines[-1] == "<stdin>: 2 records: 1 valid, 1 invalid"

    # Without --lines a .txt file is one JSON document, and this one is not JSON.
    other = tmp_path / "records.txt"
    other.write_bytes(text)
    assert run_cli("validate", schema, str(other)).status == 2
    as_lines = run_cli("validate", "--lines", schema, str(other))
    assert as_lines.out_lines[-1] == f"{other}: 2 records: 1 valid, 1 invalid"


def test_output_formats_print_one_object_per_record(tmp_path: Path, schema: str) -> None:
    data = write_lines(tmp_path, "data.jsonl", [{"name": "a"}, {"age": -1}])
    result = run_cli("validate", "--output", "basic", schema, data)
    records = [json.loads(line) for line in result.out_lines]
    validator = schemacore.compile(SCHEMA)
    assert records == [
        {"instance": f"{data}:1", "output": validator.evaluate({"name": "a"}).output("basic")},
        {"instance": f"{data}:2", "output": validator.evaluate({"age": -1}).output("basic")},
    ]
    assert result.status == 1


def test_a_missing_lines_file_is_reported_without_a_summary(tmp_path: Path, schema: str) -> None:
    missing = str(tmp_path / "missing.jsonl")
    good = write_lines(tmp_path, "good.jsonl", [{"name": "a"}])
    result = run_cli("validate", schema, missing, good)
    assert result.status == 2
    assert result.err_lines == [f"error: cannot read {missing}: No such file or directory"]
    assert result.out_lines == [f"{good}: valid (1 record)"]


def test_small_chunks_give_the_same_report(
    tmp_path: Path, schema: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    records = [{"name": "a"} if n % 3 else {"name": n} for n in range(50)]
    data = tmp_path / "data.jsonl"
    data.write_text(
        "".join(json.dumps(r) + ("\n\n" if n % 7 == 0 else "\n") for n, r in enumerate(records))
    )
    whole = run_main("validate", schema, str(data))
    monkeypatch.setattr(lines_module, "CHUNK_BYTES", 7)  # shorter than any line
    chunked = run_main("validate", schema, str(data))
    assert chunked == whole
    assert whole.status == 1 and len(whole.out_lines) == 18  # 17 invalid and a summary


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(
    st.lists(st.binary(max_size=12).map(lambda b: b.replace(b"\n", b"")), max_size=30),
    st.booleans(),
    st.integers(min_value=1, max_value=40),
)
def test_chunks_hold_whole_lines_numbered_from_one(
    lines: list[bytes], final_newline: bool, size: int
) -> None:
    text = b"\n".join(lines) + (b"\n" if final_newline and lines else b"")
    if text.startswith(b"\xef\xbb\xbf"):
        text = b" " + text  # a BOM at the start is skipped: not this test's business
    seen: list[tuple[int, bytes]] = []
    for chunk in read_chunks(io.BytesIO(text), size):
        assert chunk.data.endswith(b"\n") or chunk.data == text[-len(chunk.data) :]
        seen.extend(enumerate(split_lines(chunk.data), start=chunk.first_line))
    expected = list(enumerate(split_lines(text), start=1))
    assert seen == expected
