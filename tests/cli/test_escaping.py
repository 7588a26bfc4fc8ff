"""Input text in the command line's output: file names, locations, messages, tool
and property names never carry a control character, a line break or a bidirectional
control to the terminal or to a reader of lines; JSON outputs decode to the same
strings."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path
from typing import Any

import pytest

from .helpers import run_cli, run_main, write_json

# Unicode's Bidi_Control characters, and the separators str.splitlines breaks at.
BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
SEPARATORS = frozenset("\u2028\u2029")

# ESC sequences that retitle the terminal and clear it, C1 CSI, a right-to-left
# override, an isolate and a line separator.
HOSTILE = "\x1b]0;pwned\x07\x1b[2J\x9b31m\u202eevil\u2066\u2028x\x85"


def raw_characters(text: str) -> list[str]:
    """The characters of ``text`` that must never reach the output as they are (a
    line's own ``\\n`` ending aside): Cc (C0, DEL, C1), Cs, bidi controls, Zl/Zp."""
    return [
        char
        for char in text
        if char != "\n"
        and (
            unicodedata.category(char) in ("Cc", "Cs")
            or char in BIDI_CONTROLS
            or char in SEPARATORS
        )
    ]


def assert_printable(text: str) -> None:
    assert raw_characters(text) == [], ascii(text)
    # No line break but "\n": a reader splitting lines finds the same records.
    assert text.splitlines() == text.split("\n")[: len(text.splitlines())], ascii(text)


def test_a_property_name_cannot_forge_a_line_of_output(tmp_path: Path) -> None:
    schema = write_json(tmp_path, "s.json", {"additionalProperties": {"type": "string"}})
    forged = "x\nfake.json: valid\n\x1b]0;title\x07"
    instance = write_json(tmp_path, "i.json", {forged: 1})
    result = run_main("validate", schema, instance)
    assert result.status == 1
    assert result.out_lines == [
        f"{instance}: /x\\nfake.json: valid\\n\\x1b]0;title\\x07: integer is not of type string"
    ]


def test_control_characters_in_every_printed_field_are_escaped(tmp_path: Path) -> None:
    # A file name, a property name (the location), a required name and a value (the
    # messages) all hostile; a JSON Lines file of that name for its summary; a
    # missing file of that name for the error line.
    folder = tmp_path / "d"
    folder.mkdir()
    schema = write_json(
        folder,
        "s.json",
        {"properties": {HOSTILE: {"const": HOSTILE}}, "required": [HOSTILE + "!"]},
    )
    instance = write_json(folder, f"i{HOSTILE}.json", {HOSTILE: HOSTILE[::-1]})
    lines = folder / f"l{HOSTILE}.jsonl"
    passing = {HOSTILE: HOSTILE, HOSTILE + "!": 0}
    lines.write_text(json.dumps(passing) + "\n{}\n", encoding="utf-8")
    missing = str(folder / f"m{HOSTILE}.json")
    valid = write_json(folder, f"v{HOSTILE}.json", passing)

    result = run_main("validate", schema, instance, str(lines), missing, valid)
    assert result.status == 2
    assert_printable(result.out)
    assert_printable(result.err)
    shown = ascii(HOSTILE)[1:-1]  # as Python escapes it
    errors = [line for line in result.out_lines if line.startswith(f"{folder}/i{shown}.json: ")]
    assert len(errors) == 2, result.out_lines
    assert f"{folder}/i{shown}.json: (root): '{shown}!' is a required property" in errors
    assert any(line.startswith(f"{folder}/i{shown}.json: /{shown}: ") for line in errors)
    assert result.out_lines[-1] == f"{folder}/v{shown}.json: valid"
    assert f"{folder}/l{shown}.jsonl:2: (root): '{shown}!' is a required property" in (
        result.out_lines
    )
    assert f"{folder}/l{shown}.jsonl: 2 records: 1 valid, 1 invalid" in result.out_lines
    assert result.err_lines == [
        f"error: cannot read {folder}/m{shown}.json: No such file or directory"
    ]


def test_schema_file_names_and_locations_in_schema_errors_are_escaped(tmp_path: Path) -> None:
    unreadable = tmp_path / f"s{HOSTILE}.json"
    unreadable.write_text("{", encoding="utf-8")
    instance = write_json(tmp_path, "i.json", {})
    result = run_main("validate", str(unreadable), instance)
    assert result.status == 2 and result.out == ""
    assert_printable(result.err)
    assert result.err.startswith(f"error: {tmp_path}/s{ascii(HOSTILE)[1:-1]}.json: invalid JSON")
    # The compile error quotes the schema's own keys: one line, nothing raw.
    schema = write_json(tmp_path, "s.json", {"properties": {HOSTILE: {"type": 5}}})
    result = run_main("validate", schema, instance)
    assert result.status == 2 and result.out == ""
    assert_printable(result.err)
    assert len(result.err_lines) == 1 and result.err.startswith("error: validation: ")


def test_yaml_places_in_input_errors_are_escaped(tmp_path: Path) -> None:
    schema = write_json(tmp_path, "s.json", {})
    document = tmp_path / "odd.yaml"
    # YAML allows no control character as it is: the key spells them as escapes.
    document.write_text(f"{json.dumps(HOSTILE)}: 2024-01-01\n", encoding="utf-8")
    result = run_main("validate", schema, str(document))
    assert result.status == 2
    assert_printable(result.err)
    shown = ascii(HOSTILE)[1:-1]
    assert result.err_lines == [
        f"error: {document}: YAML value at /{shown} is not JSON: a date, which JSON has no "
        "type for (quote it to make it a string)"
    ]


def test_a_parser_message_of_several_lines_is_one_line(tmp_path: Path) -> None:
    # PyYAML's message for a raw control character ends with its place on a line of
    # its own.
    schema = write_json(tmp_path, "s.json", {})
    document = tmp_path / "odd.yaml"
    document.write_bytes(b"a: \x1b[2J\n")
    result = run_main("validate", schema, str(document))
    assert result.status == 2
    assert_printable(result.err)
    assert len(result.err_lines) == 1 and "invalid YAML" in result.err


def test_unrecognized_arguments_are_escaped_in_the_usage_error() -> None:
    result = run_cli("validate", "s.json", "i.json", f"--x{HOSTILE}")
    assert result.status == 2
    assert_printable(result.err)
    assert result.err_lines[-1].startswith("schemacore: error: unrecognized arguments: --x\\x1b")


def _tools(tmp_path: Path, name: str) -> str:
    listing: dict[str, Any] = {
        "tools": [
            {
                "name": "t",
                "inputSchema": {"type": "object", "properties": {HOSTILE: {"type": "string"}}},
            },
            {"name": "u", "inputSchema": {"type": "object", "properties": {HOSTILE: {"type": 5}}}},
        ]
    }
    return write_json(tmp_path, name, listing)


@pytest.mark.parametrize("as_json", [False, True])
def test_admit_and_check_args_escape_file_tool_and_property_names(
    tmp_path: Path, as_json: bool
) -> None:
    tools = _tools(tmp_path, f"tools{HOSTILE}.json")
    arguments = write_json(tmp_path, "args.json", {HOSTILE: 5})
    flags = ["--json"] if as_json else []
    admitted = run_main("admit", "--mode", "isolate", *flags, tools)
    checked = run_main("check-args", *flags, tools, "t", arguments)
    assert (admitted.status, checked.status) == (0, 1), (admitted.err, checked.err)
    for result in (admitted, checked):
        assert_printable(result.out)
        assert_printable(result.err)
    if as_json:
        report = json.loads(admitted.out)
        assert report["file"] == tools  # the same string, escaped only in the text
        assert HOSTILE in report["leftOut"][0]["error"]["path"]
        issue = json.loads(checked.out)["_meta"]["schemacore/tool-arg-issues"]["issues"][0]
        assert issue["pointer"] == "/" + HOSTILE
    else:
        assert len([line for line in admitted.out_lines if line.startswith("left out: #1")]) == 1
        assert len(checked.out_lines) == 3  # heading, the issue, the closing line


@pytest.mark.parametrize(
    "flags", [["--error-format", "json"], ["--output", "basic"], ["--output", "list"]]
)
def test_json_outputs_escape_c1_and_bidi_characters_and_decode_to_the_same_strings(
    tmp_path: Path, flags: list[str]
) -> None:
    schema = write_json(tmp_path, "s.json", {"additionalProperties": {"type": "string"}})
    instance = write_json(tmp_path, f"i{HOSTILE}.json", {HOSTILE: 1})
    result = run_main("validate", *flags, schema, instance)
    assert result.status == 1
    assert_printable(result.out)
    [line] = result.out_lines
    record = json.loads(line)
    location = "/" + HOSTILE
    if "--error-format" in flags:
        assert (record["file"], record["instanceLocation"]) == (instance, location)
    else:
        assert record["instance"] == instance
        assert location in _instance_locations(record["output"])


def _instance_locations(output: Any) -> set[str]:
    found: set[str] = set()
    pending = [output]
    while pending:
        unit = pending.pop()
        if isinstance(unit, dict):
            found.add(unit.get("instanceLocation", ""))
            pending.extend(unit.values())
        elif isinstance(unit, list):
            pending.extend(unit)
    return found
