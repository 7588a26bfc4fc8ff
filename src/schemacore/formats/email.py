"""E-mail address formats: email (RFC 5321 Mailbox) and idn-email (RFC 6531)."""

from __future__ import annotations

import re
import unicodedata
from functools import cache

from .idna import check_domain
from .network import is_hostname, is_ipv4, is_ipv6

__all__ = ["is_email", "is_idn_email"]

# RFC 5322 section 3.2.3 atext, used by RFC 5321's Dot-string.
_ATEXT = r"A-Za-z0-9!#$%&'*+\-/=?^_`{|}~"
# RFC 6532 section 3.1 (cited by RFC 6531 section 3.3): UTF8-non-ascii, that is any
# Unicode scalar value above U+007F; lone surrogates are not scalar values.
_NON_ASCII = "\u0080-\ud7ff\ue000-\U0010ffff"

_DOT_STRING = re.compile(rf"[{_ATEXT}]+(?:\.[{_ATEXT}]+)*")
# RFC 5321 section 4.1.2: Quoted-string = DQUOTE *QcontentSMTP DQUOTE, where
# qtextSMTP is %d32-33 / %d35-91 / %d93-126 and quoted-pairSMTP is "\" %d32-126.
_QUOTED = re.compile(r'"(?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\[\x20-\x7e])*"')


@cache
def _idn_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    # RFC 6531 section 3.3: atext =/ UTF8-non-ascii, qtextSMTP =/ UTF8-non-ascii.
    # Compiled on first use: the wide classes cost milliseconds.
    quoted = re.compile(rf'"(?:[\x20\x21\x23-\x5b\x5d-\x7e{_NON_ASCII}]|\\[\x20-\x7e])*"')
    dot_string = re.compile(rf"[{_ATEXT}{_NON_ASCII}]+(?:\.[{_ATEXT}{_NON_ASCII}]+)*")
    return quoted, dot_string


# RFC 5321 section 4.5.3.1.1: a local part is at most 64 octets.
_LOCAL_MAX = 64


def _split(value: str, quoted: re.Pattern[str], dot_string: re.Pattern[str]) -> tuple[str, str]:
    """Split a mailbox into local part and domain; the local part is "" if invalid."""
    if value.startswith('"'):
        match = quoted.match(value)
        if match is None or value[match.end() : match.end() + 1] != "@":
            return "", ""
        return match.group(), value[match.end() + 1 :]
    # A Dot-string holds no "@", so the first one ends it.
    local, _, domain = value.partition("@")
    if dot_string.fullmatch(local) is None:
        return "", ""
    return local, domain


def _address_literal_ok(literal: str) -> bool:
    # RFC 5321 section 4.1.3: IPv4 or "IPv6:" IPv6 (tag case-insensitive, as an ABNF
    # string). A General-address-literal needs an IANA-registered tag, and "IPv6" is
    # the only one registered.
    if literal[:5].lower() == "ipv6:":
        return is_ipv6(literal[5:])
    return is_ipv4(literal)


def is_email(value: str) -> bool:
    """RFC 5321 section 4.1.2 Mailbox: Local-part "@" ( Domain / address-literal )."""
    local, domain = _split(value, _QUOTED, _DOT_STRING)
    if not local or len(local) > _LOCAL_MAX:
        return False
    if domain.startswith("[") and domain.endswith("]"):
        return _address_literal_ok(domain[1:-1])
    return is_hostname(domain)


def is_idn_email(value: str) -> bool:
    """RFC 6531 section 3.3 Mailbox: UTF-8 in the local part, U-labels in the domain.

    The domain is checked in NFC, the form IDNA2008 lookup brings it to (RFC 5895
    section 2, step 3); only "." separates its labels.
    """
    local, domain = _split(value, *_idn_patterns())
    if not local or len(local) > _LOCAL_MAX or len(local.encode("utf-8")) > _LOCAL_MAX:
        return False
    if domain.startswith("[") and domain.endswith("]"):
        return _address_literal_ok(domain[1:-1])
    domain = unicodedata.normalize("NFC", domain)
    # Labels as in is_hostname(), U-labels allowed; every code point costs at least
    # one octet of the A-label form.
    if not domain or len(domain) > 253:
        return False
    return check_domain(domain.split("."), reserved_ok=True)
