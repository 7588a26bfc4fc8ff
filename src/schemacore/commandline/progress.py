"""A one-line progress display on a terminal's stderr, for long runs only.

Nothing is shown when stderr is not a terminal, nor during the first ``delay``
seconds (a short run never flickers); then the line is redrawn at most every
``interval`` seconds and erased before anything else is printed and at the end.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO

__all__ = ["Progress"]

_ERASE = "\r\x1b[K"
_BAR = 20


class Progress:
    """Counts records, errors and bytes; draws them on ``stream`` when it is a TTY."""

    def __init__(
        self,
        stream: TextIO | None,
        total_bytes: int | None,
        *,
        enabled: bool = True,
        clock: Callable[[], float] = time.monotonic,
        delay: float = 1.0,
        interval: float = 0.2,
    ) -> None:
        isatty = getattr(stream, "isatty", None)
        self._on = enabled and stream is not None and isatty is not None and _safe_isatty(stream)
        self._stream = stream
        self._total = total_bytes
        self._clock = clock
        self._started = clock()
        self._next_draw = self._started + delay
        self._interval = interval
        self._visible = False
        self.records = 0
        self.errors = 0
        self.nbytes = 0

    def advance(self, records: int, errors: int, nbytes: int) -> None:
        self.records += records
        self.errors += errors
        self.nbytes += nbytes
        if not self._on:
            return
        now = self._clock()
        if now >= self._next_draw:
            self._next_draw = now + self._interval
            self._draw(now)

    def text(self, now: float) -> str:
        """The progress line as it reads at time ``now``."""
        elapsed = max(now - self._started, 1e-9)
        parts = [
            f"{self.records:,} records",
            f"{self.errors:,} errors",
            f"{self.records / elapsed:,.0f} records/s",
        ]
        if self._total:
            done = min(self.nbytes / self._total, 1.0)
            filled = round(done * _BAR)
            parts.insert(0, f"[{'#' * filled}{'-' * (_BAR - filled)}] {done:4.0%}")
        return "  ".join(parts)

    def _draw(self, now: float) -> None:
        assert self._stream is not None  # drawn only when on
        self._stream.write(_ERASE + self.text(now))
        self._stream.flush()
        self._visible = True

    def erase(self) -> None:
        """Take the line off the screen (before other output, and at the end)."""
        if self._visible and self._stream is not None:
            self._stream.write(_ERASE)
            self._stream.flush()
            self._visible = False


def _safe_isatty(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (OSError, ValueError):
        return False
