"""The acceptance test of schemacore.compat: check-jsonschema, a client written by
others against python-jsonschema's protocol, validating files through it.

check-jsonschema makes its own class from ours (``jsonschema.validators.extend``),
hands it a ``referencing.Registry`` for ``$ref``s to local files and a format checker
of its own; the messages below are schemacore's wording, so the engine did the work.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

if os.environ.get("SCHEMACORE_REQUIRE_CLIENTS") != "1":
    pytest.importorskip("check_jsonschema", reason="check-jsonschema is not installed")

VALIDATOR_CLASS = "schemacore.compat:Draft202012Validator"

SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "age": {"type": "integer", "minimum": 0},
        "tags": {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]}},
        "mail": {"format": "email"},
        "word": {"pattern": "^\\p{L}+$"},
        "part": {"$ref": "part.json"},
    },
    "required": ["name"],
}
PART = {"type": "object", "properties": {"k": {"const": 1}}}


def _run(
    tmp_path: Path, *files: str, options: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[str]:
    (tmp_path / "schema.json").write_text(json.dumps(SCHEMA), encoding="utf-8")
    (tmp_path / "part.json").write_text(json.dumps(PART), encoding="utf-8")
    command = [
        sys.executable,
        "-m",
        "check_jsonschema",
        "--validator-class",
        VALIDATOR_CLASS,
        "--schemafile",
        "schema.json",
        *options,
        *files,
    ]
    env = {**os.environ, "NO_COLOR": "1"}
    return subprocess.run(
        command, cwd=tmp_path, capture_output=True, text=True, timeout=120, env=env
    )


def _write(tmp_path: Path, name: str, document: object) -> str:
    (tmp_path / name).write_text(json.dumps(document), encoding="utf-8")
    return name


def test_valid_files_exit_0(tmp_path: Path) -> None:
    one = _write(tmp_path, "one.json", {"name": "Ada", "part": {"k": 1}, "word": "schön"})
    two = _write(tmp_path, "two.json", {"name": "Grace", "tags": ["x", 2]})
    result = _run(tmp_path, one, two)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "ok -- validation done" in result.stdout


def test_invalid_file_exits_1_and_names_the_locations(tmp_path: Path) -> None:
    good = _write(tmp_path, "good.json", {"name": "Ada"})
    bad = _write(
        tmp_path,
        "bad.json",
        {"age": -1, "tags": ["a", None], "mail": "nope", "word": "a1", "part": {"k": 2}},
    )
    result = _run(tmp_path, good, bad)
    assert result.returncode == 1, result.stdout + result.stderr
    out = result.stdout
    assert "good.json" not in out
    # schemacore's messages (python-jsonschema words them differently).
    assert "bad.json::$: 'name' is a required property" in out
    assert "bad.json::$.age: -1 is less than the minimum 0" in out
    assert "bad.json::$.tags[1]: the value is not valid under any of the anyOf schemas" in out
    assert "$.tags[1]: null is not of type string" in out  # its best match, inside anyOf
    assert "bad.json::$.mail:" in out  # check-jsonschema asserts formats
    assert "bad.json::$.word:" in out  # \p{L}: an ECMA-262 pattern schemacore runs
    assert "bad.json::$.part.k: the value must be 1" in out  # through part.json


def test_json_output_and_disabled_formats(tmp_path: Path) -> None:
    bad = _write(tmp_path, "bad.json", {"name": "Ada", "mail": "nope", "age": 1.5})
    result = _run(tmp_path, bad, options=("--output-format", "json", "--disable-formats", "email"))
    assert result.returncode == 1, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["status"] == "fail"
    paths = [error["path"] for error in report["errors"]]
    assert paths == ["$.age"]  # email is no longer asserted
    assert report["errors"][0]["filename"] == "bad.json"
