"""Sentinel: no argument value reaches the model through schemacore.mcp, on either
side, except the documented capped excerpt of a string-shape issue.

Every refused call below carries a unique sentinel in an argument value or key. The
whole result the model would read (text, ``_meta``, everything) is searched for it.
The same calls made to the SDK's own server without the guard do leak it: the test
can fail.
"""

from __future__ import annotations

import os
from typing import Any

import pytest

if os.environ.get("SCHEMACORE_REQUIRE_CLIENTS") != "1":  # CI: a missing SDK fails
    pytest.importorskip("mcp", reason="the mcp extra is not installed")

import anyio  # comes with the mcp extra: imported after the check above
from mcp import Client, types

from schemacore.mcp import ArgumentGuard
from schemacore.runtime import BoundaryLimits

from .mcp_support import connected, listed_tools, low_level, shop

S = "SNTL-4b1e9d0c7a"
PET = {"kind": "cat", "lives": 9}
ITEM = {"sku": "ABC-1234", "size": "small"}

# (tool, arguments): each refused, each with the sentinel outside any string-shape issue
# (as a value of the wrong type or not in an enum, a const tag, a key of the caller's).
LEAKY_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("order", {"item": ITEM, "quantity": S, "pet": PET}),
    ("order", {"item": {"sku": "ABC-1234", "size": S}, "quantity": 1, "pet": PET}),
    ("order", {"item": ITEM, "quantity": 1, "pet": {"kind": S, "lives": 9}}),
    ("order", {"item": ITEM, "quantity": 1, "pet": {"kind": "cat", "lives": S}}),
    ("order", {"item": ITEM, "quantity": 0, "pet": PET, S: S}),
    ("order", {"item": {"size": "small", S: S}, "quantity": 1, "pet": PET}),
    ("order", {"item": [S, {S: S}], "quantity": 1, "pet": PET}),
    ("order", {"item": ITEM, "quantity": [S], "pet": PET}),
    ("note", {"text": {S: [S]}}),
    ("note", {"txt": S}),
]


def _seen(result: types.CallToolResult) -> str:
    return result.model_dump_json(by_alias=True)


def test_the_sdks_own_server_quotes_argument_values() -> None:
    async def check() -> None:
        server, _ = shop()
        async with Client(server) as client:
            result = await client.call_tool(*LEAKY_CALLS[0])
        assert result.is_error and S in _seen(result)  # what the guard is for

    anyio.run(check)


def test_no_value_reaches_the_model_through_the_server_guard() -> None:
    async def check() -> None:
        server, calls = shop()
        server.middleware.append(ArgumentGuard(server.list_tools))
        async with Client(server) as client:
            for name, arguments in LEAKY_CALLS:
                result = await client.call_tool(name, arguments)
                assert result.is_error, (name, arguments)
                assert S not in _seen(result), (name, arguments)
        assert calls == []

    anyio.run(check)


def test_no_value_reaches_the_model_through_the_client_session() -> None:
    async def check() -> None:
        mcp_server, tools, _ = await listed_tools([])
        calls: list[Any] = []

        async def call(name: str, arguments: dict[str, Any]) -> Any:
            return await mcp_server.call_tool(name, arguments)

        async with connected(low_level(tools, call, calls)) as session:
            for name, arguments in LEAKY_CALLS:
                result = await session.call_tool(name, arguments)
                assert result.is_error, (name, arguments)
                assert S not in _seen(result), (name, arguments)
        assert calls == []

    anyio.run(check)


def test_a_string_shape_issue_shows_only_a_capped_excerpt() -> None:
    cap = BoundaryLimits().excerpt_length
    value = S * 10 + "-TAIL-NEVER-SHOWN"
    arguments = {"item": {"sku": value, "size": "small"}, "quantity": 1, "pet": PET}

    async def check() -> None:
        server, _ = shop()
        server.middleware.append(ArgumentGuard(server.list_tools))
        mcp_server, tools, _ = await listed_tools([])

        async def call(name: str, arguments: dict[str, Any]) -> Any:
            return await mcp_server.call_tool(name, arguments)

        async with Client(server) as client:
            served = await client.call_tool("order", arguments)
        async with connected(low_level(tools, call, [])) as session:
            checked = await session.call_tool("order", arguments)
        for result in (served, checked):
            seen = _seen(result)
            assert "TAIL-NEVER-SHOWN" not in seen
            excerpt = value[:cap]
            assert excerpt in seen
            # Beyond the excerpt itself, the value appears nowhere.
            assert S not in seen.replace(excerpt, "")

    anyio.run(check)
