"""How an instance value appears in an error message: short, and never an error itself."""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

__all__ = ["describe_integer", "show"]


def show(value: Any, limit: int = 80) -> str:
    """``repr(value)`` cut to ``limit`` characters. An integer too long for Python to
    convert to text (``sys.get_int_max_str_digits``) is described by its size instead,
    also inside an array or object: formatting a message must not raise where
    validating did not. Containers are written only as far as the cut, so a huge or
    deeply nested instance costs no more than a short one."""
    parts: list[str] = []
    _write(value, parts, limit + 1)
    text = "".join(parts)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _write(value: Any, parts: list[str], room: int) -> int:
    """Append the text of ``value`` to ``parts``, stopping once ``room`` characters are
    written (the caller cuts); return the room left."""
    if room <= 0:
        return room
    if isinstance(value, list):
        return _write_items(value, "[", "]", parts, room, keyed=False)
    if isinstance(value, dict):
        return _write_items(value.items(), "{", "}", parts, room, keyed=True)
    # A long string is written only as far as the cut.
    text = repr(value[:room]) if isinstance(value, str) and len(value) > room else _scalar(value)
    parts.append(text)
    return room - len(text)


def _write_items(
    items: Any, opening: str, closing: str, parts: list[str], room: int, *, keyed: bool
) -> int:
    parts.append(opening)
    room -= 1
    for index, item in enumerate(items):
        if room <= 0:
            return room
        if index:
            parts.append(", ")
            room -= 2
        if keyed:
            room = _write(item[0], parts, room)
            parts.append(": ")
            room = _write(item[1], parts, room - 2)
        else:
            room = _write(item, parts, room)
    parts.append(closing)
    return room - 1


def _scalar(value: Any) -> str:
    if isinstance(value, Decimal):
        return Decimal.__str__(value)  # 1.5, as the JSON text wrote it, not Decimal('1.5')
    try:
        return repr(value)
    except ValueError:
        if not isinstance(value, int):
            raise
        return describe_integer(value)


def describe_integer(value: int) -> str:
    """An integer by its size: what messages and outputs write for one longer than
    Python converts to text (``sys.get_int_max_str_digits``)."""
    digits = int(abs(int.__int__(value)).bit_length() * math.log10(2)) + 1
    return f"an integer of about {digits} digits"
