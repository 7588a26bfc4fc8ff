"""JSON Pointers (RFC 6901): parsing, formatting and lookup."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote

__all__ = [
    "PointerError",
    "as_fragment",
    "escape",
    "format_pointer",
    "parse_pointer",
    "resolve_pointer",
]


class PointerError(LookupError):
    """A JSON Pointer is malformed or names nothing in the document."""


def escape(token: str | int) -> str:
    """Escape one reference token (``~`` -> ``~0``, ``/`` -> ``~1``)."""
    return str(token).replace("~", "~0").replace("/", "~1")


def format_pointer(tokens: Iterable[str | int]) -> str:
    """Join reference tokens into a JSON Pointer string ("" is the root)."""
    # Compiling joins one or two tokens at a time, mostly keyword and property names
    # with nothing to escape: plain concatenation, no generator.
    pointer = ""
    for token in tokens:
        if type(token) is str and "~" not in token and "/" not in token:
            pointer += "/" + token
        else:
            pointer += "/" + escape(token)
    return pointer


# RFC 3986 section 3.5: a fragment is pchar, "/" and "?"; everything else is
# percent-encoded when a JSON Pointer is written into a URI.
_FRAGMENT_SAFE = "/?:@!$&'()*+,;=-._~"


_PLAIN_FRAGMENT = re.compile(r"[A-Za-z0-9/?:@!$&'()*+,;=._~-]*")


def as_fragment(pointer: str) -> str:
    """A JSON Pointer written as a URI fragment (percent-encoded where needed)."""
    if _PLAIN_FRAGMENT.fullmatch(pointer):
        return pointer  # nothing to encode: the common case, without quote()'s cost
    # A property name may hold a lone surrogate (Python strings allow it, JSON text
    # can spell it): encode it as its bytes rather than fail; unquote_fragment
    # decodes it back the same way.
    return quote(pointer, safe=_FRAGMENT_SAFE, errors="surrogatepass")


def parse_pointer(pointer: str) -> list[str]:
    """Split a JSON Pointer into unescaped reference tokens."""
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise PointerError(f"JSON Pointer {pointer!r} does not start with '/'")
    tokens = pointer[1:].split("/")
    for token in tokens:
        # "~" must be followed by 0 or 1; anything else is malformed.
        stripped = token.replace("~0", "").replace("~1", "")
        if "~" in stripped:
            raise PointerError(f"JSON Pointer {pointer!r} has a bad '~' escape")
    return [token.replace("~1", "/").replace("~0", "~") for token in tokens]


def resolve_pointer(document: Any, tokens: Iterable[str]) -> Any:
    """Follow unescaped ``tokens`` from ``document``; raise PointerError if absent."""
    node = document
    for token in tokens:
        if isinstance(node, dict):
            if token not in node:
                raise PointerError(f"no member {token!r}")
            node = node[token]
        elif isinstance(node, list):
            if not (token.isascii() and token.isdigit()) or (token != "0" and token[0] == "0"):
                raise PointerError(f"{token!r} is not an array index")
            # Longer than the array's length in digits is past the end: and int()
            # refuses tokens of more than sys.get_int_max_str_digits() digits.
            if len(token) > len(str(len(node))) or int(token) >= len(node):
                raise PointerError(f"index {token} is past the end of the array")
            node = node[int(token)]
        else:
            raise PointerError(f"cannot descend into a {type(node).__name__} with {token!r}")
    return node
