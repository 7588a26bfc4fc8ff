"""Admitting a tool's input or output schema: the checks, in order, and the result.

Order (each step runs only if the previous ones passed):

1. the schema is a JSON object (an output schema may also be a boolean);
2. its JSON shape: string keys, JSON values, depth and size bounds;
3. its dialect: ``$schema`` absent or the Draft 2020-12 URI (with or without a
   trailing ``#``); another draft or an unknown dialect is ``unsupported_capability``;
4. for an input schema, the object root: a root ``type`` must be ``"object"`` or
   ``["object"]`` (a missing ``type`` keeps the object boundary);
5. compilation by the engine: meta-schema validity, patterns, references (which
   resolve only through ``registry`` / ``loader``, so a missing one is refused
   here, before any call) and the engine's limits.

The caller's schema object is kept as given; nothing is added, removed or loosened.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import schemacore

from .bounds import DEFAULT_LIMITS, BoundaryLimits, check_schema_shape
from .errors import EXECUTION_FAILURE, UNSUPPORTED_CAPABILITY, BoundaryError
from .schemalookup import SchemaLookup

__all__ = ["DRAFT_2020_12", "ToolSchema", "validate_schema"]

DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"

Role = Literal["input", "output"]

# Meta-schema URIs of other drafts, without the trailing "#", for precise messages.
_OTHER_DRAFTS = {
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


def _dialect_error(declared: Any, resolvable: Callable[[str], bool]) -> BoundaryError | None:
    if not isinstance(declared, str):
        return BoundaryError("schema-invalid", "$schema must be a URI string", path="/$schema")
    normalised = declared[:-1] if declared.endswith("#") else declared
    if normalised == DRAFT_2020_12:
        return None
    draft = _OTHER_DRAFTS.get(normalised)
    if draft is not None:
        message = (
            f"the schema declares {draft}; only JSON Schema Draft 2020-12 is supported "
            "(reinterpreting it under 2020-12 rules could change what it accepts)"
        )
    elif resolvable(normalised):
        # A custom meta-schema given by the caller: the engine decides (step 5)
        # whether its own dialect is 2020-12.
        return None
    else:
        message = (
            "the schema declares an unknown dialect; only JSON Schema Draft 2020-12 "
            "is supported (a custom meta-schema must be given in the registry)"
        )
    return BoundaryError(
        "schema-dialect-unsupported",
        message,
        error_class=UNSUPPORTED_CAPABILITY,
        path="/$schema",
    )


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


_LIMIT_WORDING = ("max_schema_depth", "could not be checked", "nested too deeply")


def _is_limit(exc: schemacore.SchemaCoreError) -> bool:
    """Whether an engine failure is a limit. The engine reports some limits as a
    SchemaError (``max_schema_depth`` while indexing, and any limit hit while
    checking the schema against its meta-schema); a limit must fail closed as
    ``execution_failure`` here, so those are recognised by their wording."""
    if isinstance(exc, schemacore.ExecutionFailure):
        return True
    return isinstance(exc, schemacore.SchemaError) and any(
        words in exc.message for words in _LIMIT_WORDING
    )


def _engine_code(exc: schemacore.SchemaCoreError) -> str:
    """A stable runtime code for an engine failure, from its class and location."""
    if _is_limit(exc):
        return "schema-limit-exceeded"
    tokens = exc.location.rsplit("/", 2)
    last = tokens[-1] if tokens else ""
    if isinstance(exc, schemacore.UnsupportedCapability):
        if exc.location == "/$schema" or last in ("$schema", "$vocabulary"):
            return "schema-dialect-unsupported"
        return "schema-unsupported-capability"
    if last in ("$ref", "$dynamicRef") or exc.message.startswith(
        ("cannot resolve reference", "the loader failed")
    ):
        return "schema-ref-unresolved"
    if last == "pattern" or (len(tokens) >= 2 and tokens[-2] == "patternProperties"):
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
            loader=loader,
            format_assertion=format_assertion,
            content_assertion=content_assertion,
            limits=limits,
        )
    except schemacore.SchemaCoreError as exc:
        # The engine's message names schema locations and values of the schema,
        # which belong to the tool publisher, not to a caller: safe to keep.
        error_class = EXECUTION_FAILURE if _is_limit(exc) else exc.error_class
        limit = getattr(exc, "limit", None)
        if limit is None and _is_limit(exc):
            limit = "max_schema_depth" if "max_schema_depth" in exc.message else "schema_check"
        raise BoundaryError(
            _engine_code(exc), exc.message, error_class=error_class, path=exc.location, limit=limit
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
) -> ToolSchema:
    """Check and compile a tool's input schema (or, with ``role="output"``, an
    output schema: any Draft 2020-12 schema, no object-root rule).

    Raises:
        BoundaryError: with ``error_class`` ``"validation"`` (not a valid schema,
            root not an object, unresolved reference, bad pattern),
            ``"unsupported_capability"`` (another draft or dialect, an unsupported
            vocabulary or format) or ``"execution_failure"`` (a limit).
    """
    if role not in ("input", "output"):
        raise ValueError(f"role must be 'input' or 'output', not {role!r}")
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
    if isinstance(schema, dict):
        if "$schema" in schema:
            error = _dialect_error(
                schema["$schema"],
                lambda uri: (
                    loader is not None
                    or bool(registry and (uri in registry or uri + "#" in registry))
                ),
            )
            if error is not None:
                raise error
        if role == "input":
            error = _root_type_error(schema)
            if error is not None:
                raise error
    validator = _compile(schema, registry, loader, format_assertion, content_assertion, limits)
    return ToolSchema(schema, role, validator, bounds, SchemaLookup(schema, registry))


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return f"a {type(value).__name__}"
