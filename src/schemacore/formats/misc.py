"""Formats without a family: uuid, regex."""

from __future__ import annotations

import re

from ..ecma262 import is_valid_pattern

__all__ = ["is_regex", "is_uuid"]

# RFC 4122 section 3: the hyphenated 8-4-4-4-12 hex form, any version or variant.
_UUID = re.compile(r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}")


def is_uuid(value: str) -> bool:
    """RFC 4122 UUID string representation."""
    return _UUID.fullmatch(value) is not None


def is_regex(value: str) -> bool:
    """An ECMA-262 regular expression, as the ``pattern`` keyword would compile it."""
    try:
        return is_valid_pattern(value)
    except RecursionError:
        return False
