"""``rateLimits`` and ``concurrency.maxConcurrent`` shared by gateway processes.

The same rules as :class:`~.limiter.ContractLimiter`, with the state in the
PostgreSQL journal's database (the ``reserve_slot``/``release_slot`` functions of
:mod:`.pg_schema`, one round trip each):

- a token bucket per (toolId, scope, who) row, refilled from the database clock;
- a concurrency place is a row in ``slots`` tagged with its owner's lease token;
  a reservation counts the places of live leases under a per-tool advisory lock.
  When a process dies its places stop counting as soon as its lease expires,
  without anyone having to release them, and the recovery deletes them.

A release that fails (the database is unreachable) is retried at the journal's
next heartbeat; until then the place keeps counting, which errs on the side of
the limit.
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Any

from ..contract import ToolContract
from .limiter import RateKey

if TYPE_CHECKING:
    import psycopg

    from .postgres import PostgresJournal

__all__ = ["PostgresLimiter", "SharedSlot"]


class SharedSlot:
    """One place reserved in the database; :meth:`release` gives it back once."""

    __slots__ = ("_capacity", "_done", "_key", "_limiter", "slot_id", "tool_id")

    def __init__(
        self, limiter: PostgresLimiter, slot_id: str, tool_id: str, key: RateKey, capacity: float
    ) -> None:
        self._limiter = limiter
        self.slot_id = slot_id
        self.tool_id = tool_id
        self._key = key
        self._capacity = capacity
        self._done = False

    def release(self, *, refund: bool) -> None:
        if self._done:
            return
        self._done = True
        arguments = (self.slot_id, self._key[0], self._key[1], self._key[2], self._capacity, refund)

        def work(connection: psycopg.Connection[tuple[Any, ...]]) -> None:
            connection.execute("SELECT release_slot(%s, %s, %s, %s, %s, %s)", arguments)

        journal = self._limiter.journal
        try:
            with journal.connection() as connection:
                work(connection)
        except Exception:
            journal.defer(work)


class PostgresLimiter:
    """A :class:`~.limiter.Limiter` in the journal's database, for ``owner``."""

    def __init__(self, journal: PostgresJournal, owner: str) -> None:
        self.journal = journal
        self.owner = owner

    def reserve(self, contract: ToolContract, key: RateKey) -> SharedSlot | tuple[str, str]:
        token = self.journal.lease_token(self.owner)
        if token is None:
            # Places are counted by live lease: without one, nothing would count.
            return ("concurrency-limited", "this gateway holds no owner lease")
        limits = contract["rateLimits"]
        concurrency = contract["concurrency"]
        capacity = float(limits["requests"])
        rate = limits["requests"] / limits["perSeconds"]
        slot_id = uuid.uuid4().hex
        try:
            with self.journal.connection() as connection:
                row = connection.execute(
                    "SELECT reserve_slot(%s, %s, %s, %s, %s, %s, %s, %s, %s)",
                    (
                        slot_id,
                        contract.tool_id,
                        self.owner,
                        token,
                        concurrency["maxConcurrent"],
                        key[1],
                        key[2],
                        capacity,
                        rate,
                    ),
                ).fetchone()
        except Exception as exc:
            # Fail closed: without the shared state the limit cannot be shown to hold.
            return (
                "journal-unavailable",
                f"the shared limits could not be read ({type(exc).__name__})",
            )
        verdict = row[0] if row is not None else None
        if verdict is None:
            return SharedSlot(self, slot_id, contract.tool_id, key, capacity)
        if verdict < 0:
            max_concurrent = concurrency["maxConcurrent"]
            what = "a call" if concurrency["mode"] == "serial" else f"{max_concurrent} call(s)"
            return ("concurrency-limited", f"{what} of this tool already in flight")
        return ("rate-limited", f"rate limit reached; a token frees in {float(verdict):.2f} s")

    def in_flight(self, tool_id: str) -> int:
        """Places of ``tool_id`` held by live gateways now (every process)."""
        with self.journal.connection() as connection:
            row = connection.execute(
                "SELECT count(*) FROM slots s JOIN leases l ON l.owner = s.owner "
                "AND l.token = s.token WHERE s.tool_id = %s AND l.expires_at > clock_timestamp()",
                (tool_id,),
            ).fetchone()
        return int(row[0]) if row is not None else 0
