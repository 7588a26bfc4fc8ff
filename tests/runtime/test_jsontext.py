"""parse_tool_args: strict JSON text in, an arguments object out."""

from __future__ import annotations

from typing import Any

import pytest

from schemacore.runtime import BoundaryError, BoundaryLimits, parse_tool_args


def refused(text: Any, **kwargs: Any) -> BoundaryError:
    with pytest.raises(BoundaryError) as info:
        parse_tool_args(text, **kwargs)
    return info.value


def test_parses_an_object() -> None:
    assert parse_tool_args('{"a": [1, 2.5, "x", true, null], "b": {}}') == {
        "a": [1, 2.5, "x", True, None],
        "b": {},
    }
    assert parse_tool_args(b' \n{"a": "\\u00e9"}\n ') == {"a": "é"}
    assert parse_tool_args('{"pair": "\\ud83d\\ude00"}') == {"pair": "\U0001f600"}


@pytest.mark.parametrize(
    ("text", "code", "line", "column"),
    [
        ('{"a": 1,}', "arguments-json-invalid", 1, 9),
        ('{"a" 1}', "arguments-json-invalid", 1, 6),
        ("{'a': 1}", "arguments-json-invalid", 1, 2),
        ('{"a": 1}\n{"b": 2}', "arguments-json-invalid", 2, 1),
        ('{"a": "x\\qy"}', "arguments-json-invalid", 1, 9),
        ('{"a": "\x01"}', "arguments-json-invalid", 1, 8),
        ("", "arguments-json-invalid", 1, 1),
        ('{"a": 1, "a": 2}', "arguments-json-duplicate-key", 1, 10),
        ('{"o": {"k": 1,\n "k": 2}}', "arguments-json-duplicate-key", 2, 2),
        ('{"a": NaN}', "arguments-json-number-invalid", 1, 7),
        ('{"a": [1, -Infinity]}', "arguments-json-number-invalid", 1, 11),
        ('{"a": 1e400}', "arguments-json-number-invalid", 1, 7),
    ],
)
def test_strictness_is_located_by_line_and_column(
    text: str, code: str, line: int, column: int
) -> None:
    error = refused(text)
    assert (error.error_class, error.code, error.line, error.column) == (
        "validation",
        code,
        line,
        column,
    )
    assert f"line {line}, column {column}" in error.message


def test_duplicate_keys_in_different_objects_are_fine() -> None:
    assert parse_tool_args('{"a": {"k": 1}, "b": {"k": 2}, "k": [{"k": 0}]}')["k"] == [{"k": 0}]


def test_errors_never_quote_the_text() -> None:
    secret = "sk-live-0123456789abcdef"
    for text in (
        f'{{"token": "{secret}", }}',
        f'{{"token": "{secret}\\x"}}',
        f'{{"{secret}": 1, "{secret}": 2}}',
        f'{{"token": "{secret}"',
        f"{secret}",
    ):
        error = refused(text)
        assert secret not in str(error.to_dict()), text
        assert "sk-live" not in error.message


def test_root_must_be_an_object() -> None:
    for text in ("[]", '"x"', "1", "null", "true"):
        error = refused(text)
        assert (error.error_class, error.code, error.path) == (
            "validation",
            "arguments-not-object",
            "",
        )


def test_unpaired_surrogates_are_refused() -> None:
    error = refused('{"a": "\\ud800"}')
    assert (error.code, error.path) == ("arguments-json-invalid", "/*")


@pytest.mark.parametrize(
    "text",
    [
        '{"a": "\\ud800"}',  # an escape
        '{"a": "x\\uDFFFy"}',
        '{"a": ["\\ud83d"]}',  # the first half of a pair, alone
        '{"\\udc00": 1}',  # in a key
        '{"a": "\ud800"}',  # the text's own code point
    ],
)
def test_every_spelling_of_an_unpaired_surrogate_is_refused(text: str) -> None:
    assert refused(text).code == "arguments-json-invalid"


def test_paired_surrogates_and_escaped_backslashes_are_accepted() -> None:
    assert parse_tool_args('{"a": "\\ud83d\\ude00", "b": "\\\\ud800"}') == {
        "a": "\U0001f600",
        "b": "\\ud800",
    }


def test_not_text() -> None:
    assert refused({"a": 1}).code == "arguments-json-invalid"
    assert refused(b'{"a": "\xff"}').code == "arguments-json-invalid"


def test_ten_thousand_deep_text_is_refused_before_parsing() -> None:
    error = refused("[" * 10_000 + "]" * 10_000)
    assert (error.error_class, error.code, error.limit) == (
        "execution_failure",
        "arguments-too-deep",
        "max_depth",
    )
    error = refused('{"a": ' + "[" * 10_000)  # not even well formed
    assert error.code == "arguments-too-deep"
    # Brackets inside strings do not count.
    assert parse_tool_args('{"a": "' + "[" * 10_000 + '"}')["a"] == "[" * 10_000


def test_size_bounds() -> None:
    limits = BoundaryLimits(max_text_length=20, max_argument_nodes=3, max_string_length=5)
    error = refused('{"a": "' + "x" * 30 + '"}', limits=limits)
    assert (error.error_class, error.code, error.limit) == (
        "execution_failure",
        "arguments-too-large",
        "max_text_length",
    )
    assert refused('{"a": [1, 2, 3]}', limits=limits).code == "arguments-too-large"
    assert refused('{"a": "123456"}', limits=limits).code == "arguments-string-too-long"


def test_huge_integer_is_refused() -> None:
    assert refused('{"a": ' + "9" * 5000 + "}").code == "arguments-json-number-invalid"


def test_order_of_checks() -> None:
    limits = BoundaryLimits(max_text_length=40, max_argument_depth=2)
    # Length first, even for text that is also too deep and malformed.
    assert refused("[[[[[[" + " " * 40, limits=limits).code == "arguments-too-large"
    # Depth before syntax.
    assert refused("[[[,", limits=limits).code == "arguments-too-deep"
    # Syntax before strictness: the trailing comma comes first in the text, but the
    # duplicate key would be found later.
    assert refused('{"a": 1, "a": 2,}', limits=limits).code == "arguments-json-invalid"
    # Strictness before the object root.
    assert refused("[NaN]", limits=limits).code == "arguments-json-number-invalid"
