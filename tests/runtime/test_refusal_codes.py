"""Arguments that are not JSON, or not an object, given as Python values keep the
boundary's code in every result built from them (issue #29, item 4).

``arguments-invalid`` is the code of schema mismatches only (docs/runtime.md). A
NaN, an infinity, a non-string key, a tuple, a set, bytes, an opaque object (at any
depth) or a root that is not an object is refused with the issue code the boundary
gives it (``arguments-value-not-json``, ``arguments-key-not-string``,
``arguments-not-object``), and the top-level code says the same in every place it
is derived: the verdict (``ToolArgValidationResult.code``), ``tool_error_result``
(from the verdict, from its issues, from the ``BoundaryError``), the gateway's
outcome and evidence, and the MCP adapter's ``isError`` result. Where JSON text can
express the value, sending it as text gives the same code as sending the object.
"""

from __future__ import annotations

import functools
import json
import math
import os
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from schemacore.runtime import (
    BoundaryError,
    parse_tool_args,
    tool_error_result,
    validate_arguments,
    validate_schema,
    validate_tool_args,
)
from schemacore.runtime.gateway import Gateway
from schemacore.runtime.issues import ISSUE_META_KEY
from schemacore.runtime.toolschema import ToolSchema
from tests.properties.profiles import PROFILE
from tests.runtime.gateway_support import SEARCH_SCHEMA, Recorder, admit, gateway, search_contract

try:
    from schemacore.mcp import ToolGuard
except ImportError:  # the mcp extra is not installed: the other paths are still checked
    if os.environ.get("SCHEMACORE_REQUIRE_CLIENTS") == "1":
        raise
    ToolGuard = None  # type: ignore[assignment,misc]

NAN, INF = float("nan"), float("inf")
# The codes of arguments that cannot be checked because they are not a JSON object.
NOT_JSON_CODES = frozenset(
    {"arguments-value-not-json", "arguments-key-not-string", "arguments-not-object"}
)


class _Opaque:
    """A value of no JSON type at all."""


# (arguments, code): each way a Python value leaves the JSON data model, at the top
# and nested, and each root that is not an object.
NOT_JSON = [
    ({"query": NAN}, "arguments-value-not-json"),
    ({"query": INF}, "arguments-value-not-json"),
    ({"query": -INF}, "arguments-value-not-json"),
    ({"query": "x", "limit": [1, {"deep": [NAN]}]}, "arguments-value-not-json"),
    ({"query": (1, 2)}, "arguments-value-not-json"),
    ({"query": {1, 2}}, "arguments-value-not-json"),
    ({"query": frozenset()}, "arguments-value-not-json"),
    ({"query": b"x"}, "arguments-value-not-json"),
    ({"query": bytearray(b"x")}, "arguments-value-not-json"),
    ({"query": _Opaque()}, "arguments-value-not-json"),
    ({"query": 1j}, "arguments-value-not-json"),
    ({"query": Decimal("NaN")}, "arguments-value-not-json"),
    ({"query": 10**5000}, "arguments-value-not-json"),  # too long to write as text
    ({"query": [[[{"a": [(1,)]}]]]}, "arguments-value-not-json"),
    ({1: "a"}, "arguments-key-not-string"),
    ({None: "a"}, "arguments-key-not-string"),
    ({"query": {"a": {(1,): "b"}}}, "arguments-key-not-string"),
    ([1], "arguments-not-object"),
    ([], "arguments-not-object"),
    ((("query", "x"),), "arguments-value-not-json"),  # a tuple is no JSON value at all
    (None, "arguments-not-object"),
    (3, "arguments-not-object"),
    (True, "arguments-not-object"),
    ([NAN], "arguments-value-not-json"),  # the values are checked before the root
]


@functools.cache
def _tool() -> ToolSchema:
    return validate_schema(SEARCH_SCHEMA)


@functools.cache
def _mcp_guard() -> ToolGuard:
    guard = ToolGuard()
    guard.admit([{"name": "search", "inputSchema": SEARCH_SCHEMA}])
    return guard


@functools.cache
def _gateway(mode: str) -> Gateway:
    # One per mode for every example: a gateway serves any number of calls.
    return gateway(admit({"search": search_contract()}), Recorder(), argument_mode=mode)


def _code_of(result: dict[str, Any]) -> str:
    code: str = result["_meta"][ISSUE_META_KEY]["code"]
    return code


def _object_code(arguments: Any) -> str | None:
    """The code every path derives for ``arguments`` given as a Python value, after
    checking that they all derive the same one (None: accepted)."""
    verdict = validate_tool_args(arguments, _tool())
    try:
        validate_arguments(_tool(), arguments)
        raised = None
    except BoundaryError as exc:
        raised = exc.code
    outcome = _gateway("enforce").call("search", arguments, caller="alice", run="r")
    refused = _mcp_guard().refuse_call("search", arguments) if ToolGuard is not None else None
    if verdict.ok:
        assert (raised, verdict.code, outcome.step, refused) == (None, None, None, None)
        return None
    code = verdict.code
    assert code is not None
    meta = tool_error_result("search", verdict)["_meta"][ISSUE_META_KEY]
    from_issues = tool_error_result("search", verdict.issues)["_meta"][ISSUE_META_KEY]
    assert meta["code"] == from_issues["code"] == raised == code
    assert meta["errorClass"] == from_issues["errorClass"] == verdict.error_class
    assert (outcome.step, outcome.code, outcome.dispatched) == ("arguments", code, False)
    assert _code_of(outcome.result) == outcome.evidence["code"] == code
    if ToolGuard is not None:  # the MCP adapter's isError result
        assert refused is not None and _code_of(refused) == code
    return code


def _text_code(text: str) -> str | None:
    """The code of ``text`` sent as JSON text, the gateway's and tool_error_result's."""
    outcome = _gateway("enforce").call("search", text, caller="alice", run="r")
    try:
        verdict = validate_tool_args(parse_tool_args(text), _tool())
    except BoundaryError as exc:
        code: str | None = _code_of(tool_error_result("search", exc))
    else:
        code = _code_of(tool_error_result("search", verdict)) if not verdict.ok else None
    assert outcome.code == code, (outcome.step, outcome.code, code)
    return code


# -- regressions ------------------------------------------------------------------------------


@pytest.mark.parametrize(("arguments", "code"), NOT_JSON)
def test_arguments_outside_json_given_as_python_values_keep_their_code_everywhere(
    arguments: Any, code: str
) -> None:
    assert _object_code(arguments) == code
    for mode in ("warn", "off"):  # refused in every mode, with the same code
        verdict = validate_tool_args(arguments, _tool(), mode="warn")
        assert (verdict.ok, verdict.code) == (False, code)
        outcome = _gateway(mode).call("search", arguments, caller="alice", run="r")
        assert (outcome.step, outcome.code) == ("arguments", code), mode
        assert _code_of(outcome.result) == code


def test_only_schema_mismatches_are_arguments_invalid() -> None:
    assert _object_code({"query": ""}) == "arguments-invalid"
    assert _object_code({"query": "x", "limit": "5"}) == "arguments-invalid"
    assert _object_code({"query": "x"}) is None
    verdict = validate_tool_args({"query": 5}, _tool(), mode="warn")
    assert (verdict.ok, verdict.code) == (True, "arguments-invalid")  # warn lets it run


def test_a_bound_keeps_its_code_and_class_from_a_bare_issue_list() -> None:
    deep: Any = "x"
    for _ in range(70):
        deep = [deep]
    verdict = validate_tool_args({"query": deep}, _tool())
    for failure in (verdict, verdict.issues):
        meta = tool_error_result("search", failure)["_meta"][ISSUE_META_KEY]
        assert (meta["code"], meta["errorClass"]) == ("arguments-too-deep", "execution_failure")


# -- the class, as a property -----------------------------------------------------------------

_text = st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=6)
_json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**53), 2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | _text
)
_non_finite = st.sampled_from([NAN, INF, -INF])
_not_json_scalars = (
    st.sampled_from([(1, 2), (), {1}, frozenset({"a"}), b"x", bytearray(), 1j, Decimal("NaN")])
    | st.builds(_Opaque)
    # Built, not listed: an integer this long has no repr for hypothesis to show.
    | st.builds(pow, st.just(10), st.just(5000))
)
_keys = st.sampled_from(["query", "limit"]) | _text
_odd_keys = st.sampled_from([1, None, True, 1.5, (1,)])


def _values(scalars: st.SearchStrategy[Any], keys: st.SearchStrategy[Any]) -> Any:
    return st.recursive(
        scalars,
        lambda children: (
            st.lists(children, max_size=4)
            | st.dictionaries(keys, children, max_size=4)
            | st.lists(children, max_size=3).map(tuple)
        ),
        max_leaves=12,
    )


_any_scalar = _json_scalars | _non_finite | _not_json_scalars
ARGUMENTS = (
    # Near the schema: valid, a mismatch, or a non-finite number where one is asked for.
    st.fixed_dictionaries(
        {"query": _text}, optional={"limit": st.integers(0, 60) | _json_scalars | _non_finite}
    )
    | st.dictionaries(_keys | _odd_keys, _values(_any_scalar, _keys | _odd_keys), max_size=4)
    | st.dictionaries(_keys, _values(_json_scalars | _non_finite, _keys), max_size=4)
    | _values(_any_scalar, _keys | _odd_keys).filter(lambda v: not isinstance(v, (str, bytes)))
)


def _kind(value: Any) -> str:
    """How JSON text can carry ``value``: ``json`` (as strict JSON), ``non-finite``
    (only NaN or an infinity keeps it from that: text spells those, non-strictly) or
    ``other`` (not at all)."""
    if value is None or type(value) in (bool, str) or (type(value) is int and abs(value) < 2**53):
        return "json"
    if type(value) is float:
        return "json" if math.isfinite(value) else "non-finite"
    if type(value) is list:
        inner = [_kind(item) for item in value]
    elif type(value) is dict and all(type(key) is str for key in value):
        inner = [_kind(item) for item in value.values()]
    else:
        return "other"
    if "other" in inner:
        return "other"
    return "non-finite" if "non-finite" in inner else "json"


@PROFILE
@given(arguments=ARGUMENTS)
def test_a_non_json_value_is_never_arguments_invalid_and_text_agrees(arguments: Any) -> None:
    code = _object_code(arguments)
    kind = _kind(arguments)
    if kind == "json":
        # The same value as text: the same verdict, the same code.
        assert _text_code(json.dumps(arguments, allow_nan=False)) == code
        return
    assert code in NOT_JSON_CODES
    if kind == "non-finite":
        # Text can spell NaN and the infinities only outside strict JSON: refused as
        # text for that, with the text's own code, never as a schema mismatch.
        assert code == "arguments-value-not-json"
        assert _text_code(json.dumps(arguments)) == "arguments-json-number-invalid"
