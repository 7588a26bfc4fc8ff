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
    BoundaryLimits,
    ToolCatalog,
    tool_error_result,
    validate_arguments,
    validate_schema,
    validate_tool_args,
)
from schemacore.runtime.issues import ISSUE_META_KEY
from schemacore.runtime.jsonvalues import dot_path

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
    # An array index int() refuses (past sys.get_int_max_str_digits()).
    "#/allOf/" + "9" * 5000,
    "9" * 5000,
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
def test_an_identifier_urllib_cannot_split_is_refused_like_the_engine_refuses_it(
    schema: dict[str, Any],
) -> None:
    # Not a URI-reference (an unclosed IP literal): the engine refuses it at the $id
    # (issue #30), and the runtime says so with its own code, never another exception.
    with pytest.raises(schemacore.SchemaError) as refused:
        schemacore.compile(schema)
    assert refused.value.reason == "invalid-identifier"
    with pytest.raises(BoundaryError) as caught:
        validate_schema(schema)
    assert (caught.value.code, caught.value.path) == ("schema-invalid", refused.value.location)
    with pytest.raises(AdmissionRejected):
        ToolCatalog().admit_batch([_tool(schema)])


@pytest.mark.parametrize("identifier", ["//[::1]", "//[v1.x]", "http://[v1.x]/a"])
def test_issues_under_an_ip_literal_identifier_read_the_schema_back(identifier: str) -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"$id": identifier, "enum": ["x", "y"]}},
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


def test_an_array_index_too_long_for_int_is_past_the_end() -> None:
    # resolve_pointer called int() on it, which raised ValueError out of compile.
    huge = "9" * 5000
    with pytest.raises(schemacore.SchemaError, match="past the end"):
        schemacore.compile({"$ref": f"#/allOf/{huge}", "allOf": [{}]})
    with pytest.raises(BoundaryError) as caught:
        validate_schema({"type": "object", "$ref": f"#/allOf/{huge}", "allOf": [{}]})
    assert caught.value.code == "schema-ref-unresolved"
    # The runtime reads a caller's $ref back where the engine never compiled it (a
    # "then" without "if"), and a hand-made error's path: neither may raise.
    schema = {
        "type": "object",
        "allOf": [{"then": {"$ref": f"#/allOf/{huge}"}}],
        "unevaluatedProperties": False,
    }
    (issue,) = validate_tool_args({"x": 1}, validate_schema(schema)).issues
    assert issue.code == "property-not-allowed"
    error = BoundaryError("arguments-too-large", "too large", path=f"/{huge}")
    result = tool_error_result("t", error)["_meta"][ISSUE_META_KEY]["issues"][0]
    assert result["pointer"] == f"/{huge}"


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
    if draw(st.booleans()):
        schema["allOf"] = [{"$ref": draw(_text)}, {"then": {"$ref": draw(_text)}}]
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


# -- item 2: digit-like property names are names -----------------------------------------

# str.isdigit() is true for all of these but "a"; only "0" and "1" spell array indexes,
# and only where the value is an array.
DIGIT_LIKE = ["1", "0", "01", "²", "\u0661", "\u0663", "a"]


def _named(name: str, leaf: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            name: leaf,
            "list": {"type": "array", "items": {"type": "object", "properties": {name: leaf}}},
        },
    }


@pytest.mark.parametrize(
    ("name", "shown"),
    [("²", '["²"]'), ("\u0661", '["\u0661"]'), ("\u0663", '["\u0663"]'), ("1", '["1"]')],
)
def test_a_digit_like_name_over_a_bound_is_a_name(name: str, shown: str) -> None:
    # A bound is hit: the issue comes from the BoundaryError's path, which was read
    # with str.isdigit / int(): "²" raised ValueError, "\u0661" and "1" became [1].
    tool_schema = validate_schema(
        _named(name, {"type": "string"}), boundary_limits=BoundaryLimits(max_string_length=5)
    )
    result = validate_tool_args({name: "long string"}, tool_schema)
    assert not result.ok and result.error_class == "execution_failure"
    (issue,) = result.issues
    assert issue.code == "arguments-string-too-long"
    assert issue.path == shown
    assert issue.pointer == "/" + name
    result = validate_tool_args({"list": [{name: "long string"}]}, tool_schema)
    assert result.issues[0].path == f"list[0]{shown}"
    with pytest.raises(BoundaryError) as caught:
        validate_arguments(tool_schema, {"list": [{}, {name: "long string"}]})
    assert caught.value.tokens == ("list", 1, name)
    issue = tool_error_result("t", caught.value)["_meta"][ISSUE_META_KEY]["issues"][0]
    assert issue["path"] == f"list[1]{shown}"


def test_an_engine_limit_in_an_array_keeps_the_index() -> None:
    # The location of an ExecutionFailure had every token not among the schema's
    # names redacted, array indexes included.
    tool_schema = validate_schema(
        {"type": "object", "properties": {"n": {"type": "array"}}},
        limits=schemacore.Limits(max_instance_nodes=5),
    )
    result = validate_tool_args({"n": [1, [1, 2, 3, 4]]}, tool_schema)
    assert result.error_class == "execution_failure"
    assert (result.issues[0].pointer, result.issues[0].path) == ("/n/1", "n[1]")


def test_an_error_without_tokens_is_read_against_the_arguments_or_as_names() -> None:
    error = BoundaryError("arguments-too-large", "too large", path="/1/0", error_class="x")
    assert tool_error_result("t", error)["_meta"][ISSUE_META_KEY]["issues"][0]["path"] == (
        '["1"]["0"]'
    )


def _expected_path(arguments: Any, pointer: str) -> str:
    """The path of ``pointer`` in ``arguments``, decided independently: a token is an
    index exactly where the value is an array (and then spells one)."""
    node, parts = arguments, []
    for raw in pointer.split("/")[1:] if pointer else []:
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, list):
            assert token.isascii() and token.isdigit(), (pointer, token)
            parts.append(int(token))
            node = node[int(token)] if int(token) < len(node) else None
        else:
            parts.append(token)
            node = node.get(token) if isinstance(node, dict) else None
    return dot_path(parts)


_leaf = st.fixed_dictionaries(
    {},
    optional={
        "type": st.sampled_from(["string", "integer", "array", "object"]),
        "maxLength": st.just(2),
        "maxItems": st.just(1),
        "enum": st.just([1, "x"]),
    },
)


@st.composite
def digit_named_schemas(draw: st.DrawFn) -> dict[str, Any]:
    def level(depth: int) -> dict[str, Any]:
        schema: dict[str, Any] = draw(_leaf)
        if depth < 2:
            names = draw(st.lists(st.sampled_from(DIGIT_LIKE), max_size=3, unique=True))
            schema["properties"] = {name: level(depth + 1) for name in names}
            if draw(st.booleans()):
                schema["items"] = level(depth + 1)
        return schema

    root = level(0)
    root["type"] = "object"
    # Every name is defined somewhere, so no key is redacted and paths can be checked.
    root["$defs"] = {"names": {"properties": {name: True for name in DIGIT_LIKE}}}
    return root


_values = st.recursive(
    st.none() | st.integers(0, 2) | st.sampled_from(["x", "long text"]),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(DIGIT_LIKE), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(
    digit_named_schemas(),
    st.dictionaries(st.sampled_from(DIGIT_LIKE), _values, max_size=3),
    st.sampled_from([BoundaryLimits(), BoundaryLimits(max_string_length=4, max_argument_depth=3)]),
)
def test_a_path_token_is_an_index_only_where_the_value_is_an_array(
    schema: dict[str, Any], arguments: dict[str, Any], bounds: BoundaryLimits
) -> None:
    tool_schema = validate_schema(schema, boundary_limits=bounds)
    result = validate_tool_args(arguments, tool_schema)
    for issue in result.issues:
        assert "*" not in issue.pointer
        assert issue.path == _expected_path(arguments, issue.pointer), issue
    try:
        validate_arguments(tool_schema, arguments)
    except BoundaryError as exc:
        if exc.tokens is not None:
            assert dot_path(exc.tokens) == _expected_path(arguments, exc.path)
        for issue in tool_error_result("t", exc)["_meta"][ISSUE_META_KEY]["issues"]:
            assert issue["path"] == _expected_path(arguments, issue["pointer"])
