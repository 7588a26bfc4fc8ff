"""Format vocabularies: ``format`` is an annotation unless assertion is asked for.

Assertion is turned on by ``compile(..., format_assertion=True)`` or by a
meta-schema whose ``$vocabulary`` includes format-assertion. Every format of the
Draft 2020-12 list has a built-in checker (:mod:`schemacore.formats`); the caller's
``formats=`` add or override checkers. Unknown formats stay annotations even then.
A checker of the caller's that raises is an ExecutionFailure, never a mismatch.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..ecma262 import is_valid_pattern
from ..errors import ExecutionFailure, UnsupportedCapability
from ..formats import CHECKERS as _BUILTIN_CHECKERS
from ..model import Keyword, SchemaContext, assertion
from ..spec import Role, Spec

__all__ = ["CHECKERS", "FORMAT", "SPECIFIED_FORMATS", "compile_format"]

SPECIFIED_FORMATS = frozenset(
    {
        "date-time", "date", "time", "duration",
        "email", "idn-email", "hostname", "idn-hostname", "ipv4", "ipv6",
        "uri", "uri-reference", "iri", "iri-reference", "uuid", "uri-template",
        "json-pointer", "relative-json-pointer", "regex",
    }
)  # fmt: skip

# Built-in checkers, by format name (schemacore.formats). A copy, so that entries
# changed here do not leak into the formats package.
CHECKERS: dict[str, Callable[[str], bool]] = dict(_BUILTIN_CHECKERS)


def compile_format(ctx: SchemaContext, value: Any) -> Keyword | None:
    if not isinstance(value, str):
        raise ctx.schema_error("format must be a string", "format")
    asserting = ctx.options.format_assertion or ctx.dialect.asserts_format
    if not asserting:
        return None
    custom = ctx.options.formats.get(value)
    if custom is None:
        # A draft asserts only the formats it defines: the others are unknown there.
        builtin = CHECKERS.get(value) if value in ctx.dialect.formats else None
        if builtin is None:
            if value in ctx.dialect.formats:  # pragma: no cover - every one has a checker
                raise UnsupportedCapability(
                    f"format {value!r} cannot be asserted: no checker for it",
                    location=ctx.pointer_to("format"),
                    reason="unsupported-format",
                )
            return None
        valid = builtin
        if value == "regex":
            # The instance is a pattern to compile: bounded by max_regex_format_length
            # (ExecutionFailure past it), tighter than a schema's own patterns.
            longest = ctx.options.limits.max_regex_format_length
            location = ctx.location("format")

            def valid(x: Any) -> bool:
                return is_valid_pattern(x, longest, location)

    else:
        where = ctx.pointer_to("format")
        check = custom

        def valid(x: Any) -> bool:
            try:
                return bool(check(x))
            except Exception as exc:  # the caller's code
                raise ExecutionFailure(
                    f"the checker for format {value!r} raised {type(exc).__name__}: {exc}",
                    location=where,
                    limit="format_checker",
                ) from exc

    return assertion(ctx, "format", "string", valid, _message, value, cost=25)


def _message(x: Any, name: str) -> str:
    return f"the string is not a valid {name}"


FORMAT = Spec("format", compile_format, Role.ANNOTATION, "string")
