"""An MCP client that admits a server's tools with schemacore, offline and in memory.

Run: ``python examples/mcp_client.py`` (needs ``pip install 'schemacore[mcp]'``).

The server lists three tools: one whose schema pydantic writes, one with a
hand-written draft-07 schema and one with a typo'd ``pattern``. In isolate mode the
client keeps the first and leaves out the other two, each with its reason; a call
with bad arguments is answered by the client itself with a value-safe ``isError``
result, and never reaches the server.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import anyio
from mcp import types
from mcp.server import Server
from mcp.server.mcpserver import MCPServer
from mcp.shared.memory import create_client_server_memory_streams
from pydantic import Field

from schemacore.mcp import AdmittingClientSession
from schemacore.runtime.issues import ISSUE_META_KEY

app = MCPServer("notes")
sent: list[str] = []  # what reached the server


@app.tool()
def add_note(
    title: Annotated[str, Field(max_length=40)],
    priority: Annotated[int, Field(ge=1, le=5)] = 3,
) -> str:
    """Add a note."""
    sent.append(title)
    return "added"


EXTRA = [
    types.Tool(
        name="read_file",
        input_schema={
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {"path": {"type": "string"}},
        },
    ),
    types.Tool(
        name="find",
        input_schema={"type": "object", "properties": {"q": {"pattern": "[a-z"}}},
    ),
]


async def main() -> None:
    tools = [*await app.list_tools(), *EXTRA]

    async def on_list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def on_call_tool(ctx: Any, params: types.CallToolRequestParams) -> Any:
        return await app.call_tool(params.name, params.arguments or {})

    server = Server("notes", on_list_tools=on_list_tools, on_call_tool=on_call_tool)
    async with (
        create_client_server_memory_streams() as (client_streams, server_streams),
        anyio.create_task_group() as group,
    ):
        group.start_soon(
            server.run, server_streams[0], server_streams[1], server.create_initialization_options()
        )
        async with AdmittingClientSession(*client_streams, mode="isolate") as session:
            await session.initialize()
            listed = await session.list_tools()
            print("tools the model is shown:", [tool.name for tool in listed.tools])
            assert session.bundle is not None
            for diagnostic in session.bundle.rejected:
                error = diagnostic.error
                print(f"left out: {diagnostic.tool}: {error.error_class} {error.code}")

            refused = await session.call_tool("add_note", {"title": 7, "priority": "high"})
            print("\nrefused call, as the model reads it:")
            print(refused.content[0].text)
            assert refused.meta is not None
            meta = refused.meta[ISSUE_META_KEY]
            print("_meta:", json.dumps({k: meta[k] for k in ("code", "dispatched", "total")}))
            print("calls that reached the server:", sent)

            answered = await session.call_tool("add_note", {"title": "buy milk"})
            print("\nvalid call:", answered.structured_content, "- server saw", sent)
        group.cancel_scope.cancel()


if __name__ == "__main__":
    anyio.run(main)
