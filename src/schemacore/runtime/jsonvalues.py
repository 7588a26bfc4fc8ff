"""Small helpers on parsed JSON values: type names, strict equality, locations.

The runtime never imports engine internals, so the little JSON vocabulary it needs
lives here: a type name for messages, an equality that keeps ``true`` apart from
``1``, JSON Pointer escaping, and the dot/bracket paths shown to models.
"""

from __future__ import annotations

import decimal
import functools
import json
import math
import re
import secrets
from collections.abc import Iterable, Sequence
from decimal import Decimal
from typing import Any

__all__ = [
    "REDACTED",
    "array_index",
    "describe_type",
    "dot_path",
    "escape_token",
    "json_equal",
    "json_key",
    "json_text",
    "json_type",
    "pointer",
    "show_json",
    "split_pointer",
    "tokens_along",
]

REDACTED = "*"
"""Stands for an object key chosen by the caller: such keys are never echoed."""


def json_type(value: Any) -> str:
    """The JSON type name of ``value`` ("integer" for integral numbers), or a
    description of the Python type when it is not a JSON value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        if not math.isfinite(value):
            return "non-finite number"
        return "integer" if value.is_integer() else "number"
    if isinstance(value, Decimal):
        if not Decimal.is_finite(value):
            return "non-finite number"
        return "integer" if _integral(value) else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return f"non-JSON value ({type(value).__name__})"


def describe_type(value: Any) -> str:
    """The type of ``value`` with its size where that helps, never its content."""
    kind = json_type(value)
    if isinstance(value, str):
        return f"string ({len(value)} characters)"
    if isinstance(value, list):
        return f"array ({len(value)} items)"
    if isinstance(value, dict):
        count = len(value)
        return f"object ({count} {'property' if count == 1 else 'properties'})"
    return kind


def json_equal(a: Any, b: Any) -> bool:
    """JSON equality: ``1 == 1.0`` but ``true != 1``; objects by keys, arrays in order."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a is b
    if isinstance(a, Decimal) or isinstance(b, Decimal):
        return bool(json_key(a) == json_key(b))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, str) or isinstance(b, str):
        return isinstance(a, str) and isinstance(b, str) and a == b
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return False
        for x, y in zip(a, b, strict=True):
            if not json_equal(x, y):
                return False
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            return False
        for key, x in a.items():
            if not json_equal(x, b[key]):
                return False
        return True
    return a is None and b is None


def json_key(value: Any) -> Any:
    """A hashable key equal for JSON-equal values (``1`` and ``1.0``, not ``true``)."""
    if isinstance(value, bool) or value is None:
        return ("literal", value)
    if isinstance(value, float) and value.is_integer():
        return ("number", int(value))
    if isinstance(value, (int, float)):
        return ("number", value)
    if isinstance(value, Decimal) and Decimal.is_finite(value):
        return _decimal_key(value)
    if isinstance(value, str):
        return ("string", value)
    if isinstance(value, list):
        return ("array", tuple(json_key(item) for item in value))
    if isinstance(value, dict):
        return ("object", frozenset((key, json_key(item)) for key, item in value.items()))
    return ("other", id(value))


# Decimal arithmetic rounds to the thread's context, which may trap: the integer test
# runs in one where it is exact.
_EXACT = decimal.Context(
    prec=decimal.MAX_PREC,
    Emax=decimal.MAX_EMAX,
    Emin=decimal.MIN_EMIN,
    traps=[decimal.InvalidOperation],
)


def _integral(value: Decimal) -> bool:
    return bool(Decimal.__eq__(_EXACT.to_integral_value(value), value))


def _decimal_key(value: Decimal) -> Any:
    """As the engine equates them: a Decimal equals an int or float of its value,
    and a fractional float only when it is that float's shortest repr."""
    plain = Decimal(value)
    if _integral(plain):
        return ("number", plain)  # Python equates (and hashes alike) 1 and Decimal("1.0")
    as_float = Decimal.__float__(plain)
    if Decimal.__eq__(Decimal(float.__repr__(as_float)), plain):
        return ("number", as_float)
    return ("decimal", plain)


class _DecimalMet(Exception):
    """Raised by the fast encoder's ``default`` on a finite Decimal."""


def _no_decimal(item: Any) -> Any:
    if isinstance(item, Decimal) and Decimal.is_finite(item):
        raise _DecimalMet
    raise TypeError(f"Object of type {type(item).__name__} is not JSON serializable")


@functools.lru_cache(maxsize=32)
def _encoder(options: tuple[tuple[str, Any], ...]) -> json.JSONEncoder:
    # One encoder per set of options: json.dumps builds a new one on every call.
    return json.JSONEncoder(default=_no_decimal, **dict(options))


def json_text(value: Any, **options: Any) -> str:
    """``json.dumps(value, **options)``, with each finite Decimal written as the
    number it is: json.dumps refuses Decimals, and float() would round them."""
    try:
        encoder = _encoder(tuple(sorted(options.items())))
    except TypeError:  # an unhashable option: an encoder for this call only
        encoder = json.JSONEncoder(default=_no_decimal, **options)
    try:
        return encoder.encode(value)
    except _DecimalMet:
        pass  # rare: the Decimal-aware encoding below
    numbers: list[str] = []
    # Each Decimal goes out as a string holding this call's random token, then is
    # replaced by its digits: no string of the value can hold the token.
    token = secrets.token_hex(16)

    def number(item: Any) -> Any:
        if isinstance(item, Decimal) and Decimal.is_finite(item):
            numbers.append(Decimal.__str__(item))
            return f"{token}{len(numbers) - 1}"
        raise TypeError(f"Object of type {type(item).__name__} is not JSON serializable")

    text = json.dumps(value, default=number, **options)
    return re.sub(f'"{token}([0-9]+)"', lambda found: numbers[int(found.group(1))], text)


def escape_token(token: str | int) -> str:
    """One RFC 6901 reference token."""
    return str(token).replace("~", "~0").replace("/", "~1")


def pointer(tokens: Iterable[str | int]) -> str:
    """An RFC 6901 JSON Pointer from its tokens ("" is the root)."""
    return "".join("/" + escape_token(token) for token in tokens)


def split_pointer(text: str) -> list[str]:
    """The unescaped tokens of a JSON Pointer (no validation: engine output only)."""
    if not text:
        return []
    return [part.replace("~1", "/").replace("~0", "~") for part in text[1:].split("/")]


# At most 18 digits: more is past the end of any array, and int() refuses more
# than sys.get_int_max_str_digits() digits.
_INDEX = re.compile(r"0|[1-9][0-9]{0,17}")


def array_index(token: str) -> int | None:
    """The array index ``token`` spells, or None.

    Only RFC 6901 indexes count (ASCII digits, no leading zero): ``str.isdigit``
    also accepts "²" (which int() refuses) and "\u0661" (which int() reads as 1).
    Ask only where the value is an array; everywhere else a token is a name.
    """
    return int(token) if _INDEX.fullmatch(token) else None


def tokens_along(value: Any, tokens: Iterable[str]) -> list[str | int]:
    """``tokens`` with array indexes as ints, decided by walking ``value``: a token
    is an index only where the value at that place is an array."""
    typed: list[str | int] = []
    node = value
    for token in tokens:
        index = array_index(token) if isinstance(node, list) else None
        if index is not None:
            typed.append(index)
            node = node[index] if index < len(node) else None
        else:
            typed.append(token)
            node = node.get(token) if isinstance(node, dict) else None
    return typed


_PLAIN_NAME = re.compile(r"[A-Za-z_$][A-Za-z0-9_$-]*")


def dot_path(tokens: Sequence[str | int]) -> str:
    """The dot/bracket path a model reads: ``items[0].name``, ``""`` for the root.

    Integers are array indexes; names that are not plain identifiers are quoted in
    brackets (``a["x y"]``); the redaction marker is shown as ``*``.
    """
    parts: list[str] = []
    for token in tokens:
        if isinstance(token, int):
            parts.append(f"[{token}]")
        elif token == REDACTED or _PLAIN_NAME.fullmatch(token):
            parts.append(("." if parts else "") + token)
        else:
            parts.append(f"[{json.dumps(token, ensure_ascii=False)}]")
    return "".join(parts)


def show_json(value: Any, limit: int = 60) -> str:
    """Compact JSON text of a schema-owned value, capped at ``limit`` characters."""
    try:
        text = json_text(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError):
        text = f"<{json_type(value)}>"
    return text if len(text) <= limit else text[: limit - 1] + "…"
