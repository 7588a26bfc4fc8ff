"""Hostile schema text and argument keys at the runtime (issue #14, round 2).

Identifiers that ``urllib.parse`` cannot split (``//[::1``), property names that
``str.isdigit`` calls digits (``²``, ARABIC-INDIC DIGIT ONE) and lone surrogates reach the runtime
through schemas the engine compiles. Whatever they are, the runtime answers with
its documented results or a :class:`BoundaryError` / :class:`AdmissionRejected`,
never another exception, and a path segment is an array index only where the
value at that place is an array.
"""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import schemacore
from schemacore.runtime import (
    AdmissionRejected,
    BoundaryError,
    ToolCatalog,
    tool_error_result,
    validate_arguments,
    validate_schema,
    validate_tool_args,
)

# Text urllib.parse raises ValueError on, or that percent-decoding and str.isdigit
# treat specially: the class of strings this file is about.
HOSTILE_TEXT = [
    "//[::1",
    "http://[::1",
    "//[",
    "//]",
    "http://[v1.x]/",
    "[::1]",
    "%",
    "%FF",
    "%ED%A0%80",
    "\ud800",
    "a\udfffb",
    "#",
    "#/",
    "²",
    "\u0661",  # ARABIC-INDIC DIGIT ONE: int() reads it as 1
    "\u0663",
    "1",
    "01",
    "-1",
    "~",
    "~1",
    "/",
    "",
]


def _tool(schema: dict[str, Any]) -> dict[str, Any]:
    return {"name": "t", "description": "d", "inputSchema": schema}


# -- item 1: identifiers urllib cannot parse ------------------------------------------


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"a": {"$id": "//[::1", "type": "string"}}},
        {
            "$id": "https://example.com/root",
            "type": "object",
            "properties": {"a": {"$id": "//[::1", "type": "string"}},
        },
        {"type": "object", "properties": {"a": {"$id": "//[::1#", "type": "string"}}},
        {
            "type": "object",
            "properties": {
                "a": {
                    "$id": "http://[::1",
                    "type": "object",
                    "properties": {"b": {"$id": "c", "minLength": 2}},
                }
            },
        },
    ],
)
def test_an_identifier_urllib_cannot_split_is_admitted_like_the_engine_does(
    schema: dict[str, Any],
) -> None:
    schemacore.compile(schema)  # the engine accepts it
    tool_schema = validate_schema(schema)
    ToolCatalog().admit_batch([_tool(schema)])
    result = validate_tool_args({"a": 1}, tool_schema)
    assert not result.ok
    with pytest.raises(BoundaryError) as caught:
        validate_arguments(tool_schema, {"a": 1})
    assert caught.value.code == "arguments-invalid"


def test_issues_under_an_ipv6_like_identifier_read_the_schema_back() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"$id": "//[::1", "enum": ["x", "y"]}},
    }
    (issue,) = validate_tool_args({"a": 1}, validate_schema(schema)).issues
    # The constraint was found in the schema through the nested resource's URI.
    assert issue.code == "enum-mismatch"
    assert issue.expected == 'one of "x", "y"'


def test_dialect_uris_urllib_cannot_split_do_not_break_the_loader_guard() -> None:
    # Every $schema string, data included, is kept from the loader: it was split
    # with urldefrag, which raised on the brackets.
    schema = {
        "type": "object",
        "properties": {"a": {"const": {"$schema": "http://[::1#"}}},
    }
    validate_schema(schema, loader=lambda uri: {})
    with pytest.raises(BoundaryError) as caught:
        validate_schema(
            {"type": "object", "properties": {"a": {"$schema": "http://[::1#"}}},
            loader=lambda uri: {},
        )
    assert caught.value.code == "schema-dialect-unsupported"


def test_a_lone_surrogate_property_name_is_reported_not_raised() -> None:
    # as_fragment percent-encoded the location with strict UTF-8 and raised
    # UnicodeEncodeError out of iter_errors.
    schema = {"type": "object", "properties": {"\ud800": {"type": "string"}}}
    validator = schemacore.compile(schema)
    (error,) = validator.iter_errors({"\ud800": 1})
    assert error.absolute_keyword_location == "#/properties/%ED%A0%80/type"
    (issue,) = validate_tool_args({"\ud800": 1}, validate_schema(schema)).issues
    assert issue.code == "type-mismatch" and issue.expected == "string"


def test_a_reference_to_a_lone_surrogate_name_resolves() -> None:
    schema = {"$ref": "#/$defs/%ED%A0%80", "$defs": {"\ud800": {"type": "string"}}}
    validator = schemacore.compile(schema)
    assert validator.is_valid("s") and not validator.is_valid(1)
    with pytest.raises(schemacore.SchemaError):
        schemacore.compile({"$ref": "#/$defs/%FF", "$defs": {"\ud800": {}}})


# -- the class: hostile text anywhere a schema holds a string --------------------------

_text = st.sampled_from(HOSTILE_TEXT) | st.text(
    alphabet=st.sampled_from([*"[]:/#%F1²a", "\u0661", "\ud800"]),
    max_size=8,
)


@st.composite
def hostile_schemas(draw: st.DrawFn) -> dict[str, Any]:
    """An object schema whose identifiers, anchors, references, dialects and
    property names are drawn from hostile text."""
    names = draw(st.lists(_text, min_size=1, max_size=3, unique=True))
    properties: dict[str, Any] = {}
    for name in names:
        sub: dict[str, Any] = {"type": draw(st.sampled_from(["string", "integer", "array"]))}
        for keyword in draw(st.sets(st.sampled_from(["$id", "$ref", "$anchor", "$schema"]))):
            sub[keyword] = draw(_text)
        if draw(st.booleans()):
            sub["items"] = {"enum": [1, 2], "$id": draw(_text)}
        properties[name] = sub
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if draw(st.booleans()):
        schema["$id"] = draw(st.sampled_from(["https://example.com/r", "urn:x:y", draw(_text)]))
    if draw(st.booleans()):
        schema["additionalProperties"] = False
    return schema


@st.composite
def arguments_for(draw: st.DrawFn, schema: dict[str, Any]) -> dict[str, Any]:
    names = list(schema["properties"]) + draw(st.lists(_text, max_size=2))
    values = st.recursive(
        st.none() | st.integers(-2, 2) | _text,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_text, inner, max_size=2),
        max_leaves=6,
    )
    return draw(st.dictionaries(st.sampled_from(names), values, max_size=4))


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.data())
def test_hostile_schema_text_only_ever_gives_documented_errors(data: st.DataObject) -> None:
    schema = data.draw(hostile_schemas())
    with contextlib.suppress(schemacore.SchemaCoreError):
        schemacore.compile(schema)
    try:
        tool_schema = validate_schema(schema, loader=lambda uri: {"type": "integer"})
    except BoundaryError:
        return
    with contextlib.suppress(AdmissionRejected):
        ToolCatalog().admit_batch([_tool(schema)])
    arguments = data.draw(arguments_for(schema))
    result = validate_tool_args(arguments, tool_schema)
    for issue in result.issues:
        assert isinstance(issue.path, str) and isinstance(issue.message, str)
    try:
        validate_arguments(tool_schema, arguments)
    except BoundaryError as exc:
        if exc.code.startswith("arguments-"):
            tool_error_result("t", exc)
