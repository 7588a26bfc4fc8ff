"""Hazard: regular expressions that backtrack catastrophically, and huge pattern inputs.

A match that runs longer than ``Limits.regex_timeout`` raises ExecutionFailure
(``limit == "regex_timeout"``) shortly after the timeout, from every validation path
and from inside any branch; a string longer than ``Limits.max_pattern_input`` is
refused before any matching (``limit == "max_pattern_input"``).
"""

from __future__ import annotations

from contextlib import suppress
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import schemacore
from schemacore import ExecutionFailure, Limits, SchemaCoreError

from ..properties.strategies import ambiguous_patterns
from .support import (
    CALLS,
    PATHS,
    QUICK,
    Call,
    call_is_valid,
    call_is_valid_warm,
    call_iter_errors,
    call_validate,
    expect_failure,
    where,
    within,
)

DEFAULTS = Limits()

# The `regex` package answers this textbook case quickly by itself (correctly: no match).
NESTED_PLUS = "^(a+)+$"
NESTED_PLUS_INPUT = "a" * 50 + "!"
# This one really backtracks exponentially there.
ALTERNATION = "^(a|aa)+$"
ALTERNATION_INPUT = "a" * 60 + "!"

# Slack on top of the regex timeout for everything around the match.
SLACK = 1.5
FAST = Limits(regex_timeout=0.05)


@pytest.mark.parametrize("call", CALLS)
def test_nested_quantifier_ends_within_the_regex_timeout(call: Call) -> None:
    validator = schemacore.compile({"pattern": NESTED_PLUS})
    with within(DEFAULTS.regex_timeout + SLACK):
        try:
            answer = call(validator, NESTED_PLUS_INPUT)
        except ExecutionFailure as exc:
            assert exc.limit == "regex_timeout"
            return
    # Answered: then it must be the right answer, "does not match".
    if call in (call_is_valid, call_is_valid_warm):
        assert answer is False
    elif call is call_iter_errors:
        assert [e.keyword for e in answer] == ["pattern"]
    else:
        assert isinstance(answer, schemacore.ValidationError)


@pytest.mark.parametrize("call", CALLS)
def test_catastrophic_backtracking_is_an_execution_failure(call: Call) -> None:
    validator = schemacore.compile({"pattern": ALTERNATION})
    failure = expect_failure(
        call,
        validator,
        ALTERNATION_INPUT,
        limit="regex_timeout",
        bound=DEFAULTS.regex_timeout + SLACK,
    )
    assert failure.value == DEFAULTS.regex_timeout
    assert ALTERNATION in failure.message
    assert "regex_timeout" in failure.message


@pytest.mark.parametrize("call", CALLS)
def test_a_lower_regex_timeout_is_honoured(call: Call) -> None:
    validator = schemacore.compile({"pattern": ALTERNATION}, limits=FAST)
    failure = expect_failure(
        call, validator, ALTERNATION_INPUT, limit="regex_timeout", bound=FAST.regex_timeout + 1.0
    )
    assert failure.value == FAST.regex_timeout


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize(
    ("schema", "instance"),
    [
        pytest.param(
            {"patternProperties": {ALTERNATION: {}}}, {ALTERNATION_INPUT: 1}, id="patternProperties"
        ),
        pytest.param(
            {"propertyNames": {"pattern": ALTERNATION}}, {ALTERNATION_INPUT: 1}, id="propertyNames"
        ),
        pytest.param({"items": {"pattern": ALTERNATION}}, ["aa", ALTERNATION_INPUT], id="items"),
        pytest.param(
            {"properties": {"k": {"pattern": ALTERNATION}}},
            {"k": ALTERNATION_INPUT},
            id="properties",
        ),
        pytest.param(
            {"additionalProperties": False, "patternProperties": {ALTERNATION: True}},
            {ALTERNATION_INPUT: 1},
            id="additionalProperties",
        ),
        pytest.param(
            {"patternProperties": {ALTERNATION: True}, "unevaluatedProperties": False},
            {ALTERNATION_INPUT: 1},
            id="unevaluatedProperties",
        ),
    ],
)
def test_catastrophic_backtracking_wherever_patterns_run(
    schema: Any, instance: Any, call: Call
) -> None:
    validator = schemacore.compile(schema, limits=FAST)
    expect_failure(call, validator, instance, limit="regex_timeout", bound=QUICK)


BRANCHES: list[Any] = [
    pytest.param(lambda s: {"anyOf": [s, {"type": "integer"}]}, id="anyOf-first"),
    pytest.param(lambda s: {"anyOf": [{"type": "integer"}, s]}, id="anyOf-last"),
    pytest.param(lambda s: {"oneOf": [{"type": "string"}, s]}, id="oneOf"),
    pytest.param(lambda s: {"allOf": [{"type": "string"}, s]}, id="allOf"),
    pytest.param(lambda s: {"not": s}, id="not"),
    pytest.param(lambda s: {"not": {"not": s}}, id="not-not"),
    pytest.param(lambda s: {"if": s, "then": {"minLength": 1000}}, id="if"),
    pytest.param(lambda s: {"if": {"type": "string"}, "then": s}, id="then"),
    pytest.param(lambda s: {"if": {"type": "integer"}, "else": s}, id="else"),
    pytest.param(lambda s: {"anyOf": [s, False], "unevaluatedProperties": False}, id="tracking"),
]


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("wrap", BRANCHES)
@pytest.mark.parametrize(
    ("hazard", "limits", "limit"),
    [
        pytest.param({"pattern": ALTERNATION}, FAST, "regex_timeout", id="timeout"),
        pytest.param(
            {"pattern": "^a"}, Limits(max_pattern_input=10), "max_pattern_input", id="input"
        ),
    ],
)
def test_pattern_failure_in_a_branch_propagates(
    hazard: Any, limits: Limits, limit: str, wrap: Any, call: Call
) -> None:
    validator = schemacore.compile(wrap(hazard), limits=limits)
    expect_failure(call, validator, ALTERNATION_INPUT, limit=limit, bound=QUICK)


def test_risky_pattern_on_benign_input_answers_normally() -> None:
    validator = schemacore.compile({"pattern": ALTERNATION})
    with within(QUICK):
        assert validator.is_valid("aaaa")
        assert not validator.is_valid("aaa!")
        assert validator.is_valid(12)  # pattern applies to strings only
        (error,) = validator.iter_errors("aaa!")
    assert error.keyword == "pattern"


def test_validator_is_usable_after_a_timeout() -> None:
    validator = schemacore.compile({"pattern": ALTERNATION}, limits=FAST)
    for _ in range(3):
        with pytest.raises(ExecutionFailure):
            validator.is_valid(ALTERNATION_INPUT)
        assert validator.is_valid("aa")
        assert not validator.is_valid("b")


@pytest.mark.parametrize(
    ("hazard", "limits", "instance"),
    [
        pytest.param({"pattern": ALTERNATION}, FAST, ["a", ALTERNATION_INPUT], id="timeout"),
        pytest.param({"pattern": "a"}, Limits(max_pattern_input=10), ["a", "a" * 11], id="input"),
    ],
)
def test_pattern_failure_names_its_location(hazard: Any, limits: Limits, instance: Any) -> None:
    validator = schemacore.compile({"items": hazard}, limits=limits)
    for call in PATHS:
        failure = expect_failure(call, validator, instance)
        assert where(failure) == "/1" or "items/pattern" in where(failure), where(failure)


# -- max_pattern_input ----------------------------------------------------------------


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize(
    ("schema", "wrap"),
    [
        pytest.param({"pattern": "^b"}, lambda s: s, id="pattern"),
        pytest.param(
            {"patternProperties": {"^b": {}}, "additionalProperties": False},
            lambda s: {s: 1},
            id="patternProperties",
        ),
        pytest.param({"propertyNames": {"pattern": "^b"}}, lambda s: {s: 1}, id="propertyNames"),
        pytest.param({"items": {"pattern": "^b"}}, lambda s: ["b", s], id="items"),
    ],
)
def test_max_pattern_input_is_enforced(schema: Any, wrap: Any, call: Call) -> None:
    limits = Limits(max_pattern_input=10)
    validator = schemacore.compile(schema, limits=limits)
    # At the limit: matched normally.
    assert validator.is_valid(wrap("b" * 10))
    assert not validator.is_valid(wrap("a" * 10))
    failure = expect_failure(call, validator, wrap("b" * 11), limit="max_pattern_input")
    assert failure.value == 10
    assert "max_pattern_input" in failure.message


def test_default_max_pattern_input() -> None:
    validator = schemacore.compile({"pattern": "x$"})
    limit = DEFAULTS.max_pattern_input
    with within(QUICK):
        assert not validator.is_valid("a" * limit)
        assert validator.is_valid("a" * (limit - 1) + "x")
    for call in (*PATHS, call_validate):
        failure = expect_failure(call, validator, "a" * (limit + 1), limit="max_pattern_input")
        assert failure.value == limit


def test_long_strings_are_fine_where_no_pattern_runs() -> None:
    validator = schemacore.compile(
        {"type": "string", "minLength": 5, "maxLength": 10**7},
        limits=Limits(max_pattern_input=10),
    )
    assert validator.is_valid("a" * 1_000_000)


# -- hostile patterns in the schema ---------------------------------------------------


@pytest.mark.parametrize(
    "pattern",
    [
        pytest.param("(" * 5_000 + ")" * 5_000, id="deep-groups"),
        pytest.param("(?:" * 3_000 + ")" * 3_000, id="deep-non-capturing"),
        pytest.param("(" * 100_000, id="unbalanced"),
        pytest.param("[" * 10_000, id="brackets"),
        pytest.param("\\" * 9_999, id="backslashes"),
        pytest.param("((a*)*)*$", id="nested-stars"),
    ],
)
@pytest.mark.parametrize(
    "limits",
    [
        pytest.param(FAST, id="default-length"),
        pytest.param(Limits(regex_timeout=0.05, max_pattern_length=200_000), id="long-allowed"),
    ],
)
def test_hostile_patterns_compile_or_fail_closed(pattern: str, limits: Limits) -> None:
    with within(QUICK):
        try:
            validator = schemacore.compile({"pattern": pattern}, limits=limits)
        except SchemaCoreError as exc:
            assert exc.location == "/pattern"
            if isinstance(exc, ExecutionFailure):
                assert exc.limit == "max_pattern_length"
                assert len(pattern) > limits.max_pattern_length
            else:
                assert isinstance(exc, schemacore.SchemaError), exc
            return
    with within(QUICK):
        try:
            validator.is_valid("a" * 40 + "!")
        except ExecutionFailure as exc:
            assert exc.limit == "regex_timeout"


# -- the untimed fast path: only for patterns whose worst case is provably small -------

# Each took seconds (the first 20 s or more) on the standard library's engine, which
# has no timeout, before patterns were admitted to it by a bound on their backtracking.
UNTIMED_HANGS = [
    pytest.param("a{0,30}" * 6 + "b", "a" * 100, id="six-bounded-ranges"),
    pytest.param("a?" * 26 + "a" * 26, "a" * 25 + "!", id="optional-atoms"),
    pytest.param("^" + "(?:a|aa)" * 40 + "$", "a" * 60 + "!", id="alternations-in-sequence"),
]


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize(("pattern", "instance"), UNTIMED_HANGS)
def test_ambiguous_patterns_are_timed_even_on_short_strings(
    pattern: str, instance: str, call: Call
) -> None:
    validator = schemacore.compile({"pattern": pattern}, limits=FAST)
    with within(QUICK):
        try:
            answer = call(validator, instance)
        except ExecutionFailure as exc:
            assert exc.limit == "regex_timeout"
            return
    assert answer in (False, None) or isinstance(answer, (list, schemacore.ValidationError))


# -- max_pattern_length -------------------------------------------------------------


@pytest.mark.parametrize(
    ("schema", "where"),
    [
        pytest.param(lambda p: {"pattern": p}, "/pattern", id="pattern"),
        pytest.param(
            lambda p: {"properties": {"a": {"pattern": p}}},
            "/properties/a/pattern",
            id="nested",
        ),
        pytest.param(
            lambda p: {"patternProperties": {p: {}}}, "/patternProperties/", id="patternProperties"
        ),
    ],
)
@pytest.mark.parametrize(
    "pattern",
    [
        pytest.param("a" * 70_000, id="long"),
        pytest.param("\\S" * 35_000, id="long-classes"),
        pytest.param("a{99999999}", id="huge-count"),  # the regex package would unroll it
        pytest.param("(?:(?:a{100}){100}){100}", id="nested-counts"),
    ],
)
def test_patterns_longer_than_max_pattern_length_fail_closed(
    pattern: str, schema: Any, where: str
) -> None:
    with within(QUICK), pytest.raises(ExecutionFailure) as caught:
        schemacore.compile(schema(pattern))
    failure = caught.value
    assert failure.limit == "max_pattern_length"
    assert failure.value == DEFAULTS.max_pattern_length
    assert failure.location.startswith(where), failure.location
    assert "max_pattern_length" in failure.message


def test_max_pattern_length_counts_least_repeats_and_is_configurable() -> None:
    limit = DEFAULTS.max_pattern_length
    assert schemacore.compile({"pattern": "a" * limit}).is_valid("a" * limit)
    assert schemacore.compile({"pattern": f"a{{{limit}}}"}).is_valid("a" * limit)
    assert schemacore.compile({"pattern": "^a{0,99999999}$"}).is_valid("a" * 5)
    with pytest.raises(ExecutionFailure):
        schemacore.compile({"pattern": "a" * (limit + 1)})
    with pytest.raises(ExecutionFailure):
        schemacore.compile({"pattern": f"a{{{limit + 1}}}"})
    wider = Limits(max_pattern_length=limit * 4)
    assert schemacore.compile({"pattern": "a" * (limit + 1)}, limits=wider).is_valid(
        "a" * (limit + 1)
    )
    # A pattern cached under the wider limit is still refused under the default one.
    with pytest.raises(ExecutionFailure):
        schemacore.compile({"pattern": "a" * (limit + 1)})
    with pytest.raises(ExecutionFailure):
        schemacore.compile({"pattern": "ab"}, limits=Limits(max_pattern_length=1))


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize(
    "instance",
    [
        pytest.param("a" * 100_000, id="long"),
        pytest.param("(a)" * 33_000, id="long-groups"),
        pytest.param("a{99999999}", id="huge-count"),
    ],
)
def test_regex_format_on_long_instances_fails_closed(instance: str, call: Call) -> None:
    # Instance strings are untrusted: the tighter bound, whatever schemas may hold.
    validator = schemacore.compile({"format": "regex"}, format_assertion=True)
    failure = expect_failure(call, validator, instance, limit="max_regex_format_length")
    assert failure.value == DEFAULTS.max_regex_format_length
    assert DEFAULTS.max_regex_format_length < DEFAULTS.max_pattern_length


def test_regex_format_within_max_regex_format_length_answers() -> None:
    validator = schemacore.compile({"format": "regex"}, format_assertion=True)
    limit = DEFAULTS.max_regex_format_length
    with within(QUICK):
        assert validator.is_valid("\\S" * (limit // 2))
        assert validator.is_valid("." * limit)
        assert not validator.is_valid("(" * limit)
    wider = schemacore.compile(
        {"format": "regex"}, format_assertion=True, limits=Limits(max_regex_format_length=200_000)
    )
    assert wider.is_valid("a" * 100_000)
    # The schema-side bound does not widen it.
    schema_side = schemacore.compile(
        {"format": "regex"}, format_assertion=True, limits=Limits(max_pattern_length=200_000)
    )
    with pytest.raises(ExecutionFailure):
        schema_side.is_valid("a" * (limit + 1))


def test_a_long_alternation_of_literal_words_compiles_under_the_default_limits() -> None:
    # Real schemas hold such patterns (an enumeration of names written as a pattern,
    # 46,277 characters in one published schema): the default admits them, and the
    # translation and compile are linear (benchmarks/pattern_alternation.py).
    words = [f"Name{index:05d}" for index in range(5_500)]
    pattern = "^(?:" + "|".join(words) + ")$"
    assert 50_000 < len(pattern) <= DEFAULTS.max_pattern_length
    validator = schemacore.compile({"pattern": pattern})
    assert validator.is_valid("Name05499") and validator.is_valid("Name00000")
    assert not validator.is_valid("Name05500") and not validator.is_valid("Name0000")


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(ambiguous_patterns(), st.sampled_from([8, 30, 100, 300]))
def test_ambiguous_patterns_answer_or_time_out(pattern: str, length: int) -> None:
    # Whatever engine runs the match, it ends within the timeout (plus slack): the
    # untimed fast path must never take a pattern that can backtrack for long.
    validator = schemacore.compile({"pattern": pattern}, limits=FAST)
    for text in ("a" * length + "!", "a" * length):
        with within(QUICK / 2, repr((pattern, len(text)))):
            try:
                validator.is_valid(text)
            except ExecutionFailure as exc:
                assert exc.limit == "regex_timeout"


@pytest.mark.parametrize(
    "pattern",
    [
        pytest.param(
            "".join(f"(?<n{i}>a)" for i in range(20_000))
            + "".join(f"\\k<n{i}>" for i in range(0, 20_000, 7)),
            id="named-groups-and-references",
        ),
        pytest.param("(" * 2_000 + "\\1" * 50_000 + ")" * 2_000, id="references-in-deep-groups"),
        pytest.param("\\u{" * 30_000 + "}", id="open-escapes"),
        pytest.param("a{" + "9" * 50_000 + "}", id="long-count"),  # int() refuses 4,300 digits
    ],
)
def test_translation_is_linear_in_the_pattern(pattern: str) -> None:
    # Translation alone, as if max_pattern_length allowed these: no step may look
    # back over the groups seen so far (20,000 named groups took 6.9 s that way).
    from schemacore.ecma262 import PatternError, _Translator

    with within(QUICK), suppress(PatternError):
        _Translator(pattern, 10**9).translate()
