"""schemacore.bowtie: Bowtie's direct-connectable protocol, message by message.

CI also runs the real ``bowtie suite`` over the whole 2020-12 directory (.ci/run).
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

import pytest

if os.environ.get("SCHEMACORE_REQUIRE_CLIENTS") != "1":
    pytest.importorskip("bowtie", reason="the bowtie extra is not installed")

from bowtie._direct_connectable import Direct

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
    assert info["dialects"] == [DRAFT]


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
        _ask(connection, {"cmd": "dialect", "dialect": "http://json-schema.org/draft-07/schema#"})
