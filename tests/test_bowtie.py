"""schemacore.bowtie: the direct connectable and the IHOP harness, message by message.

CI also runs the real ``bowtie suite`` over the whole 2020-12 directory (.ci/run).
The harness's answers are checked against Bowtie's own protocol schemas (validated
with schemacore.compat and Bowtie's ``referencing`` registry).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

if os.environ.get("SCHEMACORE_REQUIRE_CLIENTS") != "1":
    pytest.importorskip("bowtie", reason="the bowtie extra is not installed")

from bowtie._core import registry
from bowtie._direct_connectable import Direct

from schemacore.compat import Draft202012Validator
from tests.suite.locate import SuiteUnavailable, load_registry, locate_suite

DRAFT = "https://json-schema.org/draft/2020-12/schema"


def _connection() -> Any:
    return Direct.from_id("schemacore.bowtie:implementation").connect().__enter__()


def _ask(connection: Any, message: dict[str, Any]) -> Any:
    return asyncio.run(connection.request(message))


def test_start_names_schemacore_and_its_dialects() -> None:
    started = _ask(_connection(), {"cmd": "start", "version": 1})
    info = started["implementation"]
    assert info["name"] == "schemacore"
    assert info["language"] == "python"
    assert DRAFT in info["dialects"]
    assert len(info["dialects"]) == 5  # 2020-12, 2019-09, 7, 6 and 4


def test_run_answers_each_test() -> None:
    connection = _connection()
    _ask(connection, {"cmd": "start", "version": 1})
    assert _ask(connection, {"cmd": "dialect", "dialect": DRAFT}) == {"ok": True}
    case = {
        "description": "a remote reference",
        "schema": {"$ref": "http://example.com/int", "minimum": 2},
        "registry": {"http://example.com/int": {"type": "integer"}},
        "tests": [
            {"description": "ok", "instance": 3},
            {"description": "not an integer", "instance": "3"},
            {"description": "too small", "instance": 1},
        ],
    }
    result = _ask(connection, {"cmd": "run", "seq": 7, "case": case})
    assert result["seq"] == 7
    assert [each["valid"] for each in result["results"]] == [True, False, False]


def test_other_dialects_are_refused() -> None:
    connection = _connection()
    _ask(connection, {"cmd": "start", "version": 1})
    with pytest.raises(Exception, match="does not implement"):
        _ask(connection, {"cmd": "dialect", "dialect": "http://json-schema.org/draft-03/schema#"})


# -- the IHOP harness (python -m schemacore.bowtie) ------------------------------------

ROOT = Path(__file__).resolve().parents[1]
BOWTIE_SCHEMAS = registry()


def _harness(*messages: dict[str, Any]) -> tuple[list[dict[str, Any]], int]:
    """Pipe ``messages`` through the harness; its answers (one a line) and exit code."""
    result = subprocess.run(
        [sys.executable, "-m", "schemacore.bowtie"],
        input="".join(json.dumps(message) + "\n" for message in messages),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert result.stderr == ""
    return [json.loads(line) for line in result.stdout.splitlines()], result.returncode


def _check_response(command: str, response: dict[str, Any]) -> None:
    schema = {"$ref": f"tag:bowtie.report,2023:ihop:command:{command}#response"}
    validator = Draft202012Validator(schema, registry=BOWTIE_SCHEMAS)
    problems = [f"{error.json_path}: {error.message}" for error in validator.iter_errors(response)]
    assert not problems, (command, response, problems)


def test_harness_speaks_ihop() -> None:
    cases = [
        {
            "description": "a reference into the case's registry",
            "schema": {"$ref": "http://example.com/int", "minimum": 2},
            "registry": {"http://example.com/int": {"type": "integer"}},
            "tests": [
                {"description": "ok", "instance": 3},
                {"description": "not an integer", "instance": "3"},
            ],
        },
        {
            "description": "unevaluatedProperties",
            "schema": {"properties": {"a": True}, "unevaluatedProperties": False},
            "tests": [{"description": "b", "instance": {"a": 1, "b": 2}}],
        },
        {
            "description": "nothing at the reference",
            "schema": {"$ref": "http://example.com/nowhere"},
            "tests": [{"description": "any", "instance": 1}],
        },
    ]
    messages = [
        {"cmd": "start", "version": 1},
        {"cmd": "dialect", "dialect": DRAFT},
        *({"cmd": "run", "seq": seq, "case": case} for seq, case in enumerate(cases)),
        {"cmd": "stop"},
    ]
    responses, code = _harness(*messages)
    assert code == 0
    assert len(responses) == 5  # stop has no answer
    for message, response in zip(messages, responses, strict=False):
        _check_response(message["cmd"], response)
    start, dialect, first, second, third = responses
    assert start["implementation"]["name"] == "schemacore"
    assert start["implementation"]["dialects"][0] == DRAFT
    assert len(start["implementation"]["dialects"]) == 5
    assert dialect == {"ok": True}
    assert first == {"seq": 0, "results": [{"valid": True}, {"valid": False}]}
    assert second == {"seq": 1, "results": [{"valid": False}]}
    assert third["seq"] == 2 and third["errored"] is True
    assert "cannot resolve reference" in third["context"]["message"]


def test_harness_runs_suite_cases_like_the_suite_expects() -> None:
    try:
        suite = locate_suite().path
    except SuiteUnavailable as exc:
        if os.environ.get("SCHEMACORE_REQUIRE_SUITE") == "1":
            raise
        pytest.skip(f"JSON-Schema-Test-Suite unavailable: {exc}")
    path = suite / "tests" / "draft2020-12" / "dynamicRef.json"
    groups = json.loads(path.read_text(encoding="utf-8"))
    registry_docs = load_registry(suite)
    messages: list[dict[str, Any]] = [
        {"cmd": "start", "version": 1},
        {"cmd": "dialect", "dialect": DRAFT},
    ]
    for seq, group in enumerate(groups):
        case = {
            "description": group["description"],
            "schema": group["schema"],
            "registry": registry_docs,
            "tests": [
                {"description": t["description"], "instance": t["data"]} for t in group["tests"]
            ],
        }
        messages.append({"cmd": "run", "seq": seq, "case": case})
    responses, code = _harness(*messages)
    assert code == 0
    for seq, group in enumerate(groups):
        response = responses[seq + 2]
        assert response["seq"] == seq
        assert [r["valid"] for r in response["results"]] == [t["valid"] for t in group["tests"]]
