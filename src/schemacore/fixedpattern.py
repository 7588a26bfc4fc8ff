"""Anchored patterns of fixed-length ASCII character runs, answered without a regex.

``^[0-9]{5}$``, ``^[A-Z]{2}$`` or ``^[0-9]{4}-[0-9]{2}-[0-9]{2}$`` match exactly the
strings of one length whose characters fall, position by position, in ASCII classes
or equal literals. Python's string predicates answer that in a few operations, which
generated code writes in line instead of calling a regex engine. Only this exact
shape is recognised; anything else (another class, a variable quantifier, an
alternation) is left to the regex engines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

__all__ = ["Run", "fixed_runs"]

# ECMA-262 classes whose members are exactly what an ASCII string's predicate tests.
CLASSES: Final = {
    "[0-9]": "isdigit",
    "\\d": "isdigit",
    "[A-Z]": "upper",
    "[a-z]": "lower",
    "[A-Za-z]": "isalpha",
    "[a-zA-Z]": "isalpha",
    "[A-Za-z0-9]": "isalnum",
    "[a-zA-Z0-9]": "isalnum",
    "[0-9A-Za-z]": "isalnum",
    "[0-9a-zA-Z]": "isalnum",
}
_CLASS = "|".join(re.escape(c) for c in sorted(CLASSES, key=len, reverse=True))
# An atom: a class above, an escaped syntax character, or a plain character.
_ATOM = re.compile(rf"({_CLASS})|\\([\\^$.|?*+()\[\]{{}}/])|([^\\^$.|?*+()\[\]{{}}])")
_COUNT = re.compile(r"\{([1-9][0-9]{0,2})\}")
_MAX_LENGTH = 256


@dataclass(frozen=True, slots=True)
class Run:
    """Positions ``start:end`` hold characters of ``kind`` (a predicate name, or
    ``"literal"`` with the expected ``text``)."""

    start: int
    end: int
    kind: str
    text: str = ""


def fixed_runs(pattern: str) -> tuple[int, tuple[Run, ...]] | None:
    """(length, runs) when ``pattern`` is ``^``, fixed-count atoms, ``$``; else None."""
    if len(pattern) < 2 or pattern[0] != "^" or pattern[-1] != "$" or pattern[-2] == "\\":
        return None
    body, at, position = pattern[1:-1], 0, 0
    runs: list[Run] = []
    while at < len(body):
        atom = _ATOM.match(body, at)
        if atom is None:
            return None
        at = atom.end()
        count = 1
        quantifier = _COUNT.match(body, at)
        if quantifier is not None:
            count = int(quantifier.group(1))
            at = quantifier.end()
        elif at < len(body) and body[at] in "?*+{":
            return None
        klass, escaped, plain = atom.groups()
        if klass is not None:
            kind, text = CLASSES[klass], ""
        else:
            kind, text = "literal", (escaped or plain) * count
            if not text.isascii():
                return None
        if runs and runs[-1].kind == kind and kind != "literal":
            previous = runs.pop()
            runs.append(Run(previous.start, position + count, kind))
        elif runs and kind == "literal" and runs[-1].kind == "literal":
            previous = runs.pop()
            runs.append(Run(previous.start, position + count, kind, previous.text + text))
        else:
            runs.append(Run(position, position + count, kind, text))
        position += count
        if position > _MAX_LENGTH:
            return None
    if not runs:
        return None
    return position, tuple(runs)
