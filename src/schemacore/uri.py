"""RFC 3986 reference resolution, written for schema identifiers.

``urllib.parse.urljoin`` only resolves relative references for a fixed list of
schemes, so ``urn:`` and ``tag:`` bases silently lose their fragments; schema
identifiers need the generic algorithm of RFC 3986 section 5.2 for every scheme.
"""

from __future__ import annotations

import re
from typing import NamedTuple
from urllib.parse import unquote

__all__ = ["URI", "is_reference", "join", "split_fragment", "unquote_fragment"]

# RFC 3986 appendix B: the one regular expression that splits any URI reference.
_URI_RE = re.compile(r"^(?:([^:/?#]+):)?(?://([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$", re.S)


class URI(NamedTuple):
    """The five components of a URI reference; ``None`` where a part is absent."""

    scheme: str | None
    authority: str | None
    path: str
    query: str | None
    fragment: str | None

    @classmethod
    def parse(cls, text: str) -> URI:
        match = _URI_RE.match(text)
        assert match is not None  # the expression matches every string
        scheme, authority, path, query, fragment = match.groups()
        return cls(scheme, authority, path, query, fragment)

    def unparse(self) -> str:
        out = []
        if self.scheme is not None:
            out.append(self.scheme + ":")
        if self.authority is not None:
            out.append("//" + self.authority)
        out.append(self.path)
        if self.query is not None:
            out.append("?" + self.query)
        if self.fragment is not None:
            out.append("#" + self.fragment)
        return "".join(out)


def _remove_dot_segments(path: str) -> str:
    # RFC 3986 section 5.2.4, on a list of segments instead of a string buffer.
    out: list[str] = []
    segments = path.split("/")
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == ".":
            if last:
                out.append("")
        elif segment == "..":
            if len(out) > 1 or (out and out[0] != ""):
                out.pop()
            if last:
                out.append("")
        else:
            out.append(segment)
    result = "/".join(out)
    if path.startswith("/") and not result.startswith("/"):
        result = "/" + result
    return result


def _merge(base: URI, path: str) -> str:
    if base.authority is not None and base.path == "":
        return "/" + path
    head, _, _ = base.path.rpartition("/")
    return (head + "/" + path) if "/" in base.path else path


def join(base: str, reference: str) -> str:
    """Resolve ``reference`` against ``base`` (RFC 3986 section 5.2.2)."""
    if not base:
        return reference
    r = URI.parse(reference)
    b = URI.parse(base)
    if r.scheme is not None:
        target = URI(r.scheme, r.authority, _remove_dot_segments(r.path), r.query, r.fragment)
    elif r.authority is not None:
        target = URI(b.scheme, r.authority, _remove_dot_segments(r.path), r.query, r.fragment)
    elif r.path == "":
        query = r.query if r.query is not None else b.query
        target = URI(b.scheme, b.authority, b.path, query, r.fragment)
    else:
        if r.path.startswith("/"):
            path = _remove_dot_segments(r.path)
        else:
            path = _remove_dot_segments(_merge(b, r.path))
        target = URI(b.scheme, b.authority, path, r.query, r.fragment)
    return target.unparse()


# Characters RFC 3986 has no place for but which carry no structure: written raw in
# real schemas ("#/definitions/Some Name", non-ASCII names) and read by most
# implementations as if percent-encoded. Controls are not among them.
_UNSTRUCTURED = re.compile(r'[ "<>\\^`{|}\x80-\U0010ffff]')
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def is_reference(text: str) -> bool:
    """Whether ``text`` can be read as a URI-reference (RFC 3986 section 4.1), as
    ``$id`` and the reference keywords must be: one, once the characters a URI must
    percent-encode and that carry no structure (a space, non-ASCII, ``"<>\\^`{|}``)
    are read as encoded. Refused: a control character, a malformed percent-escape,
    and whatever breaks the structure (a bad scheme, an unclosed IP literal, a port
    that is not a number, ...)."""
    from .formats.uris import is_uri_reference

    if is_uri_reference(text):
        return True
    if _CONTROL.search(text) is not None:
        return False
    return is_uri_reference(_UNSTRUCTURED.sub("%20", text))


def split_fragment(uri: str) -> tuple[str, str]:
    """Split ``uri`` into the part before ``#`` and the (still encoded) fragment."""
    head, _, fragment = uri.partition("#")
    return head, fragment


def unquote_fragment(fragment: str) -> str:
    """Percent-decode a fragment (JSON Pointers in URIs are percent-encoded).

    Lone surrogates come back as ``as_fragment`` wrote them; bytes that are no
    UTF-8 at all become U+FFFD (never an exception: fragments are schema text)."""
    try:
        return unquote(fragment, errors="surrogatepass")
    except UnicodeDecodeError:
        return unquote(fragment, errors="replace")
