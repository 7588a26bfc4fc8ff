"""The real MCP tool corpus, read at run time from ``<repo>/../shared/mcp-tools``.

The corpus is test data laid beside the clone, never part of this repository: when it
is missing, :func:`load` says why and the workloads that need it are skipped.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["CORPUS", "CorpusUnavailable", "McpTool", "load"]

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "mcp-tools"
DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"


class CorpusUnavailable(Exception):
    """The corpus folder is missing or holds no tool lists."""


@dataclass(frozen=True)
class McpTool:
    server: str  # the file's stem, e.g. "github-mcp-server"
    name: str
    schema: Any  # the inputSchema, as published

    @property
    def id(self) -> str:
        return f"{self.server}/{self.name}"


def _declares_2020_12(schema: Any) -> bool:
    # The selection: tools whose inputSchema names no dialect, or 2020-12.
    declared = schema.get("$schema") if isinstance(schema, dict) else None
    return declared is None or declared.rstrip("#") == DRAFT_2020_12


def load(folder: Path | None = None) -> tuple[list[McpTool], int]:
    """The tools whose input schema declares no ``$schema`` or Draft 2020-12, in file
    and list order, and the number of tools in the corpus (default folder: CORPUS)."""
    folder = CORPUS if folder is None else folder
    files = sorted(folder.glob("*.json")) if folder.is_dir() else []
    if not files:
        raise CorpusUnavailable(f"no MCP tool lists (*.json) in {folder}")
    tools: list[McpTool] = []
    total = 0
    for path in files:
        for tool in json.loads(path.read_bytes()):
            total += 1
            schema = tool.get("inputSchema")
            if _declares_2020_12(schema):
                tools.append(McpTool(path.stem, str(tool["name"]), schema))
    return tools, total
