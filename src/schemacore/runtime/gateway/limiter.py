"""The contract's own limits: ``rateLimits`` and ``concurrency``.

Rate: a token bucket per ``toolId`` and scope holding ``requests`` tokens and
refilling at ``requests / perSeconds`` per second. ``rateLimits.scope`` says who
shares one bucket: ``global`` (every call of the tool), ``tenant`` (the calls of
one tenant; a call must carry its tenant) or ``actor`` (the calls of one caller).
Concurrency: at most ``concurrency.maxConcurrent`` calls of one ``toolId`` between
reservation and the end of their last backend attempt (``serial`` is
``maxConcurrent`` 1, by the contract rules); a call over the limit is refused, not
queued. The state lives in the gateway and survives catalog replacement.

:class:`Limiter` is what the gateway needs; :class:`ContractLimiter` keeps the state
in this process, :class:`~.shared_limits.PostgresLimiter` in a database shared by
several gateway processes.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from ..contract import ToolContract

__all__ = ["ContractLimiter", "Limiter", "Reservation", "Slot", "rate_key"]

RateKey = tuple[str, str, str]


@dataclass(slots=True)
class _Bucket:
    tokens: float
    updated: float
    capacity: float


def rate_key(contract: ToolContract, caller: str, tenant: str | None) -> RateKey | None:
    """The bucket a call draws from: (toolId, scope, who); None when the scope is
    ``tenant`` and the call has no tenant (the gateway refuses such a call)."""
    scope = contract["rateLimits"]["scope"]
    if scope == "global":
        return (contract.tool_id, scope, "")
    if scope == "actor":
        return (contract.tool_id, scope, caller)
    if tenant is None:
        return None
    return (contract.tool_id, scope, tenant)


class Reservation(Protocol):
    """One reserved place: one rate token and one in-flight place of a tool."""

    def release(self, *, refund: bool) -> None:
        """Give the in-flight place back (once); ``refund`` returns the rate token
        too (the call never reached its backend)."""
        ...


class Limiter(Protocol):
    """The contract's rate and concurrency limits, as the gateway uses them."""

    def reserve(self, contract: ToolContract, key: RateKey) -> Reservation | tuple[str, str]:
        """A :class:`Reservation` drawn from bucket ``key`` (see ``rate_key``),
        or ``(code, reason)``: ``concurrency-limited`` or ``rate-limited``."""
        ...


class Slot:
    """One reserved place: one rate token and one in-flight place of a tool."""

    __slots__ = ("_done", "_key", "_limiter", "tool_id")

    def __init__(self, limiter: ContractLimiter, tool_id: str, key: RateKey) -> None:
        self._limiter = limiter
        self.tool_id = tool_id
        self._key = key
        self._done = False

    def release(self, *, refund: bool) -> None:
        """Give the in-flight place back (once); ``refund`` returns the rate token
        too (the call never reached its backend)."""
        if self._done:
            return
        self._done = True
        self._limiter._release(self.tool_id, self._key if refund else None)


class ContractLimiter:
    """Rate and concurrency limits of contracts, with an injectable monotonic clock."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._buckets: dict[RateKey, _Bucket] = {}
        self._in_flight: dict[str, int] = {}

    def reserve(self, contract: ToolContract, key: RateKey) -> Slot | tuple[str, str]:
        """A :class:`Slot` drawn from bucket ``key`` (see ``rate_key``), or
        ``(code, reason)``: ``concurrency-limited`` or ``rate-limited``."""
        tool_id = contract.tool_id
        limits = contract["rateLimits"]
        concurrency = contract["concurrency"]
        max_concurrent = concurrency["maxConcurrent"]
        with self._lock:
            if self._in_flight.get(tool_id, 0) >= max_concurrent:
                what = "a call" if concurrency["mode"] == "serial" else f"{max_concurrent} call(s)"
                return ("concurrency-limited", f"{what} of this tool already in flight")
            capacity = float(limits["requests"])
            rate = limits["requests"] / limits["perSeconds"]
            now = self._clock()
            bucket = self._buckets.get(key)
            if bucket is None:
                bucket = self._buckets[key] = _Bucket(capacity, now, capacity)
            # A new contract revision may change the limit: the bucket follows it.
            bucket.capacity = capacity
            bucket.tokens = min(capacity, bucket.tokens + (now - bucket.updated) * rate)
            bucket.updated = now
            if bucket.tokens < 1.0:
                wait = (1.0 - bucket.tokens) / rate
                return ("rate-limited", f"rate limit reached; a token frees in {wait:.2f} s")
            bucket.tokens -= 1.0
            self._in_flight[tool_id] = self._in_flight.get(tool_id, 0) + 1
            return Slot(self, tool_id, key)

    def _release(self, tool_id: str, refund: RateKey | None) -> None:
        with self._lock:
            self._in_flight[tool_id] = max(0, self._in_flight.get(tool_id, 0) - 1)
            bucket = self._buckets.get(refund) if refund is not None else None
            if bucket is not None:
                bucket.tokens = min(bucket.capacity, bucket.tokens + 1.0)

    def in_flight(self, tool_id: str) -> int:
        """Calls of ``tool_id`` holding a place now."""
        with self._lock:
            return self._in_flight.get(tool_id, 0)
