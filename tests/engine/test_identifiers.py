"""``$id`` (draft-04: ``id``) and the reference keywords must be URI-references
(RFC 3986): one that is not is a SchemaError of its own reason, ``invalid-identifier``
or ``invalid-reference``, never a reference that silently resolves to nothing. What
real schemas write raw and most implementations read as percent-encoded (a space,
non-ASCII names) keeps working. The property test holds ``uri.is_reference`` against
an oracle written here from RFC 3986's ABNF (appendix A), apart from the engine's."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import schemacore
from schemacore.uri import is_reference

D4 = "http://json-schema.org/draft-04/schema#"
D6 = "http://json-schema.org/draft-06/schema#"
D7 = "http://json-schema.org/draft-07/schema#"
D2019 = "https://json-schema.org/draft/2019-09/schema"
D2020 = "https://json-schema.org/draft/2020-12/schema"
IDENTIFIER = {D4: "id", D6: "$id", D7: "$id", D2019: "$id", D2020: "$id"}

NOT_REFERENCES = [
    "//[::1",  # an unclosed IP literal
    "//[::1]x/",  # something after the literal that is no port
    "http://e.com:8x/",  # a port that is not a number
    "//[v1]/",  # an IPvFuture without its dot
    "1a:b",  # a scheme that starts with a digit, or a colon in a first segment
    "%zz",  # a malformed percent-escape
    "a%4",
    "#/a\nb",  # a control character
    "http://e.com/\x7f",
]


def _refused(schema: Any, reason: str) -> schemacore.SchemaError:
    with pytest.raises(schemacore.SchemaError) as caught:
        schemacore.compile(schema)
    assert caught.value.reason == reason, caught.value
    return caught.value


@pytest.mark.parametrize("dialect", list(IDENTIFIER))
@pytest.mark.parametrize("text", NOT_REFERENCES)
def test_an_identifier_that_is_not_a_uri_reference_is_refused(dialect: str, text: str) -> None:
    keyword = IDENTIFIER[dialect]
    # At the root and embedded, in every dialect, with its own identifier keyword.
    error = _refused({"$schema": dialect, keyword: text}, "invalid-identifier")
    assert error.location == f"/{keyword}" and "URI-reference" in error.message
    nested = {"$schema": dialect, "properties": {"a": {keyword: text}}}
    assert _refused(nested, "invalid-identifier").location == f"/properties/a/{keyword}"


@pytest.mark.parametrize(
    ("keyword", "dialect"),
    [("$ref", D2020), ("$dynamicRef", D2020), ("$recursiveRef", D2019), ("$ref", D4), ("$ref", D7)],
)
@pytest.mark.parametrize("text", NOT_REFERENCES)
def test_a_reference_that_is_not_a_uri_reference_has_a_reason_of_its_own(
    keyword: str, dialect: str, text: str
) -> None:
    error = _refused(
        {"$schema": dialect, "properties": {"a": {keyword: text}}}, "invalid-reference"
    )
    assert error.location == f"/properties/a/{keyword}" and keyword in error.message


@pytest.mark.parametrize(
    ("schema", "valid", "invalid"),
    [
        ({"$ref": "#/$defs/Some Name", "$defs": {"Some Name": {"type": "string"}}}, "x", 1),
        ({"$ref": "#/$defs/%C3%A9t%C3%A9", "$defs": {"été": {"type": "string"}}}, "x", 1),
        ({"$ref": "#/$defs/été", "$defs": {"été": {"type": "string"}}}, "x", 1),
        (
            {
                "$id": "http://e.com/a b/root",
                "$ref": "#/$defs/s",
                "$defs": {"s": {"type": "string"}},
            },
            "x",
            1,
        ),
        (
            {
                "$id": "urn:example:root",
                "$ref": "urn:example:root#/$defs/s",
                "$defs": {"s": {"type": "string"}},
            },
            "x",
            1,
        ),
    ],
)
def test_characters_that_carry_no_structure_read_as_percent_encoded(
    schema: Any, valid: Any, invalid: Any
) -> None:
    validator = schemacore.compile(schema)
    assert validator.is_valid(valid) and not validator.is_valid(invalid)


def test_a_schema_uri_that_is_not_absolute_says_so() -> None:
    with pytest.raises(schemacore.UnsupportedCapability) as caught:
        schemacore.compile({"$schema": "not a uri"})
    assert caught.value.reason == "unsupported-dialect"
    assert "not an absolute URI" in caught.value.message
    with pytest.raises(schemacore.UnsupportedCapability) as caught:
        schemacore.compile({"$schema": "http://e.com/unknown"})
    assert "not an absolute URI" not in caught.value.message


# -- the oracle: RFC 3986 appendix A, transcribed ---------------------------------------

_DEC_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9][0-9]|[0-9])"
_IPV4 = rf"{_DEC_OCTET}\.{_DEC_OCTET}\.{_DEC_OCTET}\.{_DEC_OCTET}"
_H16 = r"[0-9A-Fa-f]{1,4}"
_LS32 = rf"(?:{_H16}:{_H16}|{_IPV4})"
_IPV6 = "|".join(
    [
        rf"(?:{_H16}:){{6}}{_LS32}",
        rf"::(?:{_H16}:){{5}}{_LS32}",
        rf"(?:{_H16})?::(?:{_H16}:){{4}}{_LS32}",
        rf"(?:(?:{_H16}:){{0,1}}{_H16})?::(?:{_H16}:){{3}}{_LS32}",
        rf"(?:(?:{_H16}:){{0,2}}{_H16})?::(?:{_H16}:){{2}}{_LS32}",
        rf"(?:(?:{_H16}:){{0,3}}{_H16})?::{_H16}:{_LS32}",
        rf"(?:(?:{_H16}:){{0,4}}{_H16})?::{_LS32}",
        rf"(?:(?:{_H16}:){{0,5}}{_H16})?::{_H16}",
        rf"(?:(?:{_H16}:){{0,6}}{_H16})?::",
    ]
)
_UNRESERVED = r"[A-Za-z0-9\-._~]"
_SUB_DELIMS = r"[!$&'()*+,;=]"
_PCT = r"%[0-9A-Fa-f]{2}"
_IPVFUTURE = rf"[vV][0-9A-Fa-f]+\.(?:{_UNRESERVED}|{_SUB_DELIMS}|:)+"
_HOST = rf"(?:\[(?:{_IPV6}|{_IPVFUTURE})\]|(?:{_UNRESERVED}|{_PCT}|{_SUB_DELIMS})*)"
_USERINFO = rf"(?:{_UNRESERVED}|{_PCT}|{_SUB_DELIMS}|:)*"
_AUTHORITY = rf"(?:{_USERINFO}@)?{_HOST}(?::[0-9]*)?"
_PCHAR = rf"(?:{_UNRESERVED}|{_PCT}|{_SUB_DELIMS}|[:@])"
_SEGMENT = rf"{_PCHAR}*"
_SEGMENT_NZ = rf"{_PCHAR}+"
_SEGMENT_NZ_NC = rf"(?:{_UNRESERVED}|{_PCT}|{_SUB_DELIMS}|@)+"
_PATH_ABEMPTY = rf"(?:/{_SEGMENT})*"
_PATH_ABSOLUTE = rf"/(?:{_SEGMENT_NZ}(?:/{_SEGMENT})*)?"
_QUERY = rf"(?:{_PCHAR}|[/?])*"
_TAIL = rf"(?:\?{_QUERY})?(?:#{_QUERY})?"
_SCHEME = r"[A-Za-z][A-Za-z0-9+\-.]*"
_URI = (
    rf"{_SCHEME}:(?://{_AUTHORITY}{_PATH_ABEMPTY}|{_PATH_ABSOLUTE}"
    rf"|{_SEGMENT_NZ}(?:/{_SEGMENT})*|){_TAIL}"
)
_RELATIVE = (
    rf"(?://{_AUTHORITY}{_PATH_ABEMPTY}|{_PATH_ABSOLUTE}"
    rf"|{_SEGMENT_NZ_NC}(?:/{_SEGMENT})*|){_TAIL}"
)
_URI_REFERENCE = re.compile(rf"(?:{_URI}|{_RELATIVE})", re.ASCII)
_NO_STRUCTURE = re.compile(r'[ "<>\\^`{|}\x80-\U0010ffff]')


def oracle(text: str) -> bool:
    """RFC 3986's URI-reference, characters without structure read as encoded."""
    if re.search(r"[\x00-\x1f\x7f]", text):
        return False
    return _URI_REFERENCE.fullmatch(_NO_STRUCTURE.sub("%20", text)) is not None


_PIECES = st.sampled_from(
    [
        "http:",
        "urn:",
        "a+b.c-d:",
        "1a:",
        ":",
        "//",
        "/",
        "?",
        "#",
        "@",
        "[",
        "]",
        "::1",
        "v1.x",
        "v1",
        "1.2.3.4",
        "256.1.1.1",
        "fe80::",
        "::ffff:1.2.3.4",
        ":80",
        ":8x",
        "%20",
        "%2",
        "%zz",
        "%",
        "a",
        "Z",
        "0",
        "9",
        "-",
        ".",
        "_",
        "~",
        "!",
        "$",
        "&",
        "'",
        "(",
        ")",
        "*",
        "+",
        ",",
        ";",
        "=",
        " ",
        "é",
        "\n",
        "{",
        "|",
        "^",
        "e.com",
        "user:pw@",
        "..",
        "./",
        "g;x=1",
    ]
)


@settings(max_examples=3000, deadline=None, derandomize=True, database=None)
@given(st.lists(_PIECES, max_size=8).map("".join) | st.text(max_size=12))
def test_is_reference_agrees_with_an_rfc_3986_grammar(text: str) -> None:
    assert is_reference(text) == oracle(text), text


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.lists(_PIECES, max_size=6).map("".join))
def test_compile_refuses_exactly_the_identifiers_the_grammar_refuses(text: str) -> None:
    schema = {"properties": {"a": {"$id": text}}}
    if not oracle(text) and "#" not in text:
        _refused(schema, "invalid-identifier")
        return
    try:
        schemacore.compile(schema)
    except schemacore.SchemaError as exc:
        # A fragment in a 2020-12 $id is the meta-schema's to refuse, first.
        assert exc.reason != "invalid-identifier" or ("#" in text and not oracle(text)), text


@pytest.mark.parametrize(
    ("schema", "path"),
    [
        ({"type": "object", "$id": "//[::1"}, "/$id"),
        ({"type": "object", "properties": {"a": {"$ref": "//[::1"}}}, "/properties/a/$ref"),
    ],
)
def test_admission_refuses_an_identifier_or_reference_that_is_not_a_uri_reference(
    schema: Any, path: str
) -> None:
    from schemacore.runtime import AdmissionRejected, ToolCatalog

    with pytest.raises(AdmissionRejected) as caught:
        ToolCatalog().admit_batch([{"name": "t", "inputSchema": schema}])
    (diagnostic,) = caught.value.rejected
    assert (diagnostic.field, diagnostic.code) == ("inputSchema", "schema-invalid")
    assert diagnostic.error.path == path
    assert "URI-reference" in diagnostic.error.message
