"""The ``schemacore`` command line: exit codes, output lines, the bundled example."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

import schemacore
from schemacore.cli import main

SRC = Path(__file__).resolve().parents[1] / "src"

SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "age": {"type": "integer", "minimum": 0}},
    "required": ["name"],
}


def _write(folder: Path, name: str, value: Any) -> str:
    path = folder / name
    path.write_text(json.dumps(value), encoding="utf-8")
    return str(path)


@pytest.fixture
def schema_file(tmp_path: Path) -> str:
    return _write(tmp_path, "schema.json", SCHEMA)


def test_valid_instances_exit_0(
    tmp_path: Path, schema_file: str, capsys: pytest.CaptureFixture[str]
) -> None:
    first = _write(tmp_path, "a.json", {"name": "Ada"})
    second = _write(tmp_path, "b.json", {"name": "Grace", "age": 85})
    assert main(["validate", schema_file, first, second]) == 0
    out = capsys.readouterr().out
    assert f"{first}: valid" in out
    assert f"{second}: valid" in out


def test_invalid_instance_exit_1_with_located_errors(
    tmp_path: Path, schema_file: str, capsys: pytest.CaptureFixture[str]
) -> None:
    good = _write(tmp_path, "good.json", {"name": "Ada"})
    bad = _write(tmp_path, "bad.json", {"age": -1})
    assert main(["validate", schema_file, good, bad]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert f"{good}: valid" in lines
    # The missing "name" is reported at the root, the bad age at its pointer.
    assert any(line.startswith(f"{bad}: (root): ") for line in lines)
    assert any(line.startswith(f"{bad}: /age: ") for line in lines)
    assert not any(line.startswith(f"{good}: /") for line in lines)


def test_instance_from_stdin(
    schema_file: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO('{"name": 3}'))
    assert main(["validate", schema_file, "-"]) == 1
    assert capsys.readouterr().out.startswith("<stdin>: /name: ")


def test_stdin_only_once(schema_file: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", schema_file, "-", "-"]) == 2
    assert "only once" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [[], ["validate"], ["validate", "schema.json"], ["frobnicate"], ["validate", "--nope"]],
)
def test_usage_errors_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    assert "usage:" in capsys.readouterr().err


def test_help_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    assert "validate" in capsys.readouterr().out


def test_missing_file_exit_2(
    tmp_path: Path, schema_file: str, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = str(tmp_path / "missing.json")
    assert main(["validate", schema_file, missing]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith(f"error: cannot read {missing}")
    assert captured.out == ""


@pytest.mark.parametrize("text", ["{not json", '{"a": NaN}', "[1, Infinity]", ""])
def test_malformed_json_exit_2(
    tmp_path: Path, schema_file: str, text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "broken.json"
    path.write_text(text, encoding="utf-8")
    assert main(["validate", schema_file, str(path)]) == 2
    assert f"error: {path}: invalid JSON" in capsys.readouterr().err


def test_malformed_schema_file_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    schema = tmp_path / "schema.json"
    schema.write_text("{", encoding="utf-8")
    instance = _write(tmp_path, "a.json", {})
    assert main(["validate", str(schema), instance]) == 2
    assert "invalid JSON" in capsys.readouterr().err


def test_invalid_schema_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    schema = _write(tmp_path, "schema.json", {"type": 12})
    instance = _write(tmp_path, "a.json", {})
    assert main(["validate", schema, instance]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith("error: validation: ")
    assert captured.out == ""


def test_unsupported_dialect_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    schema = _write(tmp_path, "schema.json", {"$schema": "https://example.com/unknown-dialect"})
    instance = _write(tmp_path, "a.json", {})
    assert main(["validate", schema, instance]) == 2
    assert capsys.readouterr().err.startswith("error: unsupported_capability: ")


def test_format_is_an_annotation_by_default(tmp_path: Path) -> None:
    schema = _write(tmp_path, "schema.json", {"type": "string", "format": "email"})
    instance = _write(tmp_path, "a.json", "not an email address")
    assert main(["validate", schema, instance]) == 0


def test_format_assertion_flag_reaches_compile(
    tmp_path: Path, schema_file: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[dict[str, Any]] = []
    real_compile = schemacore.compile

    def recording_compile(schema: Any, **options: Any) -> schemacore.Validator:
        seen.append(options)
        return real_compile(schema, **options)

    monkeypatch.setattr(schemacore, "compile", recording_compile)
    instance = _write(tmp_path, "a.json", {"name": "Ada"})
    assert main(["validate", "--format-assertion", schema_file, instance]) == 0
    assert main(["validate", schema_file, instance]) == 0
    assert [options.get("format_assertion") for options in seen] == [True, False]


def _example(name: str) -> Any:
    return json.loads(resources.files("schemacore").joinpath("examples", name).read_bytes())


def test_example_files_behave_as_documented() -> None:
    validator = schemacore.compile(_example("tool_args.schema.json"))
    assert validator.is_valid(_example("valid.json"))
    errors = list(validator.iter_errors(_example("invalid.json")))
    keywords = {error.keyword for error in errors}
    # invalid.json is built to break each of these once.
    expected = {"required", "enum", "minimum", "additionalProperties", "oneOf"}
    assert expected <= keywords, keywords
    assert "unevaluatedProperties" in keywords or any(
        "color" in error.message for error in errors
    ), errors


def test_example_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["example"]) == 0
    out = capsys.readouterr().out
    assert "valid.json: valid" in out
    invalid_lines = [line for line in out.splitlines() if line.startswith("invalid.json: ")]
    assert len(invalid_lines) >= 5
    assert "invalid.json: /reminders/0/minutesBefore: " in out


def _run_module(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    # Works whether or not the package is installed in this interpreter.
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC), env.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "-m", "schemacore", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def test_python_dash_m_example() -> None:
    result = _run_module("example")
    assert result.returncode == 0, result.stderr
    assert "valid.json: valid" in result.stdout


def test_python_dash_m_exit_codes(tmp_path: Path, schema_file: str) -> None:
    bad = _write(tmp_path, "bad.json", {"name": 1})
    result = _run_module("validate", schema_file, bad)
    assert result.returncode == 1
    assert result.stdout.startswith(f"{bad}: /name: ")
    assert _run_module("validate").returncode == 2


@pytest.mark.parametrize("fmt", ["flag", "basic", "detailed", "verbose", "list", "hierarchical"])
def test_output_formats_print_one_json_object_per_instance(
    tmp_path: Path, schema_file: str, fmt: str, capsys: pytest.CaptureFixture[str]
) -> None:
    good = _write(tmp_path, "good.json", {"name": "Ada"})
    bad = _write(tmp_path, "bad.json", {"age": -1})
    assert main(["validate", "--output", fmt, schema_file, good, bad]) == 1
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["instance"] for line in lines] == [good, bad]
    assert [line["output"]["valid"] for line in lines] == [True, False]
    validator = schemacore.compile(SCHEMA)
    assert lines[1]["output"] == validator.evaluate({"age": -1}).output(fmt)


def test_basic_output_lists_the_errors(
    tmp_path: Path, schema_file: str, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = _write(tmp_path, "bad.json", {"age": -1})
    assert main(["validate", "--output", "basic", schema_file, bad]) == 1
    output = json.loads(capsys.readouterr().out)["output"]
    assert {e["keywordLocation"] for e in output["errors"]} == {
        "/required",
        "/properties/age/minimum",
    }


def test_unknown_output_format_is_a_usage_error(
    schema_file: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["validate", "--output", "yaml", schema_file, schema_file]) == 2
    assert "invalid choice: 'yaml'" in capsys.readouterr().err
