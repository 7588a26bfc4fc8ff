"""The contract's own limits: ``rateLimits`` and ``concurrency.maxInFlight``.

Rate: a token bucket per ``toolId`` holding ``burst`` tokens (``requestsPerMinute``
when ``burst`` is null) and refilling at ``requestsPerMinute / 60`` per second; a
null ``requestsPerMinute`` means no rate limit. Concurrency: at most
``maxInFlight`` calls of one ``toolId`` between reservation and the end of their
last backend attempt (a timed-out attempt still runs, so it still counts). The
state lives in the gateway, per ``toolId``, and survives catalog replacement.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from ..contract import ToolContract

__all__ = ["ContractLimiter", "Slot"]


@dataclass(slots=True)
class _Bucket:
    tokens: float
    updated: float


class Slot:
    """One reserved place: one rate token and one in-flight place of a tool."""

    __slots__ = ("_done", "_limiter", "_token", "tool_id")

    def __init__(self, limiter: ContractLimiter, tool_id: str, token: bool) -> None:
        self._limiter = limiter
        self.tool_id = tool_id
        self._token = token
        self._done = False

    def release(self, *, refund: bool) -> None:
        """Give the in-flight place back (once); ``refund`` returns the rate token
        too (the call never reached its backend)."""
        if self._done:
            return
        self._done = True
        self._limiter._release(self.tool_id, refund and self._token)


class ContractLimiter:
    """Rate and concurrency limits of contracts, with an injectable monotonic clock."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._buckets: dict[str, _Bucket] = {}
        self._in_flight: dict[str, int] = {}
        self._capacity: dict[str, tuple[float, float]] = {}

    def reserve(self, contract: ToolContract) -> Slot | tuple[str, str]:
        """A :class:`Slot`, or ``(code, reason)``: ``rate-limited`` or
        ``concurrency-limited``."""
        tool_id = contract.tool_id
        limits = contract["rateLimits"]
        per_minute = limits["requestsPerMinute"]
        max_in_flight = contract["concurrency"]["maxInFlight"]
        with self._lock:
            if max_in_flight is not None and self._in_flight.get(tool_id, 0) >= max_in_flight:
                return (
                    "concurrency-limited",
                    f"{max_in_flight} call(s) of this tool are already in flight",
                )
            token = False
            if per_minute is not None:
                capacity = float(limits["burst"] if limits["burst"] is not None else per_minute)
                rate = per_minute / 60.0
                self._capacity[tool_id] = (capacity, rate)
                now = self._clock()
                bucket = self._buckets.get(tool_id)
                if bucket is None:
                    bucket = self._buckets[tool_id] = _Bucket(capacity, now)
                bucket.tokens = min(capacity, bucket.tokens + (now - bucket.updated) * rate)
                bucket.updated = now
                if bucket.tokens < 1.0:
                    wait = (1.0 - bucket.tokens) / rate
                    return ("rate-limited", f"rate limit reached; a token frees in {wait:.2f} s")
                bucket.tokens -= 1.0
                token = True
            self._in_flight[tool_id] = self._in_flight.get(tool_id, 0) + 1
            return Slot(self, tool_id, token)

    def _release(self, tool_id: str, refund: bool) -> None:
        with self._lock:
            self._in_flight[tool_id] = max(0, self._in_flight.get(tool_id, 0) - 1)
            if refund and tool_id in self._buckets:
                capacity, _ = self._capacity[tool_id]
                bucket = self._buckets[tool_id]
                bucket.tokens = min(capacity, bucket.tokens + 1.0)

    def in_flight(self, tool_id: str) -> int:
        """Calls of ``tool_id`` holding a place now."""
        with self._lock:
            return self._in_flight.get(tool_id, 0)
