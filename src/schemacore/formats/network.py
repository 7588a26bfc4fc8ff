"""Network formats: ipv4, ipv6, hostname, idn-hostname.

IP addresses are parsed by hand rather than with :mod:`ipaddress`, whose parsers
accept IPv6 zone ids (``%eth0``) in recent Pythons and are lenient in other
version-dependent ways.
"""

from __future__ import annotations

import re

from .idna import check_domain, split_idn

__all__ = ["is_hostname", "is_idn_hostname", "is_ipv4", "is_ipv6"]

# RFC 2673 section 3.2 dotted-quad (as referenced by RFC 3986 section 3.2.2's
# IPv4address): decimal octets 0-255 without leading zeros, ASCII digits only.
_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
_IPV4 = re.compile(rf"{_OCTET}\.{_OCTET}\.{_OCTET}\.{_OCTET}")

_HEX = frozenset("0123456789abcdefABCDEF")
_IPV6_CHARS = frozenset("0123456789abcdefABCDEF:.")


def is_ipv4(value: str) -> bool:
    """RFC 2673 dotted-quad IPv4 address."""
    return _IPV4.fullmatch(value) is not None


def _count_pieces(part: str, tail_ok: bool) -> int:
    """16-bit pieces in a colon-separated run of ``h16`` (and a final IPv4); -1 if bad."""
    if not part:
        return 0
    items = part.split(":")
    count = 0
    last = len(items) - 1
    for index, item in enumerate(items):
        if tail_ok and index == last and "." in item:
            # RFC 4291 section 2.2 form 3: the low 32 bits as an IPv4 dotted quad.
            if not is_ipv4(item):
                return -1
            count += 2
        elif 1 <= len(item) <= 4 and "." not in item:
            count += 1
        else:
            return -1
    return count


def is_ipv6(value: str) -> bool:
    """RFC 4291 section 2.2 text form; no zone id (RFC 4007 ``%``) and no prefix length."""
    if not 2 <= len(value) <= 45:
        return False
    for ch in value:
        if ch not in _IPV6_CHARS:
            return False
    head, compressed, tail = value.partition("::")
    if not compressed:
        return _count_pieces(value, True) == 8
    if "::" in tail:
        return False  # "::" may appear only once.
    before = _count_pieces(head, False)
    after = _count_pieces(tail, True)
    # "::" stands for one or more zero pieces.
    return before >= 0 and after >= 0 and before + after <= 7


def is_hostname(value: str) -> bool:
    """RFC 1123 section 2.1 host name; A-labels must be valid IDNA2008 (RFC 5891).

    Labels are 1-63 letters, digits and hyphens, neither starting nor ending with a
    hyphen; the name is at most 253 characters, and a trailing dot is not accepted.
    A label starting with ``xn--`` must decode to a valid U-label, and a name with
    right-to-left labels must satisfy the Bidi rule (RFC 5893).
    """
    if not value or len(value) > 253 or not value.isascii():
        return False
    return check_domain(value.split("."), reserved_ok=True)


def is_idn_hostname(value: str) -> bool:
    """Internationalized host name (RFC 5890 section 2.3.2.3), validated by IDNA2008.

    Labels may be NR-LDH labels, A-labels or U-labels, separated by "." or the
    ideographic, fullwidth and halfwidth full stops. U-labels must be NFC and satisfy
    RFC 5892 (code points and contextual rules), RFC 5891 section 4.2.3 (hyphens,
    leading combining marks) and RFC 5893 (Bidi). Lengths apply to the A-label form.
    """
    # Every code point costs at least one octet in the A-label form of the name.
    if not value or len(value) > 253:
        return False
    return check_domain(split_idn(value), reserved_ok=False)
