"""URI formats: uri, uri-reference, iri, iri-reference, uri-template.

The grammars are those of RFC 3986 (URIs), RFC 3987 (IRIs) and RFC 6570 (URI
Templates). A reference is split into its components the way RFC 3986 appendix B does, then
each component is matched against its ABNF rule. Every character class below is
disjoint from the delimiters that end its component, so no pattern backtracks more
than linearly.
"""

from __future__ import annotations

import re
from functools import cache

from .network import is_ipv6

__all__ = ["is_iri", "is_iri_reference", "is_uri", "is_uri_reference", "is_uri_template"]

_PCT = r"%[0-9A-Fa-f]{2}"
# RFC 3986 section 2.2-2.3.
_UNRESERVED = r"A-Za-z0-9\-._~"
_SUB_DELIMS = r"!$&'()*+,;="
# RFC 3987 section 2.2: ucschar and iprivate (the latter only in iquery).
_UCSCHAR = (
    "\u00a0-\ud7ff\uf900-\ufdcf\ufdf0-\uffef"
    "\U00010000-\U0001fffd\U00020000-\U0002fffd\U00030000-\U0003fffd"
    "\U00040000-\U0004fffd\U00050000-\U0005fffd\U00060000-\U0006fffd"
    "\U00070000-\U0007fffd\U00080000-\U0008fffd\U00090000-\U0009fffd"
    "\U000a0000-\U000afffd\U000b0000-\U000bfffd\U000c0000-\U000cfffd"
    "\U000d0000-\U000dfffd\U000e1000-\U000efffd"
)
_IPRIVATE = "\ue000-\uf8ff\U000f0000-\U000ffffd\U00100000-\U0010fffd"

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+\-.]*")
_FIRST_DELIMITER = re.compile(r"[:/?#]")
_PORT = re.compile(r"[0-9]*")
# RFC 3986 section 3.2.2: IPvFuture ("v" is case-insensitive, as ABNF strings are).
_IPVFUTURE = re.compile(rf"[Vv][0-9A-Fa-f]+\.[{_UNRESERVED}{_SUB_DELIMS}:]+")


class _Grammar:
    """The component patterns of RFC 3986, or of RFC 3987 when ``extra`` is ucschar."""

    def __init__(self, extra: str, query_extra: str) -> None:
        unreserved = _UNRESERVED + extra
        pchar = f"{unreserved}{_SUB_DELIMS}:@"
        self.userinfo = re.compile(rf"(?:[{unreserved}{_SUB_DELIMS}:]|{_PCT})*")
        self.reg_name = re.compile(rf"(?:[{unreserved}{_SUB_DELIMS}]|{_PCT})*")
        # path-abempty / path-absolute / path-rootless / path-noscheme / path-empty:
        # segments of pchar separated by "/"; which of them applies is checked apart.
        self.path = re.compile(rf"(?:[{pchar}/]|{_PCT})*")
        self.query = re.compile(rf"(?:[{pchar}/?{query_extra}]|{_PCT})*")
        self.fragment = re.compile(rf"(?:[{pchar}/?]|{_PCT})*")


_URI = _Grammar("", "")


@cache
def _iri_grammar() -> _Grammar:
    # Built on first use: the ucschar classes cost milliseconds to compile.
    return _Grammar(_UCSCHAR, _IPRIVATE)


def _authority_ok(authority: str, grammar: _Grammar) -> bool:
    # RFC 3986 section 3.2: [ userinfo "@" ] host [ ":" port ]. Neither userinfo nor
    # host may hold a raw "@", so there is at most one.
    userinfo, at, hostport = authority.partition("@")
    if not at:
        userinfo, hostport = "", authority
    elif "@" in hostport or grammar.userinfo.fullmatch(userinfo) is None:
        return False
    if hostport.startswith("["):
        # IP-literal = "[" ( IPv6address / IPvFuture ) "]"
        end = hostport.find("]")
        if end < 0:
            return False
        literal = hostport[1:end]
        if not (is_ipv6(literal) or _IPVFUTURE.fullmatch(literal)):
            return False
        rest = hostport[end + 1 :]
        if not rest:
            return True
        return rest[0] == ":" and _PORT.fullmatch(rest, 1) is not None
    # IPv4address is a subset of reg-name, so "999.999.999.999" is a valid host.
    host, colon, port = hostport.partition(":")
    if grammar.reg_name.fullmatch(host) is None:
        return False
    return not colon or _PORT.fullmatch(port) is not None


def _reference_ok(value: str, grammar: _Grammar, absolute: bool) -> bool:
    # RFC 3986 appendix B: the scheme ends at the first ":" before any "/", "?", "#".
    rest = value
    delimiter = _FIRST_DELIMITER.search(value)
    if delimiter is not None and delimiter.group() == ":":
        # A ":" there is either a scheme delimiter or, in a relative reference, a
        # colon in the first segment, which path-noscheme (section 4.2) forbids.
        if _SCHEME.fullmatch(value, 0, delimiter.start()) is None:
            return False
        rest = value[delimiter.end() :]
    elif absolute:
        return False
    rest, hash_sign, fragment = rest.partition("#")
    if hash_sign and grammar.fragment.fullmatch(fragment) is None:
        return False
    rest, question, query = rest.partition("?")
    if question and grammar.query.fullmatch(query) is None:
        return False
    if rest.startswith("//"):
        # "//" authority path-abempty
        slash = rest.find("/", 2)
        if slash < 0:
            slash = len(rest)
        if not _authority_ok(rest[2:slash], grammar):
            return False
        rest = rest[slash:]
    # Without an authority the path cannot start with "//" (handled above), so
    # path-absolute, path-rootless, path-noscheme and path-empty all reduce to the
    # same characters.
    return grammar.path.fullmatch(rest) is not None


def is_uri(value: str) -> bool:
    """RFC 3986 section 3 URI (absolute, with a scheme; fragment allowed)."""
    return _reference_ok(value, _URI, absolute=True)


def is_uri_reference(value: str) -> bool:
    """RFC 3986 section 4.1 URI-reference: a URI or a relative reference."""
    return _reference_ok(value, _URI, absolute=False)


def is_iri(value: str) -> bool:
    """RFC 3987 section 2.2 IRI: a URI that may also hold ucschar (iprivate in the query)."""
    return _reference_ok(value, _iri_grammar(), absolute=True)


def is_iri_reference(value: str) -> bool:
    """RFC 3987 section 2.2 IRI-reference."""
    return _reference_ok(value, _iri_grammar(), absolute=False)


# RFC 6570 section 2.1 literals, with verified erratum 6937 (%x26-3B, so "'" is a
# literal: it is a sub-delim in URIs).
_LITERAL = rf"[\x21\x23\x24\x26-\x3b\x3d\x3f-\x5b\x5d\x5f\x61-\x7a\x7e{_UCSCHAR}{_IPRIVATE}]"
# Section 2.3: varname = varchar *( ["."] varchar ); section 2.4: prefix max-length is
# 1-9999 without leading zeros, or explode "*".
_VARCHAR = rf"(?:[A-Za-z0-9_]|{_PCT})"
_VARSPEC = rf"{_VARCHAR}(?:\.?{_VARCHAR})*(?::[1-9][0-9]{{0,3}}|\*)?"
# Section 2.2: the operators, op-reserve included (reserved for extensions, but part
# of the grammar).
_EXPRESSION = rf"\{{[+#./;?&=,!@|]?{_VARSPEC}(?:,{_VARSPEC})*\}}"


@cache
def _uri_template() -> re.Pattern[str]:
    return re.compile(rf"(?:{_LITERAL}|{_PCT}|{_EXPRESSION})*")


def is_uri_template(value: str) -> bool:
    """RFC 6570 URI Template (level 4 syntax)."""
    return _uri_template().fullmatch(value) is not None
