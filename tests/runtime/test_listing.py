"""Listings as they come: objects with ``model_dump`` and pydantic-style ``None``s."""

from __future__ import annotations

import copy
import sys
from typing import Any

import pytest

from schemacore.runtime import AdmissionRejected, ToolCatalog, tools_from_listing

from .test_catalog import tool


class Model:
    """Stands for a pydantic model (the MCP SDK's Tool or ListToolsResult)."""

    def __init__(self, data: Any) -> None:
        self.data = data
        self.dumps: list[dict[str, Any]] = []

    def model_dump(self, **options: Any) -> Any:
        self.dumps.append(options)
        return copy.deepcopy(self.data)


def pydantic_style(name: str, **fields: Any) -> dict[str, Any]:
    """A Tool dumped with every absent optional field as None."""
    entry: dict[str, Any] = {
        "name": name,
        "title": None,
        "description": None,
        "inputSchema": {"type": "object", "properties": {"q": {"default": None}}},
        "execution": None,
        "outputSchema": None,
        "icons": None,
        "annotations": None,
        "_meta": None,
    }
    entry.update(fields)
    return entry


def test_none_for_absent_optional_fields_is_read_as_absent() -> None:
    hints = {"title": None, "readOnlyHint": True, "destructiveHint": None}
    tools = [pydantic_style("a"), pydantic_style("b", annotations=hints)]
    before = copy.deepcopy(tools)
    bundle = ToolCatalog().admit_batch(tools)
    assert bundle.accepted == ("a", "b")
    assert tools == before  # the caller's entries are not cleaned in place
    shown = bundle.tools[1]
    assert "title" not in shown and "outputSchema" not in shown
    assert shown["annotations"] == {"readOnlyHint": True}
    assert shown["inputSchema"] == {"type": "object", "properties": {"q": {"default": None}}}
    assert bundle.registry["a"].output is None


def test_a_null_input_schema_stays_refused() -> None:
    with pytest.raises(AdmissionRejected) as caught:
        ToolCatalog().admit_batch([pydantic_style("a", inputSchema=None)])
    assert [d.code for d in caught.value.rejected] == ["tool-input-schema-missing"]


def test_objects_with_model_dump_are_dumped_by_alias() -> None:
    listing = Model({"tools": [pydantic_style("a")], "nextCursor": None, "_meta": None})
    bundle = ToolCatalog().admit_batch(listing)
    assert bundle.accepted == ("a",)
    assert listing.dumps == [{"by_alias": True, "mode": "json"}]
    entries = [Model(pydantic_style("a")), Model(tool("b"))]
    assert ToolCatalog().admit_batch(entries, mode="isolate").accepted == ("a", "b")
    assert tools_from_listing((tool("c"),)) == [tool("c")]


def test_a_model_whose_dump_fails_is_refused_not_raised() -> None:
    class Broken:
        def model_dump(self, **options: Any) -> Any:
            raise RuntimeError("boom")

    with pytest.raises(AdmissionRejected) as caught:
        ToolCatalog().admit_batch(Broken())
    assert [d.code for d in caught.value.rejected] == ["catalog-invalid"]
    bundle = ToolCatalog().admit_batch([tool("a"), Broken()], mode="isolate")
    assert bundle.accepted == ("a",)
    assert [d.code for d in bundle.rejected] == ["tool-not-object"]


def test_reading_listings_does_not_import_the_mcp_sdk() -> None:
    import subprocess

    # A fresh interpreter: other tests in this process import the SDK themselves.
    code = (
        "import sys\n"
        "from schemacore.runtime import ToolCatalog\n"
        "class Model:\n"
        "    def model_dump(self, **options):\n"
        "        return {'tools': [{'name': 'a', 'inputSchema': {'type': 'object'}}]}\n"
        "assert ToolCatalog().admit_batch(Model()).accepted == ('a',)\n"
        "print('mcp' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_the_mcp_adapter_names_its_extra_when_the_sdk_is_missing() -> None:
    import subprocess

    code = "import sys; sys.modules['mcp'] = None; import schemacore.mcp"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 1
    assert "pip install 'schemacore[mcp]'" in done.stderr
