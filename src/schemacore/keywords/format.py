"""Format vocabularies: ``format`` is an annotation unless assertion is asked for.

Assertion is turned on by ``compile(..., format_assertion=True)`` or by a
meta-schema whose ``$vocabulary`` includes format-assertion. Formats that are not
in the Draft 2020-12 list stay annotations even then. A 2020-12 format that
schemacore cannot check yet is refused (:class:`UnsupportedCapability`) rather than
silently accepted as valid.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..compiler import Keyword, SchemaContext, assertion
from ..errors import UnsupportedCapability
from ..formats import CHECKERS as _BUILTIN_CHECKERS

__all__ = ["CHECKERS", "SPECIFIED_FORMATS", "compile_format"]

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
    checker = ctx.options.formats.get(value) or CHECKERS.get(value)
    if checker is None:
        if value in SPECIFIED_FORMATS:
            raise UnsupportedCapability(
                f"format {value!r} cannot be asserted: schemacore has no checker for it yet",
                location=ctx.pointer_to("format"),
            )
        return None
    check = checker

    def valid(x: Any) -> bool:
        return bool(check(x))

    return assertion(
        "format",
        "string",
        valid,
        lambda x: f"the string is not a valid {value}",
        ctx.location("format"),
        cost=25,
    )
