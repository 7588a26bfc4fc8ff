"""Property test: sentinel strings in the arguments never leak into issues.

Sentinels are placed anywhere in the arguments, as values and as object keys. They
must not appear in any issue, in the model-visible rendering, in the MCP ``isError``
result or in a BoundaryError, except as the capped excerpt (``value``) of a
string-shape issue about that very string.
"""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from schemacore.runtime import (
    BoundaryError,
    ToolArgIssue,
    ToolSchema,
    format_tool_arg_issues,
    parse_tool_args,
    tool_error_result,
    validate_arguments,
    validate_schema,
    validate_tool_args,
)

SENTINEL = re.compile(r"SNTL[0-9a-f]{8}")
STRING_SHAPE = {"string-pattern-mismatch", "string-too-short", "string-too-long"}

NAMES = ["name", "tags", "kind", "meta", "target", "count", "env", "card", "cvv", "mode"]

SCHEMAS: list[dict[str, Any]] = [
    {
        "type": "object",
        "properties": {
            "name": {"type": "string", "pattern": "^[a-z]+$", "maxLength": 8, "description": "N"},
            "tags": {
                "type": "array",
                "items": {"type": "string", "minLength": 20},
                "uniqueItems": True,
                "maxItems": 3,
            },
            "kind": {"enum": ["a", "b"]},
            "count": {"type": "integer", "minimum": 0, "multipleOf": 2},
            "mode": {"const": "fast"},
        },
        "required": ["name", "kind"],
        "additionalProperties": False,
    },
    {
        "type": "object",
        "properties": {"meta": {"type": "object", "propertyNames": {"pattern": "^[a-z]{1,5}$"}}},
        "patternProperties": {"^x-": {"type": "integer"}},
        "additionalProperties": {"type": "string", "format": "email", "maxLength": 30},
        "propertyNames": {"maxLength": 40},
        "minProperties": 2,
    },
    {
        "type": "object",
        "properties": {
            "target": {
                "oneOf": [
                    {
                        "type": "object",
                        "properties": {"kind": {"const": "a"}, "name": {"type": "string"}},
                        "required": ["kind", "name"],
                    },
                    {
                        "type": "object",
                        "properties": {"kind": {"const": "b"}, "count": {"type": "integer"}},
                        "required": ["kind", "count"],
                    },
                ]
            },
            "env": {"anyOf": [{"type": "string", "pattern": "^prod$"}, {"type": "array"}]},
            "name": {"not": {"type": "string"}},
        },
        "dependentRequired": {"card": ["cvv"]},
        "if": {"required": ["mode"]},
        "then": {"properties": {"mode": {"type": "integer"}}},
        "unevaluatedProperties": False,
        "allOf": [{"properties": {"card": True, "cvv": {"$ref": "#/$defs/cvv"}, "mode": True}}],
        "$defs": {"cvv": {"type": "string", "pattern": "^[0-9]{3}$"}},
    },
    {
        "type": "object",
        "properties": {
            "tags": {
                "prefixItems": [{"type": "string", "maxLength": 2}],
                "items": False,
                "contains": {"type": "integer"},
            },
            "meta": {"additionalProperties": {"type": "object", "required": ["name"]}},
            "name": {"type": ["integer", "null"]},
            "count": {"maxProperties": 1, "minLength": 2},
        },
    },
]

TOOLS: list[ToolSchema] = [validate_schema(s, format_assertion=True) for s in SCHEMAS]

sentinels = st.builds(lambda n: f"SNTL{n:08x}", st.integers(0, 2**32 - 1))
padding = st.text(alphabet="abcXYZ -_09", max_size=40)
sentinel_strings = st.one_of(
    sentinels,
    st.builds(lambda a, s, b: a + s + b, padding, sentinels, padding),
)
strings = st.one_of(sentinel_strings, st.sampled_from(["a", "b", "fast", "prod", "abc"]))
keys = st.one_of(sentinel_strings, st.sampled_from([*NAMES, "x-1", "ok"]))
scalars = st.one_of(
    strings,
    st.integers(-5, 5),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.booleans(),
    st.none(),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(keys, inner, max_size=4),
    ),
    max_leaves=20,
)
arguments = st.dictionaries(keys, values, max_size=6)


def matches(container: Any, tokens: list[str]) -> list[Any]:
    """Values at a redacted pointer: ``*`` matches any key."""
    found = [container]
    for token in tokens:
        step: list[Any] = []
        for node in found:
            if isinstance(node, dict):
                if token == "*":
                    step.extend(node.values())
                elif token in node:
                    step.append(node[token])
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                step.append(node[int(token)])
        found = step
    return found


def assert_clean(text: str, where: str) -> None:
    found = SENTINEL.search(text)
    assert found is None, f"sentinel leaked into {where}: {text!r}"


def check_issue(issue: ToolArgIssue, args: Any) -> None:
    fields = issue.to_dict()
    value = fields.pop("value", None)
    assert_clean(json.dumps(fields, ensure_ascii=False), f"issue {issue.code}")
    if value is None or not SENTINEL.search(value):
        return
    assert issue.code in STRING_SHAPE, issue
    tokens = [] if not issue.pointer else issue.pointer[1:].split("/")
    prefix = value[:-1] if value.endswith("…") else value
    strings_there = [v for v in matches(args, tokens) if isinstance(v, str)]
    assert any(v.startswith(prefix) for v in strings_there), (issue, args)


def rendering_without_excerpts(text: str, issues: tuple[ToolArgIssue, ...]) -> str:
    for issue in issues:
        if issue.value is not None:
            text = text.replace(json.dumps(issue.value, ensure_ascii=False), "")
    return text


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(args=arguments, which=st.integers(0, len(TOOLS) - 1))
@example(args={"name": "SNTL0000abcd", "SNTL0000abce": 1}, which=0)
@example(args={"meta": {"SNTL0000abcf": 1}, "SNTL0000abd0": "SNTL0000abd1" * 3}, which=1)
@example(args={"target": {"kind": "b", "count": "SNTL0000abd2"}, "cvv": "SNTL0000abd3"}, which=2)
@example(args={"tags": ["SNTL0000abd4", "x"], "meta": {"SNTL0000abd5": {}}}, which=3)
def test_sentinels_never_leak(args: dict[str, Any], which: int) -> None:
    tool = TOOLS[which]
    result = validate_tool_args(args, tool)
    for issue in result.issues:
        check_issue(issue, args)
    text = format_tool_arg_issues("tool", result.issues, total=result.total)
    assert_clean(rendering_without_excerpts(text, result.issues), "rendering")
    if result.issues:
        payload = tool_error_result("tool", result)
        (content,) = payload.pop("content")
        assert_clean(rendering_without_excerpts(content["text"], result.issues), "isError text")
        meta = payload["_meta"]["schemacore/tool-arg-issues"]
        for issue_dict in meta.pop("issues"):
            check_issue(ToolArgIssue(**issue_dict), args)
        assert_clean(json.dumps(payload, ensure_ascii=False), "isError result")
    try:
        validate_arguments(tool, args)
    except BoundaryError as error:
        data = error.to_dict()
        data.pop("issues", None)
        assert_clean(json.dumps(data, ensure_ascii=False), "BoundaryError")


@settings(max_examples=200, deadline=None)
@given(
    args=arguments, cut=st.integers(0, 10_000), junk=st.sampled_from(["", ",", "}", "\\", "NaN"])
)
def test_sentinels_never_leak_from_broken_text(args: dict[str, Any], cut: int, junk: str) -> None:
    text = json.dumps(args)
    position = cut % (len(text) + 1)
    broken = text[:position] + junk + text[position:]
    try:
        parse_tool_args(broken)
    except BoundaryError as error:
        assert_clean(json.dumps(error.to_dict()), "parse error")
