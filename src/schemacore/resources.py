"""The resource index: every schema resource, anchor and dynamic anchor by URI.

Before anything is compiled, each schema document is walked once along the
keywords that hold subschemas (never into ``enum``, ``const`` or unknown keywords,
whose ``$id``-looking members are plain data). Every ``$id`` starts a resource; every
``$anchor`` and ``$dynamicAnchor`` names a node inside one. References are then
resolved against this index, and documents that are not yet indexed come only from
the caller's ``registry`` or ``loader``, or from the bundled meta-schemas: nothing is
ever fetched.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from importlib import resources as package_files
from typing import Any

from .errors import ExecutionFailure, SchemaError
from .limits import Limits
from .pointer import (
    PointerError,
    as_fragment,
    escape,
    format_pointer,
    parse_pointer,
    resolve_pointer,
)
from .uri import join, split_fragment, unquote_fragment

__all__ = ["Index", "Target", "bundled_metaschemas"]

# Keywords whose value is one subschema, an array of them, or an object of them.
SINGLE = (
    "additionalProperties",
    "items",
    "contains",
    "propertyNames",
    "if",
    "then",
    "else",
    "not",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contentSchema",
)
ARRAY = ("prefixItems", "allOf", "anyOf", "oneOf")
# "definitions" and "dependencies" are not 2020-12 keywords, but its meta-schema still
# reserves them for subschemas (a "dependencies" member may also be an array of names,
# which the walk skips), and real schemas keep using them: a $ref may target them.
MAPPING = (
    "$defs",
    "definitions",
    "properties",
    "patternProperties",
    "dependentSchemas",
    "dependencies",
)
_HOLDING = frozenset((*SINGLE, *ARRAY, *MAPPING))
# The keywords that identify, anchor or declare something the index records.
_MARKERS = frozenset(("$id", "$schema", "$anchor", "$dynamicAnchor", "$dynamicRef"))

_BUNDLED: dict[str, Any] | None = None


def bundled_metaschemas() -> dict[str, Any]:
    """The Draft 2020-12 meta-schema and its vocabulary meta-schemas, by ``$id``."""
    global _BUNDLED
    if _BUNDLED is None:
        found: dict[str, Any] = {}
        folder = package_files.files("schemacore") / "metaschemas"
        for entry in folder.iterdir():
            if entry.name.endswith(".json"):
                document = json.loads(entry.read_text(encoding="utf-8"))
                found[document["$id"]] = document
        _BUNDLED = found
    return _BUNDLED


def subschemas(node: dict[str, Any]) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Yield (relative pointer tokens, subschema) for each direct subschema of ``node``."""
    for keyword in SINGLE:
        if keyword in node:
            yield (keyword,), node[keyword]
    for keyword in ARRAY:
        value = node.get(keyword)
        if isinstance(value, list):
            for index, item in enumerate(value):
                yield (keyword, str(index)), item
    for keyword in MAPPING:
        value = node.get(keyword)
        if isinstance(value, dict):
            for name, item in value.items():
                yield (keyword, name), item


@dataclass(frozen=True, slots=True)
class Target:
    """A resolved reference: the schema node, its base URI and its location in it."""

    node: Any
    base: str
    pointer: str

    @property
    def uri(self) -> str:
        return f"{self.base}#{self.pointer}"


class Index:
    """All schema resources known while compiling one validator."""

    def __init__(
        self,
        registry: Mapping[str, Any] | None,
        loader: Callable[[str], Any] | None,
        limits: Limits,
    ) -> None:
        self._registry = registry or {}
        self._loader = loader
        self._limits = limits
        self.resources: dict[str, Any] = {}
        self.anchors: dict[tuple[str, str], Target] = {}
        self.dynamic_anchors: dict[tuple[str, str], Target] = {}
        # Names of the $dynamicAnchors each resource defines.
        self.dynamic_names: dict[str, frozenset[str]] = {}
        # Where each resource is, by position, never by the identity of its dict: one
        # dict may sit at several places (under two $id bases, or in a document
        # registered under two URIs). Resource URI -> (URI of the document it was
        # found in, pointer of its root there), and the reverse for the resources
        # embedded below a document's root.
        self.origins: dict[str, tuple[str, str]] = {}
        self.embedded: dict[tuple[str, str], str] = {}
        # Resource URI, or (resource URI, anchor name) -> (document URI, pointer
        # there) of the schema whose $id or anchor defines it.
        self._identified: dict[str, tuple[str, str]] = {}
        self._anchored: dict[tuple[str, str], tuple[str, str]] = {}
        # Resource URI -> the $schema value in force there (absent: the default).
        self.declared_schema: dict[str, Any] = {}
        self.uses_dynamic_ref = False
        # Documents that came from the caller's registry or loader, by URI.
        self.loaded: list[tuple[str, Any]] = []

    # -- building -----------------------------------------------------------

    def add_document(self, uri: str, document: Any) -> None:
        """Index ``document`` (retrieved as ``uri``) and every resource embedded in it."""
        base, _ = split_fragment(uri)
        self.resources.setdefault(base, document)
        self.origins.setdefault(base, (base, ""))
        self._walk(document, base, "", base, 0, None, (base, ""))

    def _walk(
        self,
        node: Any,
        base: str,
        pointer: str,
        resource: str,
        depth: int,
        dialect: Any,
        origin: tuple[str, str],
    ) -> None:
        """Index ``node`` at ``pointer`` in resource ``base``, whose root is at
        ``origin`` (document URI, pointer from the document's root)."""
        if depth > self._limits.max_schema_depth:
            raise ExecutionFailure(
                f"schema nesting is deeper than max_schema_depth={self._limits.max_schema_depth}",
                location=pointer,
                limit="max_schema_depth",
                value=self._limits.max_schema_depth,
            )
        if not isinstance(node, dict):
            return
        # Most schema objects have no identifier, anchor, $schema or $dynamicRef.
        marked = not _MARKERS.isdisjoint(node)
        if marked:
            identifier = node.get("$id")
            if isinstance(identifier, str):
                new_base, _ = split_fragment(join(base, identifier))
                at = (origin[0], origin[1] + pointer)
                self._claim(self._identified, new_base, at, "$id", identifier)
                if new_base != resource or pointer != "":
                    origin = at
                    base, pointer = new_base, ""
                    self.origins.setdefault(base, origin)
                    self.resources.setdefault(base, node)
                    self.embedded.setdefault(origin, base)
                resource = base
            if "$schema" in node:
                dialect = node["$schema"]
        if dialect is not None:
            self.declared_schema.setdefault(resource, dialect)
        if marked:
            anchor = node.get("$anchor")
            if isinstance(anchor, str):
                at = (origin[0], origin[1] + pointer)
                self._claim(self._anchored, (base, anchor), at, "$anchor", anchor)
                self.anchors.setdefault((base, anchor), Target(node, base, pointer))
            dynamic = node.get("$dynamicAnchor")
            if isinstance(dynamic, str):
                at = (origin[0], origin[1] + pointer)
                self._claim(self._anchored, (base, dynamic), at, "$dynamicAnchor", dynamic)
                target = Target(node, base, pointer)
                # A $dynamicAnchor is also a plain-name fragment for $ref.
                self.anchors.setdefault((base, dynamic), target)
                self.dynamic_anchors.setdefault((base, dynamic), target)
                self.dynamic_names[base] = self.dynamic_names.get(base, frozenset()) | {dynamic}
            if "$dynamicRef" in node:
                self.uses_dynamic_ref = True
        if _HOLDING.isdisjoint(node):
            return  # a leaf: most schema objects are
        # The order of subschemas(), with the pointers built by concatenation.
        depth += 1
        walk = self._walk
        for keyword in SINGLE:
            if keyword in node:
                walk(node[keyword], base, f"{pointer}/{keyword}", resource, depth, dialect, origin)
        for keyword in ARRAY:
            value = node.get(keyword)
            if isinstance(value, list):
                prefix = f"{pointer}/{keyword}/"
                for index, item in enumerate(value):
                    walk(item, base, prefix + str(index), resource, depth, dialect, origin)
        for keyword in MAPPING:
            value = node.get(keyword)
            if isinstance(value, dict):
                prefix = f"{pointer}/{keyword}/"
                for name, item in value.items():
                    if type(name) is not str or "~" in name or "/" in name:
                        name = escape(name)
                    walk(item, base, prefix + name, resource, depth, dialect, origin)

    @staticmethod
    def _claim(
        claims: dict[Any, tuple[str, str]],
        name: Any,
        at: tuple[str, str],
        keyword: str,
        value: str,
    ) -> None:
        """Record that the schema at ``at`` (document URI, pointer) defines ``name``.

        Two places of one document defining the same resource URI or the same anchor
        in one resource make every reference to it ambiguous: a SchemaError naming
        both (a JSON copy of a dict reused at two places has the same duplicate). A
        name defined again by another document (a bundle registered beside its parts)
        keeps its first definition."""
        first = claims.setdefault(name, at)
        if first != at and first[0] == at[0]:
            raise SchemaError(
                f"{keyword} {value!r} is defined twice in one schema document: at "
                f"{f'#{as_fragment(first[1])}'} and at {f'#{as_fragment(at[1])}'}",
                location=at[1],
            )

    # -- lookup ---------------------------------------------------------------

    def locate(self, resource: str, pointer: str) -> tuple[str, str]:
        """The base URI and pointer of the schema at ``pointer`` in ``resource``: those
        of the innermost resource holding it (a pointer may cross, or end at, the root
        of an embedded resource)."""
        origin = self.origins.get(resource)
        if origin is None or not self.embedded:
            return resource, pointer
        document, prefix = origin
        position = prefix + pointer
        # The longest prefix of the position, cut between tokens, that is the root of
        # an embedded resource (the pointer's own end first).
        end = len(position)
        while end > len(prefix):
            inner = self.embedded.get((document, position[:end]))
            if inner is not None:
                return inner, position[end:]
            end = position.rfind("/", 0, end)
        return resource, pointer

    def resource(self, uri: str, location: str = "") -> Any:
        """The resource at ``uri`` (no fragment), loading it from the registry if needed.

        ``location`` is where in the schema the reference is, for errors.
        """
        if uri in self.resources:
            return self.resources[uri]
        document, bundled = self._retrieve(uri, location)
        if document is _MISSING:
            raise LookupError(uri)
        if not bundled:
            self.loaded.append((uri, document))
        self.add_document(uri, document)
        return self.resources[uri]

    def _retrieve(self, uri: str, location: str) -> tuple[Any, bool]:
        """The document at ``uri`` and whether it is a bundled meta-schema."""
        for key in (uri, uri + "#"):
            if key in self._registry:
                return self._registry[key], False
        bundled = bundled_metaschemas()
        if uri in bundled:
            return bundled[uri], True
        if self._loader is not None:
            try:
                return self._loader(uri), False
            except Exception as exc:  # the loader is the caller's code
                # Its message may carry anything (credentials in a URL, say): name only
                # the exception type; the original is chained for the caller.
                raise SchemaError(
                    f"the loader failed to retrieve {uri!r} ({type(exc).__name__})",
                    location=location,
                ) from exc
        return _MISSING, False

    def resolve(self, reference_uri: str, location: str) -> Target:
        """Resolve an absolute URI with an optional fragment to its target node."""
        base, fragment = split_fragment(reference_uri)
        try:
            document = self.resource(base, location)
        except LookupError:
            raise SchemaError(
                f"cannot resolve reference {reference_uri!r}: no schema is registered "
                "at that URI (schemacore never fetches; pass registry= or loader=)",
                location=location,
            ) from None
        fragment = unquote_fragment(fragment)
        if fragment == "" or fragment.startswith("/"):
            try:
                node = resolve_pointer(document, parse_pointer(fragment))
            except PointerError as exc:
                raise SchemaError(
                    f"cannot resolve reference {reference_uri!r}: {exc}", location=location
                ) from None
            fallback_pointer = format_pointer(parse_pointer(fragment))
            node_base, node_pointer = self.locate(base, fallback_pointer)
            return Target(node, node_base, node_pointer)
        target = self.anchors.get((base, fragment))
        if target is None:
            raise SchemaError(
                f"cannot resolve reference {reference_uri!r}: no anchor {fragment!r} in {base!r}",
                location=location,
            )
        return target


class _Missing:
    pass


_MISSING: Any = _Missing()
