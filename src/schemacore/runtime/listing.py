"""Tool listings as they come: JSON documents, the MCP SDK's objects, pydantic dumps.

``admit_batch`` reads a listing through here. An object with a ``model_dump``
method (the MCP SDK's ``Tool`` and ``ListToolsResult``, or any pydantic model) is
dumped by its wire (alias) names; ``mcp`` itself is never imported. Pydantic
dumps write ``None`` for every absent optional field; an MCP field whose value is
``null`` where the protocol has no null is read as absent (``inputSchema`` is not
optional: a null one stays refused). The caller's objects are never changed: an
entry that needs cleaning is copied.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from .errors import BoundaryError

__all__ = ["plain_entry", "plain_listing", "tools_from_listing"]

# Optional Tool fields with no null in the protocol (MCP 2025-06-18 onwards).
_OPTIONAL_FIELDS: Final = ("title", "description", "outputSchema", "annotations", "icons", "_meta")
_OPTIONAL_ANNOTATIONS: Final = (
    "title",
    "readOnlyHint",
    "destructiveHint",
    "idempotentHint",
    "openWorldHint",
)


def _dump(value: Any) -> Any:
    """A pydantic-style model as plain data (by alias), anything else as it is."""
    dump = getattr(value, "model_dump", None)
    if isinstance(value, (dict, list, str)) or not callable(dump):
        return value
    try:
        return dump(by_alias=True, mode="json")
    except Exception as exc:  # the object's own code: refused, never propagated
        raise BoundaryError(
            "catalog-invalid",
            f"the listing object ({type(value).__name__}) could not be dumped to JSON data",
        ) from exc


def plain_listing(document: Any) -> Any:
    """``document`` with a model object (a ``ListToolsResult``, say) dumped to data."""
    return _dump(document)


def _without_nulls(entry: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    if not any(key in entry and entry[key] is None for key in keys):
        return entry
    return {k: v for k, v in entry.items() if not (k in keys and v is None)}


def plain_entry(entry: Any) -> Any:
    """One tool entry as plain data, with null optional fields read as absent (a copy
    when anything changes; the entry itself otherwise). An entry whose dump fails
    is returned as it is, and refused as not a JSON object by the catalog."""
    try:
        entry = _dump(entry)
    except BoundaryError:
        return entry
    if not isinstance(entry, dict):
        return entry
    cleaned = _without_nulls(entry, _OPTIONAL_FIELDS)
    annotations = cleaned.get("annotations")
    if isinstance(annotations, dict):
        plain = _without_nulls(annotations, _OPTIONAL_ANNOTATIONS)
        if plain is not annotations:
            cleaned = {**cleaned, "annotations": plain}
    return cleaned


def tools_from_listing(document: Any) -> list[Any]:
    """The tool list of an MCP ``tools/list`` result (``{"tools": [...]}``, also
    inside a JSON-RPC ``result``, or the SDK's ``ListToolsResult``) or of a plain
    list of tools.

    Raises:
        BoundaryError: ``catalog-invalid`` when there is no tool list.
    """
    document = plain_listing(document)
    if isinstance(document, Mapping) and isinstance(document.get("result"), Mapping):
        document = document["result"]
    if isinstance(document, Mapping) and "tools" in document:
        document = document["tools"]
    if isinstance(document, tuple):
        document = list(document)
    if not isinstance(document, list):
        raise BoundaryError(
            "catalog-invalid",
            'expected a list of tools or an MCP tools/list result ({"tools": [...]})',
        )
    return document
