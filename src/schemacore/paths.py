"""Locations built lazily: a path is a chain of ``(parent, token)`` pairs.

Descending into a child costs one small tuple; the JSON Pointer string is built
only when an error is actually reported.
"""

from __future__ import annotations

from typing import Any, TypeAlias

from .pointer import format_pointer

__all__ = ["Path", "to_pointer"]

Path: TypeAlias = "tuple[Any, str | int] | None"


def to_pointer(path: Path) -> str:
    """Materialise a path chain into a JSON Pointer string."""
    tokens: list[str | int] = []
    while path is not None:
        path, token = path
        tokens.append(token)
    tokens.reverse()
    return format_pointer(tokens)
