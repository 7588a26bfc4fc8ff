"""The MCP guard is total: any JSON value as a tool name or as arguments (issue #29, item 5).

A raw ``tools/call`` reaches the SDK's middleware before the SDK validates its
params, so its ``name`` may be a list, an object, a number, null or a boolean, and
its ``arguments`` anything at all. Every entry point of :class:`ToolGuard` and
:class:`ArgumentGuard` answers such a call with a structured refusal, or passes it
on to the SDK's own params validation; none raises.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Awaitable, Callable
from types import SimpleNamespace
from typing import Any, Literal

import pytest
from hypothesis import given
from hypothesis import strategies as st

if os.environ.get("SCHEMACORE_REQUIRE_CLIENTS") != "1":  # CI: a missing SDK fails
    pytest.importorskip("mcp", reason="the mcp extra is not installed")

import anyio  # comes with the mcp extra: imported after the check above
from mcp import Client, MCPError, types

from schemacore.mcp import CALL_META_KEY, ArgumentGuard, ToolGuard
from schemacore.runtime.issues import ISSUE_META_KEY
from tests.properties.profiles import PROFILE
from tests.properties.strategies import json_values

from .mcp_support import connected, listed_tools, low_level, shop

DRAFT_07 = "http://json-schema.org/draft-07/schema#"
# An admitted tool, one with an output schema, and one the listing has but
# admission leaves out (a draft-07 schema).
LISTING: list[dict[str, Any]] = [
    {
        "name": "note",
        "inputSchema": {
            "type": "object",
            "properties": {"text": {"type": "string", "maxLength": 20}},
            "required": ["text"],
        },
    },
    {
        "name": "count",
        "inputSchema": {"type": "object"},
        "outputSchema": {
            "type": "object",
            "properties": {"n": {"type": "integer"}},
            "required": ["n"],
        },
    },
    {"name": "legacy", "inputSchema": {"$schema": DRAFT_07, "type": "object"}},
]
NOT_STRINGS = [["note"], {"name": "note"}, 3, 1.5, None, True, False, [], {}]


class _RawCall(types.Request[dict[str, Any], Literal["tools/call"]]):
    """A ``tools/call`` request whose params are sent as they are, unvalidated."""

    method: Literal["tools/call"] = "tools/call"
    params: dict[str, Any]


def _run(test: Callable[[], Awaitable[None]]) -> None:
    anyio.run(test)


# -- regressions ------------------------------------------------------------------------------


@pytest.mark.parametrize("source", ["listing", "function"])
def test_a_raw_call_whose_name_is_not_a_string_is_left_to_the_sdks_params_validation(
    source: str, caplog: pytest.LogCaptureFixture
) -> None:
    async def check() -> None:
        server, calls = shop()
        tools = await server.list_tools()
        server.middleware.append(
            ArgumentGuard(server.list_tools if source == "function" else tools)
        )
        async with Client(server) as client:
            for name in NOT_STRINGS:
                with pytest.raises(MCPError) as refused:
                    await client.session.send_request(
                        _RawCall(params={"name": name, "arguments": {"text": "x"}}),
                        types.CallToolResult,
                    )
                assert refused.value.error.code == types.INVALID_PARAMS, name
            # Arguments of any shape for a listed tool: a structured refusal.
            for arguments in (["x"], "x", 3, True, {"text": 3}):
                answer = await client.session.send_request(
                    _RawCall(params={"name": "note", "arguments": arguments}),
                    types.CallToolResult,
                )
                assert answer.is_error and answer.meta is not None, arguments
                assert ISSUE_META_KEY in answer.meta
        assert calls == []

    with caplog.at_level(logging.WARNING):
        _run(check)
    # No traceback in the server's log: nothing raised on the way.
    assert not [r for r in caplog.records if r.exc_info], [r.getMessage() for r in caplog.records]


def test_every_guard_entry_point_takes_a_name_that_is_not_a_string() -> None:
    guard = ToolGuard(mode="isolate")
    guard.admit(LISTING)
    for name in NOT_STRINGS:
        assert guard.listed(name) is False
        refusal = guard.refuse_call(name, {"text": "x"})
        assert (
            refusal is not None and refusal["_meta"][CALL_META_KEY]["code"] == "tool-not-admitted"
        )
        assert guard.check_output(name, {"content": []}) is None

    async def check() -> None:
        for tools in (LISTING, lambda: LISTING):
            argument_guard = ArgumentGuard(tools, mode="isolate")
            for name in NOT_STRINGS:
                assert await argument_guard.refusal(name, {"text": "x"}) is None
        # The client side: nothing is sent, the model gets the isError result.
        _, listed, _ = await listed_tools([])
        calls: list[Any] = []
        async with connected(low_level(listed, _never, calls)) as session:
            for name in NOT_STRINGS:
                refused = await session.call_tool(name, {"text": "x"})
                assert refused.is_error and refused.meta is not None
                assert refused.meta[CALL_META_KEY]["code"] == "tool-not-admitted"
            for arguments in (["x"], "x", 3, True):
                refused = await session.call_tool("note", arguments)
                assert refused.is_error and refused.meta is not None
                assert refused.meta[ISSUE_META_KEY]["code"] == "arguments-not-object"
        assert calls == []

    _run(check)


async def _never(name: str, arguments: dict[str, Any]) -> Any:
    raise AssertionError("a refused call reached the server")


# -- the class, as a property -----------------------------------------------------------------

NAMES = st.sampled_from(["note", "count", "legacy", "other"]) | json_values()
ARGUMENTS = (
    json_values()
    | st.dictionaries(st.sampled_from(["text", "n"]), json_values(4), max_size=2)
    | st.fixed_dictionaries({"text": st.text(max_size=25)})
)
# What a middleware's ctx.params may be: absent, not an object, or an object with
# any name and arguments (or without them).
PARAMS = (
    json_values()
    | st.fixed_dictionaries({}, optional={"name": NAMES, "arguments": ARGUMENTS})
    | st.builds(lambda name, arguments: {"name": name, "arguments": arguments}, NAMES, ARGUMENTS)
)


def _structured(result: Any, key: str) -> str:
    """The code of an ``isError`` result the SDK accepts as a ``CallToolResult``."""
    assert result["isError"] is True
    types.CallToolResult.model_validate(result)
    code = result["_meta"][key]["code"]
    assert isinstance(code, str)
    return code


@PROFILE
@given(name=NAMES, arguments=ARGUMENTS, answer=json_values(), params=PARAMS)
def test_the_guards_answer_any_json_name_and_arguments_without_raising(
    name: Any, arguments: Any, answer: Any, params: Any
) -> None:
    guard = ToolGuard(mode="isolate")
    guard.admit(LISTING)
    assert guard.listed(name) is (name in ("note", "count", "legacy"))
    refusal = guard.refuse_call(name, arguments)
    if refusal is not None:
        if name in ("note", "count"):
            assert _structured(refusal, ISSUE_META_KEY).startswith("arguments-")
        else:
            assert _structured(refusal, CALL_META_KEY) == "tool-not-admitted"
    else:
        assert name in ("note", "count")
    problem = guard.check_output(name, answer)
    if problem is not None:
        assert name == "count"
        assert _structured(problem, CALL_META_KEY).startswith("structured-content-")

    passed: list[Any] = []

    async def call_next(ctx: Any) -> str:
        passed.append(ctx)
        return "the SDK's answer"

    async def check() -> None:
        for tools in (LISTING, lambda: LISTING):
            argument_guard = ArgumentGuard(tools, mode="isolate")
            direct = await argument_guard.refusal(name, arguments)
            if isinstance(name, str) and name in ("note", "count", "legacy"):
                assert direct == guard.refuse_call(name, {} if arguments is None else arguments)
            else:
                assert direct is None  # the server (or the SDK's validation) answers
            passed.clear()
            answered = await argument_guard(
                SimpleNamespace(method="tools/call", params=params), call_next
            )
            if passed:
                assert answered == "the SDK's answer"
            else:
                assert isinstance(answered, types.CallToolResult) and answered.is_error

    _run(check)
