"""schemacore.mcp against the real MCP Python SDK, client and server side, in memory."""

from __future__ import annotations

import json
import os
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

if os.environ.get("SCHEMACORE_REQUIRE_CLIENTS") != "1":  # CI: a missing SDK fails
    pytest.importorskip("mcp", reason="the mcp extra is not installed")

import anyio  # comes with the mcp extra: imported after the check above
from mcp import Client, types
from mcp.server import Server

from schemacore.mcp import CALL_META_KEY, AdmittingClientSession, ArgumentGuard, ToolGuard
from schemacore.runtime import AdmissionRejected, ToolCatalog
from schemacore.runtime.issues import ISSUE_META_KEY

from .mcp_support import BROKEN, LEGACY, MISMATCH, connected, listed_tools, low_level, shop

GOOD_ORDER = {
    "item": {"sku": "ABC-1234", "size": "small"},
    "quantity": 2,
    "pet": {"kind": "cat", "lives": 9},
}
BAD_ORDER = {"item": {"sku": "ABC-1234", "size": "huge"}, "quantity": 0, "pet": {"kind": "cat"}}


def run(test: Callable[[], Awaitable[None]]) -> None:
    anyio.run(test)


async def _serve(server: Any, name: str, arguments: dict[str, Any]) -> Any:
    if name == "mismatch":
        return types.CallToolResult(
            content=[types.TextContent(type="text", text="{}")],
            structured_content={"count": "many"},
        )
    return await server.call_tool(name, arguments)


async def _pair(extra: list[types.Tool]) -> tuple[Any, list[Any]]:
    server, tools, _ = await listed_tools(extra)
    calls: list[Any] = []

    async def call(name: str, arguments: dict[str, Any]) -> Any:
        return await _serve(server, name, arguments)

    return low_level(tools, call, calls), calls


# -- listings in the SDK's own types -------------------------------------------------------


def test_the_sdks_tool_objects_are_admitted_as_they_come() -> None:
    async def check() -> None:
        _, tools, _ = await listed_tools([])
        # The SDK's models, their pydantic dumps (None for every absent field), a result.
        dumps = [tool.model_dump(by_alias=True) for tool in tools]
        assert any(value is None for value in dumps[0].values())
        for listing in (tools, dumps, types.ListToolsResult(tools=tools)):
            bundle = ToolCatalog().admit_batch(listing)
            assert bundle.accepted == ("order", "note")
            assert bundle.registry["order"].output is not None

    run(check)


# -- the client side -------------------------------------------------------------------------


def test_the_client_admits_the_listing_in_isolate_mode() -> None:
    async def check() -> None:
        server, _ = await _pair([LEGACY, BROKEN, MISMATCH])
        async with connected(server, mode="isolate") as session:
            listed = await session.list_tools()
            assert [t.name for t in listed.tools] == ["order", "note", "mismatch"]
            assert session.bundle is not None
            assert [(d.tool, d.error_class, d.code) for d in session.bundle.rejected] == [
                ("legacy", "unsupported_capability", "schema-dialect-unsupported"),
                ("broken", "validation", "schema-pattern-invalid"),
            ]

    run(check)


def test_the_client_refuses_a_broken_listing_in_strict_mode() -> None:
    async def check() -> None:
        server, _ = await _pair([BROKEN])
        async with connected(server) as session:
            with pytest.raises(AdmissionRejected) as caught:
                await session.list_tools()
            assert [d.code for d in caught.value.rejected] == ["schema-pattern-invalid"]

    run(check)


def test_a_refused_call_never_reaches_the_server() -> None:
    async def check() -> None:
        server, calls = await _pair([LEGACY])
        async with connected(server, mode="isolate") as session:
            refused = await session.call_tool("order", BAD_ORDER)
            assert refused.is_error and calls == []
            meta = refused.meta[ISSUE_META_KEY]
            assert (meta["code"], meta["dispatched"]) == ("arguments-invalid", False)
            assert [i["path"] for i in meta["issues"]] == ["item.size", "quantity", "pet.lives"]
            left_out = await session.call_tool("legacy", {"path": "/tmp"})
            assert left_out.is_error and calls == []
            assert left_out.meta[CALL_META_KEY]["code"] == "tool-not-admitted"
            unknown = await session.call_tool("nonexistent", {})
            assert unknown.meta[CALL_META_KEY]["code"] == "tool-not-admitted" and calls == []
            answered = await session.call_tool("order", GOOD_ORDER)
            assert not answered.is_error
            assert answered.structured_content == {"order_id": "o-1", "total_cents": 200}
            assert [c["tool"] for c in calls] == ["order"]

    run(check)


def test_structured_content_is_checked_against_the_output_schema() -> None:
    async def check() -> None:
        server, calls = await _pair([MISMATCH])
        async with connected(server) as session:
            withheld = await session.call_tool("mismatch", {})
            assert withheld.is_error and withheld.structured_content is None
            meta = withheld.meta[CALL_META_KEY]
            assert (meta["code"], meta["dispatched"]) == ("structured-content-invalid", True)
            assert [i["code"] for i in meta["issues"]] == ["type-mismatch"]
            assert "many" not in json.dumps(withheld.model_dump(mode="json"))
        reports: list[tuple[str, dict[str, Any]]] = []
        options = {
            "output_mode": "report",
            "on_output_mismatch": lambda n, r: reports.append((n, r)),
        }
        async with connected(server, **options) as session:
            kept = await session.call_tool("mismatch", {})
            assert not kept.is_error and kept.structured_content == {"count": "many"}
            assert [name for name, _ in reports] == ["mismatch"]
        assert len(calls) == 2

    run(check)


def test_a_missing_structured_content_is_refused() -> None:
    guard = ToolGuard()
    guard.admit([MISMATCH])
    problem = guard.check_output("mismatch", {"content": []})
    assert problem is not None
    assert problem["_meta"][CALL_META_KEY]["code"] == "structured-content-missing"
    assert guard.check_output("mismatch", {"content": [], "isError": True}) is None
    assert (
        guard.check_output("mismatch", {"content": [], "structuredContent": {"count": 1}}) is None
    )


def test_a_listed_draft_07_tool_is_admitted_under_draft_07() -> None:
    async def check(dialects: tuple[str, ...], expected: tuple[str, ...]) -> None:
        server, _ = await _pair([LEGACY])
        options = {"mode": "isolate", "dialects": dialects}
        async with connected(server, **options) as session:
            await session.list_tools()
            assert session.bundle is not None and session.bundle.accepted == expected

    anyio.run(check, ("2020-12",), ("order", "note"))  # unlisted: left out
    anyio.run(check, ("draft-07", "2020-12"), ("order", "note", "legacy"))
    anyio.run(check, ("draft-07",), ("order", "note", "legacy"))  # 2020-12 implied


def test_bad_client_options_are_refused() -> None:
    with pytest.raises(ValueError):
        ToolGuard(dialects=("draft-05",))
    with pytest.raises(ValueError):
        AdmittingClientSession(None, None, output_mode="lenient")  # type: ignore[arg-type]


# -- the server side --------------------------------------------------------------------------


def test_the_middleware_refuses_bad_arguments_before_the_sdk_or_the_tool() -> None:
    async def check() -> None:
        server, calls = shop()
        server.middleware.append(ArgumentGuard(server.list_tools))
        for mode in ("auto", "legacy"):
            async with Client(server, mode=mode) as client:
                refused = await client.call_tool("order", BAD_ORDER)
                assert refused.is_error
                assert refused.meta is not None and ISSUE_META_KEY in refused.meta
                assert calls == []
                answered = await client.call_tool("order", GOOD_ORDER)
                assert not answered.is_error
                assert calls == [{"tool": "order", "quantity": 2}]
                calls.clear()

    run(check)


def test_the_guard_wraps_a_low_level_call_tool_handler() -> None:
    async def check() -> None:
        _, tools, _ = await listed_tools([LEGACY])
        calls: list[Any] = []
        guard = ArgumentGuard(tools, mode="isolate")

        async def on_list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
            return types.ListToolsResult(tools=tools)

        async def on_call_tool(ctx: Any, params: types.CallToolRequestParams) -> Any:
            calls.append(params.name)
            return types.CallToolResult(content=[types.TextContent(type="text", text="ok")])

        server = Server(
            "wrapped", on_list_tools=on_list_tools, on_call_tool=guard.wrap(on_call_tool)
        )
        async with Client(server) as client:
            refused = await client.call_tool("note", {"text": 3})
            assert refused.is_error and calls == []
            left_out = await client.call_tool("legacy", {"path": "/tmp"})  # fail closed
            assert left_out.meta is not None
            assert left_out.meta[CALL_META_KEY]["code"] == "tool-not-admitted"
            unlisted = await client.call_tool("other", {})  # the server answers for itself
            assert not unlisted.is_error and calls == ["other"]

    run(check)


def test_a_server_listing_the_mode_refuses_fails_closed() -> None:
    with pytest.raises(AdmissionRejected):
        ArgumentGuard([BROKEN])

    async def check() -> None:
        guard = ArgumentGuard(lambda: [BROKEN])  # admitted on the first call: refused
        refusal = await guard.refusal("broken", {"q": "x"})
        assert refusal is not None
        assert refusal["_meta"][CALL_META_KEY]["code"] == "tool-not-admitted"

    run(check)


def test_pages_of_a_listing_are_admitted_together() -> None:
    async def check() -> None:
        _, tools, _ = await listed_tools([LEGACY])
        pages = {None: (tools[:1], "p2"), "p2": (tools[1:], None)}

        async def on_list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
            page, cursor = pages[params.cursor if params is not None else None]
            return types.ListToolsResult(tools=page, next_cursor=cursor)

        async def on_call_tool(ctx: Any, params: types.CallToolRequestParams) -> Any:
            return types.CallToolResult(content=[])

        server = Server("paged", on_list_tools=on_list_tools, on_call_tool=on_call_tool)
        async with connected(server, mode="isolate") as session:
            first = await session.list_tools()
            assert [t.name for t in first.tools] == ["order"] and first.next_cursor == "p2"
            second = await session.list_tools(params=types.PaginatedRequestParams(cursor="p2"))
            assert [t.name for t in second.tools] == ["note"]
            assert session.bundle is not None
            assert session.bundle.accepted == ("order", "note")
            assert [d.tool for d in session.bundle.rejected] == ["legacy"]
            again = await session.list_tools()  # a new listing starts over
            assert [t.name for t in again.tools] == ["order"]
            assert session.bundle.accepted == ("order",)

    run(check)
