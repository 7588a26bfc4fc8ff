"""Read-only snapshots of JSON values, so that what was checked is what runs.

The gateway snapshots each contract when it takes a catalog and the arguments once
they pass validation: hooks see the frozen snapshot, each backend attempt gets its
own mutable copy, and nobody's change reaches the caller's objects, the evidence or
a later step.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

__all__ = ["freeze", "thaw"]


# Values returned as they are, without a call: most of any JSON document.
_SCALARS = frozenset({str, int, float, bool, type(None)})


def freeze(value: Any) -> Any:
    """A deep, read-only copy: objects as mapping proxies, arrays as tuples."""
    if type(value) in _SCALARS:
        return value
    if isinstance(value, Mapping):
        return MappingProxyType(
            {key: item if type(item) in _SCALARS else freeze(item) for key, item in value.items()}
        )
    if isinstance(value, (list, tuple)):
        return tuple([item if type(item) in _SCALARS else freeze(item) for item in value])
    return value


def thaw(value: Any) -> Any:
    """A deep, mutable copy as plain JSON types (dicts and lists)."""
    if type(value) in _SCALARS:
        return value
    if isinstance(value, Mapping):
        return {key: item if type(item) in _SCALARS else thaw(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [item if type(item) in _SCALARS else thaw(item) for item in value]
    return value
