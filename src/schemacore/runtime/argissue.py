"""The issue types: one way tool arguments miss their schema, and the verdict.

Both are value-safe by construction: an issue carries a location, the schema's
expectation and the TYPE of what arrived; only string-shape issues (``pattern``,
``minLength``, ``maxLength``) add a capped excerpt of that very string and the
property's own ``description`` as a hint.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Literal

__all__ = [
    "ISSUE_META_KEY",
    "STRING_SHAPE_KEYWORDS",
    "Mode",
    "ToolArgIssue",
    "ToolArgValidationResult",
]

STRING_SHAPE_KEYWORDS: Final = frozenset({"pattern", "minLength", "maxLength"})
ISSUE_META_KEY: Final = "schemacore/tool-arg-issues"
"""The ``_meta`` key of an ``isError`` result under which the structured issues go."""

Mode = Literal["enforce", "warn", "off"]


@dataclass(frozen=True, slots=True)
class ToolArgIssue:
    """One way in which tool arguments miss their schema, safe to show a model.

    Attributes:
        path: dot/bracket path from the arguments root (``items[0].name``), ``""``
            for the root; keys the schema does not define appear as ``*``.
        pointer: the same location as a JSON Pointer.
        code: a stable machine code (``type-mismatch``, ``property-missing``, ...).
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
