"""Format checkers: round trips through the standard library, and rule-by-rule rejections.

The official suite (``tests/suite``, optional/format) covers the checkers case by
case; these tests add generated inputs and name the rule each rejection breaks.
"""

from __future__ import annotations

import codecs
import ipaddress
import uuid
from datetime import date, datetime, time, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schemacore.formats import CHECKERS
from schemacore.formats.punycode import decode as punycode_decode
from schemacore.formats.punycode import encode as punycode_encode
from schemacore.keywords.format import SPECIFIED_FORMATS

BOUNDED = settings(max_examples=100, deadline=None)

# RFC 3339 offsets are whole minutes strictly within a day.
offsets = st.integers(min_value=-(24 * 60 - 1), max_value=24 * 60 - 1).map(
    lambda minutes: timezone(timedelta(minutes=minutes))
)
aware_datetimes = st.datetimes(
    min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30), timezones=offsets
)


def test_every_specified_format_has_a_checker() -> None:
    assert set(CHECKERS) == SPECIFIED_FORMATS


# --- round trips ------------------------------------------------------------------


@BOUNDED
@given(aware_datetimes, st.sampled_from(["auto", "seconds", "milliseconds", "microseconds"]))
def test_isoformat_date_times_are_valid(moment: datetime, spec: str) -> None:
    text = moment.isoformat(timespec=spec)
    assert CHECKERS["date-time"](text)
    assert CHECKERS["date-time"](text.replace("T", "t"))
    assert CHECKERS["date"](text[:10])
    assert CHECKERS["time"](text[11:])


@BOUNDED
@given(st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31)))
def test_utc_date_times_with_z_are_valid(moment: datetime) -> None:
    assert CHECKERS["date-time"](moment.isoformat() + "Z")
    assert CHECKERS["date-time"](moment.isoformat() + "z")


@BOUNDED
@given(st.dates())
def test_isoformat_dates_are_valid(day: date) -> None:
    assert CHECKERS["date"](day.isoformat())


@BOUNDED
@given(st.times(), offsets)
def test_isoformat_times_are_valid(moment: time, offset: timezone) -> None:
    assert CHECKERS["time"](moment.replace(tzinfo=offset).isoformat())


@BOUNDED
@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_ipaddress_ipv4_strings_are_valid(value: int) -> None:
    text = str(ipaddress.IPv4Address(value))
    assert CHECKERS["ipv4"](text)
    assert not CHECKERS["ipv6"](text)


@BOUNDED
@given(
    st.integers(min_value=0, max_value=2**128 - 1),
    # Bias towards runs of zero pieces, where "::" compression happens.
    st.integers(min_value=0, max_value=2**128 - 1),
)
def test_ipaddress_ipv6_strings_are_valid(value: int, mask: int) -> None:
    address = ipaddress.IPv6Address(value & mask)
    for text in (str(address), address.exploded, str(address).upper()):
        assert CHECKERS["ipv6"](text)
        assert not CHECKERS["ipv4"](text)


@BOUNDED
@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_ipv4_mapped_ipv6_strings_are_valid(value: int) -> None:
    v4 = ipaddress.IPv4Address(value)
    assert CHECKERS["ipv6"](f"::ffff:{v4}")
    assert CHECKERS["ipv6"](f"64:ff9b::{v4}")
    assert CHECKERS["ipv6"](f"1:2:3:4:5:6:{v4}")


@BOUNDED
@given(st.uuids())
def test_uuid_strings_are_valid(value: uuid.UUID) -> None:
    assert CHECKERS["uuid"](str(value))
    assert CHECKERS["uuid"](str(value).upper())


def test_uuid4_strings_are_valid() -> None:
    for _ in range(20):
        assert CHECKERS["uuid"](str(uuid.uuid4()))


@BOUNDED
@given(st.text(st.characters(codec="utf-8"), max_size=30))
def test_punycode_agrees_with_the_standard_codec(text: str) -> None:
    encoded = punycode_encode(text)
    assert encoded == codecs.encode(text, "punycode").decode("ascii")
    assert punycode_decode(encoded) == text


@BOUNDED
@given(st.sampled_from(sorted(CHECKERS)), st.text(max_size=80))
def test_checkers_never_raise(name: str, text: str) -> None:
    assert CHECKERS[name](text) in (True, False)


# --- rejections, with the rule each breaks ----------------------------------------

REJECTED: list[tuple[str, str]] = [
    # RFC 3339 5.6: date-time needs a "T" between full-date and full-time.
    ("date-time", "2020-01-01 00:00:00Z"),
    # RFC 3339 5.6: time-offset is required.
    ("date-time", "2020-01-01T00:00:00"),
    # RFC 3339 5.7: 2019 is not a leap year.
    ("date-time", "2019-02-29T00:00:00Z"),
    # RFC 3339 5.7: a leap second is 23:59:60 UTC; +01:00 makes this 22:59:60 UTC.
    ("date-time", "1998-12-31T23:59:60+01:00"),
    # RFC 3339 5.6: time-secfrac needs at least one digit.
    ("date-time", "2020-01-01T00:00:00.Z"),
    # RFC 3339 5.6: date-fullyear is exactly four digits.
    ("date", "02020-01-01"),
    # RFC 3339 5.7: April has 30 days.
    ("date", "2020-04-31"),
    # RFC 3339 5.6: DIGIT is ASCII only (this is an Arabic-Indic 1).
    ("date", "2020-01-0\u0661"),
    # RFC 3339 5.6: time-numoffset needs minutes.
    ("time", "12:00:00+01"),
    # RFC 3339 5.6: time-hour is 00-23.
    ("time", "24:00:00Z"),
    # RFC 3339 5.6: time-offset is "Z" or a signed hh:mm, not a zone name.
    ("time", "12:00:00 UTC"),
    # RFC 3339 appendix A: dur-time needs at least one element after "T".
    ("duration", "P1DT"),
    # RFC 3339 appendix A: dur-week stands alone.
    ("duration", "P1W2D"),
    # RFC 3339 appendix A: elements are integers.
    ("duration", "PT1.5S"),
    # RFC 3339 appendix A: hours then seconds skips minutes, which the ABNF forbids.
    ("duration", "PT1H1S"),
    # RFC 5321 4.1.2: Dot-string atoms are non-empty (no leading, trailing or double dot).
    ("email", "a..b@example.com"),
    # RFC 5321 4.1.2: a local part needs a domain after "@".
    ("email", "user@"),
    # RFC 5321 4.5.3.1.1: a local part is at most 64 octets.
    ("email", "a" * 65 + "@example.com"),
    # RFC 5321 4.1.3: only IPv4 and "IPv6:" address literals are registered.
    ("email", "user@[x-tag:1234]"),
    # RFC 5321 4.1.2: atext is ASCII in plain e-mail addresses (RFC 6531 extends it).
    ("email", "\u00e9@example.com"),
    # RFC 5321 4.1.2: a quoted string must be closed before "@".
    ("email", '"abc@example.com'),
    # RFC 6531 3.3: the domain must still be a valid domain (a U-label here is
    # invalid: it starts with a combining mark).
    ("idn-email", "user@\u0301a.example"),
    # RFC 6532 3.1: a lone surrogate is not a Unicode scalar value.
    ("idn-email", "\ud800@example.com"),
    # RFC 1123 2.1: labels are letters, digits and hyphens.
    ("hostname", "ex ample.com"),
    # RFC 1123 2.1 / RFC 1034 3.1: an empty label.
    ("hostname", "example..com"),
    # RFC 1034 3.1: a name is at most 253 octets (here 4 * 64 - 1 = 255).
    ("hostname", ".".join(["a" * 63] * 4)),
    # RFC 5891 4.2.3.1: the U-label of this A-label ("b\u00fccher-") ends with a hyphen.
    ("hostname", "xn--bcher--3ya"),
    # RFC 5892 2.6: U+0640 ARABIC TATWEEL is DISALLOWED.
    ("idn-hostname", "\u0628\u0640\u0628"),
    # RFC 5892 2.2 (Unstable): upper case letters change under case folding.
    ("idn-hostname", "B\u00fccher"),
    # RFC 5892 A.3: MIDDLE DOT must sit between two "l".
    ("idn-hostname", "a\u00b7b"),
    # RFC 5891 5.4: a U-label must be in NFC (this is "u" plus a combining diaeresis).
    ("idn-hostname", "bu\u0308cher"),
    # RFC 5893 2, condition 2: an RTL label may not contain an L character.
    ("idn-hostname", "\u05d0a"),
    # RFC 5890 2.3.1: "--" in positions 3-4 is reserved for A-labels.
    ("idn-hostname", "ab--cd"),
    # RFC 2673 3.2 / RFC 3986 3.2.2: no leading zeros in an octet.
    ("ipv4", "010.0.0.1"),
    # Four octets exactly.
    ("ipv4", "1.2.3"),
    # RFC 4291 2.2: an h16 piece has at most four hex digits.
    ("ipv6", "1:2:3:4:5:6:7:89abc"),
    # RFC 4291 2.2: "::" stands for at least one piece, so seven pieces plus "::" at
    # most, and eight without it.
    ("ipv6", "1:2:3:4:5:6:7:8::"),
    # RFC 4291 2.2: the embedded IPv4 address comes last.
    ("ipv6", "1.2.3.4::"),
    # RFC 4007 11.2 zone ids are not part of the address text form.
    ("ipv6", "fe80::1%eth0"),
    # RFC 3986 3: a URI has a scheme.
    ("uri", "//example.com/path"),
    # RFC 3986 3.1: a scheme starts with a letter.
    ("uri", "1ab:rest"),
    # RFC 3986 2.1: "%" starts a two-hex-digit triplet.
    ("uri", "http://example.com/%2"),
    # RFC 3986 3.2.2: an IP-literal holds an IPv6 address or IPvFuture.
    ("uri", "http://[1.2.3.4]/"),
    # RFC 3986 3.2.3: a port is digits.
    ("uri", "http://example.com:8o/"),
    # RFC 3986 3.5: "#" cannot appear inside a fragment.
    ("uri", "http://example.com/#a#b"),
    # RFC 3986 2: non-ASCII must be percent-encoded in a URI.
    ("uri", "http://example.com/\u00e9"),
    # RFC 3986 4.2: the first segment of a relative path cannot contain ":".
    ("uri-reference", "1a:b"),
    # RFC 3986 3.3: "<" is not a pchar.
    ("uri-reference", "/a<b"),
    # RFC 3987 2.2: iprivate is allowed only in the query.
    ("iri", "http://example.com/\ue000"),
    # RFC 3987 2.2: U+FFFE is not a ucschar.
    ("iri-reference", "/\ufffe"),
    # RFC 4122 3: the hyphenated form, 8-4-4-4-12.
    ("uuid", "2eb8aa08-aa98-11ea-b4aa73b441d16380"),
    # RFC 4122 3: hex digits only.
    ("uuid", "2eb8aa08-aa98-11ea-b4aa-73b441d1638g"),
    # RFC 6570 2.2: an expression is closed by "}".
    ("uri-template", "{var"),
    # RFC 6570 2.3: varchar is ALPHA / DIGIT / "_" / pct-encoded.
    ("uri-template", "{va-r}"),
    # RFC 6570 2.4.1: max-length is below 10000.
    ("uri-template", "{var:10000}"),
    # RFC 6570 2.1: "<" is not a literal.
    ("uri-template", "a<b"),
    # RFC 6901 3: a reference token starts with "/".
    ("json-pointer", "a/b"),
    # RFC 6901 3: "~" is escaped as "~0" or "~1".
    ("json-pointer", "/a~b"),
    # Relative JSON Pointer 3: the prefix has no leading zero.
    ("relative-json-pointer", "00/a"),
    # Relative JSON Pointer 3: index manipulation is a positive integer.
    ("relative-json-pointer", "1+0/a"),
    # Relative JSON Pointer 3: "#" ends the pointer.
    ("relative-json-pointer", "1#/a"),
    # ECMA-262: an unclosed group.
    ("regex", "(a"),
]


@pytest.mark.parametrize(("name", "text"), REJECTED, ids=[f"{n}:{t!a}" for n, t in REJECTED])
def test_rejections(name: str, text: str) -> None:
    assert CHECKERS[name](text) is False


ACCEPTED: list[tuple[str, str]] = [
    # RFC 3339 5.6: lower-case "t" and "z".
    ("date-time", "2020-01-01t00:00:00.5z"),
    # RFC 3339 5.7: a leap second that is 23:59:60 UTC once the offset is removed.
    ("time", "00:59:60+01:00"),
    # RFC 5234 2.3: ABNF strings are case-insensitive.
    ("duration", "p1y2m3dt4h5m6s"),
    ("email", "user+tag@sub.example.org"),
    # RFC 5321 4.1.2: quoted-pairSMTP escapes a quote.
    ("email", '"a\\"b"@example.com'),
    ("email", "user@[IPv6:2001:db8::1]"),
    ("idn-email", "\u7528\u6237@\u4f8b\u5b50.\u5e7f\u544a"),
    ("hostname", "xn--bcher-kva.example"),
    ("idn-hostname", "b\u00fccher.example"),
    ("idn-hostname", "xn--bcher-kva\u3002example"),
    ("uri", "urn:isbn:0451450523"),
    ("uri", "http://user:pw@[v7.abc]:8080/p?q=1#f"),
    ("uri-reference", "../a/b?c#d"),
    ("iri", "http://\u4f8b\u5b50.\u6d4b\u8bd5/\u8def\u5f84?\ue000"),
    ("uri-template", "/search{?q,lang}{&page:3}{#frag*}"),
    ("json-pointer", "/a~1b/~0"),
    ("relative-json-pointer", "2-1#"),
]


@pytest.mark.parametrize(("name", "text"), ACCEPTED, ids=[f"{n}:{t!a}" for n, t in ACCEPTED])
def test_acceptances(name: str, text: str) -> None:
    assert CHECKERS[name](text) is True


def test_long_inputs_stay_fast() -> None:
    # Linear-time checks: none of these may backtrack catastrophically.
    for name in CHECKERS:
        if name == "regex":
            continue
        for text in ("a" * 100_000 + "!", "1" * 100_000 + "\n", "/" * 100_000 + "~"):
            CHECKERS[name](text)


UCD = Path("/usr/share/unicode")


@pytest.mark.skipif(
    not (UCD / "ArabicShaping.txt").exists(), reason="no Unicode Character Database here"
)
def test_generated_tables_match_the_ucd() -> None:
    from tests.formats.make_ucd_tables import generate

    committed = Path(__file__).parents[2] / "src" / "schemacore" / "formats" / "_ucd.py"
    current = committed.read_text(encoding="utf-8")
    generated = generate(UCD)
    if generated.splitlines()[2] != current.splitlines()[2]:
        pytest.skip("the local UCD is another version than the committed tables")
    assert generated == current
