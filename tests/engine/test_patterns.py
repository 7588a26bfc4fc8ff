"""pattern / patternProperties follow ECMA-262, not Python's regular expression dialect."""

from __future__ import annotations

import re

import pytest

import schemacore
from schemacore import SchemaError


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        ("^a$", "a\n", False),  # Python's $ also matches before a final newline
        ("^a$", "a", True),
        ("^[$]+$", "$$", True),  # a "$" inside a class is a plain character
        ("^\\d+$", "\u0663", False),  # ARABIC-INDIC DIGIT THREE is no ECMA digit
        ("^\\d+$", "0129", True),
        ("^\\w+$", "\u00e9", False),  # \w is ASCII only
        ("^\\W$", "\u00e9", True),
        ("^\\s$", "\ufeff", True),  # ECMA WhiteSpace includes the BOM...
        ("^\\s$", "\u1680", True),
        ("^\\s$", "\u3000", True),
        ("^\\s$", "\u2028", True),
        ("^\\s$", "\u0085", False),  # ...but not NEL or the information separators
        ("^\\s$", "\u001c", False),
        ("^\\S$", "\u0085", True),
        ("^.$", "\n", False),
        ("^.$", "\u2028", False),
        ("^.$", "\N{GRINNING FACE}", True),  # one code point, not two UTF-16 units
        ("b", "abc", True),  # search, not match: patterns are not anchored
        ("^(?<x>a)\\k<x>$", "aa", True),
        ("^\\p{L}+$", "\u00e9t\u00e9", True),
        ("^\\p{Lu}$", "a", False),
        ("^\\cJ$", "\n", True),
        ("^\\u00e9$", "\u00e9", True),
        ("^\\u{1F600}$", "\N{GRINNING FACE}", True),
        ("^[^]$", "\n", True),  # [^] matches anything
        ("^[]$", "a", False),  # [] matches nothing
        ("^\\B$", "", True),  # an empty string has no word boundary (re never finds one)
        ("^(a)?\\B$", "", True),
        ("^\\b$", "", False),
    ],
)
def test_ecma_262_semantics(pattern: str, text: str, expected: bool) -> None:
    assert schemacore.compile({"pattern": pattern}).is_valid(text) is expected


def test_pattern_properties_use_the_same_semantics() -> None:
    validator = schemacore.compile({"patternProperties": {"^a$": {"type": "integer"}}})
    assert validator.is_valid({"a\n": "not checked: the name does not match"})
    assert not validator.is_valid({"a": "checked"})


@pytest.mark.parametrize(
    "pattern",
    ["(?P<x>a)", "(?#comment)", "(?i)a", "a\\Z", "\\A", "a++", "(?>a)", "\\p{NoSuchProperty}",
     "[z-a]", "a**"],
)  # fmt: skip
def test_python_only_or_invalid_syntax_is_a_schema_error(pattern: str) -> None:
    with pytest.raises(SchemaError) as caught:
        schemacore.compile({"properties": {"p": {"pattern": pattern}}})
    assert caught.value.location == "/properties/p/pattern"


@pytest.mark.parametrize(
    "pattern",
    [
        "a(",
        "\\d(",
        "\\d\\d)",
    ],
)
def test_pattern_errors_describe_the_schema_pattern(pattern: str) -> None:
    # jsonschema-rs once reported the translated regex instead of the user's pattern.
    with pytest.raises(SchemaError) as caught:
        schemacore.compile({"pattern": pattern})
    message = caught.value.message
    assert repr(pattern) in message or pattern in message
    assert "[0-9]" not in message and "\\Z" not in message
    for position in re.findall(r"position (\d+)", message):
        assert int(position) <= len(pattern)  # the end of input is a position too
