"""Compiling one schema document, as numbered stages that run one way.

1. **resources**: index the document: every resource, anchor and dynamic anchor,
   each under its own dialect (``max_schema_depth`` is enforced here, before any
   other walk).
2. **dialect**: the root's ``$schema``, else the ``default_dialect``.
3. **meta-schema check**: the document is JSON throughout (annotations and unknown
   keywords included), then valid against its dialect's meta-schema, compiled by
   these same stages (the bundled drafts' once per process); each embedded resource
   declaring another dialect against its own.
4. **nodes**: compile the root; references compile their targets as they go, and
   pull in the documents they need from the registry or loader.
5. **analyses**: reference loops without progress, in-place and child fan-out, and
   which nodes memoise.
6. **referenced documents**: each one pulled in at stage 4 is checked against its
   own meta-schema.

The :class:`~schemacore.validator.Validator` wraps what comes out; nothing here
reaches back into it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any, NoReturn

from . import dialects
from .compiler import Compiler
from .dialect import Dialect, normalise
from .errors import ExecutionFailure, SchemaError, ValidationError
from .flatmeta import flatten
from .jsonvalue import JSON_VALUES, outside_json
from .model import Node, Options
from .paths import to_pointer
from .pointer import parse_pointer
from .recursion import check_child_fan_out, mark_fan_out
from .relevance import best_match
from .resources import bundled_metaschemas
from .uri import join, split_fragment

__all__ = ["build", "resolve_default"]

Loader = Callable[[str], Any]


def _recursion_failure() -> NoReturn:
    raise ExecutionFailure(
        "the schema is nested or chained too deeply to compile within Python's "
        "recursion limit (lower Limits.max_schema_depth, or simplify its references)",
        limit="recursion",
    ) from None


def resolve_default(default_dialect: Any) -> Dialect | str:
    """The dialect a ``default_dialect`` option names: a published draft, or the URI
    of a custom meta-schema (resolved against the registry when compiling)."""
    if default_dialect is None:
        return dialects.DEFAULT
    if not isinstance(default_dialect, str):
        raise TypeError("default_dialect must be a meta-schema URI (a string)")
    found = dialects.by_name(default_dialect)
    if found is not None:
        return found
    dialects.refuse_unsupported(default_dialect, what="default_dialect")
    return default_dialect


def build(
    schema: Any,
    registry: Mapping[str, Any] | None,
    loader: Loader | None,
    options: Options,
    check_schema: bool,
    default: Dialect | str = dialects.DEFAULT,
) -> tuple[Node, Compiler]:
    """Run every stage on ``schema``: its root node and the compiler holding it."""
    try:
        return _stages(schema, registry, loader, options, check_schema, default)
    except RecursionError:
        _recursion_failure()


def _stages(
    schema: Any,
    registry: Mapping[str, Any] | None,
    loader: Loader | None,
    options: Options,
    check_schema: bool,
    default: Dialect | str,
    *,
    share: bool = True,
) -> tuple[Node, Compiler]:
    if not isinstance(schema, (dict, bool)):
        raise SchemaError(
            f"a schema must be an object or a boolean, not {type(schema).__name__}",
            reason="not-a-schema",
        )
    compiler = Compiler(
        options, registry, loader, default if isinstance(default, Dialect) else dialects.DEFAULT
    )
    if share:
        compiler.published = _published_root
    index = compiler.index
    if not isinstance(default, Dialect):
        # A custom meta-schema as the default: resolved like any $schema value.
        compiler.default = compiler.dialect_for(default, "")
    default_dialect = compiler.default
    declared = schema.get("$schema") if isinstance(schema, dict) else None
    # 1. resources, read as the published draft $schema names (or the default); a
    # custom meta-schema may be one of them, so it is resolved after.
    indexed_as = (compiler.hint(declared, "/$schema") if declared is not None else None) or (
        default_dialect
    )
    base = ""
    if isinstance(schema, dict) and isinstance(schema.get(indexed_as.identifier), str):
        identifier = schema[indexed_as.identifier]
        if not (indexed_as.ref_alone and ("$ref" in schema or identifier.startswith("#"))):
            base = split_fragment(join("", identifier))[0]
    index.add_document(base, schema, indexed_as)
    # 2. dialect.
    dialect = default_dialect
    if declared is not None:
        dialect = compiler.dialect_for(declared, "/$schema")
    # 3. meta-schema check.
    if check_schema:
        _check_document(schema, dialect, compiler, "the schema", base)
    # 4. nodes.
    node = compiler.node(schema, base, "", dialect, (), False, None)
    # 5. analyses.
    compiler.check_progress()
    limit = options.limits.max_inplace_applications
    # Both walks have nothing to do, and return at once, when the root's evaluation
    # paths are within the limit and when no edge closes a cycle: spare them the list.
    if node.paths > limit:
        check_child_fan_out(node, compiler.nodes, limit)
    compiler.memoises = mark_fan_out(compiler.nodes) if compiler.cycles else False
    # 6. referenced documents.
    if check_schema:
        for uri, document in index.loaded:
            found = index.indexed_as.get(split_fragment(uri)[0], default_dialect)
            if isinstance(document, dict) and "$schema" in document:
                found = compiler.dialect_for(document["$schema"], "/$schema")
            _check_document(document, found, compiler, f"the schema at {uri!r}", uri)
    return node, compiler


# -- meta-schema checks -------------------------------------------------------------

# A compiled meta-schema: its root node and the compiler holding it.
Meta = tuple[Node, Compiler]
# Per bundled draft, shared by every compile of the process: the meta-schema that
# answers is_valid (its flat form where there is one, see flatmeta) and the
# published one, which gives the errors.
_META: dict[str, tuple[Meta, Meta]] = {}
_META_LOCK = threading.Lock()


def _meta_for(draft: Dialect) -> tuple[Meta, Meta]:
    """The compiled meta-schemas of a published draft (compiled once, then shared):
    (the one for is_valid, the one for errors)."""
    uri = draft.uri
    cached = _META.get(uri)
    if cached is None:
        with _META_LOCK:
            cached = _META.get(uri)
            if cached is None:
                documents = bundled_metaschemas()
                # Never sharing: a meta-schema referring to its own root compiles it.
                published = _stages(
                    documents[uri], None, None, Options(), False, draft, share=False
                )
                flat_document = flatten(uri, documents)
                fast = published
                if flat_document is not None:
                    fast = _stages(flat_document, None, None, Options(), False, draft, share=False)
                # Every compile checks against the first: generated code pays at
                # once. The published one only words the errors of invalid schemas.
                fast[1].promote()
                cached = _META[uri] = (fast, published)
    return cached


_PUBLISHED: dict[str, Dialect] = {draft.uri: draft for draft in dialects.DIALECTS}
# Per published meta-schema URI: what Compiler.shared_root hands out (None when its
# compile memoises, whose answers a call of another validator would never forget).
_SHARED: dict[str, tuple[Node, Compiler, frozenset[str]] | None] = {}


def _published_root(uri: str, document: Any) -> tuple[Node, Compiler, frozenset[str]] | None:
    """For Compiler.shared_root: the process-wide compile of the published
    meta-schema at ``uri``, when ``document`` is the bundled one (not a registry's
    or an embedded resource's document of that URI), with the dynamic anchor names
    its documents use."""
    draft = _PUBLISHED.get(uri)
    if draft is None or document is not bundled_metaschemas().get(uri):
        return None
    if uri not in _SHARED:
        node, compiler = _meta_for(draft)[1]
        compiler.complete()  # everything of it is read from other validators
        names = frozenset().union(*compiler.index.dynamic_names.values())
        _SHARED[uri] = None if compiler.memoises else (node, compiler, names)
    return _SHARED[uri]


def _check_document(
    schema: Any, dialect: Dialect, compiler: Compiler, what: str, uri: str = "", at: str = ""
) -> None:
    """Validate one schema document (or an embedded resource of another draft, at
    ``at`` in the document at ``uri``) against its own dialect's meta-schema.

    An embedded resource that declares another dialect is checked against that
    dialect's meta-schema, not as a subschema of the document around it."""
    if not at:
        _check_json(schema, what)
    foreign = _foreign_resources(schema, compiler, uri, at)
    if foreign:
        for pointer, resource in foreign:
            inner = compiler.dialect_for(resource["$schema"], pointer + "/$schema")
            _check_document(resource, inner, compiler, what, uri, pointer)
        # Each is left out of this check by a schema that accepts everything and
        # that this dialect's meta-schema accepts in any subschema position: draft-04
        # takes no boolean there.
        anything: Any = True if dialect.boolean_schemas else {}
        schema = _without(schema, [pointer[len(at) :] for pointer, _ in foreign], anything)
    try:
        _check_one(schema, dialect, compiler, what)
    except SchemaError as exc:
        if at:
            raise SchemaError(
                exc.message, location=at + (exc.location or ""), reason=exc.reason
            ) from None
        raise


def _check_json(document: Any, what: str) -> None:
    """Refuse a schema document holding a value outside the JSON data model in any
    position: where the meta-schema looks, and where it does not (the values of
    annotations, const, enum and unknown keywords, which outputs write as JSON).
    A value outside it is no limit: the document is not JSON, so it is no schema."""
    found = outside_json(document)
    if found is not None:
        path, description = found
        raise SchemaError(
            f"{what} contains {description} ({JSON_VALUES})",
            location=to_pointer(path),
            reason="not-json",
        )


def _foreign_resources(schema: Any, compiler: Compiler, uri: str, at: str) -> list[tuple[str, Any]]:
    """The outermost embedded resources below ``at`` in document ``uri`` that declare
    a $schema other than the one of the schema at ``at``: (pointer, resource)."""
    index = compiler.index
    if not index.embedded or not isinstance(schema, dict):
        return []
    own = schema.get("$schema")
    found: list[tuple[str, Any]] = []
    for (document, pointer), resource in sorted(index.embedded.items()):
        if document != uri or not pointer.startswith(at + "/"):
            continue
        if any(pointer.startswith(outer + "/") for outer, _ in found):
            continue  # inside one already found: checked with it
        node = index.resources.get(resource)
        declared = node.get("$schema") if isinstance(node, dict) else None
        if isinstance(declared, str) and (
            not isinstance(own, str) or normalise(declared) != normalise(own)
        ):
            found.append((pointer, node))
    return found


def _without(schema: Any, pointers: list[str], placeholder: Any) -> Any:
    """A copy of ``schema`` with ``placeholder`` at each pointer (copying only the
    path)."""
    result = dict(schema)
    for pointer in pointers:
        tokens = parse_pointer(pointer)
        parent: Any = result
        for token in tokens[:-1]:
            key: Any = int(token) if isinstance(parent, list) else token
            child = parent[key]
            child = list(child) if isinstance(child, list) else dict(child)
            parent[key] = child
            parent = child
        last: Any = int(tokens[-1]) if isinstance(parent, list) else tokens[-1]
        parent[last] = placeholder
    return result


def _check_one(schema: Any, dialect: Dialect, compiler: Compiler, what: str) -> None:
    """Validate a schema against the meta-schema its dialect names."""
    declared = schema.get("$schema") if isinstance(schema, dict) else None
    custom = isinstance(declared, str) and dialects.known(declared) is None
    if custom:
        # A custom meta-schema: compiled with the schema's registry and loader (it
        # may be in the schema itself, which is then registered by its $id).
        registry = dict(compiler.registry or {})
        for uri, resource in compiler.index.resources.items():
            registry.setdefault(uri, resource)
        meta_schema = {"$ref": normalise(str(declared))}
        # Under the schema's defer_unresolved: checking the schema is a call like
        # any other, failing only if it reaches a reference to nothing.
        options = Options(defer_unresolved=compiler.options.defer_unresolved)
        custom_meta = _stages(
            meta_schema, registry, compiler.loader, options, False, dialects.DEFAULT
        )
        fast, meta = custom_meta, custom_meta
    else:
        # A published draft's meta-schema (a custom default dialect is checked
        # against the draft it extends).
        fast, meta = _meta_for(dialects.by_name(dialect.name) or dialects.DEFAULT)
    _check_against(fast, meta, schema, what, dialect.name)


def _meta_run(meta: Meta, schema: Any, errors: bool) -> Any:
    """The meta-schema's is_valid answer on ``schema``, or (``errors``) its errors,
    from fresh call bookkeeping, as a Validator call would."""
    node, compiler = meta
    if errors:
        compiler.complete()  # the error path reads every node (Compiler.defer_leaf)
    state = compiler.state
    state.depth = 0
    state.reads = None
    if compiler.memoises:
        state.forget()
    try:
        return list(node.errors(schema, None, None)) if errors else node.valid(schema)
    except RecursionError:
        raise ExecutionFailure(
            "the schema is nested too deeply to check within Python's recursion limit",
            limit="recursion",
        ) from None
    finally:
        state.depth = 0
        if compiler.memoises:
            state.forget()


def _meta_valid(meta: Meta, schema: Any) -> bool:
    return bool(_meta_run(meta, schema, False))


def _meta_errors(meta: Meta, schema: Any) -> list[ValidationError]:
    found: list[ValidationError] = _meta_run(meta, schema, True)
    return found


def _check_against(fast: Meta, meta: Meta, schema: Any, what: str, draft: str) -> None:
    # An ExecutionFailure here (a schema nested too deeply to check, say) stays one:
    # a limit is never reported as an invalid schema. (No value outside the JSON
    # data model is met here: _check_json refused the document first.)
    if _meta_valid(fast, schema):
        return
    error = best_match(iter(_meta_errors(meta, schema)))
    if error is None:  # pragma: no cover - both paths agree by construction
        raise SchemaError(f"{what} is not a valid schema", reason="meta-schema")
    raise SchemaError(
        f"{what} is not a valid {_title(draft)} schema: {error.message}",
        location=error.instance_location,
        reason="meta-schema",
    )


def _title(draft: str) -> str:
    return f"Draft {draft}" if draft[0].isdigit() else draft
