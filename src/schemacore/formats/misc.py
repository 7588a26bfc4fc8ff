"""Formats without a family: uuid, regex."""

from __future__ import annotations

import re

from ..ecma262 import is_valid_pattern
from ..errors import ExecutionFailure

__all__ = ["is_regex", "is_uuid"]

# RFC 4122 section 3: the hyphenated 8-4-4-4-12 hex form, any version or variant.
_UUID = re.compile(r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}")


def is_uuid(value: str) -> bool:
    """RFC 4122 UUID string representation."""
    return _UUID.fullmatch(value) is not None


def is_regex(value: str) -> bool:
    """An ECMA-262 regular expression, as the ``pattern`` keyword would compile it.

    A pattern longer than ``Limits().max_regex_format_length`` is not compiled and counts
    as invalid here; the ``format`` keyword raises ExecutionFailure for it instead.
    """
    try:
        return is_valid_pattern(value)
    except (RecursionError, ExecutionFailure):
        return False
