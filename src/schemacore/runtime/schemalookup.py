"""Read constraints back out of a schema, for messages built from structure.

The engine's error messages may quote the instance, so the runtime never shows
them. Instead it takes the failing keyword's absolute location (a URI with a JSON
Pointer fragment), finds that keyword in the schema documents it knows, and words
the issue from the schema's own value. It also lists every property name the
schema defines: those are the only object keys a message may show.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# The engine's own RFC 3986 resolution: locations must match the URIs the engine
# writes, and urllib.parse raises ValueError on schema text such as "//[::1".
from schemacore.uri import join, split_fragment, unquote_fragment

from .jsonvalues import array_index, split_pointer

__all__ = ["SchemaLookup"]

# Keywords whose values are data, not schemas: never searched for $id or names.
_DATA_KEYWORDS = frozenset({"const", "enum", "default", "examples"})
_MISSING = object()


class SchemaLookup:
    """An index of the schema resources of one compiled schema (root + registry)."""

    __slots__ = ("_resources", "names", "root")

    def __init__(self, schema: Any, registry: Mapping[str, Any] | None = None) -> None:
        self.root = schema
        self._resources: dict[str, Any] = {}
        names: set[str] = set()
        documents: list[tuple[str, Any]] = [("", schema)]
        if registry:
            documents.extend((uri, document) for uri, document in registry.items())
        for uri, document in documents:
            self._index(split_fragment(uri)[0], document, names)
        self.names = frozenset(names)

    def _index(self, base: str, document: Any, names: set[str]) -> None:
        self._resources.setdefault(base, document)
        stack: list[tuple[Any, str]] = [(document, base)]
        while stack:
            node, node_base = stack.pop()
            if isinstance(node, dict):
                identifier = node.get("$id")
                if isinstance(identifier, str):
                    node_base = split_fragment(join(node_base, identifier))[0]
                    self._resources.setdefault(node_base, node)
                _collect_names(node, names)
                for key, child in node.items():
                    if key not in _DATA_KEYWORDS:
                        stack.append((child, node_base))
            elif isinstance(node, list):
                stack.extend((child, node_base) for child in node)

    def resolve(self, absolute_location: str) -> Any:
        """The schema value at ``uri#pointer``, or ``None`` when it cannot be found."""
        uri, _, fragment = absolute_location.partition("#")
        node = self._resources.get(uri, _MISSING)
        if node is _MISSING:
            return None
        # The engine percent-encodes the pointer in the fragment, as URIs require.
        for token in split_pointer(unquote_fragment(fragment)):
            if isinstance(node, dict):
                node = node.get(token, _MISSING)
            elif isinstance(node, list):
                index = array_index(token)
                if index is None or index >= len(node):
                    return None
                node = node[index]
            else:
                return None
            if node is _MISSING:
                return None
        return node

    def keyword_owner(self, absolute_location: str, depth: int = 1) -> dict[str, Any] | None:
        """The schema object ``depth`` tokens above ``absolute_location``."""
        uri, _, fragment = absolute_location.partition("#")
        tokens = split_pointer(unquote_fragment(fragment))
        if len(tokens) < depth:
            return None
        parent = "/".join(
            token.replace("~", "~0").replace("/", "~1") for token in tokens[: len(tokens) - depth]
        )
        owner = self.resolve(f"{uri}#{'/' + parent if parent else ''}")
        return owner if isinstance(owner, dict) else None

    def description_along(self, tokens: list[str | int]) -> str | None:
        """The ``description`` of the property reached by following ``properties``
        / ``items`` / ``prefixItems`` from the root along instance tokens."""
        node: Any = self.root
        for token in tokens:
            if not isinstance(node, dict):
                return None
            if isinstance(token, int):
                prefix = node.get("prefixItems")
                if isinstance(prefix, list) and token < len(prefix):
                    node = prefix[token]
                else:
                    node = node.get("items")
            else:
                properties = node.get("properties")
                node = properties.get(token) if isinstance(properties, dict) else None
        if isinstance(node, dict) and isinstance(node.get("description"), str):
            return str(node["description"])
        return None


def _collect_names(node: dict[str, Any], names: set[str]) -> None:
    properties = node.get("properties")
    if isinstance(properties, dict):
        names.update(key for key in properties if isinstance(key, str))
    listed = node.get("required")
    if isinstance(listed, list):
        names.update(name for name in listed if isinstance(name, str))
    for keyword in ("dependentRequired", "dependentSchemas"):
        mapping = node.get(keyword)
        if isinstance(mapping, dict):
            for key, needed in mapping.items():
                if isinstance(key, str):
                    names.add(key)
                if keyword == "dependentRequired" and isinstance(needed, list):
                    names.update(name for name in needed if isinstance(name, str))
