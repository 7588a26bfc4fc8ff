"""What a journal shared by several gateway processes adds to :class:`IntentJournal`.

An *owner lease* says which process slot is alive: the holder renews it (a
heartbeat) and it expires when the holder stops. Only an expired lease lets another
gateway recover that owner's open intents, and a journal refuses to mark an intent
dispatched unless its owner's lease is held by the caller, so a process that lost
its lease (paused, cut off) cannot start an effect that a recovery may report as
never dispatched. The gateway uses these methods when its journal has them
(:class:`~.postgres.PostgresJournal` does; :class:`~.journal.SQLiteJournal`, one
machine, does not need them).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from ..errors import reduce_by_state
from .journal import IntentJournal
from .limiter import Limiter

__all__ = ["LeaseHeld", "LeasedJournal"]


class LeaseHeld(RuntimeError):
    """The owner id's lease is held by a live process: a second gateway with the
    same ``owner`` must not start (it would take over the first one's intents).

    Attributes:
        owner: the owner id.
        waited: how long acquisition waited for the lease to expire, in seconds.
    """

    def __init__(self, owner: str, waited: float) -> None:
        super().__init__(
            f"the lease of owner {owner!r} is held by a live gateway "
            f"(waited {waited:.1f} s for it to expire)"
        )
        self.owner = owner
        self.waited = waited

    def __reduce__(self) -> tuple[Any, ...]:
        return reduce_by_state(self)


@runtime_checkable
class LeasedJournal(IntentJournal, Protocol):
    """An :class:`IntentJournal` shared by processes that hold owner leases."""

    def hold_lease(self, owner: str) -> None:
        """Acquire ``owner``'s lease (waiting for a previous holder's to expire) and
        keep renewing it. Raises :class:`LeaseHeld` when it stays held."""
        ...

    def release_lease(self, owner: str) -> None:
        """Stop renewing ``owner``'s lease and let it expire now."""
        ...

    def claim_expired(self, recoverer: str) -> list[str]:
        """Owners whose lease expired and whose intents nobody recovered yet, each
        now claimed by ``recoverer`` (no other gateway recovers it meanwhile)."""
        ...

    def finish_recovery(self, owner: str, recoverer: str) -> None:
        """End a claim: ``owner``'s intents are closed; its lease stays expired."""
        ...

    def on_beat(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` after each heartbeat (from the heartbeat thread)."""
        ...

    def limiter(self, owner: str) -> Limiter:
        """Rate and concurrency limits shared by every gateway on this journal."""
        ...
