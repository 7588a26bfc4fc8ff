"""Fixed-length ASCII run patterns are answered in line by generated code: the answer
must be the regex engine's for every string."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import schemacore
from schemacore.ecma262 import compile_pattern
from schemacore.fixedpattern import fixed_runs

PATTERNS = [
    "^[0-9]{5}$",
    "^[A-Z]{2}$",
    "^[a-z]{3}$",
    "^[0-9]{4}-[0-9]{2}-[0-9]{2}$",
    "^\\d{3}\\.\\d$",
    "^[A-Z][a-z]{2}[0-9]$",
    "^[A-Za-z0-9]{4}$",
    "^x[a-zA-Z]{2}/y$",
]
NOT_FIXED = ["^[0-9]+$", "^[0-9]{2,4}$", "[0-9]{5}", "^a|b$", "^[^a]{2}$", "^\\w{2}$", "^é{2}$"]

# Characters near the classes' edges, other scripts' digits and letters, controls.
ALPHABET = st.sampled_from([*list("09aAzZ-./xy@[`{ \n"), "٣", "Ⅻ", "ß", "İ", "ǅ", "é"])


def _oracle_and_generated(pattern: str) -> tuple[Any, schemacore.Validator]:
    validator = schemacore.compile({"type": "string", "pattern": pattern})
    validator._promote()
    return compile_pattern(pattern), validator


@pytest.mark.parametrize("pattern", PATTERNS)
def test_the_shape_is_recognised(pattern: str) -> None:
    assert fixed_runs(pattern) is not None


@pytest.mark.parametrize("pattern", NOT_FIXED)
def test_other_shapes_are_left_to_the_regex_engine(pattern: str) -> None:
    assert fixed_runs(pattern) is None


@pytest.mark.parametrize("pattern", PATTERNS)
@given(text=st.lists(ALPHABET, max_size=12).map("".join))
def test_generated_code_answers_as_the_regex_engine(pattern: str, text: str) -> None:
    search, validator = _oracle_and_generated(pattern)
    assert validator.is_valid(text) is (search(text) is not None)


@pytest.mark.parametrize("pattern", PATTERNS)
def test_matching_strings_of_the_right_shape(pattern: str) -> None:
    samples = {
        "^[0-9]{5}$": ("12345", "1234", "123456", "1234٣"),
        "^[A-Z]{2}$": ("DE", "De", "D1", "İD"),
        "^[a-z]{3}$": ("abc", "abC", "ab", "ßab"),
        "^[0-9]{4}-[0-9]{2}-[0-9]{2}$": ("2025-01-31", "2025/01/31", "2025-01-3", "2025-01-31\n"),
        "^\\d{3}\\.\\d$": ("123.4", "123x4", "12.34"),
        "^[A-Z][a-z]{2}[0-9]$": ("Abc1", "ABc1", "Abc"),
        "^[A-Za-z0-9]{4}$": ("aZ09", "aZ0-", "aZ0"),
        "^x[a-zA-Z]{2}/y$": ("xAb/y", "xA1/y", "yAb/y"),
    }[pattern]
    search, validator = _oracle_and_generated(pattern)
    answers = [validator.is_valid(text) for text in samples]
    assert answers == [search(text) is not None for text in samples]
    assert answers[0] is True and not any(answers[1:])


def test_strings_beyond_max_pattern_input_are_still_refused() -> None:
    limits = schemacore.Limits(max_pattern_input=3)
    validator = schemacore.compile({"pattern": "^[0-9]{2}$"}, limits=limits)
    validator._promote()
    assert validator.is_valid("12") and not validator.is_valid("123")
    with pytest.raises(schemacore.ExecutionFailure) as caught:
        validator.is_valid("1234")
    assert caught.value.limit == "max_pattern_input"
