"""JSON Pointer formats: json-pointer (RFC 6901) and relative-json-pointer."""

from __future__ import annotations

import re

__all__ = ["is_json_pointer", "is_relative_json_pointer"]

# RFC 6901 section 3: *( "/" reference-token ), where "~" is only "~0" or "~1".
# Any other character, control characters included, may appear unescaped.
_POINTER = r"(?:/(?:[^/~]|~[01])*)*"
_JSON_POINTER = re.compile(_POINTER)

# Relative JSON Pointer (draft-bhutton-relative-json-pointer-00, section 3):
# non-negative-integer [index-manipulation] ( json-pointer / "#" ), where
# index-manipulation is "+" or "-" then a positive integer; no leading zeros.
_RELATIVE_POINTER = re.compile(rf"(?:0|[1-9][0-9]*)(?:[+-][1-9][0-9]*)?(?:#|{_POINTER})")


def is_json_pointer(value: str) -> bool:
    """RFC 6901 JSON Pointer (string form, not the URI fragment form)."""
    return _JSON_POINTER.fullmatch(value) is not None


def is_relative_json_pointer(value: str) -> bool:
    """Relative JSON Pointer: an upward count, optional index shift, then ``#`` or a pointer."""
    return _RELATIVE_POINTER.fullmatch(value) is not None
