"""Meta-data vocabulary: annotations only, no run-time work."""

from __future__ import annotations

from ..spec import Role, Spec

__all__ = [
    "DEFAULT",
    "DEPRECATED",
    "DESCRIPTION",
    "EXAMPLES",
    "READ_ONLY",
    "TITLE",
    "WRITE_ONLY",
]


def _annotation(name: str) -> Spec:
    return Spec(name, None, Role.ANNOTATION)


TITLE = _annotation("title")
DESCRIPTION = _annotation("description")
DEFAULT = _annotation("default")
DEPRECATED = _annotation("deprecated")
READ_ONLY = _annotation("readOnly")
WRITE_ONLY = _annotation("writeOnly")
EXAMPLES = _annotation("examples")
