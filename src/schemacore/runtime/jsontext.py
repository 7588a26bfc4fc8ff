"""Strict parsing of the JSON text in which models send tool arguments.

Strict means: RFC 8259 JSON only (no ``NaN``/``Infinity``, no numbers that overflow
a double, no unpaired surrogates), duplicate object keys refused rather than
silently collapsed, the same depth and size bounds as the argument boundary, and a
JSON object at the root. A failure says where the text breaks (line, column,
character offset) without quoting it.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from .bounds import DEFAULT_LIMITS, BoundaryLimits, check_argument_shape
from .errors import EXECUTION_FAILURE, BoundaryError
from .jsonvalues import json_type

__all__ = ["parse_tool_args"]


class _Refused(Exception):
    """Raised from a decoder hook: the text is JSON but not strict JSON."""


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        raise _Refused
    return result


def _constant(token: str) -> Any:
    raise _Refused


def _float(token: str) -> float:
    value = float(token)
    if not math.isfinite(value):
        raise _Refused
    return value


_DECODER = json.JSONDecoder(
    object_pairs_hook=_pairs, parse_constant=_constant, parse_float=_float, strict=True
)

# Strings and brackets: enough to measure nesting before the recursive decoder runs.
_NESTING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')

# What the text of an unpaired surrogate needs (paired ones match too: they take
# the walk that tells them apart).
_MAY_HOLD_SURROGATES = re.compile(r"[\ud800-\udfff]|\\u[dD][89a-fA-F]")

# Every token, for the rare second pass that locates a strictness violation.
_TOKEN = re.compile(
    r'"[^"\\]*(?:\\.[^"\\]*)*"'
    r"|-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"
    r"|NaN|-?Infinity|true|false|null|[\[\]{}:,]"
)

# Messages of json.JSONDecodeError, by prefix, reworded so no text is echoed
# (the decoder quotes an invalid escape, for one).
_SYNTAX = (
    ("Expecting value", "a value was expected"),
    ("Expecting property name", "a property name in double quotes was expected"),
    ("Expecting ':'", "':' was expected"),
    ("Expecting ','", "',' was expected"),
    ("Unterminated string", "a string is not terminated"),
    ("Invalid control character", "a string holds an unescaped control character"),
    ("Invalid \\escape", "a string holds an invalid escape"),
    ("Invalid \\u", "a string holds an invalid \\u escape"),
    ("Extra data", "there is text after the JSON value"),
)


def _where(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column


def _error(code: str, what: str, text: str, offset: int) -> BoundaryError:
    line, column = _where(text, offset)
    return BoundaryError(
        code,
        f"the argument text is not strict JSON: {what} at line {line}, column {column} "
        f"(character {offset + 1})",
        line=line,
        column=column,
    )


def _locate_violation(text: str) -> BoundaryError:
    """Find the first duplicate key or non-finite number, in text order."""
    frames: list[set[str] | None] = []
    expect_key = False
    for match in _TOKEN.finditer(text):
        token = match.group()
        first = token[0]
        if first == "{":
            frames.append(set())
            expect_key = True
        elif first == "[":
            frames.append(None)
            expect_key = False
        elif first in "]}":
            if frames:
                frames.pop()
            expect_key = False
        elif first == ",":
            expect_key = bool(frames) and frames[-1] is not None
        elif first == ":":
            expect_key = False
        elif first == '"':
            keys = frames[-1] if frames else None
            if expect_key and keys is not None:
                key = json.loads(token)
                if key in keys:
                    return _error(
                        "arguments-json-duplicate-key",
                        "an object repeats a property name",
                        text,
                        match.start(),
                    )
                keys.add(key)
                expect_key = False
        elif token in ("NaN", "Infinity", "-Infinity") or (
            first in "-0123456789" and not math.isfinite(float(token))
        ):
            return _error(
                "arguments-json-number-invalid",
                "a number is NaN, Infinity or outside the range of a double",
                text,
                match.start(),
            )
    return BoundaryError(  # pragma: no cover - the first pass found a violation
        "arguments-json-invalid", "the argument text is not strict JSON"
    )


def _check_nesting(text: str, limits: BoundaryLimits) -> None:
    depth = 0
    limit = limits.max_argument_depth
    for match in _NESTING.finditer(text):
        first = match.group()[0]
        if first in "[{":
            depth += 1
            if depth > limit:
                line, column = _where(text, match.start())
                raise BoundaryError(
                    "arguments-too-deep",
                    f"the arguments are nested deeper than {limit} levels "
                    f"(at line {line}, column {column})",
                    error_class=EXECUTION_FAILURE,
                    limit="max_depth",
                    line=line,
                    column=column,
                )
        elif first in "]}":
            depth -= 1


def parse_tool_args(text: str | bytes, *, limits: BoundaryLimits | None = None) -> dict[str, Any]:
    """Parse the JSON text of a tool call's arguments, strictly, into an object.

    Checks, in order: the text is a ``str`` (or UTF-8 ``bytes``) within
    ``max_text_length``; its nesting is within ``max_argument_depth`` (measured
    before decoding, so deep text never reaches a recursive parser); it is RFC 8259
    JSON; no NaN/Infinity or overflowing number; no repeated key; the values are
    within the argument bounds and hold no unpaired surrogate; the root is an object.

    Raises:
        BoundaryError: ``validation`` (``arguments-json-*``, ``arguments-not-object``)
            or ``execution_failure`` (``arguments-too-*``), located by line and column
            or JSON Pointer, never quoting the text.
    """
    bounds = limits if limits is not None else DEFAULT_LIMITS
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise BoundaryError(
                "arguments-json-invalid",
                f"the argument bytes are not UTF-8 (byte {exc.start + 1})",
            ) from None
    if not isinstance(text, str):
        raise BoundaryError(
            "arguments-json-invalid",
            f"argument text must be a string, not {type(text).__name__}",
        )
    if len(text) > bounds.max_text_length:
        raise BoundaryError(
            "arguments-too-large",
            f"the argument text is longer than {bounds.max_text_length} characters",
            error_class=EXECUTION_FAILURE,
            limit="max_text_length",
        )
    _check_nesting(text, bounds)
    try:
        # Leading and trailing whitespace is JSON's own; the decoder wants none.
        start = len(text) - len(text.lstrip(" \t\n\r"))
        value, end = _DECODER.raw_decode(text, start)
        rest = text[end:]
        if rest.strip(" \t\n\r"):
            extra = end + len(rest) - len(rest.lstrip(" \t\n\r"))
            raise _error(
                "arguments-json-invalid", "there is text after the JSON value", text, extra
            )
    except json.JSONDecodeError as exc:
        what = next((ours for theirs, ours in _SYNTAX if exc.msg.startswith(theirs)), None)
        raise _error(
            "arguments-json-invalid", what or "the text is malformed", text, exc.pos
        ) from None
    except _Refused:
        raise _locate_violation(text) from None
    except (ValueError, RecursionError):
        # int() refuses integers of more than sys.get_int_max_str_digits() digits.
        raise BoundaryError(
            "arguments-json-number-invalid",
            "the argument text holds a number too long to convert",
        ) from None
    # An unpaired surrogate can only come from one of the text's own code points or
    # from a \u escape in the surrogate range: without either, none needs looking for.
    check_argument_shape(value, bounds, from_text=_MAY_HOLD_SURROGATES.search(text) is not None)
    if not isinstance(value, dict):
        raise BoundaryError(
            "arguments-not-object", f"tool arguments must be a JSON object, not {json_type(value)}"
        )
    return value
