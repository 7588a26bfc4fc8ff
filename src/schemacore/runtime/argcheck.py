"""Checking tool arguments: the bounds, the object root, then the schema.

A mismatch becomes value-safe issues (``issuewording``); arguments that cannot be
evaluated at all (outside JSON, beyond a bound, not an object) become a
:class:`BoundaryError` instead, which no mode softens.
"""

from __future__ import annotations

from typing import Any, Final, Literal

import schemacore

from .argissue import Mode, ToolArgIssue, ToolArgValidationResult
from .bounds import check_argument_shape, within
from .errors import EXECUTION_FAILURE, VALIDATION, BoundaryError
from .issuewording import word_errors
from .jsonvalues import REDACTED, dot_path, json_type, pointer, split_pointer, tokens_along
from .schemalookup import SchemaLookup
from .toolschema import ToolSchema, validate_schema

__all__ = [
    "check_arguments",
    "issue_from_error",
    "validate_property_value",
    "validate_tool_args",
]


# The verdict without issues, one per mode: the result is immutable, so every
# accepted call can share it instead of building one.
_ACCEPTED: Final[dict[str, ToolArgValidationResult]] = {
    mode: ToolArgValidationResult(ok=True, mode=mode) for mode in ("enforce", "warn", "off")
}


def _evaluation_failure(exc: BaseException, lookup: SchemaLookup, value: Any) -> BoundaryError:
    location = getattr(exc, "location", "")
    # Array indexes are read from the arguments; only keys may be redacted.
    tokens = [
        t if isinstance(t, int) or t in lookup.names else REDACTED
        for t in tokens_along(value, split_pointer(location))
    ]
    limit = getattr(exc, "limit", None) or "recursion"
    return BoundaryError(
        "arguments-evaluation-failed",
        "the arguments could not be evaluated against the schema within the "
        f"engine's limits ({limit}); they were not accepted",
        error_class=EXECUTION_FAILURE,
        path=pointer(tokens),
        limit=limit,
        tokens=tokens,
    )


def _find_issues(
    tool_schema: ToolSchema, value: Any, *, require_object: bool, known_invalid: bool = False
) -> tuple[list[ToolArgIssue], int] | None:
    """The issues of ``value`` and their count, or None when it is valid.

    ``known_invalid``: the caller found ``value`` certainly within the bounds, an
    object, and invalid; only the issues are left to find.
    """
    if not known_invalid:
        check_argument_shape(value, tool_schema.limits, tool_schema.lookup.names)
        if require_object and not isinstance(value, dict):
            raise BoundaryError(
                "arguments-not-object",
                f"tool arguments must be a JSON object, not {json_type(value)}",
            )
    validator = tool_schema.validator
    try:
        if not known_invalid and validator.is_valid(value):
            return None
        errors = list(validator.iter_errors(value))
    except (schemacore.SchemaCoreError, RecursionError) as exc:
        raise _evaluation_failure(exc, tool_schema.lookup, value) from None
    issues = word_errors(tool_schema.lookup, value, tool_schema.limits, errors)
    return issues[: tool_schema.limits.max_issues], len(issues)


def check_arguments(tool_schema: ToolSchema, arguments: Any) -> tuple[list[ToolArgIssue], int]:
    """The issues of ``arguments`` (capped) and their exact count.

    Raises BoundaryError for arguments that cannot be evaluated at all: outside the
    JSON data model (``validation``), beyond the bounds (``execution_failure``), or
    not an object (``validation``, code ``arguments-not-object``).
    """
    found = _find_issues(tool_schema, arguments, require_object=True)
    return ([], 0) if found is None else found


def _as_tool_schema(tool_or_schema: Any, role: Literal["input", "output"]) -> ToolSchema:
    if isinstance(tool_or_schema, ToolSchema):
        return tool_or_schema
    checked = getattr(tool_or_schema, "input", None)
    if isinstance(checked, ToolSchema):  # an admitted tool
        return checked
    if hasattr(tool_or_schema, "input_schema") and hasattr(tool_or_schema, "name"):
        return validate_schema(tool_or_schema.input_schema, role=role)  # a ToolDescriptor
    return validate_schema(tool_or_schema, role=role)


def issue_from_error(exc: BoundaryError, arguments: Any = None) -> ToolArgIssue:
    """An argument-level BoundaryError (not a mismatch) as one issue."""
    # Which tokens are array indexes is known where the error was raised, from the
    # value; failing that, from ``arguments``; never from the text of a token.
    tokens = exc.tokens
    if tokens is None:
        tokens = tuple(tokens_along(arguments, split_pointer(exc.path)))
    path = dot_path(tokens)
    return ToolArgIssue(
        path=path,
        pointer=exc.path,
        code=exc.code,
        keyword="",
        expected="arguments within the runtime's bounds"
        if exc.error_class == EXECUTION_FAILURE
        else "JSON arguments that form an object",
        got=exc.message,
        message=f"{path or 'the arguments'}: {exc.message}",
    )


def validate_tool_args(
    args: Any, tool_or_schema: Any, *, mode: Mode = "enforce"
) -> ToolArgValidationResult:
    """Check tool-call arguments and return issues a model can act on.

    ``tool_or_schema`` is a :class:`ToolSchema`, an admitted tool, a
    ``ToolDescriptor`` or a raw input schema (compiled on each call: prefer passing
    a compiled one). ``mode``: ``"enforce"`` (``ok`` only without issues),
    ``"warn"`` (schema mismatches are reported but the call may proceed) or
    ``"off"`` (no check at all). Warn softens schema mismatches only: arguments
    that are not a JSON object (NaN, tuples, sets, non-string keys, a non-object
    root) or that hit a bound or an engine limit are refused (``ok`` False) in
    every mode but ``"off"``. Full Draft 2020-12 semantics apply.

    Raises:
        BoundaryError: a raw schema that does not pass :func:`validate_schema`.
    """
    known_invalid = False
    compiled = tool_or_schema
    if type(compiled) is not ToolSchema:
        compiled = getattr(compiled, "input", None)  # an admitted tool's, if it is one
    if (
        type(compiled) is ToolSchema
        and type(args) is dict
        and (mode == "enforce" or mode == "warn")
    ):
        # The common case in one cheap pass and the engine's verdict: a compiled
        # schema and valid arguments of exact JSON types within the bounds. Anything
        # else (a problem, or a value the pass is not certain of) takes the detailed
        # path below, which checks everything again and words the first problem.
        bound = compiled.limits
        depth, nodes, length = (
            bound.max_argument_depth,
            bound.max_argument_nodes,
            bound.max_string_length,
        )
        if within(args, depth, nodes, length):
            try:
                if compiled.validator.is_valid(args):
                    return _ACCEPTED[mode]
                known_invalid = True  # only the issues are left to find
            except (schemacore.SchemaCoreError, RecursionError):
                pass  # the detailed path reports it
    if mode not in ("enforce", "warn", "off"):
        raise ValueError(f"mode must be 'enforce', 'warn' or 'off', not {mode!r}")
    if mode == "off":
        return _ACCEPTED[mode]
    tool_schema = compiled if known_invalid else _as_tool_schema(tool_or_schema, "input")
    try:
        found = _find_issues(tool_schema, args, require_object=True, known_invalid=known_invalid)
    except BoundaryError as exc:
        # Not a schema mismatch: a bound was hit, the engine could not finish, or the
        # arguments are not a JSON object at all. Refused in "warn" mode too.
        return ToolArgValidationResult(
            ok=False,
            issues=(issue_from_error(exc, args),),
            mode=mode,
            error_class=exc.error_class,
            total=1,
        )
    if found is None or not found[0]:
        return _ACCEPTED[mode]
    issues, total = found
    return ToolArgValidationResult(
        ok=mode == "warn", issues=tuple(issues), mode=mode, error_class=VALIDATION, total=total
    )


def validate_property_value(value: Any, property_schema: Any) -> ToolArgValidationResult:
    """Check one property value against that property's schema alone (any Draft
    2020-12 schema, boolean included; nothing of the root, such as its
    ``required``, applies); paths are relative to the value. The same result type
    as :func:`validate_tool_args`: ``ok`` and ``issues``.

    Raises:
        BoundaryError: the schema is refused, or the value is beyond the bounds.
    """
    tool_schema = _as_tool_schema(property_schema, "output")
    issues, total = _find_issues(tool_schema, value, require_object=False) or ([], 0)
    return ToolArgValidationResult(
        ok=not issues,
        issues=tuple(issues),
        error_class=VALIDATION if issues else None,
        total=total,
    )
