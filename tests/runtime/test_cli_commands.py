"""``schemacore admit`` and ``schemacore check-args``."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from schemacore.cli import main

DRAFT_07 = "http://json-schema.org/draft-07/schema#"

TOOLS: list[dict[str, Any]] = [
    {
        "name": "search",
        "description": "Search issues.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "pattern": "^[a-z ]+$", "description": "Words"},
                "limit": {"type": "integer", "minimum": 1},
            },
            "required": ["query"],
            "additionalProperties": False,
        },
    },
    {"name": "legacy", "inputSchema": {"$schema": DRAFT_07, "type": "object"}},
]


def write(folder: Path, name: str, value: Any) -> str:
    path = folder / name
    path.write_text(value if isinstance(value, str) else json.dumps(value), encoding="utf-8")
    return str(path)


@pytest.fixture
def tools_file(tmp_path: Path) -> str:
    return write(tmp_path, "tools.json", TOOLS)


def test_admit_strict_refuses_the_batch(
    tools_file: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["admit", tools_file]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"{tools_file}: the tool batch was refused (strict mode)")
    assert lines[1] == (
        "rejected: #1 legacy inputSchema: unsupported_capability: schema-dialect-unsupported "
        "at '/$schema': the schema declares draft-07, a dialect not admitted here "
        "(reinterpreting it under 2020-12 rules could change what it accepts); pass "
        "--dialect draft-07 to admit it under its own rules"
    )


def test_admit_quarantine(tools_file: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["admit", tools_file, "--mode", "quarantine"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"{tools_file}: admitted 1 of 2 tools (quarantine mode; 1 quarantined)"
    assert lines[1] == (
        "  quarantined: 1 x inputSchema unsupported_capability schema-dialect-unsupported"
    )
    assert lines[2].startswith("quarantined: #1 legacy inputSchema: unsupported_capability")


def test_admit_json_report(tools_file: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["admit", tools_file, "--mode", "quarantine", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["admitted"] == ["search"]
    assert report["refused"] is False and report["tools"] == 2
    assert [d["error"]["code"] for d in report["quarantined"]] == ["schema-dialect-unsupported"]
    assert main(["admit", tools_file, "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["refused"] is True and report["admitted"] == []
    assert [d["tool"] for d in report["rejected"]] == ["legacy"]


BROKEN = {"name": "typo", "inputSchema": {"type": "object", "properties": {"q": {"minimum": "1"}}}}


def test_admit_isolate_reports_left_out_tools_by_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tools_file = write(tmp_path, "tools.json", [*TOOLS, BROKEN])
    assert main(["admit", tools_file, "--mode", "quarantine"]) == 1
    capsys.readouterr()
    command = ["admit", tools_file, "--mode", "isolate"]
    assert main([*command, "--dialect", "2020-12"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:3] == [
        f"{tools_file}: admitted 1 of 3 tools (isolate mode; 2 left out)",
        "  left out: 1 x inputSchema unsupported_capability schema-dialect-unsupported",
        "  left out: 1 x inputSchema validation schema-invalid",
    ]
    assert lines[3].startswith("left out: #1 legacy inputSchema: unsupported_capability")
    assert lines[4].startswith("left out: #2 typo inputSchema: validation: schema-invalid")
    assert main([*command, "--dialect", "2020-12", "--output", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["dialects"] == ["2020-12"]
    assert (report["admitted"], report["quarantined"]) == (["search"], [])
    assert [d["tool"] for d in report["leftOut"]] == ["legacy", "typo"]
    assert report["omittedByReason"] == [
        {
            "field": "inputSchema",
            "errorClass": "unsupported_capability",
            "code": "schema-dialect-unsupported",
            "tools": 1,
        },
        {"field": "inputSchema", "errorClass": "validation", "code": "schema-invalid", "tools": 1},
    ]
    # Listing draft-07 admits the draft-07 tool, validated under draft-07's rules.
    listed = [*command, "--dialect", "draft-07", "--dialect", "2020-12", "--output", "json"]
    assert main(listed) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["dialects"] == ["draft-07", "2020-12"]
    assert (report["admitted"], [d["tool"] for d in report["leftOut"]]) == (
        ["search", "legacy"],
        ["typo"],
    )


def test_admit_refuses_bad_dialects_with_status_2(
    tools_file: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["admit", tools_file, "--dialect", "draft-05", "--dialect", "2020-12"]) == 2
    assert "unknown dialect 'draft-05'" in capsys.readouterr().err


def test_a_listed_draft_implies_2020_12(
    tools_file: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # The refusal's advice, taken as given, admits the batch.
    assert main(["admit", tools_file, "--dialect", "draft-07", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["dialects"] == ["draft-07", "2020-12"]
    assert report["admitted"] == ["search", "legacy"]
    # Named by URI, 2020-12 is not added twice.
    uri = "https://json-schema.org/draft/2020-12/schema"
    assert main(["admit", tools_file, "--dialect", uri, "--dialect", DRAFT_07, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["dialects"] == [uri, DRAFT_07]


def test_the_refusal_names_the_flag_for_the_draft_that_is_not_listed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    nested = {
        "$schema": DRAFT_07,
        "type": "object",
        "properties": {
            "n": {"$schema": "https://json-schema.org/draft/2019-09/schema", "type": "integer"}
        },
    }
    tools_file = write(tmp_path, "tools.json", [{"name": "mixed", "inputSchema": nested}])
    assert main(["admit", tools_file, "--dialect", "draft-07"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == (
        "rejected: #0 mixed inputSchema: unsupported_capability: schema-dialect-unsupported "
        "at '/properties/n/$schema': the schema declares draft 2019-09, a dialect not "
        "admitted here (reinterpreting it under 2020-12 rules could change what it "
        "accepts); pass --dialect 2019-09 to admit it under its own rules"
    )
    # The JSON report carries the runtime's diagnostic as it is (its API's words).
    assert main(["admit", tools_file, "--dialect", "draft-07", "--json"]) == 1
    [rejected] = json.loads(capsys.readouterr().out)["rejected"]
    assert rejected["error"]["message"].endswith(
        '; list "2019-09" in dialects= to admit it under its own rules'
    )
    assert main(["admit", tools_file, "--dialect", "draft-07", "--dialect", "2019-09"]) == 0


def test_a_draft_no_flag_admits_gets_the_runtimes_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = {"$schema": "http://json-schema.org/draft-03/schema#", "type": "object"}
    tools_file = write(tmp_path, "tools.json", [{"name": "old", "inputSchema": old}])
    assert main(["admit", tools_file]) == 1
    out = capsys.readouterr().out
    assert out.splitlines()[1].endswith("; no dialects= admits it")
    assert "--dialect" not in out


def test_check_args_admits_a_listed_draft(
    tmp_path: Path, tools_file: str, capsys: pytest.CaptureFixture[str]
) -> None:
    arguments = write(tmp_path, "args.json", {})
    assert main(["check-args", tools_file, "legacy", arguments]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: tool not admitted: #0 legacy inputSchema: ")
    assert err.rstrip().endswith("pass --dialect draft-07 to admit it under its own rules")
    assert main(["check-args", tools_file, "legacy", arguments, "--dialect", "draft-07"]) == 0
    assert capsys.readouterr().out == "legacy: arguments valid\n"
    assert main(["check-args", tools_file, "legacy", arguments, "--dialect", "draft-05"]) == 2
    assert "unknown dialect 'draft-05'" in capsys.readouterr().err


def test_admit_accepts_a_tools_list_result_and_stdin(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    listing = {"jsonrpc": "2.0", "id": 1, "result": {"tools": TOOLS[:1]}}
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(listing)))
    assert main(["admit", "-"]) == 0
    assert "admitted 1 of 1 tools" in capsys.readouterr().out


@pytest.mark.parametrize("content", ["{", '{"tool": []}', "3"])
def test_admit_input_errors_exit_2(
    tmp_path: Path, content: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["admit", write(tmp_path, "bad.json", content)]) == 2
    assert capsys.readouterr().err.startswith("error: ")


def test_admit_usage(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["admit"]) == 2
    assert main(["admit", "x.json", "--mode", "lenient"]) == 2
    assert "usage:" in capsys.readouterr().err


def test_check_args_valid(
    tmp_path: Path, tools_file: str, capsys: pytest.CaptureFixture[str]
) -> None:
    args = write(tmp_path, "args.json", {"query": "open bugs", "limit": 5})
    assert main(["check-args", tools_file, "search", args]) == 0
    assert capsys.readouterr().out == "search: arguments valid\n"
    assert main(["check-args", tools_file, "search", args, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"ok": True, "tool": "search"}


def test_check_args_invalid_renders_for_the_model(
    tmp_path: Path, tools_file: str, capsys: pytest.CaptureFixture[str]
) -> None:
    args = write(tmp_path, "args.json", {"query": "DROP", "limit": "5", "api_key": "sk-123"})
    assert main(["check-args", tools_file, "search", args]) == 1
    out = capsys.readouterr().out
    assert out.splitlines() == [
        'The tool "search" was not called: its arguments do not match the tool\'s input '
        "schema (3 issues).",
        '- query: expected a string matching the pattern "^[a-z ]+$"; got string (4 '
        'characters); value: "DROP"',
        '  parameter: "Words"',
        "- limit: expected integer; got string (1 characters)",
        '- the arguments: expected only the properties "query", "limit"; got an object with '
        "1 property not allowed here",
        "Correct the arguments and call the tool again.",
    ]
    assert "api_key" not in out and "sk-123" not in out
    assert main(["check-args", tools_file, "search", args, "--json"]) == 1
    result = json.loads(capsys.readouterr().out)
    assert result["isError"] is True
    assert result["_meta"]["schemacore/tool-arg-issues"]["dispatched"] is False


def test_check_args_strict_text(
    tmp_path: Path, tools_file: str, capsys: pytest.CaptureFixture[str]
) -> None:
    args = write(tmp_path, "args.json", '{"query": "a", "query": "b"}')
    assert main(["check-args", tools_file, "search", args, "--json"]) == 1
    meta = json.loads(capsys.readouterr().out)["_meta"]["schemacore/tool-arg-issues"]
    assert (meta["code"], meta["errorClass"]) == ("arguments-json-duplicate-key", "validation")
    deep = write(tmp_path, "deep.json", '{"query": ' + "[" * 10_000 + "]" * 10_000 + "}")
    assert main(["check-args", tools_file, "search", deep]) == 1
    assert "nested deeper than 64 levels" in capsys.readouterr().out


def test_check_args_args_from_stdin(
    tools_file: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO('{"query": "x"}'))
    assert main(["check-args", tools_file, "search", "-"]) == 0
    assert main(["check-args", "-", "search", "-"]) == 2
    assert "only once" in capsys.readouterr().err


def test_check_args_errors_exit_2(
    tmp_path: Path, tools_file: str, capsys: pytest.CaptureFixture[str]
) -> None:
    args = write(tmp_path, "args.json", {})
    assert main(["check-args", tools_file, "nope", args]) == 2
    assert "no tool named 'nope'" in capsys.readouterr().err
    assert main(["check-args", tools_file, "legacy", args]) == 2
    assert "schema-dialect-unsupported" in capsys.readouterr().err
    assert main(["check-args", tools_file, "search", str(tmp_path / "missing.json")]) == 2
    assert "cannot read" in capsys.readouterr().err
