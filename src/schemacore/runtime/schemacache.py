"""Compiled tool schemas by content, so admitting the same schema again is cheap.

A catalog is admitted again whenever a server's tool list changes, and many tools
share one schema; compiling is most of what admission costs. Entries are keyed by
the schema's JSON text (insertion order kept, so a key names exactly one schema
document) and every option that changes the compiled result. The text is taken only
after the shape check, which refuses everything the text could not tell apart
(non-string keys, tuples, NaN). Each entry is compiled from its own copy of the
schema, parsed back from that text: a caller that changes its schema object
afterwards changes no other caller's validator.

The cache is bounded by entries and by the total length of the schema texts it
holds; the least recently used entries go first.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

__all__ = ["ContentCache", "schema_text"]

T = TypeVar("T")


def schema_text(schema: Any) -> str | None:
    """The key text of a shape-checked schema, or None when it has none (a Decimal:
    its text would read back as a float)."""
    try:
        return json.dumps(schema, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        return None


class ContentCache:
    """A bounded, thread-safe LRU map from (schema text, options) to a compiled value."""

    def __init__(self, max_entries: int = 1024, max_chars: int = 32_000_000) -> None:
        self._entries: OrderedDict[tuple[str, Hashable], Any] = OrderedDict()
        self._chars = 0
        self._lock = threading.Lock()
        self.max_entries = max_entries
        self.max_chars = max_chars

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._chars = 0

    def get_or_build(self, text: str, options: Hashable, build: Callable[[Any], T]) -> T:
        """The value cached for ``(text, options)``, else ``build(copy)`` with a
        private copy of the schema parsed from ``text``, cached unless it raised.
        Two threads may both build one key; the first to finish is kept."""
        key = (text, options)
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
                return found  # type: ignore[no-any-return]
        value = build(json.loads(text))
        if len(text) > self.max_chars:
            return value
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                return found  # type: ignore[no-any-return]
            self._entries[key] = value
            self._chars += len(text)
            while len(self._entries) > self.max_entries or self._chars > self.max_chars:
                (old_text, _), _ = self._entries.popitem(last=False)
                self._chars -= len(old_text)
        return value
