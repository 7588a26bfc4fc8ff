"""Admitting a tool's input or output schema: the checks, in order, and the result.

Order (each step runs only if the previous ones passed):

1. the schema is a JSON object (an output schema may also be a boolean);
2. its JSON shape: string keys, JSON values, depth and size bounds;
3. its dialect: every ``$schema`` (the root's and any nested resource's) is a
   Draft 2020-12 URI as the engine reads it (``https://`` or ``http://``, with or
   without a trailing ``#``), another dialect the caller listed in ``dialects``
   (left to the engine, which validates it under its own rules or refuses it), or
   names a meta-schema the caller put in ``registry``; another draft or an unknown
   dialect is ``unsupported_capability``, even with a ``loader`` (which is never
   asked for a meta-schema);
4. for an input schema, the object root: a root ``type`` must be ``"object"`` or
   ``["object"]`` (a missing ``type`` keeps the object boundary);
5. compilation by the engine: meta-schema validity, patterns, references (which
   resolve only through ``registry`` / ``loader``, so a missing one is refused
   here, before any call) and the engine's limits.

The caller's schema object is kept as given; nothing is added, removed or loosened.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Final, Literal

import schemacore
from schemacore.dialect import DRAFT_2020_12, OTHER_DRAFTS, is_2020_12, normalise
from schemacore.uri import split_fragment

from ..resources import DEFER_HINT
from .bounds import DEFAULT_LIMITS, BoundaryLimits, check_schema_shape
from .dialects import DEFAULT_DIALECTS, dialect_name, parse_dialects
from .errors import EXECUTION_FAILURE, UNSUPPORTED_CAPABILITY, BoundaryError
from .jsonvalues import escape_token
from .schemacache import ContentCache, schema_text
from .schemalookup import SchemaLookup

__all__ = ["DRAFT_2020_12", "ToolSchema", "validate_schema"]

Role = Literal["input", "output"]

# How messages name the other drafts (the engine's OTHER_DRAFTS decides which
# URIs are other drafts; this only words them).
_DRAFT_NAMES = {
    "http://json-schema.org/draft-03/schema": "draft-03",
    "http://json-schema.org/draft-04/schema": "draft-04",
    "http://json-schema.org/draft-06/schema": "draft-06",
    "http://json-schema.org/draft-07/schema": "draft-07",
    "https://json-schema.org/draft/2019-09/schema": "draft 2019-09",
    "http://json-schema.org/schema": "the unversioned latest-draft alias",
}


@dataclass(frozen=True, slots=True, eq=False)
class ToolSchema:
    """A tool schema that passed the boundary checks, compiled once.

    Attributes:
        schema: the caller's schema object, unchanged.
        role: ``"input"`` (object-root rule applies) or ``"output"``.
        validator: the compiled engine validator.
        limits: the runtime bounds used for arguments checked against it.
    """

    schema: Any
    role: Role
    validator: schemacore.Validator
    limits: BoundaryLimits
    # Internal: reads constraints back from the schema for issue messages.
    lookup: SchemaLookup = field(repr=False)


class _MetaSchemaNotLoaded(Exception):
    """Raised by the runtime's wrapper around the caller's loader when the engine
    asks it for a URI that some ``$schema`` names: a dialect is never fetched."""


# Keywords whose values are data, not schemas.
_DATA_KEYWORDS = frozenset({"const", "enum", "default", "examples"})
# Keywords whose values map names (not keywords) to schemas.
_SCHEMA_MAPS = frozenset(
    {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
)


def _dialect_declarations(schema: Any) -> Iterator[tuple[str, Any]]:
    """Every ``$schema`` of ``schema`` in a schema position, as (pointer, value), in
    document order. Data keywords are skipped and the keys of ``properties`` and
    the like are names, not keywords; any other object (an unknown keyword's value
    too, since a ``$ref`` can make it a schema) is read as a schema."""
    stack: list[tuple[Any, str, bool]] = [(schema, "", False)]
    while stack:
        node, where, is_map = stack.pop()
        children: list[tuple[Any, str, bool]] = []
        if isinstance(node, dict):
            if not is_map and "$schema" in node:
                yield f"{where}/$schema", node["$schema"]
            for key, child in node.items():
                if not isinstance(key, str) or (not is_map and key in _DATA_KEYWORDS):
                    continue
                if isinstance(child, (dict, list)):
                    child_is_map = not is_map and key in _SCHEMA_MAPS
                    children.append((child, f"{where}/{escape_token(key)}", child_is_map))
        elif isinstance(node, list):
            for index, child in enumerate(node):
                if isinstance(child, (dict, list)):
                    children.append((child, f"{where}/{index}", False))
        stack.extend(reversed(children))


def _dialect_uris(document: Any) -> set[str]:
    """Every string under a ``$schema`` key anywhere in ``document`` (data included),
    without its fragment: the URIs the loader must never be asked for."""
    found: set[str] = set()
    stack = [document]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            declared = node.get("$schema")
            if isinstance(declared, str) and not is_2020_12(declared):
                found.add(split_fragment(declared)[0])
            stack.extend(v for v in node.values() if isinstance(v, (dict, list)))
        elif isinstance(node, list):
            stack.extend(v for v in node if isinstance(v, (dict, list)))
    return found


def _registered(uri: str, registry: Mapping[str, Any] | None) -> bool:
    if not registry:
        return False
    key = normalise(uri)
    return key in registry or key + "#" in registry


def _dialect_error(
    declared: Any, path: str, registry: Mapping[str, Any] | None, allowed: frozenset[str]
) -> BoundaryError | None:
    """The error for one ``$schema`` value, or None when it is Draft 2020-12 (as the
    engine reads it), a dialect in ``allowed`` (the engine decides whether it can
    validate it) or a meta-schema the caller registered explicitly."""
    if not isinstance(declared, str):
        if path != "/$schema":
            return None  # not a keyword here, or the meta-schema reports it (step 5)
        return BoundaryError("schema-invalid", "$schema must be a URI string", path=path)
    if is_2020_12(declared):
        return None
    name = dialect_name(declared)
    if name is not None and name in allowed:
        return None
    key = normalise(declared)
    if key in OTHER_DRAFTS or name is not None:
        # Names from the tables only, never the declared text: the message is safe
        # to log whatever the schema holds.
        draft = _DRAFT_NAMES.get(key) or name or OTHER_DRAFTS[key]
        if allowed == _DEFAULT:
            only = "only JSON Schema Draft 2020-12 is admitted here"
        else:
            only = "the dialects admitted here are " + ", ".join(sorted(allowed))
        if name is None:
            # draft-03, "next", the unversioned alias: no dialects= admits them.
            how = "no dialects= admits it"
        else:
            how = f'list "{name}" in dialects= to admit it under its own rules'
        message = (
            f"the schema declares {draft}; {only} (reinterpreting it under 2020-12 "
            f"rules could change what it accepts); {how}"
        )
    elif _registered(declared, registry):
        # A custom meta-schema the caller registered: the engine decides (step 5)
        # whether its own dialect is 2020-12 and which vocabularies it uses.
        return None
    else:
        message = (
            "the schema declares an unknown dialect; only JSON Schema Draft 2020-12 "
            "is supported (a custom meta-schema must be given in the registry; it is "
            "never fetched through the loader)"
        )
    return BoundaryError(
        "schema-dialect-unsupported",
        message,
        error_class=UNSUPPORTED_CAPABILITY,
        path=path,
    )


_DEFAULT: Final = frozenset(DEFAULT_DIALECTS)


def _guard_loader(
    loader: Callable[[str], Any] | None, schema: Any, registry: Mapping[str, Any] | None
) -> Callable[[str], Any] | None:
    """The caller's loader, refusing every URI that a ``$schema`` names (in the
    schema, the registry or a document loaded before): meta-schemas come from the
    registry only, so a dialect is never whatever a loader returns."""
    if loader is None:
        return None
    dialects = _dialect_uris(schema)
    for document in (registry or {}).values():
        dialects |= _dialect_uris(document)

    def load(uri: str) -> Any:
        if split_fragment(uri)[0] in dialects:
            raise _MetaSchemaNotLoaded(uri)
        document = loader(uri)
        dialects.update(_dialect_uris(document))
        return document

    return load


def _root_type_error(schema: Mapping[str, Any]) -> BoundaryError | None:
    if "type" not in schema:
        return None
    declared = schema["type"]
    if declared == "object" or (
        isinstance(declared, list) and len(declared) == 1 and declared[0] == "object"
    ):
        return None
    return BoundaryError(
        "input-schema-root-not-object",
        'the root of an input schema must be an object schema: its "type" must be '
        '"object" or ["object"]',
        path="/type",
    )


# The engine's stable reason codes (schemacore.errors.REASONS) -> runtime codes: the
# exception type and its reason decide, never the words of a message.
_DIALECT_REASONS = frozenset({"unsupported-dialect", "unsupported-vocabulary"})
_UNRESOLVED_REASONS = frozenset({"unresolvable-reference", "loader-failed"})


def _engine_code(exc: schemacore.SchemaCoreError) -> str:
    """A stable runtime code for an engine failure, from its type and reason."""
    if isinstance(exc, schemacore.ExecutionFailure):
        return "schema-limit-exceeded"
    if isinstance(exc, schemacore.UnsupportedCapability):
        if exc.reason in _DIALECT_REASONS:
            return "schema-dialect-unsupported"
        return "schema-unsupported-capability"
    if isinstance(exc, schemacore.SchemaError):
        if isinstance(exc.__cause__, _MetaSchemaNotLoaded):
            return "schema-dialect-unsupported"
        if exc.reason in _UNRESOLVED_REASONS:
            return "schema-ref-unresolved"
        if exc.reason == "bad-regex":
            return "schema-pattern-invalid"
    return "schema-invalid"


def _compile(
    schema: Any,
    registry: Mapping[str, Any] | None,
    loader: Callable[[str], Any] | None,
    format_assertion: bool,
    content_assertion: bool,
    limits: schemacore.Limits | None,
) -> schemacore.Validator:
    try:
        return schemacore.compile(
            schema,
            registry=registry,
            loader=_guard_loader(loader, schema, registry),
            format_assertion=format_assertion,
            content_assertion=content_assertion,
            limits=limits,
        )
    except schemacore.SchemaCoreError as exc:
        code = _engine_code(exc)
        if code == "schema-dialect-unsupported" and isinstance(exc, schemacore.SchemaError):
            # The runtime refused to fetch a meta-schema through the loader.
            raise BoundaryError(
                code,
                "a schema resource declares a dialect that is neither Draft 2020-12 nor "
                "a meta-schema given in the registry (meta-schemas are never fetched "
                "through the loader)",
                error_class=UNSUPPORTED_CAPABILITY,
                path=exc.location,
            ) from exc
        # The engine's message names schema locations and values of the schema,
        # which belong to the tool publisher, not to a caller: safe to keep. The
        # class is the engine's: every limit is an ExecutionFailure.
        limit = exc.limit if isinstance(exc, schemacore.ExecutionFailure) else None
        # Admission offers no deferring: the engine's hint about its option goes.
        message = exc.message.replace(" " + DEFER_HINT, "")
        raise BoundaryError(
            code, message, error_class=exc.error_class, path=exc.location, limit=limit
        ) from exc
    except RecursionError:
        raise BoundaryError(
            "schema-limit-exceeded",
            "the schema is nested too deeply to compile",
            error_class=EXECUTION_FAILURE,
            limit="recursion",
        ) from None


def validate_schema(
    schema: Any,
    *,
    role: Role = "input",
    registry: Mapping[str, Any] | None = None,
    loader: Callable[[str], Any] | None = None,
    format_assertion: bool = False,
    content_assertion: bool = False,
    limits: schemacore.Limits | None = None,
    boundary_limits: BoundaryLimits | None = None,
    dialects: Iterable[str] = DEFAULT_DIALECTS,
) -> ToolSchema:
    """Check and compile a tool's input schema (or, with ``role="output"``, an
    output schema: any Draft 2020-12 schema, no object-root rule).

    ``dialects`` lists the dialects admitted besides Draft 2020-12 (short names such
    as ``"draft-07"`` or meta-schema URIs; see ``schemacore.runtime.dialects``). A
    schema that declares a listed dialect is compiled by the engine under that
    dialect's own rules; while the engine cannot, it is ``unsupported_capability`` as before.

    Without ``registry`` and ``loader``, a schema is compiled once per content and
    options: admitting an equal schema again reuses the compiled validator (a
    bounded cache, ``toolschema.COMPILED``; the checks before compiling still run
    every time). The validator is compiled from a private copy, so changing the
    schema object afterwards changes nothing admitted.

    Raises:
        BoundaryError: with ``error_class`` ``"validation"`` (not a valid schema,
            root not an object, unresolved reference, bad pattern),
            ``"unsupported_capability"`` (another draft or dialect, an unsupported
            vocabulary or format) or ``"execution_failure"`` (a limit).
        TypeError, ValueError: ``dialects`` is not a list of known dialects; an
            unknown ``role``.
    """
    if role not in ("input", "output"):
        raise ValueError(f"role must be 'input' or 'output', not {role!r}")
    allowed = parse_dialects(dialects)
    bounds = boundary_limits if boundary_limits is not None else DEFAULT_LIMITS
    if isinstance(schema, bool) and role == "output":
        pass
    elif not isinstance(schema, dict):
        what = "an object or a boolean" if role == "output" else "an object"
        raise BoundaryError(
            "schema-not-object",
            f"a tool {role} schema must be {what}, not {_kind(schema)}",
        )
    check_schema_shape(schema, bounds)
    # Past the shape check the JSON text names the schema exactly (schemacache).
    text = schema_text(schema)
    if isinstance(schema, dict):
        if text is not None and text.count('"$schema"') == ("$schema" in schema):
            # No "$schema" string below the root, as key or value: the root's is
            # the only declaration, and the walk has nothing more to find.
            declarations: Iterable[tuple[str, Any]] = (
                [("/$schema", schema["$schema"])] if "$schema" in schema else []
            )
        else:
            declarations = _dialect_declarations(schema)
        for path, declared in declarations:
            error = _dialect_error(declared, path, registry, allowed)
            if error is not None:
                raise error
        if role == "input":
            error = _root_type_error(schema)
            if error is not None:
                raise error
    if registry or loader is not None:
        text = None  # what a reference resolves to may change: compiled every time
    if text is None:
        validator = _compile(schema, registry, loader, format_assertion, content_assertion, limits)
        return ToolSchema(schema, role, validator, bounds, SchemaLookup(schema, registry))

    def build(copy: Any) -> tuple[schemacore.Validator, SchemaLookup]:
        compiled = _compile(copy, None, None, format_assertion, content_assertion, limits)
        return compiled, SchemaLookup(copy)

    validator, lookup = COMPILED.get_or_build(
        text, (format_assertion, content_assertion, limits), build
    )
    return ToolSchema(schema, role, validator, bounds, lookup)


# Schemas compiled without a registry or loader, by content (see schemacache).
COMPILED = ContentCache()


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float, Decimal)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return f"a {type(value).__name__}"
