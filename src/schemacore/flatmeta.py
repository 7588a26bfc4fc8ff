"""One flat meta-schema for the fast path of the meta-schema check.

The Draft 2019-09 and 2020-12 meta-schemas are an ``allOf`` of one ``$ref`` per
vocabulary, each vocabulary schema being ``type: [object, boolean]`` plus
``properties`` (and ``$defs``), all sharing one recursive anchor. Checking a schema
against it calls every vocabulary's schema for every subschema, each walking the
subschema's keywords again: the check cost about a quarter of compiling a real
tool schema.

Conjunction distributes over ``properties`` with disjoint names, and every
recursive reference of those documents lands on the root, so the same answers come
from one schema: the root's ``type``, the union of all ``properties`` (a name two
documents declare gets the ``allOf`` of both) and of all ``$defs``, references into
a vocabulary document rewritten to the merged ``$defs``. :func:`flatten` builds it
and refuses (None) any document that is not of that form, so a changed meta-schema
falls back to the published one rather than to a wrong answer.

Only ``is_valid`` uses the flat schema: errors (and so every SchemaError's message)
still come from the published meta-schema. ``tests/engine/test_flat_metaschema.py``
checks that both agree on every schema of the test suite and on generated ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .uri import join, split_fragment

__all__ = ["flatten"]

# Keywords a vocabulary document may hold besides type, properties and $defs: its
# identity, its anchor and annotations, none of which changes what it accepts.
_INERT = frozenset(
    {"$schema", "$id", "$vocabulary", "$dynamicAnchor", "$recursiveAnchor", "$comment", "title"}
)
_OBJECT_OR_BOOLEAN = ["object", "boolean"]
# Keywords whose values are instances, not schemas: copied as they are.
_VALUES = frozenset({"const", "default", "enum", "examples"})
_REFUSED: Any = object()


def flatten(root_uri: str, documents: Mapping[str, Any]) -> dict[str, Any] | None:
    """The flat equivalent of the meta-schema at ``root_uri`` (its vocabulary
    documents looked up in ``documents``), or None when it is not of the form above."""
    root = documents.get(root_uri)
    if not isinstance(root, dict) or not isinstance(root.get("allOf"), list):
        return None
    anchor = {k: root[k] for k in ("$dynamicAnchor", "$recursiveAnchor") if k in root}
    if len(anchor) != 1:
        return None
    parts: list[tuple[str, dict[str, Any]]] = [(root_uri, _without(root, "allOf"))]
    for branch in root["allOf"]:
        if not isinstance(branch, dict) or set(branch) != {"$ref"}:
            return None
        target, fragment = split_fragment(join(root_uri, branch["$ref"]))
        document = documents.get(target)
        if fragment or not isinstance(document, dict) or document.get("$id") != target:
            return None
        if {k: document[k] for k in anchor if k in document} != anchor:
            return None  # its recursive references would not land on the root
        parts.append((target, document))
    merged_uris = {uri for uri, _ in parts}
    properties: dict[str, Any] = {}
    defs: dict[str, Any] = {}
    for uri, document in parts:
        if not set(document) <= _INERT | {"type", "properties", "$defs"}:
            return None
        if document.get("type") != _OBJECT_OR_BOOLEAN:
            return None
        for name, subschema in document.get("properties", {}).items():
            rewritten = _rewrite(subschema, uri, merged_uris)
            if rewritten is _REFUSED:
                return None
            known = properties.get(name)
            properties[name] = rewritten if known is None else {"allOf": [known, rewritten]}
        for name, subschema in document.get("$defs", {}).items():
            rewritten = _rewrite(subschema, uri, merged_uris)
            if rewritten is _REFUSED or name in defs:
                return None
            defs[name] = rewritten
    return {
        "$schema": root["$schema"],
        **anchor,
        "type": list(_OBJECT_OR_BOOLEAN),
        "properties": properties,
        "$defs": defs,
    }


def _without(document: dict[str, Any], keyword: str) -> dict[str, Any]:
    return {k: v for k, v in document.items() if k != keyword}


def _rewrite(value: Any, base: str, merged: set[str]) -> Any:
    """``value`` with each ``$ref`` into a merged document's ``$defs`` pointing at the
    flat schema's; _REFUSED if some reference or nested resource would change meaning."""
    if isinstance(value, list):
        items = [_rewrite(item, base, merged) for item in value]
        return _REFUSED if any(item is _REFUSED for item in items) else items
    if not isinstance(value, dict):
        return value
    if "$id" in value or "$anchor" in value or "$dynamicAnchor" in value:
        return _REFUSED  # a resource or anchor of its own: not moved
    result: dict[str, Any] = {}
    for key, item in value.items():
        if key in _VALUES:
            result[key] = item
            continue
        if key == "$ref":
            if not isinstance(item, str):
                return _REFUSED
            document, fragment = split_fragment(join(base, item))
            if document not in merged or not fragment.startswith("/$defs/"):
                return _REFUSED
            result[key] = "#" + fragment
            continue
        if key in ("$dynamicRef", "$recursiveRef") and item not in ("#meta", "#"):
            return _REFUSED
        rewritten = _rewrite(item, base, merged)
        if rewritten is _REFUSED:
            return _REFUSED
        result[key] = rewritten
    return result
