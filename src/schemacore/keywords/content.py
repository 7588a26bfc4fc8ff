"""Content vocabulary: ``contentEncoding``, ``contentMediaType``, ``contentSchema``.

These are annotations in Draft 2020-12. Asserting them is opt-in
(``content_assertion=True``); until schemacore decodes content itself, asking for
that on a schema that uses them is refused rather than silently ignored.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..compiler import Keyword, SchemaContext
from ..errors import UnsupportedCapability

__all__ = ["KEYWORDS"]


def _annotation(name: str) -> Callable[[SchemaContext, Any], Keyword | None]:
    def compile_content(ctx: SchemaContext, value: Any) -> Keyword | None:
        if ctx.options.content_assertion:
            raise UnsupportedCapability(
                f"{name} cannot be asserted yet: content assertion is not implemented",
                location=ctx.pointer_to(name),
            )
        return None

    return compile_content


KEYWORDS: dict[str, Callable[[SchemaContext, Any], Keyword | None]] = {
    name: _annotation(name) for name in ("contentEncoding", "contentMediaType", "contentSchema")
}
