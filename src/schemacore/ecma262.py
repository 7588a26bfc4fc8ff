"""ECMA-262 regular expressions for ``pattern`` and ``patternProperties``.

Patterns are compiled once per process (cached by source) with the ``regex``
package, which understands Unicode property classes such as ``\\p{Letter}``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import regex

__all__ = ["PatternError", "compile_pattern"]

_CACHE: dict[str, Callable[[str], Any]] = {}


class PatternError(ValueError):
    """The pattern is not a regular expression schemacore can compile."""


def compile_pattern(pattern: str) -> Callable[[str], Any]:
    """Return a ``search`` function for ``pattern`` (truthy when it matches anywhere)."""
    search = _CACHE.get(pattern)
    if search is None:
        try:
            search = regex.compile(pattern).search
        except (regex.error, ValueError, OverflowError) as exc:
            raise PatternError(f"invalid regular expression {pattern!r}: {exc}") from None
        _CACHE[pattern] = search
    return search
