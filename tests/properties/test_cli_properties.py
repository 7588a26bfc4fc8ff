"""Command-line properties over generated input.

* Hostile text (C0 and C1 controls, DEL, bidirectional controls, line and paragraph
  separators, lone surrogates) in a file name, the property names making up an
  instance location, and the values and names messages quote: no such character
  reaches stdout or stderr as it is, each record stays on its own line, and the JSON
  outputs decode to the same strings.
* A value's verdict is the same whatever is printed: every output plan (text, quiet,
  --error-format json, each --output format) counts it invalid, or not checked,
  alike, beside a structure nested around the depth limit, so that reports often
  stop at the limit, after a mismatch or before one.

The hypothesis profile comes from ``HYPOTHESIS_PROFILE`` (see profiles.py).
"""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st

import schemacore
from schemacore.commandline.checking import Checker, DocumentTask, Plan
from schemacore.output import FORMATS
from tests.cli.helpers import run_main

from .profiles import PROFILE
from .strategies import documents, instances_for, lift_defs, recursive_chains

_BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_DANGEROUS = [chr(code) for code in [*range(0x20), *range(0x7F, 0xA0)]]
_DANGEROUS += [*_BIDI_CONTROLS, "\u2028", "\u2029"]
# Text that must pass as it is: backslashes and quotes (escapes of their own),
# non-ASCII letters, an emoji and the joiner emoji sequences need.
_ORDINARY = [*"ab\\'\" ~é€", "\U0001f600", "\u200d"]


def _text(*, excluded: str = "", surrogates: bool = False) -> st.SearchStrategy[str]:
    alphabet = [char for char in _DANGEROUS + _ORDINARY if char not in excluded]
    if surrogates:
        alphabet.append("\ud800")  # JSON can spell one; no file name can hold it
    return st.lists(st.sampled_from(alphabet), min_size=1, max_size=10).map("".join)


# A file name holds neither NUL nor "/".
_FILE_NAMES = _text(excluded="\x00/")
_NAMES = _text(surrogates=True)


def _raw(text: str) -> list[str]:
    """Characters that must never be printed as they are (a line's "\\n" aside)."""
    return [
        char
        for char in text
        if char != "\n"
        and (
            unicodedata.category(char) in ("Cc", "Cs")
            or char in _BIDI_CONTROLS
            or char in "\u2028\u2029"
        )
    ]


def _lines(text: str) -> list[str]:
    """The lines of ``text``, checked to split the same at "\\n" alone as at every
    line break str.splitlines knows."""
    assert _raw(text) == [], ascii(text)
    assert text == "" or text.endswith("\n")
    lines = text.split("\n")[:-1]
    assert text.splitlines() == lines, ascii(text)
    return lines


_MODES = ["text", "json", "basic", "lines"]


@PROFILE
@given(
    file_name=_FILE_NAMES,
    path=st.lists(_NAMES, min_size=1, max_size=3),
    value=_NAMES,
    mode=st.sampled_from(_MODES),
)
def test_no_raw_control_or_bidi_character_is_printed_and_records_keep_their_lines(
    tmp_path_factory: pytest.TempPathFactory,
    file_name: str,
    path: list[str],
    value: str,
    mode: str,
) -> None:
    folder = tmp_path_factory.mktemp("hostile")
    # The innermost property must be an integer and the root must hold ``value``
    # as a name: errors at the hostile location, with hostile text in the messages.
    leaf: Any = {"type": "integer", "enum": [value]}
    instance: Any = value
    for name in reversed(path):
        leaf = {"properties": {name: leaf}}
        instance = {name: instance}
    schema = {**leaf, "required": [value + "!"]}
    errors = list(schemacore.compile(schema).iter_errors(instance))
    assert errors  # the required name is always missing

    schema_file = folder / "schema.json"
    schema_file.write_text(json.dumps(schema), encoding="utf-8")
    suffix = ".jsonl" if mode == "lines" else ".json"
    document = folder / f"i{file_name}{suffix}"
    document.write_text(json.dumps(instance) + "\n", encoding="utf-8")
    missing = str(folder / f"m{file_name}.json")
    flags = {"json": ["--error-format", "json"], "basic": ["--output", "basic"]}.get(mode, [])
    note(f"document: {str(document)!a}")

    result = run_main("validate", *flags, str(schema_file), str(document), missing)
    assert result.status == 2  # the missing file
    assert len(_lines(result.err)) == 1 and result.err.startswith("error: cannot read ")
    lines = _lines(result.out)
    name = str(document)
    if mode == "text":
        assert len(lines) == len(errors)
    elif mode == "lines":
        assert len(lines) == len(errors) + 1  # and the file's summary
    elif mode == "json":
        records = [json.loads(line) for line in lines]
        assert [(r["file"], r["instanceLocation"], r["message"]) for r in records[:-1]] == [
            (name, error.instance_location, error.message) for error in errors
        ]
        assert (records[-1]["file"], records[-1]["kind"]) == (missing, "input")
    else:
        [record] = [json.loads(line) for line in lines]
        assert record["instance"] == name
        assert [unit["instanceLocation"] for unit in record["output"]["errors"]] == [
            error.instance_location for error in errors
        ]


_PLANS = [
    Plan(),
    Plan(quiet=True),
    Plan(error_format="json"),
    *(Plan(output=fmt) for fmt in FORMATS),
]


@st.composite
def _cases(draw: st.DrawFn) -> tuple[Any, list[Any], schemacore.Limits]:
    """A generated schema beside a recursive one (its own resource, so that "#" in
    each keeps its meaning), in either order, and instances pairing a generated value
    with a chain nested around the depth limit: reports often stop at the limit,
    after a mismatch or before one."""
    generated = draw(documents())
    chain, deep, limit = draw(recursive_chains())
    members = {
        "g": {k: v for k, v in generated.items() if k != "$defs"}
        if isinstance(generated, dict)
        else generated,
        "r": {"$id": "urn:example:chain", **chain},
    }
    if draw(st.booleans()):
        members = {"r": members["r"], "g": members["g"]}
    schema = lift_defs(generated, {"properties": members})
    values = draw(instances_for(generated))
    past = _past_the_limit(deep, limit)
    instances = [{"g": value, "r": chain} for value in values for chain in (deep, past)]
    instances.append({"r": past})
    return schema, instances, schemacore.Limits(max_instance_depth=limit, max_pattern_input=3)


def _past_the_limit(chain: Any, limit: int) -> Any:
    """``chain`` (a chain of recursive_chains) nested on until the limit is past
    whatever the length of the cycle (one to three steps; one at a limit of 256)."""
    depth, inner, kind = 0, chain, type(chain)
    while isinstance(inner, (list, dict)) and inner:
        inner = inner[0] if isinstance(inner, list) else inner["a"]
        depth += 1
    if kind not in (list, dict):
        return chain  # a scalar: the cycle's kind is unknown, and nothing recurses
    wanted = (limit if limit > 100 else 3 * limit) + 6
    for _ in range(wanted - depth):
        chain = [chain] if kind is list else {"a": chain}
    return chain


def _verdict(checker: Checker, text: bytes) -> tuple[int, int]:
    outcome = checker.run(DocumentTask("doc.json", "json", text))
    assert outcome.records == 1
    return outcome.invalid, outcome.failed


def _json(value: Any) -> bytes | None:
    """The JSON text of ``value``; None for an integer too long to write, which no
    file the command line reads can hold either."""
    try:
        return json.dumps(value).encode()
    except ValueError:
        return None


# Each example checks several values through eight plans: a third of the examples.
@settings(PROFILE, max_examples=max(1, PROFILE.max_examples // 3))
@given(_cases())
def test_every_output_plan_gives_a_value_the_same_verdict(
    case: tuple[Any, list[Any], schemacore.Limits],
) -> None:
    schema, instances, limits = case
    validator = schemacore.compile(schema, limits=limits)
    checkers = [Checker(validator, plan) for plan in _PLANS]
    for instance in instances:
        text = _json(instance)
        if text is None:
            continue
        verdicts = {
            plan: _verdict(checker, text) for plan, checker in zip(_PLANS, checkers, strict=True)
        }
        note(f"instance: {text[:2000]!r}; verdicts: {verdicts}")
        assert len(set(verdicts.values())) == 1
        invalid, failed = verdicts[_PLANS[0]]
        # Not checked exactly when is_valid cannot finish; else its answer.
        try:
            expected = (int(not validator.is_valid(json.loads(text))), 0)
        except schemacore.ExecutionFailure:
            expected = (0, 1)
        assert (invalid, failed) == expected


def test_the_hostile_alphabet_holds_every_class_it_names() -> None:
    # The strategies above must keep drawing from each class the output escapes.
    categories = {unicodedata.category(char) for char in _DANGEROUS}
    assert categories == {"Cc", "Cf", "Zl", "Zp"}
    assert {"\x1b", "\x9b", "\x85", "\u202e", "\u2066", "\u061c"} <= set(_DANGEROUS)


def test_a_generated_file_name_is_a_file_name(tmp_path: Path) -> None:
    # Every character the file-name strategy draws can be in a name on this system.
    for char in [char for char in _DANGEROUS + _ORDINARY if char not in "\x00/"]:
        (tmp_path / f"x{char}").write_text("", encoding="utf-8")
