"""The tool input-schema boundary: admit a schema once, then check every call.

``validate_arguments`` runs before authorisation, approval, budget reservation,
durable intent publication and backend dispatch; when it raises, none of those may
happen. It returns the very object it was given: no defaults, no coercion, no
trimming.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import schemacore

from .argcheck import check_arguments
from .bounds import BoundaryLimits
from .errors import BoundaryError
from .toolschema import ToolSchema, validate_schema

__all__ = ["BoundaryError", "ToolSchema", "validate_arguments", "validate_schema"]

T = TypeVar("T")


def validate_arguments(
    tool_schema_or_schema: ToolSchema | Mapping[str, Any],
    arguments: T,
    *,
    registry: Mapping[str, Any] | None = None,
    loader: Callable[[str], Any] | None = None,
    format_assertion: bool = False,
    content_assertion: bool = False,
    limits: schemacore.Limits | None = None,
    boundary_limits: BoundaryLimits | None = None,
) -> T:
    """Return ``arguments`` unchanged if they satisfy the tool's input schema.

    ``tool_schema_or_schema`` is a :class:`ToolSchema` from :func:`validate_schema`
    or a raw input schema, which is admitted first with the other options (prefer
    admitting once and passing the ToolSchema).

    Order of checks: the schema (when raw); the arguments' shape (JSON data model,
    depth, size, string length); the object root; the schema itself.

    Raises:
        BoundaryError: ``validation`` with code ``arguments-invalid`` and the
            ``issues`` for a mismatch, ``arguments-not-object`` for a non-object,
            ``arguments-key-not-string`` / ``arguments-value-not-json`` for values
            outside JSON; ``execution_failure`` for a bound or an evaluation that
            could not finish; or the schema's own error when a raw schema is refused.
    """
    if isinstance(tool_schema_or_schema, ToolSchema):
        tool_schema = tool_schema_or_schema
    else:
        tool_schema = validate_schema(
            tool_schema_or_schema,
            registry=registry,
            loader=loader,
            format_assertion=format_assertion,
            content_assertion=content_assertion,
            limits=limits,
            boundary_limits=boundary_limits,
        )
    issues, total = check_arguments(tool_schema, arguments)
    if issues:
        noun = "issue" if total == 1 else "issues"
        raise BoundaryError(
            "arguments-invalid",
            f"the arguments do not match the tool's input schema ({total} {noun})",
            path=issues[0].pointer,
            issues=issues,
        )
    return arguments
