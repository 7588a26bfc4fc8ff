"""A real in-memory MCP client/server pair of the SDK, and the tools the tests serve.

The tools' schemas come from the SDK itself where it writes them (an ``MCPServer``
with pydantic-typed tools: ``$defs``/``$ref``, an enum, a pattern, a discriminated
union, a structured output), plus one hand-written draft-07 schema and one broken
one, served by a low-level ``Server`` over the SDK's memory streams.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from enum import Enum
from typing import Annotated, Any, Literal

import pytest

if os.environ.get("SCHEMACORE_REQUIRE_CLIENTS") != "1":  # CI: a missing SDK fails
    pytest.importorskip("mcp", reason="the mcp extra is not installed")

import anyio
from mcp import types
from mcp.server import Server
from mcp.server.mcpserver import MCPServer
from mcp.shared.memory import create_client_server_memory_streams
from pydantic import BaseModel, Field

from schemacore.mcp import AdmittingClientSession

DRAFT_07 = "http://json-schema.org/draft-07/schema#"


class Size(Enum):
    SMALL = "small"
    LARGE = "large"


class Item(BaseModel):
    sku: Annotated[str, Field(pattern=r"^[A-Z]{3}-[0-9]{4}$", description="An SKU like ABC-1234")]
    size: Size


class Cat(BaseModel):
    kind: Literal["cat"]
    lives: int


class Dog(BaseModel):
    kind: Literal["dog"]
    good: bool


class Receipt(BaseModel):
    order_id: str
    total_cents: int


def shop() -> tuple[MCPServer, list[dict[str, Any]]]:
    """A FastMCP-style server whose schemas pydantic writes, and a log of its calls."""
    calls: list[dict[str, Any]] = []
    server = MCPServer("shop")

    @server.tool()
    def order(
        item: Item,
        quantity: Annotated[int, Field(ge=1, le=10)],
        pet: Annotated[Cat | Dog, Field(discriminator="kind")],
    ) -> Receipt:
        """Order an item for a pet."""
        calls.append({"tool": "order", "quantity": quantity})
        return Receipt(order_id="o-1", total_cents=100 * quantity)

    @server.tool()
    def note(text: Annotated[str, Field(max_length=20)]) -> str:
        """Keep a note."""
        calls.append({"tool": "note"})
        return "kept"

    return server, calls


LEGACY = types.Tool(
    name="legacy",
    description="A hand-written draft-07 schema (refused as unsupported for now).",
    input_schema={
        "$schema": DRAFT_07,
        "type": "object",
        "properties": {"path": {"type": "string"}},
        "required": ["path"],
    },
)
BROKEN = types.Tool(
    name="broken",
    description="A schema with a typo'd pattern.",
    input_schema={"type": "object", "properties": {"q": {"type": "string", "pattern": "(ab"}}},
)
MISMATCH = types.Tool(
    name="mismatch",
    description="Answers with structured content its output schema does not allow.",
    input_schema={"type": "object"},
    output_schema={
        "type": "object",
        "properties": {"count": {"type": "integer"}},
        "required": ["count"],
    },
)


async def listed_tools(extra: list[types.Tool]) -> tuple[MCPServer, list[types.Tool], list[Any]]:
    server, calls = shop()
    return server, [*await server.list_tools(), *extra], calls


def low_level(
    tools: list[types.Tool], call: Callable[[str, dict[str, Any]], Any], calls: list[Any]
) -> Server[Any]:
    """A low-level server that lists ``tools`` and answers calls with ``call``."""

    async def on_list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def on_call_tool(ctx: Any, params: types.CallToolRequestParams) -> Any:
        calls.append({"tool": params.name, "arguments": params.arguments})
        return await call(params.name, params.arguments or {})

    return Server("test-server", on_list_tools=on_list_tools, on_call_tool=on_call_tool)


@asynccontextmanager
async def connected(server: Server[Any], **options: Any) -> AsyncIterator[AdmittingClientSession]:
    """An initialised AdmittingClientSession talking to ``server`` in memory."""
    async with (
        create_client_server_memory_streams() as (client_streams, server_streams),
        anyio.create_task_group() as group,
    ):

        async def serve() -> None:
            await server.run(
                server_streams[0], server_streams[1], server.create_initialization_options()
            )

        group.start_soon(serve)
        async with AdmittingClientSession(
            client_streams[0], client_streams[1], **options
        ) as session:
            await session.initialize()
            yield session
        group.cancel_scope.cancel()
