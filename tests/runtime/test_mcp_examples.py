"""The MCP examples run offline and show what a runtime sees."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

if os.environ.get("SCHEMACORE_REQUIRE_CLIENTS") != "1":  # CI: a missing SDK fails
    pytest.importorskip("mcp", reason="the mcp extra is not installed")

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _run(name: str) -> str:
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / name)], capture_output=True, text=True, check=True
    )
    return done.stdout


def test_the_client_example_admits_leaves_out_and_refuses() -> None:
    out = _run("mcp_client.py")
    assert "tools the model is shown: ['add_note']" in out
    assert "left out: read_file: unsupported_capability schema-dialect-unsupported" in out
    assert "left out: find: validation schema-pattern-invalid" in out
    assert "- title: expected string; got integer" in out
    assert "calls that reached the server: []" in out
    assert "server saw ['buy milk']" in out


def test_the_server_example_shows_the_leak_and_the_guard() -> None:
    out = _run("mcp_server.py")
    sdk, guarded = out.split("with ArgumentGuard:")
    assert "the secret reached the model: True" in sdk
    assert "the secret reached the model: False" in guarded
    assert "sk-live" not in guarded.replace("the secret", "")
    assert "- retries: expected integer; got string (24 characters)" in guarded
