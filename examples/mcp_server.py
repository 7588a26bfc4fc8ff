"""An MCP server whose tool arguments schemacore checks first, offline and in memory.

Run: ``python examples/mcp_server.py`` (needs ``pip install 'schemacore[mcp]'``).

The same call with bad arguments is made twice: to the SDK's server as it is, whose
answer quotes the argument values (here a would-be secret), and to the same server
with :class:`schemacore.mcp.ArgumentGuard` as middleware, whose answer names where
and what was expected, never the values. The tool runs only for valid arguments.
"""

from __future__ import annotations

import logging
from typing import Annotated, Literal

import anyio
from mcp import Client
from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field

from schemacore.mcp import ArgumentGuard

SECRET = "sk-live-0123456789abcdef"


class Recipient(BaseModel):
    email: Annotated[str, Field(max_length=80)]
    kind: Literal["user", "team"]


def build(guarded: bool) -> tuple[MCPServer, list[str]]:
    app = MCPServer("mailer")
    sent: list[str] = []

    @app.tool()
    def send(to: Recipient, retries: Annotated[int, Field(ge=0, le=3)] = 0) -> str:
        """Send a message."""
        sent.append(to.email)
        return "sent"

    if guarded:
        app.middleware.append(ArgumentGuard(app.list_tools))
    return app, sent


BAD = {"to": {"email": "a@example.com", "kind": SECRET}, "retries": SECRET}
GOOD = {"to": {"email": "a@example.com", "kind": "team"}}


async def main() -> None:
    for guarded in (False, True):
        app, sent = build(guarded)
        async with Client(app) as client:
            refused = await client.call_tool("send", BAD)
            answered = await client.call_tool("send", GOOD)
        text = refused.content[0].text  # type: ignore[union-attr]
        print("with ArgumentGuard:" if guarded else "the SDK alone:")
        print("  " + text.replace("\n", "\n  "))
        print(f"  the secret reached the model: {SECRET in refused.model_dump_json()}")
        print(f"  valid call: {answered.structured_content}; the tool ran for {sent}\n")


if __name__ == "__main__":
    logging.getLogger("mcp").setLevel(logging.WARNING)  # the SDK logs each refusal
    anyio.run(main)
