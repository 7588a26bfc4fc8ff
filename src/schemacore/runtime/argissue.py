"""The issue types: one way tool arguments miss their schema, and the verdict.

Both are value-safe by construction: an issue carries a location, the schema's
expectation and the TYPE of what arrived; only string-shape issues (``pattern``,
``minLength``, ``maxLength``) add a capped excerpt of that very string and the
property's own ``description`` as a hint.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final, Literal

__all__ = [
    "ISSUE_META_KEY",
    "MISMATCH_CODE",
    "STRING_SHAPE_KEYWORDS",
    "Mode",
    "ToolArgIssue",
    "ToolArgValidationResult",
    "refusal_code",
]

STRING_SHAPE_KEYWORDS: Final = frozenset({"pattern", "minLength", "maxLength"})
ISSUE_META_KEY: Final = "schemacore/tool-arg-issues"
"""The ``_meta`` key of an ``isError`` result under which the structured issues go."""

MISMATCH_CODE: Final = "arguments-invalid"
"""The top-level code of a refusal for schema mismatches, and for nothing else."""

# Issue codes of the boundary itself (arguments outside JSON, not an object, over a
# bound, not evaluable) are its error codes, all in this namespace; the codes of
# schema mismatches (``type-mismatch``, ...) never are.
_BOUNDARY_PREFIX: Final = "arguments-"

Mode = Literal["enforce", "warn", "off"]


def refusal_code(issues: Iterable[ToolArgIssue]) -> str:
    """The top-level code of a refusal with ``issues``: the code of the first issue
    the boundary raised (``arguments-value-not-json``, ``arguments-not-object``,
    ``arguments-too-deep``, ...), else :data:`MISMATCH_CODE`.

    Derived from the issues alone, so that every result built from the same issues
    (``tool_error_result``, the gateway's outcome, the MCP adapter) says the same.
    """
    for issue in issues:
        if issue.code.startswith(_BOUNDARY_PREFIX):
            return issue.code
    return MISMATCH_CODE


@dataclass(frozen=True, slots=True)
class ToolArgIssue:
    """One way in which tool arguments miss their schema, safe to show a model.

    Attributes:
        path: dot/bracket path from the arguments root (``items[0].name``), ``""``
            for the root; keys the schema does not define appear as ``*``.
        pointer: the same location as a JSON Pointer.
        code: a stable machine code (``type-mismatch``, ``property-missing``, ...);
            for arguments that could not be checked at all, the boundary's own
            ``arguments-*`` code (see ``refusal_code`` in this module).
        keyword: the schema keyword that failed.
        expected: what the schema asks for, worded from the schema.
        got: the type of what arrived (with a length where useful), never the value.
        message: one sentence combining the above.
        value: string-shape issues only: a capped excerpt of the offending string.
        hint: string-shape issues only: the property's own ``description``.
        suggestion: for an unexpected property, a schema-defined name it may be.
    """

    path: str
    pointer: str
    code: str
    keyword: str
    expected: str
    got: str
    message: str
    value: str | None = None
    hint: str | None = None
    suggestion: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable form; optional fields only when set."""
        result: dict[str, Any] = {
            "path": self.path,
            "pointer": self.pointer,
            "code": self.code,
            "keyword": self.keyword,
            "expected": self.expected,
            "got": self.got,
            "message": self.message,
        }
        for name in ("value", "hint", "suggestion"):
            if getattr(self, name) is not None:
                result[name] = getattr(self, name)
        return result


@dataclass(frozen=True, slots=True)
class ToolArgValidationResult:
    """The verdict of :func:`validate_tool_args`.

    Attributes:
        ok: whether the call may proceed (``warn`` mode proceeds on schema
            mismatches only, never past an ``execution_failure`` or arguments
            that are not a JSON object).
        issues: the issues found (at most ``max_issues``).
        mode: the mode the check ran in.
        error_class: ``None`` when there is no issue, else ``"validation"`` or
            ``"execution_failure"`` (a bound was hit; the arguments were refused
            without being evaluated).
        total: how many issues there were before capping.
    """

    ok: bool
    issues: tuple[ToolArgIssue, ...] = ()
    mode: Mode = "enforce"
    error_class: str | None = None
    total: int = 0

    @property
    def code(self) -> str | None:
        """The verdict's top-level code, as ``refusal_code`` gives it.

        ``arguments-invalid`` for schema mismatches, else the boundary's own code;
        None for a verdict without issues."""
        return refusal_code(self.issues) if self.issues else None
