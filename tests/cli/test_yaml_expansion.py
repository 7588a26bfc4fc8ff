"""YAML aliases: a document is bounded by what it expands to, in values and in
characters, however the expansion is built (aliases to long strings, to mappings
with long keys or values, merge keys, long integers, aliases of aliases)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from schemacore.commandline import documents
from schemacore.commandline.documents import InputError, parse

from .helpers import run_cli, run_main, write_json

LONG = "x" * 99_000


def repeated(alias: str, times: int) -> str:
    return "[" + ", ".join([alias] * times) + "]"


# Each under 120 KB of text, each expanding past ten million characters within a
# million values.
EXPANSIONS = {
    # The report: 1,000 aliases to a 99,000-character string, that list aliased 990
    # times (~98 GB of text in under a million values).
    "aliases to a long string, aliased": (
        f"a: &s {LONG}\nb: &l {repeated('*s', 1000)}\nc: {repeated('*l', 990)}\n"
    ),
    "aliases to a long string": f"a: &s {LONG}\nb: {repeated('*s', 120)}\n",
    "aliases to a mapping with a long key": (
        f"a: &m\n  ? {'k' * 50_000}\n  : 1\nb: {repeated('*m', 300)}\n"
    ),
    "merge keys copying a long key": (
        f"a: &m\n  ? {'k' * 50_000}\n  : 1\nb: {repeated('{<<: *m, z: 1}', 300)}\n"
    ),
    "aliases to a mapping holding a long string": (
        f"a: &m {{v: &s {LONG}, w: [*s, *s]}}\nb: {repeated('*m', 50)}\n"
    ),
    "aliases to a long integer": f"a: &n {'9' * 4000}\nb: {repeated('*n', 3000)}\n",
}


@pytest.mark.parametrize("text", EXPANSIONS.values(), ids=list(EXPANSIONS))
def test_aliases_expanding_past_the_character_limit_are_refused_as_input_errors(
    tmp_path: Path, text: str
) -> None:
    assert len(text) < 120_000
    schema = write_json(tmp_path, "s.json", {"items": {"items": {"pattern": "^x*$"}}})
    path = tmp_path / "m.yaml"
    path.write_text(text, encoding="utf-8")
    good = write_json(tmp_path, "good.json", [])
    started = time.monotonic()
    result = run_cli("validate", schema, str(path), good)
    assert time.monotonic() - started < 30  # refused up front, never walked
    assert result.status == 2, (result.out, result.err)
    assert result.out_lines == [f"{good}: valid"]  # the run went on
    [line] = result.err_lines
    assert line.startswith(f"error: {path}: YAML aliases expand it to "), line
    assert line.endswith(
        "characters of strings, keys and integers (more than 10,000,000 beyond its own "
        f"length, {len(text.encode()):,})"
    ), line
    # The same document as a schema is refused before anything is validated.
    as_schema = run_main("validate", str(path), good)
    assert as_schema.status == 2 and "characters of strings" in as_schema.err, as_schema.err


def test_the_report_s_document_names_the_characters_it_expands_to(tmp_path: Path) -> None:
    text = EXPANSIONS["aliases to a long string, aliased"]
    with pytest.raises(InputError) as refused:
        parse("m.yaml", text.encode(), documents.YAML)
    # 990 x 1,000 x 99,000 characters and the keys, plus the 99,000 of "a" and the
    # 1,000 x 99,000 of "b", each once.
    characters = 990 * 1000 * 99_000 + 1000 * 99_000 + 99_000 + len("abc")
    assert refused.value.reason == (
        f"YAML aliases expand it to {characters:,} characters of strings, keys and "
        f"integers (more than 10,000,000 beyond its own length, {len(text):,})"
    )


def naive_characters(value: Any) -> int:
    """What a document holds, every alias expanded, counted the slow way."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, bool) or not isinstance(value, (int, list, dict)):
        return 1
    if isinstance(value, int):
        return len(str(abs(value)))
    if isinstance(value, list):
        return sum(naive_characters(item) for item in value)
    return sum(len(key) + naive_characters(member) for key, member in value.items())


def test_the_character_limit_counts_from_the_length_of_the_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = "a: &s abcdefghij\nb: [*s, *s, *s, *s, *s, -12345, true]\n"
    added = naive_characters(yaml.safe_load(text)) - len(text)
    assert added > 0
    monkeypatch.setattr(documents, "MAX_ALIAS_CHARACTERS", added)
    assert parse("a.yaml", text, documents.YAML).value["b"][0] == "abcdefghij"
    monkeypatch.setattr(documents, "MAX_ALIAS_CHARACTERS", added - 1)
    with pytest.raises(InputError, match="YAML aliases expand it to "):
        parse("a.yaml", text, documents.YAML)


def test_long_documents_without_aliases_never_reach_the_character_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Written out, each scalar is as long as its text or shorter (escapes, folding,
    # other bases for integers), whatever the limit.
    monkeypatch.setattr(documents, "MAX_ALIAS_CHARACTERS", 1)
    text = (
        f"{'k' * 500}: {'v' * 5000}\n"
        f'q: "{chr(92)}u263a{chr(92)}x41{chr(92)}t"\n'
        "folded: >\n  one\n  two\n"
        "n: [0xFFFF, 0o777, 1_000, 123456789012345678901234567890, .5, ~, true]\n"
    )
    assert parse("a.yaml", text, documents.YAML).value["n"][0] == 0xFFFF
    assert parse("a.toml", f'k = "{"v" * 5000}"\n', documents.TOML).value["k"]


def test_aliases_to_long_strings_within_the_limit_are_fine(tmp_path: Path) -> None:
    schema = write_json(tmp_path, "s.json", {"properties": {"b": {"items": {"pattern": "^x*$"}}}})
    path = tmp_path / "ok.yaml"
    path.write_text(f"a: &s {'x' * 9000}\nb: {repeated('*s', 1000)}\n", encoding="utf-8")
    assert run_main("validate", schema, str(path)) == (0, f"{path}: valid\n", "")


# -- generated documents: the walk's count agrees with the slow one ----------------------

_SCALARS = st.one_of(
    st.text(alphabet="xyz", min_size=10, max_size=120),
    st.integers(-(10**30), 10**30),
    st.sampled_from(["null", "true", "1.5"]),
)


@st.composite
def aliased_yaml(draw: st.DrawFn) -> str:
    """Anchored scalars and flow collections, each later one built from aliases to
    earlier anchors (a mapping sometimes merging an earlier one), as YAML text."""
    anchors: list[str] = []
    mappings: list[str] = []
    lines: list[str] = []
    for index in range(draw(st.integers(1, 7))):
        name = f"a{index}"
        if len(anchors) < 2 or draw(st.integers(0, 3)) == 0:  # mostly collections
            scalar = draw(_SCALARS)
            body = str(scalar) if not isinstance(scalar, str) or scalar else "''"
        else:
            parts = draw(st.lists(st.sampled_from(anchors), min_size=1, max_size=10))
            if draw(st.booleans()):
                body = "[" + ", ".join(f"*{part}" for part in parts) + "]"
            else:
                members = [f"k{n}{'z' * n}: *{part}" for n, part in enumerate(parts)]
                if mappings and draw(st.booleans()):
                    members.append(f"<<: *{draw(st.sampled_from(mappings))}")
                body = "{" + ", ".join(members) + "}"
                mappings.append(name)
        lines.append(f"{name}: &{name} {body}")
        anchors.append(name)
    return "\n".join(lines) + "\n"


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(aliased_yaml(), st.integers(-40, 40))
def test_documents_are_refused_exactly_when_aliases_add_more_characters_than_the_limit(
    text: str, offset: int
) -> None:
    added = naive_characters(yaml.safe_load(text)) - len(text)
    limit = max(1, added + offset)  # around the document's own expansion
    previous = documents.MAX_ALIAS_CHARACTERS
    documents.MAX_ALIAS_CHARACTERS = limit
    try:
        parse("g.yaml", text, documents.YAML)
    except InputError as exc:
        assert added > limit, (text, added, exc.reason)
        assert "characters of strings" in exc.reason
    else:
        assert added <= limit, (text, added)
    finally:
        documents.MAX_ALIAS_CHARACTERS = previous
