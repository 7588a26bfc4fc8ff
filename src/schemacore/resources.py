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
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import resources as package_files
from typing import Any

from .dialect import Dialect, normalise
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
from .spec import Shape
from .uri import is_reference, join, split_fragment, unquote_fragment

__all__ = ["RECURSIVE_NAME", "Index", "Target", "Unresolvable", "bundled_metaschemas"]

# What a compile-time unresolvable-reference error adds: the option that defers it.
# Surfaces without that option (the runtime, the CLI's own flag) replace it.
DEFER_HINT = "(defer_unresolved=True would compile it to fail only the calls that reach it)"

# The keywords that identify, anchor or declare something the index records (in
# some draft: the resource's dialect decides which of them mean anything).
_MARKERS = frozenset(
    (
        "$id", "id", "$schema", "$anchor", "$dynamicAnchor", "$dynamicRef",
        "$recursiveAnchor", "$recursiveRef",
    )
)  # fmt: skip

# The dynamic-scope name under which a 2019-09 "$recursiveAnchor": true is bound: no
# $dynamicAnchor can be named so (an anchor name starts with a letter or "_").
RECURSIVE_NAME = "#recursive"

# Shapes bound once: attribute lookups on an Enum class are slow in 3.11.
_ONE, _MAP, _ONE_OR_LIST = Shape.ONE, Shape.MAP, Shape.ONE_OR_LIST
# Per dialect (by identity): the keywords that make a schema object more than a leaf
# to the index, a subschema position or one of _MARKERS.
_NOT_LEAF: dict[Dialect, frozenset[str]] = {}

_BUNDLED: dict[str, Any] | None = None


def bundled_metaschemas() -> dict[str, Any]:
    """The meta-schemas of every implemented draft (and 2019-09's and 2020-12's
    vocabulary meta-schemas), by URI without an empty fragment."""
    global _BUNDLED
    if _BUNDLED is None:
        found: dict[str, Any] = {}
        folder = package_files.files("schemacore") / "metaschemas"
        for draft in folder.iterdir():
            if not draft.is_dir():
                continue
            for entry in draft.iterdir():
                if entry.name.endswith(".json"):
                    document = json.loads(entry.read_text(encoding="utf-8"))
                    found[normalise(document.get("$id") or document["id"])] = document
        _BUNDLED = found
    return _BUNDLED


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
        dialect_hint: Callable[[Any, str], Dialect | None],
    ) -> None:
        self._registry = registry or {}
        self._loader = loader
        self._limits = limits
        # $schema value, location -> the dialect it names when that is known without
        # compiling anything (a published draft), else None; it raises for a draft
        # schemacore does not implement.
        self._dialect_hint = dialect_hint
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
        # Resource URI -> the $schema value in force there (absent: none declared),
        # and the dialect it was indexed under (its $schema's, when that is a
        # published draft, else the one it inherited).
        self.declared_schema: dict[str, Any] = {}
        self.indexed_as: dict[str, Dialect] = {}
        self.uses_dynamic_ref = False
        # Documents that came from the caller's registry or loader, by URI.
        self.loaded: list[tuple[str, Any]] = []

    # -- building -----------------------------------------------------------

    def add_document(self, uri: str, document: Any, dialect: Dialect) -> None:
        """Index ``document`` (retrieved as ``uri``) and every resource embedded in it;
        ``dialect`` is the one it is read under where it declares none."""
        base, _ = split_fragment(uri)
        self.resources.setdefault(base, document)
        self.origins.setdefault(base, (base, ""))
        self._walk(document, base, "", base, 0, dialect, None, (base, ""))

    def _walk(
        self,
        node: Any,
        base: str,
        pointer: str,
        resource: str,
        depth: int,
        dialect: Dialect,
        declared: Any,
        origin: tuple[str, str],
    ) -> None:
        """Index ``node`` at ``pointer`` in resource ``base``, whose root is at
        ``origin`` (document URI, pointer from the document's root); ``declared`` is
        the $schema value in force (None: none)."""
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
            if "$schema" in node:
                declared = node["$schema"]
                # An unknown meta-schema (a custom one) is resolved when compiling;
                # until then its resource is read as the one around it.
                dialect = self._dialect_hint(declared, f"{pointer}/$schema") or dialect
            identifier = node.get(dialect.identifier)
            if dialect.ref_alone and "$ref" in node:
                identifier = None  # "$ref" stands alone: a sibling $id is ignored
            if isinstance(identifier, str):
                if not is_reference(identifier):
                    raise SchemaError(
                        f"{dialect.identifier} {identifier!r} is not a URI-reference "
                        "(RFC 3986), as the specification requires",
                        location=f"{pointer}/{dialect.identifier}",
                        reason="invalid-identifier",
                    )
                if dialect.ref_alone and identifier.startswith("#"):
                    # A fragment-only identifier is a plain-name anchor before 2019-09.
                    self._anchor(node, base, pointer, origin, identifier[1:], dialect.identifier)
                else:
                    new_base, fragment = split_fragment(join(base, identifier))
                    at = (origin[0], origin[1] + pointer)
                    self._claim(self._identified, new_base, at, dialect.identifier, identifier)
                    if new_base != resource or pointer != "":
                        origin = at
                        base, pointer = new_base, ""
                        self.origins.setdefault(base, origin)
                        self.resources.setdefault(base, node)
                        self.embedded.setdefault(origin, base)
                    resource = base
                    if dialect.ref_alone and fragment and not fragment.startswith("/"):
                        self._anchor(node, base, pointer, origin, fragment, dialect.identifier)
        if declared is not None:
            self.declared_schema.setdefault(resource, declared)
        self.indexed_as.setdefault(resource, dialect)
        if marked:
            keywords = dialect.keywords
            anchor = node.get("$anchor")
            if isinstance(anchor, str) and "$anchor" in keywords:
                self._anchor(node, base, pointer, origin, anchor, "$anchor")
            dynamic = node.get("$dynamicAnchor")
            if isinstance(dynamic, str) and "$dynamicAnchor" in keywords:
                target = self._anchor(node, base, pointer, origin, dynamic, "$dynamicAnchor")
                self.dynamic_anchors.setdefault((base, dynamic), target)
                self.dynamic_names[base] = self.dynamic_names.get(base, frozenset()) | {dynamic}
            if (
                node.get("$recursiveAnchor") is True
                and pointer == ""
                and "$recursiveAnchor" in keywords
            ):
                target = Target(node, base, pointer)
                self.dynamic_anchors.setdefault((base, RECURSIVE_NAME), target)
                names = self.dynamic_names.get(base, frozenset())
                self.dynamic_names[base] = names | {RECURSIVE_NAME}
            if "$dynamicRef" in node or "$recursiveRef" in node:
                self.uses_dynamic_ref = True
        if dialect.shapes.keys().isdisjoint(node):
            return  # a leaf: most schema objects are
        depth += 1
        walk = self._walk
        shapes = dialect.shapes
        # A member or item that is a leaf (no identifier, anchor or subschema) has
        # nothing to index: most are, so they are passed over here, without a call,
        # unless the walk must refuse them for their depth.
        leaf_keys = None
        if depth <= self._limits.max_schema_depth:
            leaf_keys = _NOT_LEAF.get(dialect)
            if leaf_keys is None:
                leaf_keys = _NOT_LEAF[dialect] = frozenset(shapes) | _MARKERS
        # The node's own keywords (a few) rather than every keyword that may hold
        # subschemas (twenty).
        for keyword, value in node.items():
            shape = shapes.get(keyword)
            if shape is None:
                continue
            if shape is _ONE or (shape is _ONE_OR_LIST and not isinstance(value, list)):
                walk(
                    value, base, f"{pointer}/{keyword}", resource, depth, dialect, declared, origin
                )
            elif shape is _MAP:
                if isinstance(value, dict):
                    prefix = f"{pointer}/{keyword}/"
                    for name, item in value.items():
                        if leaf_keys is not None and (
                            not isinstance(item, dict) or leaf_keys.isdisjoint(item)
                        ):
                            continue
                        if type(name) is not str or "~" in name or "/" in name:
                            name = escape(name)
                        walk(item, base, prefix + name, resource, depth, dialect, declared, origin)
            elif isinstance(value, list):
                prefix = f"{pointer}/{keyword}/"
                for index, item in enumerate(value):
                    walk(
                        item, base, prefix + str(index), resource, depth, dialect, declared, origin
                    )

    def _anchor(
        self,
        node: Any,
        base: str,
        pointer: str,
        origin: tuple[str, str],
        name: str,
        keyword: str,
    ) -> Target:
        """Record the plain-name anchor ``name`` of resource ``base`` at ``pointer``."""
        at = (origin[0], origin[1] + pointer)
        self._claim(self._anchored, (base, name), at, keyword, name)
        target = Target(node, base, pointer)
        return self.anchors.setdefault((base, name), target)

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
                reason="duplicate-identifier",
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

    def resource(self, uri: str, location: str, dialect: Dialect) -> Any:
        """The resource at ``uri`` (no fragment), loading it from the registry if needed.

        ``location`` is where in the schema the reference is, for errors; a document
        loaded now that declares no $schema is read under ``dialect`` (the dialect
        of the schema referring to it).
        """
        if uri in self.resources:
            return self.resources[uri]
        document, bundled = self._retrieve(uri, location)
        if document is _MISSING:
            raise LookupError(uri)
        if not bundled:
            self.loaded.append((uri, document))
        self.add_document(uri, document, dialect)
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
                    reason="loader-failed",
                ) from exc
        return _MISSING, False

    def find(self, reference_uri: str, location: str, dialect: Dialect) -> Target | Unresolvable:
        """Resolve an absolute URI with an optional fragment to its target node, or
        say why nothing is there (``dialect``: the referring schema's, see
        :meth:`resource`). A loader that raises is an error of its own (reason
        ``loader-failed``), never a :class:`Unresolvable`: the loader answered."""
        base, fragment = split_fragment(reference_uri)
        try:
            document = self.resource(base, location, dialect)
        except LookupError:
            return Unresolvable(
                reference_uri,
                "no schema is registered at that URI; schemacore never fetches: pass "
                "registry= or loader=",
            )
        fragment = unquote_fragment(fragment)
        if fragment == "" or fragment.startswith("/"):
            try:
                node = resolve_pointer(document, parse_pointer(fragment))
            except PointerError as exc:
                return Unresolvable(reference_uri, str(exc))
            fallback_pointer = format_pointer(parse_pointer(fragment))
            node_base, node_pointer = self.locate(base, fallback_pointer)
            return Target(node, node_base, node_pointer)
        target = self.anchors.get((base, fragment))
        if target is None:
            return Unresolvable(reference_uri, f"no anchor {fragment!r} in {base!r}")
        return target

    def resolve(self, reference_uri: str, location: str, dialect: Dialect) -> Target:
        """:meth:`find`, raising SchemaError (reason ``unresolvable-reference``)
        where it finds nothing."""
        found = self.find(reference_uri, location, dialect)
        if isinstance(found, Unresolvable):
            raise found.error(location)
        return found


@dataclass(frozen=True, slots=True)
class Unresolvable:
    """What a reference names that no schema the index holds or can load is: the
    reference as an absolute URI, and why (no such document, anchor or location)."""

    uri: str
    why: str

    def error(self, location: str) -> SchemaError:
        """The compile-time error of a reference at ``location`` (a JSON Pointer into
        its schema) to nothing: it names the option that defers it to the calls."""
        return SchemaError(
            f"cannot resolve reference {self.uri!r}: {self.why} {DEFER_HINT}",
            location=location,
            reason="unresolvable-reference",
        )


class _Missing:
    pass


_MISSING: Any = _Missing()
