"""The ``schemacore`` command line: exit codes, output lines, the bundled example."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


# -- hostile input never ends in a traceback (issue #14, round 2) -------------------------


def _run_with(
    *args: str, stdin: bytes | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(SRC), environment.get("PYTHONPATH")])
    )
    environment.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "schemacore", *args],
        input=stdin,
        capture_output=True,
        env=environment,
        timeout=120,
        check=False,
    )


def _assert_error_exit(result: subprocess.CompletedProcess[bytes], *needles: str) -> None:
    stderr = result.stderr.decode("utf-8", "replace")
    assert result.returncode == 2, (result.returncode, stderr)
    assert "Traceback" not in stderr and "Exception ignored" not in stderr, stderr
    assert stderr.startswith("error: "), stderr
    for needle in needles:
        assert needle in stderr, stderr


DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize(
    "command",
    [
        ["validate", "{deep}", "{schema}"],
        ["validate", "{schema}", "{deep}"],
        ["validate", "{schema}", "{ok}", "{deep}"],
        ["admit", "{deep}"],
        ["admit", "{deep_tools}"],
        ["check-args", "{deep_tools}", "t", "{ok}"],
    ],
)
def test_deeply_nested_json_files_are_input_errors(
    tmp_path: Path, schema_file: str, command: list[str]
) -> None:
    # json.loads raised RecursionError, which no handler caught: exit 1, a traceback.
    deep = tmp_path / "deep.json"
    deep.write_text(DEEP, encoding="utf-8")
    deep_tools = tmp_path / "tools.json"
    nested = '{"not":' * 100_000 + "{}" + "}" * 100_000
    deep_tools.write_text(f'[{{"name": "t", "inputSchema": {nested}}}]', encoding="utf-8")
    names = {
        "deep": str(deep),
        "schema": schema_file,
        "ok": _write(tmp_path, "ok.json", {"name": "Ada"}),
        "deep_tools": str(deep_tools),
    }
    result = _run_with(*(part.format(**names) for part in command))
    _assert_error_exit(result, "nested too deeply")


def test_deeply_nested_standard_input_is_an_input_error(schema_file: str) -> None:
    _assert_error_exit(_run_with("validate", schema_file, "-", stdin=DEEP.encode()), "<stdin>")


@pytest.mark.parametrize(
    ("schema", "needle"),
    [
        ({"pattern": "[a-"}, "regular expression"),
        ({"properties": {"a": {"patternProperties": {"(?<": {}}}}}, "regular expression"),
        ({"$id": "#not-plain"}, "$id"),
        ({"$id": "https://example.com/s#frag"}, "$id"),
    ],
)
def test_a_schema_the_engine_refuses_is_an_error_not_a_verdict(
    tmp_path: Path, schema: Any, needle: str
) -> None:
    instance = _write(tmp_path, "i.json", {"a": "x"})
    result = _run_with("validate", _write(tmp_path, "s.json", schema), instance)
    _assert_error_exit(result, needle)


def test_an_identifier_urllib_cannot_parse_is_a_schema_error_not_a_crash(tmp_path: Path) -> None:
    # Not a URI-reference (an unclosed IP literal): the schema is refused, located.
    schema = {"properties": {"a": {"$id": "//[::1", "type": "string"}}}
    result = _run_with(
        "validate", _write(tmp_path, "s.json", schema), _write(tmp_path, "i.json", {"a": 1})
    )
    assert result.returncode == 2, result.stderr
    assert b"/properties/a/$id" in result.stderr and b"URI-reference" in result.stderr
    # One that is a URI-reference, though urllib reads it oddly, is just an identifier.
    schema = {"properties": {"a": {"$id": "//[v1.x]", "type": "string"}}}
    result = _run_with(
        "validate", _write(tmp_path, "s.json", schema), _write(tmp_path, "i.json", {"a": 1})
    )
    assert result.returncode == 1, result.stderr
    assert b"/a: " in result.stdout


def test_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    # Far more output than a pipe holds: the writes fail once the reader is gone.
    schema = _write(tmp_path, "s.json", {"items": {"type": "string"}})
    instance = _write(tmp_path, "i.json", list(range(50_000)))
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(SRC), environment.get("PYTHONPATH")])
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "schemacore", "validate", schema, instance],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=environment,
    )
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.readline().startswith(instance.encode())
    process.stdout.close()  # as `| head -1` does
    stderr = process.stderr.read()
    assert process.wait(timeout=120) == 2
    assert stderr == b"", stderr


def test_a_stdout_that_refuses_writes_ends_quietly(
    tmp_path: Path, schema_file: str, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    class ClosedPipe(io.StringIO):
        def write(self, text: str) -> int:
            raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    bad = _write(tmp_path, "bad.json", {"age": -1})
    assert main(["validate", schema_file, bad]) == 2
    assert capsys.readouterr().err == ""


def test_non_utf8_standard_input_is_refused_like_a_file(tmp_path: Path) -> None:
    # A text stdin decoded the bytes with surrogateescape and called them valid.
    schema = _write(tmp_path, "s.json", {"type": "string"})
    result = _run_with("validate", schema, "-", stdin=b'"\xe9\xff"')
    _assert_error_exit(result, "<stdin>: invalid JSON")
    latin1 = tmp_path / "latin1.json"
    latin1.write_bytes(b'"\xe9\xff"')
    _assert_error_exit(_run_with("validate", schema, str(latin1)), "invalid JSON")


@pytest.mark.parametrize("encoding", ["utf-8", "ascii"])
def test_text_the_terminal_cannot_encode_is_escaped(tmp_path: Path, encoding: str) -> None:
    # A lone surrogate (spelled in JSON as \ud800) or a non-ASCII key in a location
    # made print() raise UnicodeEncodeError.
    schema = _write(tmp_path, "s.json", {"properties": {"\ud800": {"type": "string"}}})
    instance = tmp_path / "i.json"
    instance.write_text('{"\\ud800": 1, "caf\\u00e9": 2}', encoding="utf-8")
    for output in ("text", "basic"):
        command = ["validate", "--output", output, schema, str(instance)]
        result = _run_with(*command, env={"PYTHONIOENCODING": encoding})
        assert result.returncode == 1, result.stderr
        assert b"\\ud800" in result.stdout, result.stdout


@pytest.mark.parametrize(
    "content",
    [
        b"1" * 5000,  # past sys.get_int_max_str_digits()
        b'{"a": 1, "a": 2}',  # duplicate keys: fine, the last one wins
    ],
)
def test_other_odd_files(tmp_path: Path, content: bytes) -> None:
    schema = _write(tmp_path, "s.json", {})
    odd = tmp_path / "odd.json"
    odd.write_bytes(content)
    result = _run_with("validate", schema, str(odd))
    if content.startswith(b"{"):
        assert result.returncode == 0, result.stderr
    else:
        _assert_error_exit(result, "invalid JSON")
    _assert_error_exit(_run_with("validate", schema, str(tmp_path)), "cannot read")
    _assert_error_exit(_run_with("admit", str(tmp_path)), "cannot read")
    _assert_error_exit(_run_with("check-args", str(odd), "t", str(tmp_path)))


def test_an_unexpected_failure_is_one_error_line_and_status_2(
    schema_file: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(schemacore, "compile", broken)
    assert main(["validate", schema_file, _write(tmp_path, "i.json", {})]) == 2
    assert capsys.readouterr().err == "error: internal error: RuntimeError: boom\n"


@pytest.mark.parametrize("where", ["schema", "instance"])
def test_a_number_past_the_range_of_a_double_is_invalid_json(tmp_path: Path, where: str) -> None:
    # Python reads 1e999 as inf, which the engine then reported as an instance value
    # that is not JSON (even when it was in the schema).
    odd = tmp_path / "odd.json"
    odd.write_text('{"maximum": 1e999}' if where == "schema" else "[1, -1e999]", encoding="utf-8")
    plain = _write(tmp_path, "plain.json", {})
    names = [str(odd), plain] if where == "schema" else [plain, str(odd)]
    _assert_error_exit(_run_with("validate", *names), "outside the range of a double")


def test_closed_standard_streams(tmp_path: Path, schema_file: str) -> None:
    # Started with stdin or stdout closed: sys.stdin / sys.stdout are None.
    good = _write(tmp_path, "good.json", {"name": "Ada"})
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(SRC), environment.get("PYTHONPATH")])
    )

    def shell(redirect: str, *args: str) -> subprocess.CompletedProcess[bytes]:
        script = f'"$0" -m schemacore "$@" {redirect}'
        return subprocess.run(
            ["sh", "-c", script, sys.executable, *args],
            capture_output=True,
            env=environment,
            timeout=120,
            check=False,
        )

    _assert_error_exit(shell("<&-", "validate", schema_file, "-"), "standard input")
    result = shell(">&-", "validate", schema_file, good)
    assert (result.returncode, result.stderr) == (0, b"")


# Fragments of hostile JSON text: nesting, numbers Python reads oddly, escapes that
# decode to lone surrogates, bytes that are not UTF-8, a BOM, NaN.
_FRAGMENTS = st.sampled_from(
    [
        b"[" * 3000,
        b"]" * 3000,
        b'{"a":' * 50,
        b"}" * 50,
        b"1e999",
        b"-1e999",
        b"1" * 5000,
        b"NaN",
        b'"\\ud800"',
        b'{"\\udfff": 1}',
        b'"\xe9\xff"',
        b"\xef\xbb\xbf",
        b'{"type": "string"}',
        b'{"pattern": "[a-"}',
        b'{"$id": "//[::1"}',
        b'{"$ref": "#/allOf/99999999999999999999999"}',
        b'{"name": "t", "inputSchema": {"type": "object"}}',
        b"[",
        b",",
        b"{}",
        b"[]",
        b"null",
    ]
)
_TEXT = st.lists(_FRAGMENTS, min_size=1, max_size=6).map(b"".join)


@settings(max_examples=150, deadline=None, derandomize=True, database=None)
@given(
    _TEXT,
    _TEXT,
    st.sampled_from(["validate", "validate-basic", "admit", "check-args"]),
)
def test_hostile_files_end_in_a_verdict_or_an_error_line(
    tmp_path_factory: pytest.TempPathFactory, first: bytes, second: bytes, command: str
) -> None:
    folder = tmp_path_factory.mktemp("hostile")
    (folder / "first.json").write_bytes(first)
    (folder / "second.json").write_bytes(second)
    a, b = str(folder / "first.json"), str(folder / "second.json")
    argv = {
        "validate": ["validate", a, b],
        "validate-basic": ["validate", "--output", "basic", a, b],
        "admit": ["admit", a],
        "check-args": ["check-args", a, "t", b],
    }[command]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    assert status in (0, 1, 2)
    # The catch-all is for bugs: hostile input must be handled before it.
    assert "internal error" not in err.getvalue(), err.getvalue()
    if status == 2:
        assert err.getvalue().startswith("error: "), err.getvalue()
