"""The intent journal on PostgreSQL, for gateways on several machines.

:class:`PostgresJournal` implements :class:`~.journal.IntentJournal` with the same
semantics as :class:`~.journal.SQLiteJournal` (see that module) and adds what
several processes need (:class:`~.leases.LeasedJournal`): owner leases with a
heartbeat, recovery of an expired owner's intents by another gateway, shared rate
and concurrency limits (:mod:`.shared_limits`) and published catalog revisions
(:mod:`.shared_catalog`). The driver is psycopg 3 (``pip install
'schemacore[postgres]'``), imported only when a journal is made.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import threading
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import regex

from ..catalog import AdmittedBundle, CatalogCheckpoint
from .journal import _COLUMNS, Intent, _holding_key, _row_to_intent
from .leases import LeaseHeld
from .pg_pool import Pool, load_driver
from .pg_schema import migrate
from .shared_limits import PostgresLimiter

if TYPE_CHECKING:
    import psycopg

__all__ = ["PostgresJournal"]

# A recovery claim is the expired owner's lease row holding this prefix and the
# recoverer's own token: it keeps the owner's old process out while it lives.
_RECOVERY = "recovery:"
_SCHEMA_NAME = regex.compile(r"[a-z_][a-z0-9_]{0,62}")
Row = tuple[Any, ...]


class PostgresJournal:
    """An :class:`~.journal.IntentJournal` in a PostgreSQL database, shared by
    every gateway process that opens the same ``dsn`` and ``schema``.

    Args:
        dsn: a libpq connection string or URI (``postgresql://user@host/db``).
        schema: the PostgreSQL schema (namespace) holding the tables; created or
            migrated on first use (versioned, see ``schemacore.runtime.gateway.pg_schema``).
        lease_seconds: how long an owner lease lives without a heartbeat; another
            gateway recovers an owner's intents only after that. The heartbeat
            renews every third of it.
        acquire_timeout: how long :meth:`hold_lease` waits for a previous holder's
            lease to expire (default: ``2 * lease_seconds + 1``).
        pool_size: connections this journal opens at most (one per concurrent
            journal operation; the heartbeat takes one of them briefly).
        connect_timeout: seconds to wait for the server when connecting.

    Raises:
        ImportError: psycopg 3 is not installed.
        ValueError: a schema name that is not a plain lower-case identifier, or a
            lease that is not positive.
    """

    def __init__(
        self,
        dsn: str,
        *,
        schema: str = "schemacore",
        lease_seconds: float = 15.0,
        acquire_timeout: float | None = None,
        pool_size: int = 10,
        connect_timeout: float = 10.0,
    ) -> None:
        if not isinstance(schema, str) or not _SCHEMA_NAME.fullmatch(schema):
            raise ValueError("schema must be a lower-case identifier of at most 63 characters")
        if not lease_seconds > 0:
            raise ValueError("lease_seconds must be positive")
        self._driver = load_driver()
        self.dsn = dsn
        self.schema = schema
        self.lease_seconds = float(lease_seconds)
        self._acquire_timeout = (
            float(acquire_timeout) if acquire_timeout is not None else 2 * self.lease_seconds + 1
        )
        self._connect_timeout = connect_timeout
        self._pool = Pool(self._connect, pool_size)
        self._lock = threading.Lock()
        self._tokens: dict[str, str] = {}  # owner -> this journal's lease token
        self._claims: dict[str, str] = {}  # expired owner -> this journal's recovery claim
        self._callbacks: list[Callable[[], None]] = []
        self._pending: list[Callable[[psycopg.Connection[Row]], None]] = []
        self._stop = threading.Event()
        self._beat: threading.Thread | None = None
        with self._pool.connection() as connection:
            migrate(connection, schema)

    def _connect(self) -> psycopg.Connection[Row]:
        from psycopg import sql

        connection: psycopg.Connection[Row] = self._driver.connect(
            self.dsn, autocommit=True, connect_timeout=max(1, int(self._connect_timeout))
        )
        connection.execute(sql.SQL("SET search_path TO {}").format(sql.Identifier(self.schema)))
        return connection

    def close_connection(self) -> None:
        """Stop the heartbeat, let this journal's leases expire now, and close
        its connections."""
        self._stop.set()
        if self._beat is not None:
            self._beat.join(self.lease_seconds + 5)
        for owner in list(self._tokens):
            with contextlib.suppress(Exception):
                self.release_lease(owner)
        self._pool.close()

    # -- the intent journal -----------------------------------------------------------------

    def _live(
        self, connection: psycopg.Connection[Row], row: Row | None, since: float
    ) -> Intent | None:
        if row is None:
            return None
        found = connection.execute(
            f"SELECT {_COLUMNS} FROM intents WHERE intent_id = %s", (row[0],)
        ).fetchone()
        if found is None:
            return None
        return _holding_key(_row_to_intent(found), row[1], since)

    def begin(self, intent: Intent, *, window: float) -> Intent | None:
        key = (intent.tool_id, intent.caller, intent.key_digest)
        with self._pool.connection() as connection, connection.transaction():
            if intent.key_digest is not None:
                # The unique key decides: a concurrent insert of the same key waits
                # for ours to commit or roll back, then sees it.
                inserted = connection.execute(
                    "INSERT INTO idempotency_keys VALUES (%s, %s, %s, %s, %s) "
                    "ON CONFLICT DO NOTHING",
                    (*key, intent.intent_id, intent.created_at),
                ).rowcount
                if inserted == 0:
                    row = connection.execute(
                        "SELECT intent_id, created_at FROM idempotency_keys "
                        "WHERE tool_id = %s AND caller = %s AND key_digest = %s FOR UPDATE",
                        key,
                    ).fetchone()
                    existing = self._live(connection, row, intent.created_at - window)
                    if existing is not None:
                        return existing
                    connection.execute(
                        "INSERT INTO idempotency_keys VALUES (%s, %s, %s, %s, %s) "
                        "ON CONFLICT (tool_id, caller, key_digest) DO UPDATE "
                        "SET intent_id = excluded.intent_id, created_at = excluded.created_at",
                        (*key, intent.intent_id, intent.created_at),
                    )
            connection.execute(
                f"INSERT INTO intents ({_COLUMNS}) VALUES "
                "(%s, %s, %s, %s, %s, %s, %s, %s, %s, NULL, NULL, NULL, %s)",
                (
                    intent.intent_id,
                    intent.tool,
                    intent.tool_id,
                    intent.caller,
                    intent.run,
                    intent.key_digest,
                    intent.args_digest,
                    intent.owner,
                    intent.created_at,
                    intent.compensates,
                ),
            )
        return None

    def find(self, tool_id: str, caller: str, key_digest: str, *, since: float) -> Intent | None:
        with self._pool.connection() as connection:
            row = connection.execute(
                "SELECT intent_id, created_at FROM idempotency_keys "
                "WHERE tool_id = %s AND caller = %s AND key_digest = %s",
                (tool_id, caller, key_digest),
            ).fetchone()
            return self._live(connection, row, since)

    def mark_dispatched(self, intent_id: str, at: float) -> bool:
        """As in :class:`~.journal.IntentJournal`, and only while the intent's owner
        lease is held by this journal: a gateway that lost its lease must not start
        an effect that a recovery elsewhere may already have reported."""
        with self._lock:
            tokens = list(self._tokens.values())
        with self._pool.connection() as connection:
            marked = connection.execute(
                "UPDATE intents SET dispatched_at = %s WHERE intent_id = %s "
                "AND dispatched_at IS NULL AND closed_at IS NULL AND EXISTS ("
                "SELECT 1 FROM leases l WHERE l.owner = intents.owner AND l.token = ANY(%s) "
                "AND l.expires_at > clock_timestamp())",
                (at, intent_id, tokens),
            ).rowcount
        return bool(marked == 1)

    def close(self, intent_id: str, outcome: Mapping[str, Any], at: float) -> None:
        text = json.dumps(outcome, ensure_ascii=False, allow_nan=False)
        with self._pool.connection() as connection:
            connection.execute(
                "UPDATE intents SET closed_at = %s, outcome = %s "
                "WHERE intent_id = %s AND closed_at IS NULL",
                (at, text, intent_id),
            )

    def close_interrupted(
        self,
        intent_id: str,
        verdicts: tuple[Mapping[str, Any], Mapping[str, Any]],
        at: float,
        *,
        recoverer: str,
    ) -> bool | None:
        """As in :class:`~.journal.IntentJournal`: one statement decides the verdict
        on the row as it is when locked, and writes only while ``recoverer`` holds
        the intent's owner lease (its own intents) or its recovery claim (another
        owner's). A concurrent :meth:`mark_dispatched` is serialised on the row: the
        one that comes second sees the other's write."""
        before, after = (json.dumps(v, ensure_ascii=False, allow_nan=False) for v in verdicts)
        with self._lock:
            tokens = [*self._tokens.values(), *self._claims.values()]
        with self._pool.connection() as connection:
            row = connection.execute(
                "UPDATE intents SET closed_at = %s, "
                "outcome = CASE WHEN dispatched_at IS NULL THEN %s ELSE %s END "
                "WHERE intent_id = %s AND closed_at IS NULL AND EXISTS ("
                "SELECT 1 FROM leases l WHERE l.owner = intents.owner "
                "AND l.token = ANY(%s) AND l.expires_at > clock_timestamp()) "
                "RETURNING dispatched_at IS NULL, owner",
                (at, before, after, intent_id, tokens),
            ).fetchone()
            if row is None:
                return None
            with self._lock:
                claim = self._claims.get(str(row[1]))
            if claim is not None:
                # A recovery that progresses keeps its claim, wherever it runs (the
                # heartbeat renews it too, unless the recovery runs on its thread).
                self._extend(connection, str(row[1]), claim)
        return bool(row[0])

    def get(self, intent_id: str) -> Intent | None:
        with self._pool.connection() as connection:
            row = connection.execute(
                f"SELECT {_COLUMNS} FROM intents WHERE intent_id = %s", (intent_id,)
            ).fetchone()
        return _row_to_intent(row) if row is not None else None

    def open_intents(self, owner: str) -> list[Intent]:
        with self._pool.connection() as connection:
            rows = connection.execute(
                f"SELECT {_COLUMNS} FROM intents WHERE owner = %s AND closed_at IS NULL "
                "ORDER BY created_at",
                (owner,),
            ).fetchall()
        return [_row_to_intent(row) for row in rows]

    def purge(self, before: float) -> int:
        """Delete closed intents (and their keys) created before ``before``; returns
        how many intents went. Open intents are kept whatever their age."""
        with self._pool.connection() as connection, connection.transaction():
            connection.execute(
                "DELETE FROM idempotency_keys WHERE intent_id IN (SELECT intent_id FROM "
                "intents WHERE closed_at IS NOT NULL AND created_at < %s)",
                (before,),
            )
            count = connection.execute(
                "DELETE FROM intents WHERE closed_at IS NOT NULL AND created_at < %s", (before,)
            ).rowcount
        return int(count)

    # -- owner leases -----------------------------------------------------------------------

    def _acquire(self, connection: psycopg.Connection[Row], owner: str, token: str) -> bool:
        row = connection.execute(
            "INSERT INTO leases VALUES (%s, %s, clock_timestamp() + make_interval(secs => %s), "
            "clock_timestamp(), clock_timestamp(), NULL, NULL, NULL) "
            "ON CONFLICT (owner) DO UPDATE SET token = excluded.token, "
            "expires_at = excluded.expires_at, renewed_at = excluded.renewed_at, "
            "acquired_at = excluded.acquired_at "
            "WHERE leases.expires_at <= clock_timestamp() RETURNING owner",
            (owner, token, self.lease_seconds),
        ).fetchone()
        return row is not None

    def hold_lease(self, owner: str) -> None:
        """Acquire ``owner``'s lease and keep it renewed by the heartbeat thread.

        A lease another process still holds is waited for until it expires, at
        most ``acquire_timeout`` seconds. Holding it again is a no-op.

        Raises:
            LeaseHeld: the lease stayed held.
        """
        with self._lock:
            if owner in self._tokens:
                return
        started = time.monotonic()
        token = secrets.token_hex(16)
        while True:
            with self._pool.connection() as connection:
                if self._acquire(connection, owner, token):
                    break
            waited = time.monotonic() - started
            if waited >= self._acquire_timeout:
                raise LeaseHeld(owner, waited)
            time.sleep(min(0.1, self.lease_seconds / 10))
        with self._lock:
            self._tokens[owner] = token
            if self._beat is None:
                self._beat = threading.Thread(
                    target=self._heartbeat, name="schemacore-journal-heartbeat", daemon=True
                )
                self._beat.start()

    def release_lease(self, owner: str) -> None:
        with self._lock:
            token = self._tokens.pop(owner, None)
        if token is None:
            return
        with self._pool.connection() as connection:
            # Expired now; with nothing open, nobody needs to recover it either
            # (a lease without a token is one nobody has to recover).
            connection.execute(
                "UPDATE leases SET expires_at = clock_timestamp(), token = CASE WHEN EXISTS "
                "(SELECT 1 FROM intents WHERE owner = %s AND closed_at IS NULL) THEN token END "
                "WHERE owner = %s AND token = %s",
                (owner, owner, token),
            )
            connection.execute("DELETE FROM slots WHERE owner = %s AND token = %s", (owner, token))

    def lease_token(self, owner: str) -> str | None:
        """This journal's token for ``owner``'s lease, None when not held."""
        with self._lock:
            return self._tokens.get(owner)

    def claim_expired(self, recoverer: str) -> list[str]:
        if self.lease_token(recoverer) is None:
            return []  # only a live gateway recovers others
        claim = _RECOVERY + secrets.token_hex(16)
        with self._pool.connection() as connection:
            rows = connection.execute(
                "UPDATE leases SET token = %s, expired_at = expires_at, "
                "expires_at = clock_timestamp() + make_interval(secs => %s), "
                "recovered_at = NULL, recovered_by = NULL "
                "WHERE expires_at <= clock_timestamp() AND token IS NOT NULL "
                "AND owner <> %s RETURNING owner",
                (claim, self.lease_seconds, recoverer),
            ).fetchall()
        owners = sorted(str(row[0]) for row in rows)
        with self._lock:
            # Renewed by the heartbeat like a lease until finish_recovery.
            self._claims.update((owner, claim) for owner in owners)
        return owners

    def finish_recovery(self, owner: str, recoverer: str) -> None:
        with self._lock:
            claim = self._claims.pop(owner, None)
        if claim is None:
            return
        with self._pool.connection() as connection, connection.transaction():
            ended = connection.execute(
                "UPDATE leases SET token = NULL, expires_at = clock_timestamp(), "
                "recovered_at = clock_timestamp(), recovered_by = %s "
                "WHERE owner = %s AND token = %s AND expires_at > clock_timestamp()",
                (recoverer, owner, claim),
            ).rowcount
            if ended == 1:  # a lapsed claim is another gateway's to finish
                connection.execute("DELETE FROM slots WHERE owner = %s", (owner,))

    def leases(self) -> list[dict[str, Any]]:
        """Every owner lease, for operators and tests: owner, held (not expired),
        when it expires, was last renewed and acquired, and of its last recovery by
        another gateway: the expiry it recovered after, when, and by whom
        (database clock, epoch seconds)."""
        with self._pool.connection() as connection:
            rows = connection.execute(
                "SELECT owner, expires_at > clock_timestamp(), extract(epoch FROM expires_at), "
                "extract(epoch FROM renewed_at), extract(epoch FROM acquired_at), "
                "extract(epoch FROM expired_at), extract(epoch FROM recovered_at), recovered_by "
                "FROM leases ORDER BY owner"
            ).fetchall()
        names = (
            "owner",
            "held",
            "expires",
            "renewed",
            "acquired",
            "expired",
            "recovered",
            "recovered_by",
        )
        return [
            {
                name: float(value) if value is not None and 2 <= index <= 6 else value
                for index, (name, value) in enumerate(zip(names, row, strict=True))
            }
            for row in rows
        ]

    def on_beat(self, callback: Callable[[], None]) -> None:
        with self._lock:
            self._callbacks.append(callback)

    def _renew(self) -> None:
        with self._lock:
            held = dict(self._tokens)
            claims = dict(self._claims)
        for owner, token in held.items():
            with self._pool.connection() as connection:
                if self._extend(connection, owner, token):
                    continue
                # Lost (expired while this process was stalled or cut off): what it
                # held counts no more; take a new tenure once nobody else holds it.
                fresh = secrets.token_hex(16)
                if self._acquire(connection, owner, fresh):
                    with self._lock:
                        if owner in self._tokens:
                            self._tokens[owner] = fresh
        for owner, claim in claims.items():
            with self._pool.connection() as connection:
                if self._extend(connection, owner, claim):
                    continue
            # A claim that lapsed is never taken back: the owner (or another
            # gateway) may have acted since, and close_interrupted then writes nothing.
            with self._lock:
                if self._claims.get(owner) == claim:
                    del self._claims[owner]

    def _extend(self, connection: psycopg.Connection[Row], owner: str, token: str) -> bool:
        # renewed_at is the owner's last heartbeat (what leases() reports an expiry
        # against); a claim's renewal keeps it.
        renewed = connection.execute(
            "UPDATE leases SET expires_at = clock_timestamp() + make_interval(secs => %s), "
            "renewed_at = CASE WHEN %s THEN renewed_at ELSE clock_timestamp() END "
            "WHERE owner = %s AND token = %s AND expires_at > clock_timestamp()",
            (self.lease_seconds, token.startswith(_RECOVERY), owner, token),
        ).rowcount
        return bool(renewed == 1)

    def defer(self, work: Callable[[psycopg.Connection[Row]], None]) -> None:
        """Run ``work`` at the next heartbeat (a release that failed, retried)."""
        with self._lock:
            self._pending.append(work)

    def _heartbeat(self) -> None:
        interval = self.lease_seconds / 3
        while not self._stop.wait(interval):
            with contextlib.suppress(Exception):
                self._renew()
            with self._lock:
                pending, self._pending = self._pending, []
                callbacks = list(self._callbacks)
            for index, work in enumerate(pending):
                try:
                    with self._pool.connection() as connection:
                        work(connection)
                except Exception:
                    with self._lock:
                        self._pending.extend(pending[index:])
                    break
            for callback in callbacks:
                with contextlib.suppress(Exception):
                    callback()

    # -- shared limits and catalog revisions ------------------------------------------------

    def limiter(self, owner: str) -> PostgresLimiter:
        """The contract limits shared by every gateway on this database, for a
        gateway whose ``owner`` lease this journal holds."""
        return PostgresLimiter(self, owner)

    def connection(self) -> contextlib.AbstractContextManager[psycopg.Connection[Row]]:
        """A pooled connection (autocommit, this journal's schema), for the shared
        limits and catalog revisions."""
        return self._pool.connection()

    def publish_catalog(self, bundle: AdmittedBundle | CatalogCheckpoint, *, by: str) -> int:
        """Publish ``bundle``'s checkpoint as the newest catalog revision and
        return its number; the latest one again if it is the same checkpoint."""
        checkpoint = bundle.checkpoint() if isinstance(bundle, AdmittedBundle) else bundle
        text = json.dumps(
            {
                "accepted": list(checkpoint.accepted),
                "revisions": list(checkpoint.revisions),
                "granted": list(checkpoint.granted),
            }
        )
        with self._pool.connection() as connection, connection.transaction():
            connection.execute(
                "SELECT pg_advisory_xact_lock(hashtextextended('schemacore-catalog', 0))"
            )
            row = connection.execute(
                "SELECT revision, checkpoint FROM catalog_revisions ORDER BY revision DESC LIMIT 1"
            ).fetchone()
            if row is not None and row[1] == text:
                return int(row[0])
            row = connection.execute(
                "INSERT INTO catalog_revisions (checkpoint, published_by) VALUES (%s, %s) "
                "RETURNING revision",
                (text, by),
            ).fetchone()
        assert row is not None
        return int(row[0])

    def latest_catalog(self, after: int = 0) -> tuple[int, CatalogCheckpoint] | None:
        """The newest published revision and its checkpoint, when newer than ``after``."""
        with self._pool.connection() as connection:
            row = connection.execute(
                "SELECT revision, checkpoint FROM catalog_revisions WHERE revision > %s "
                "ORDER BY revision DESC LIMIT 1",
                (after,),
            ).fetchone()
        if row is None:
            return None
        data = json.loads(row[1])
        return int(row[0]), CatalogCheckpoint(
            tuple(data["accepted"]), tuple(data["revisions"]), tuple(data["granted"])
        )
