"""--output FORMAT: each record's line is written from the output's units as they
come, costs what its format reports, and fails closed as a whole line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import schemacore
from schemacore import validator as validator_module
from schemacore.output import FORMATS

from .helpers import SCHEMA, run_main, write_json, write_lines

RECORDS: list[Any] = [{"name": "Zoë"}, {"age": -1}, {"name": 1, "age": "x"}]


@pytest.fixture
def schema(tmp_path: Path) -> str:
    return write_json(tmp_path, "schema.json", {**SCHEMA, "title": "Person ✓"})


@pytest.mark.parametrize("fmt", FORMATS)
def test_each_record_line_is_the_output_as_json_dumps_writes_it(
    tmp_path: Path, schema: str, fmt: str
) -> None:
    data = write_lines(tmp_path, "data.jsonl", RECORDS)
    result = run_main("validate", "--output", fmt, schema, data)
    assert result.status == 1
    validator = schemacore.compile({**SCHEMA, "title": "Person ✓"})
    assert result.out.splitlines() == [
        json.dumps(
            {"instance": f"{data}:{n}", "output": validator.evaluate(record).output(fmt)},
            ensure_ascii=False,
        )
        for n, record in enumerate(RECORDS, 1)
    ]


def test_flag_and_an_invalid_basic_never_walk_the_evaluation(
    tmp_path: Path, schema: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_walk(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the evaluation tree was walked")

    monkeypatch.setattr(validator_module, "evaluate_node", no_walk)
    data = write_lines(tmp_path, "data.jsonl", RECORDS)
    flags = run_main("validate", "--output", "flag", schema, data)
    assert [json.loads(line)["output"] for line in flags.out.splitlines()] == [
        {"valid": True},
        {"valid": False},
        {"valid": False},
    ]
    invalid = write_lines(tmp_path, "invalid.jsonl", RECORDS[1:])
    basic = run_main("validate", "--output", "basic", schema, invalid)
    assert basic.status == 1 and basic.err == ""
    assert all(json.loads(line)["output"]["errors"] for line in basic.out.splitlines())


def test_a_walk_that_fails_after_the_verdict_is_a_whole_record_saying_where(
    tmp_path: Path,
) -> None:
    # is_valid passes at the first branch; the walk applies the second, a reference
    # loop without progress, and fails closed. The verdict stands (valid, as -q and
    # flag say), and the record is written whole, saying where the report stopped.
    loop = {"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"allOf": [{"$ref": "#/$defs/a"}]}}}
    schema = write_json(
        tmp_path, "loop.json", {**loop, "anyOf": [{"type": "string"}, {"$ref": "#/$defs/a"}]}
    )
    data = write_lines(tmp_path, "data.jsonl", ["fine", "also fine"])
    flags = run_main("validate", "--output", "flag", schema, data)
    assert flags.status == 0 and len(flags.out.splitlines()) == 2
    assert run_main("validate", "-q", schema, data).status == 0
    listed = run_main("validate", "--output", "list", schema, data)
    assert (listed.status, listed.err) == (0, "")
    records = [json.loads(line) for line in listed.out.splitlines()]
    assert [record["instance"] for record in records] == [f"{data}:1", f"{data}:2"]
    for record in records:
        assert record["output"] == {"valid": True}
        stopped = record["stopped"]
        # The engine reports no instance location for this failure ("" is the root
        # or unknown): null, never a guess.
        assert stopped["limit"] == "reference_loop" and stopped["instanceLocation"] is None
        assert stopped["schemaLocation"] == "#/$defs/a"
        assert stopped["error"].startswith("report stopped here: execution_failure: ")
        assert "loop without progress" in stopped["error"]
