"""Text the command line prints, made safe for a terminal and for line-based readers.

File names, property names, messages and schema locations come from input files
and may hold characters a terminal acts on (ESC and OSC sequences retitle it or
clear the screen), line breaks that would forge a record of their own (``\\n``, but
also ``\\x85``, U+2028 and U+2029, which ``str.splitlines`` and some terminals break
at), or bidirectional controls that show text in another order than it is read.
:func:`printable` escapes those in a line of text output, Python style (``\\x1b``,
``\\u202e``); :func:`json_text` writes JSON that escapes them as ``\\uXXXX``, still
decoding to the same strings.

Kept as they are: every other character, zero-width joiners among them (emoji and
several scripts need them), and backslashes, so messages that quote a value with
``repr`` read as before.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["UNSAFE", "escape_json", "json_text", "printable", "printable_lines"]

# C0 controls and DEL, C1 controls, the Unicode bidirectional controls (ALM, LRM,
# RLM, the embeddings and overrides, the isolates), the line and paragraph
# separators, and lone surrogates (which no encoding writes as they are).
_ABOVE_C0 = "\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff"
UNSAFE = re.compile(f"[\x00-\x1f{_ABOVE_C0}]")
# In JSON text written by json.dumps, C0 controls are escaped already, and a line
# break outside a string is indentation.
_UNSAFE_IN_JSON = re.compile(f"[{_ABOVE_C0}]")

_SHORT = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _python_escape(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    return _SHORT.get(char) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


def _json_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def printable(text: str) -> str:
    """``text`` with every character of :data:`UNSAFE` escaped: one line, shown
    as it is read."""
    return text if UNSAFE.search(text) is None else UNSAFE.sub(_python_escape, text)


def printable_lines(text: str) -> str:
    """Each ``\\n``-separated line of ``text`` made :func:`printable`: for text that
    is several lines by design."""
    return "\n".join(printable(line) for line in text.split("\n"))


def json_text(value: Any, *, indent: int | None = None) -> str:
    """``value`` as JSON text whose strings hold no character of :data:`UNSAFE` as
    it is (``ensure_ascii`` would escape all non-ASCII text; this escapes only what
    a terminal or a line reader acts on). One line unless ``indent`` is given."""
    return escape_json(json.dumps(value, ensure_ascii=False, indent=indent))


def escape_json(text: str) -> str:
    """JSON text (as ``json.dumps(..., ensure_ascii=False)`` writes it) with the
    characters of :data:`UNSAFE` written as ``\\uXXXX``. Outside its strings JSON
    text is ASCII, and ``json.dumps`` escapes C0 controls itself, so each one
    replaced is inside a string, where the escape means the same character."""
    if _UNSAFE_IN_JSON.search(text) is None:
        return text
    return _UNSAFE_IN_JSON.sub(_json_escape, text)
