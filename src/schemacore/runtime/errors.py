"""The error the runtime boundary raises: a class, a stable code, a path, a safe message.

Messages are written by the runtime itself from structure (JSON Pointers, type
names, schema-owned constraints). They never quote argument values, caller-chosen
object keys or the raw text of a tool call.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .refusal import (
    EXECUTION_FAILURE,
    UNSUPPORTED_CAPABILITY,
    VALIDATION,
    Refusal,
    reduce_by_state,
)

if TYPE_CHECKING:
    from .argissue import ToolArgIssue

__all__ = [
    "EXECUTION_FAILURE",
    "UNSUPPORTED_CAPABILITY",
    "VALIDATION",
    "BoundaryError",
    "Refusal",
    "reduce_by_state",
]


class BoundaryError(Refusal):
    """A schema, an argument document or a tool definition refused at the boundary.

    Attributes:
        error_class: ``"validation"``, ``"unsupported_capability"`` or
            ``"execution_failure"`` (a limit was hit; never a plain mismatch).
        code: a stable machine-readable code (see ``docs/runtime.md``).
        path: JSON Pointer of the offending place, ``""`` for the root. Object keys
            that the schema does not define are shown as ``*``.
        message: a human sentence that is safe to log or show.
        issues: for argument mismatches, the model-actionable issues.
        limit: for ``execution_failure``, the name of the limit that was hit.
        line, column: for argument text that is not strict JSON, where it breaks.
        tokens: ``path`` as reference tokens with array indexes as ints, when the
            error was found by walking a value (None otherwise). Whether a token is
            an index depends on the value there, not on its text: ``"1"`` may be a
            property name.
    """

    def __init__(
        self,
        code: str,
        message: str,
        *,
        error_class: str = VALIDATION,
        path: str = "",
        issues: Sequence[ToolArgIssue] = (),
        limit: str | None = None,
        line: int | None = None,
        column: int | None = None,
        tokens: Sequence[str | int] | None = None,
    ) -> None:
        super().__init__(code, message, error_class=error_class, path=path)
        self.issues: tuple[ToolArgIssue, ...] = tuple(issues)
        self.limit = limit
        self.line = line
        self.column = column
        self.tokens: tuple[str | int, ...] | None = tuple(tokens) if tokens is not None else None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable form (as safe as the message itself)."""
        result = super().to_dict()
        if self.limit is not None:
            result["limit"] = self.limit
        if self.line is not None:
            result["line"] = self.line
            result["column"] = self.column
        if self.issues:
            result["issues"] = [issue.to_dict() for issue in self.issues]
        return result
