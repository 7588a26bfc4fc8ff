"""The model-visible text and the MCP ``isError`` result for a refused call.

:func:`error_result` is the one place an MCP ``CallToolResult`` with ``isError:
true`` is built, for the argument refusals here and for the gateway's stops.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from .argcheck import issue_from_error
from .argissue import ISSUE_META_KEY, ToolArgIssue, ToolArgValidationResult, refusal_code
from .errors import EXECUTION_FAILURE, VALIDATION, BoundaryError

__all__ = ["error_result", "format_tool_arg_issues", "tool_error_result"]

# The argument codes of a bound or an engine limit (docs/runtime.md, Codes): what
# class a bare list of issues is in, which a verdict or an error states itself.
_LIMIT_CODES = frozenset(
    {
        "arguments-too-deep",
        "arguments-too-large",
        "arguments-string-too-long",
        "arguments-evaluation-failed",
    }
)


def error_result(text: str, meta_key: str, meta: Mapping[str, Any]) -> dict[str, Any]:
    """An MCP ``CallToolResult`` with ``isError: true``: one text block for the model
    and the structured details under ``_meta[meta_key]`` (not in
    ``structuredContent``, which clients may check against the output schema).
    The caller guarantees that ``text`` and ``meta`` are value-safe."""
    return {
        "content": [{"type": "text", "text": text}],
        "isError": True,
        "_meta": {meta_key: dict(meta)},
    }


def _render_issue(issue: ToolArgIssue) -> str:
    line = f"- {issue.message}"
    if issue.value is not None:
        line += f"; value: {json.dumps(issue.value, ensure_ascii=False)}"
    if issue.hint:
        # On its own line, quoted and escaped: a newline or a "- " in a parameter's
        # description cannot break the list or pass for an issue of its own.
        line += f"\n  parameter: {json.dumps(issue.hint, ensure_ascii=False)}"
    return line


def format_tool_arg_issues(
    tool_name: str, issues: Sequence[ToolArgIssue], *, total: int | None = None, limit: int = 10
) -> str:
    """A model-visible text that lets the model correct its call.

    ``tool_name`` comes from the catalog (trusted); ``issues`` are already
    value-safe. At most ``limit`` issues are listed, then "and N more".

    Raises:
        TypeError: ``issues`` holds anything but :class:`ToolArgIssue` (an admission
            diagnostic or a schema error is never rendered for a model).
    """
    if not isinstance(tool_name, str):
        raise TypeError("tool_name must be a string")
    issues = _argument_issues("format_tool_arg_issues", issues)
    count = max(total if total is not None else len(issues), len(issues))
    name = json.dumps(tool_name, ensure_ascii=False)
    if not issues:
        return f"The arguments for tool {name} are valid."
    noun = "issue" if count == 1 else "issues"
    lines = [
        f"The tool {name} was not called: its arguments do not match the tool's "
        f"input schema ({count} {noun})."
    ]
    lines.extend(_render_issue(issue) for issue in issues[:limit])
    if count > min(limit, len(issues)):
        lines.append(f"… and {count - min(limit, len(issues))} more.")
    lines.append("Correct the arguments and call the tool again.")
    return "\n".join(lines)


def _argument_issues(what: str, issues: Any) -> tuple[ToolArgIssue, ...]:
    """``issues`` as a tuple, if it is a sequence of ToolArgIssue and nothing else."""
    if isinstance(issues, (str, bytes, Mapping)) or not isinstance(issues, Sequence):
        raise TypeError(f"{what} takes a sequence of ToolArgIssue, not {type(issues).__name__}")
    for issue in issues:
        if not isinstance(issue, ToolArgIssue):
            raise TypeError(f"{what} takes only ToolArgIssue items, not {type(issue).__name__}")
    return tuple(issues)


def tool_error_result(
    tool_name: str, failure: ToolArgValidationResult | BoundaryError | Sequence[ToolArgIssue]
) -> dict[str, Any]:
    """An MCP ``CallToolResult`` with ``isError: true`` for a call that was refused
    before dispatch (a tool execution error, not a JSON-RPC error, so the model sees
    it). The structured issues go under ``_meta[ISSUE_META_KEY]``, not into
    ``structuredContent``, which clients may check against the output schema.

    The result goes to a model, so it is built from argument-level errors only: a
    :class:`ToolArgValidationResult`, a sequence of :class:`ToolArgIssue`, or a
    :class:`BoundaryError` about the arguments (a code starting with
    ``arguments-``, as ``validate_arguments`` and ``parse_tool_args`` raise).
    Schema, catalog and contract errors (an admission ``Diagnostic``, an
    ``AdmissionRejected``, a ``BoundaryError`` about a schema) are trusted-host
    data that may carry internal URIs: they are refused.

    ``_meta[ISSUE_META_KEY]["code"]`` is ``arguments-invalid`` for schema mismatches
    only; arguments that could not be checked (outside JSON, not an object, over a
    bound) keep the boundary's code, whichever of the three forms carries them.

    Raises:
        TypeError: ``failure`` is none of the argument-level types above.
        ValueError: a ``BoundaryError`` that is not about the arguments, an empty
            issue list, or a result that accepted the arguments.
    """
    if not isinstance(tool_name, str):
        raise TypeError("tool_name must be a string")
    if isinstance(failure, BoundaryError):
        if not failure.code.startswith("arguments-"):
            raise ValueError(
                f"{failure.code} is not an argument error: only errors about the arguments "
                "may be shown to a model"
            )
        issues = _argument_issues("tool_error_result", failure.issues) or (
            issue_from_error(failure),
        )
        code, error_class, total = failure.code, failure.error_class, len(issues)
    elif isinstance(failure, ToolArgValidationResult):
        issues = _argument_issues("tool_error_result", failure.issues)
        if not issues:
            raise ValueError("the arguments were accepted: there is no error to report")
        # From the issues, not the class: arguments outside JSON or not an object are
        # "validation" too, yet no schema mismatch.
        code = refusal_code(issues)
        error_class, total = failure.error_class or VALIDATION, failure.total
    else:
        issues = _argument_issues("tool_error_result", failure)
        if not issues:
            raise ValueError("tool_error_result needs at least one issue")
        code, total = refusal_code(issues), len(issues)
        error_class = EXECUTION_FAILURE if code in _LIMIT_CODES else VALIDATION
    return error_result(
        format_tool_arg_issues(tool_name, issues, total=total),
        ISSUE_META_KEY,
        {
            "code": code,
            "errorClass": error_class,
            "dispatched": False,
            "total": total,
            "issues": [issue.to_dict() for issue in issues],
        },
    )
