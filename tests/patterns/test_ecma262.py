"""The ECMA-262 -> ``regex`` translation: properties against Python's ``re`` where the
two dialects agree, and the places where they do not."""

from __future__ import annotations

import re

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

import schemacore
from schemacore.ecma262 import PatternError, compile_pattern, is_valid_pattern, translate

# -- where ECMA-262 and Python (re.ASCII, no newlines in the input) agree -------------

_ATOMS = st.sampled_from(
    ["a", "b", "c", "0", "1", "_", "-", " ", ".", r"\d", r"\D", r"\w", r"\W", r"\s", r"\S",
     "[abc]", "[^ab]", "[a-c0-1]", r"[\d_]", r"[^\w]", r"\.", r"[\-]"]
)  # fmt: skip
_QUANTIFIERS = st.sampled_from(["", "", "*", "+", "?", "{2}", "{1,3}", "{0,}", "*?", "+?"])


@st.composite
def _patterns(draw: st.DrawFn, depth: int = 0) -> str:
    parts = []
    for _ in range(draw(st.integers(1, 4))):
        if depth < 2 and draw(st.booleans()) and draw(st.booleans()):
            inner = draw(_patterns(depth + 1))
            alternative = draw(_patterns(depth + 1))
            atom = f"(?:{inner}|{alternative})" if draw(st.booleans()) else f"({inner})"
        else:
            atom = draw(_ATOMS)
        parts.append(atom + draw(_QUANTIFIERS))
    body = "".join(parts)
    if depth == 0:
        body = draw(st.sampled_from(["", "^"])) + body + draw(st.sampled_from(["", "$"]))
    return body


_TEXT = st.text(alphabet="abc01_- .xyz", max_size=12)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(_patterns(), _TEXT)
def test_translation_matches_python_where_the_dialects_agree(pattern: str, text: str) -> None:
    expected = re.search(pattern, text, re.ASCII) is not None
    assert bool(compile_pattern(pattern)(text)) is expected, (pattern, translate(pattern))


@settings(max_examples=200, deadline=None, derandomize=True)
@given(_patterns())
def test_generated_patterns_are_valid(pattern: str) -> None:
    assert is_valid_pattern(pattern)


# -- where they differ: ECMA-262 semantics win --------------------------------------


@pytest.mark.parametrize(
    ("pattern", "text", "matches"),
    [
        ("^a$", "a\n", False),  # Python's $ also matches before a final newline
        (r"^\d$", "\u0660", False),  # ARABIC-INDIC DIGIT ZERO is not an ECMA digit
        (r"^\D$", "\u0660", True),
        (r"^\w$", "é", False),
        (r"^\W$", "é", True),
        (r"^\s$", "\ufeff", True),  # ECMA whitespace includes U+FEFF ...
        (r"^\s$", "\u3000", True),
        (r"^\s$", "\x1c", False),  # ... and not the separators Python's \s adds
        (r"^\s$", "\x85", False),
        ("^.$", "\u2028", False),  # . excludes every ECMA line terminator
        ("^.$", "\r", False),
        ("^[$]$", "$", True),  # a $ inside a class is a plain character
        (r"^\cJ$", "\n", True),
        (r"^\u{1F600}$", "\U0001f600", True),
        (r"^\uD83D\uDE00$", "\U0001f600", True),  # a surrogate pair is one code point
        (r"^\p{Letter}+$", "héllo", True),
        (r"^\p{Script=Greek}+$", "αβγ", True),
        (r"\bfoo\b", "éfoo", True),  # é is not a word character, so there is a boundary
        (r"(?<year>\d{4})-\k<year>", "2024-2024", True),
        ("[^]", "\n", True),
        ("a[]", "a", False),
        (r"(?<=a)b", "ab", True),
    ],
)
def test_ecma_semantics(pattern: str, text: str, matches: bool) -> None:
    assert bool(compile_pattern(pattern)(text)) is matches


@pytest.mark.parametrize(
    "pattern",
    [
        "(?P<n>a)",  # Python-only named group
        r"\Z",
        r"\A",
        "(?i)a",  # inline flags
        "(?#comment)",
        "(?>atomic)",
        r"\a",
        "a**",  # possessive or doubled quantifiers
        "a{2,1}",
        "(",
        "[z-a]",
        r"\k<missing>",
        r"\2(a)",
        r"\p{NotAProperty}",
        "a{",
    ],
)
def test_python_only_or_broken_syntax_is_refused(pattern: str) -> None:
    with pytest.raises(PatternError):
        compile_pattern(pattern)
    with pytest.raises(schemacore.SchemaError) as caught:
        schemacore.compile({"pattern": pattern})
    assert caught.value.location == "/pattern"


def test_the_regex_format_uses_the_same_translation() -> None:
    validator = schemacore.compile({"format": "regex"}, format_assertion=True)
    assert validator.is_valid(r"^\d+$")
    assert not validator.is_valid("(?P<n>a)")
    assert not validator.is_valid("(")


_LITERAL_TEXT = st.text(alphabet="ab-_/ .", max_size=6)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    st.sampled_from(["", "^"]),
    _LITERAL_TEXT,
    st.sampled_from(["", "$"]),
    st.text(alphabet="ab-_/ .x", max_size=10),
)
def test_literal_fast_paths_match_the_regex_engine(
    start: str, body: str, end: str, text: str
) -> None:
    # Plain-string patterns take str methods; escape what the regex would read.
    pattern = start + re.sub(r"([.])", r"\\\1", body) + end
    expected = re.search(pattern, text) is not None and (not end or not text.endswith("\n"))
    guarded = compile_pattern(pattern, timeout=1.0, max_input=1000)
    assert bool(guarded(text)) is expected
    assert guarded.short is not None  # type: ignore[attr-defined]


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.text(alphabet="ab-AB", max_size=8))
def test_optional_groups_take_the_fast_engine_and_agree_with_regex(text: str) -> None:
    # A group made optional by "?" at most doubles the ways to match: up to two of
    # them keep short strings on the standard library's engine, without a timer.
    pattern = "^[a-b]{2}(-[A-B]{2})?$"
    guarded = compile_pattern(pattern, timeout=1.0, max_input=1000)
    assert guarded.short is not None  # type: ignore[attr-defined]
    reference = regex.compile(translate(pattern))
    assert bool(guarded(text)) is (reference.search(text) is not None)


# Patterns whose worst case is not small for short strings: the timer stays armed.
UNBOUNDED_BACKTRACKING = [
    "(a|b){2,}",  # a group with two ways, repeated without bound
    "(?:a|aa)+$",
    "(a*)*b",
    "(a)?" * 24 + "a" * 24,  # 2**24 ways
    "a?" * 24 + "a" * 24,
    "a{0,30}" * 6 + "b",  # 31**6 ways
    r"^(a)\1$",  # back references are never bounded
]


@pytest.mark.parametrize("pattern", UNBOUNDED_BACKTRACKING)
def test_patterns_without_a_small_worst_case_keep_the_timer(pattern: str) -> None:
    guarded = compile_pattern(pattern, timeout=1.0, max_input=1000)
    assert guarded.short is None, pattern  # type: ignore[attr-defined]
    assert guarded.safe_below == 0  # type: ignore[attr-defined]


# Few ways to match: the standard library's engine, untimed, for short strings.
SMALL_WORST_CASE = [
    ("^[a-z]+$", 256),
    ("^[a-z]+_[0-9a-f]{8}$", 256),
    ("(a)?(b)?(c)?", 256),
    ("(ab)*c", 256),  # one way per repetition
    ("^(?:a|b)(?:c|d)[0-9]{2,4}$", 256),
    ("a*a*b", 128),  # about n**3 steps unanchored
    ("^[a-z]+@[a-z]+\\.[a-z]+$", 128),
    ("a{0,30}" * 3 + "b", 128),  # 31**3 ways (4 ms worst, measured)
    ("a*" * 4 + "b", 16),
]


@pytest.mark.parametrize(("pattern", "below"), SMALL_WORST_CASE)
def test_patterns_with_a_small_worst_case_take_the_fast_engine(pattern: str, below: int) -> None:
    guarded = compile_pattern(pattern, timeout=1.0, max_input=1000)
    assert guarded.short is not None, pattern  # type: ignore[attr-defined]
    assert guarded.safe_below == below  # type: ignore[attr-defined]


# -- back references (ECMA-262: a group that has not captured matches empty) ----------


@pytest.mark.parametrize(
    ("pattern", "text", "matches"),
    [
        (r"^(a)?\1b$", "b", True),  # group 1 did not participate
        (r"^(a)?\1b$", "aab", True),
        (r"^(a)?\1b$", "ab", False),  # it did: \1 is "a"
        (r"^(?<n>a)?\k<n>b$", "b", True),
        (r"^(?<n>a)?\k<n>b$", "ab", False),
        (r"^(?:(a)|b)\1$", "b", True),  # the other alternative captured nothing
        (r"^(a\1)$", "a", True),  # inside its own group: not captured yet
        (r"^\1(a)$", "a", True),  # before its group
        (r"^\k<n>(?<n>a)$", "a", True),
        (r"^(?<n>a\k<n>)$", "a", True),
        (r"^(a)\1$", "aa", True),
        (r"^(a)\1$", "a", False),
        (r"(?<=\1(a))b", "aab", True),  # a lookbehind matches right to left
        ("^\\0\u0661$", "\x00\u0661", True),  # \0 then ARABIC-INDIC DIGIT ONE
        ("^\\0\u00b2$", "\x00\u00b2", True),
    ],
)
def test_back_references_follow_ecma262(pattern: str, text: str, matches: bool) -> None:
    assert bool(compile_pattern(pattern)(text)) is matches
    guarded = compile_pattern(pattern, timeout=1.0, max_input=1000)
    assert bool(guarded(text)) is matches


# -- errors: ECMA-262 u-mode syntax, and only PatternError ----------------------------

# \ then a non-ASCII digit is an identity escape of a non-syntax character: an error.
NON_ASCII_DIGIT_ESCAPES = ["\\\u0660", "\\\u00b2", "a\\\u0661", "[\\\u0660]", "\\\uff11"]
U_MODE_ERRORS = [
    r"\-",  # "-" may be escaped only inside a class
    r"\@",
    "\\\u00e9",
    r"\ ",
    r"(?=a)*",  # a lookaround cannot be quantified
    r"(?<!a)+",
    r"\01",
    "a)",
    "(a",
]


@pytest.mark.parametrize("pattern", NON_ASCII_DIGIT_ESCAPES + U_MODE_ERRORS)
def test_u_mode_errors_are_schema_errors(pattern: str) -> None:
    with pytest.raises(PatternError):
        compile_pattern(pattern)
    assert not is_valid_pattern(pattern)
    with pytest.raises(schemacore.SchemaError) as caught:
        schemacore.compile({"pattern": pattern})
    assert caught.value.location == "/pattern"
    with pytest.raises(schemacore.SchemaError):
        schemacore.compile({"patternProperties": {pattern: {}}})
    validator = schemacore.compile({"format": "regex"}, format_assertion=True)
    assert validator.is_valid(pattern) is False


@pytest.mark.parametrize("pattern", [r"[\-]", r"\/", r"[\/]", r"\^\$\\\.\*\+\?\(\)\[\]\{\}\|"])
def test_u_mode_identity_escapes_of_syntax_characters_are_valid(pattern: str) -> None:
    assert is_valid_pattern(pattern)


@pytest.mark.parametrize("pattern", NON_ASCII_DIGIT_ESCAPES)
def test_non_ascii_digit_escapes_are_refused_by_the_tool_boundary(pattern: str) -> None:
    from schemacore.runtime import AdmissionRejected, BoundaryError, ToolCatalog, validate_schema

    schema = {"type": "object", "properties": {"a": {"type": "string", "pattern": pattern}}}
    with pytest.raises(BoundaryError) as caught:
        validate_schema(schema)
    assert caught.value.error_class == "validation"
    tools = [{"name": "t", "description": "d", "inputSchema": schema}]
    with pytest.raises(AdmissionRejected) as rejected:
        ToolCatalog().admit_batch(tools)
    assert [d.error_class for d in rejected.value.rejected] == ["validation"]


def test_non_ascii_digit_escape_is_a_cli_schema_error(
    tmp_path: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    import json
    from pathlib import Path

    from schemacore.cli import main

    folder = Path(str(tmp_path))
    (folder / "s.json").write_text(json.dumps({"pattern": "\\\u0660"}), encoding="utf-8")
    (folder / "i.json").write_text('"x"', encoding="utf-8")
    assert main(["validate", str(folder / "s.json"), str(folder / "i.json")]) == 2
    assert capsys.readouterr().err.startswith("error: validation: ")


# -- Unicode property escapes and group names, as ECMA-262 (not regex) spells them ----


@pytest.mark.parametrize(
    ("pattern", "text", "matches"),
    [
        (r"^\p{IDC}$", "a", True),  # ID_Continue: regex alone reads IDC as a block
        (r"^\p{ID_Continue}$", "_", True),
        (r"^\p{space}$", "\u00a0", True),  # White_Space
        (r"^\p{gc=LC}$", "a", True),
        (r"^\p{sc=Latn}+$", "abc", True),
        (r"^\p{Script_Extensions=Greek}$", "\u03b1", True),
        (r"^\P{Any}$", "a", False),
        (r"^(?<$a>x)\k<$a>$", "xx", True),  # "$" is an identifier character there
        (r"^(?<a$1>x)\k<a$1>$", "xy", False),
        (r"(?<=\k<n>(?<n>a))b", "aab", True),
    ],
)
def test_property_escapes_and_names_follow_ecma262(pattern: str, text: str, matches: bool) -> None:
    assert bool(compile_pattern(pattern)(text)) is matches


@pytest.mark.parametrize(
    "pattern",
    [
        r"\p{lu}",  # names are case-sensitive in ECMA-262
        r"\p{letter}",
        r"\p{Greek}",  # a script needs Script= or sc=
        r"\p{IsGreek}",
        r"\p{Block=Greek}",
        r"\p{Word}",
        r"\p{sc=latin}",
        r"\p{sc=Hrkt}",  # a script value no character has
        r"\p{gc}",
        r"(?<1a>x)",
        r"(?<a-b>x)",
    ],
)
def test_property_names_outside_ecma262_are_refused(pattern: str) -> None:
    with pytest.raises(PatternError):
        compile_pattern(pattern)
