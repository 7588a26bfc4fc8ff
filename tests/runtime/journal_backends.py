"""The intent journal backends the journal, idempotency and recovery tests run on.

A :class:`JournalBackend` makes journals on one shared store per test: a SQLite
file in the test's folder, or a fresh PostgreSQL schema (dropped afterwards) on the
test server (see ``conftest.py``: ``SCHEMACORE_TEST_POSTGRES_DSN``, else a
throwaway cluster when the server binaries exist). A journal of a child process is
described by :meth:`JournalBackend.spec` and opened there with :func:`open_journal`.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from schemacore.runtime.gateway import Intent, PostgresJournal, SQLiteJournal

# Short enough that a test waiting for an expiry stays quick, long enough that a
# loaded machine's heartbeat (every third of it) never misses one.
TEST_LEASE_SECONDS = 2.0


class _Recording:
    """Logs a journal's writes into a recorder's ``events`` (mixed into a journal)."""

    events: list[str]

    def begin(self, intent: Intent, *, window: float) -> Intent | None:
        self.events.append("intent")
        return super().begin(intent, window=window)  # type: ignore[misc, no-any-return]

    def mark_dispatched(self, intent_id: str, at: float) -> bool:
        self.events.append("intent-dispatched")
        return super().mark_dispatched(intent_id, at)  # type: ignore[misc, no-any-return]

    def close(self, intent_id: str, outcome: Mapping[str, Any], at: float) -> None:
        self.events.append("intent-closed")
        super().close(intent_id, outcome, at)  # type: ignore[misc]


class RecordingSQLiteJournal(_Recording, SQLiteJournal):
    def __init__(self, events: list[str], path: str = ":memory:") -> None:
        SQLiteJournal.__init__(self, path)
        self.events = events


class RecordingPostgresJournal(_Recording, PostgresJournal):
    def __init__(self, events: list[str], dsn: str, **options: Any) -> None:
        PostgresJournal.__init__(self, dsn, **options)
        self.events = events


def open_journal(spec: str) -> Any:
    """The journal a :meth:`JournalBackend.spec` describes (in a child process)."""
    data = json.loads(spec)
    if data["kind"] == "sqlite":
        return SQLiteJournal(data["path"])
    return PostgresJournal(data["dsn"], schema=data["schema"], lease_seconds=data["lease_seconds"])


class JournalBackend:
    """Journals on one store: ``kind`` is ``"sqlite"`` or ``"postgres"``."""

    def __init__(self, kind: str, folder: Path, dsn: str | None = None) -> None:
        self.kind = kind
        self.path = str(folder / "journal.sqlite")
        self.dsn = dsn
        self.schema = f"t_{uuid.uuid4().hex[:16]}"
        self._opened: list[Any] = []

    @property
    def shared(self) -> bool:
        """Whether the journal holds owner leases (several processes)."""
        return self.kind == "postgres"

    def _options(self, lease_seconds: float | None, acquire_timeout: float | None) -> Any:
        options: dict[str, Any] = {
            "schema": self.schema,
            "lease_seconds": lease_seconds or TEST_LEASE_SECONDS,
        }
        if acquire_timeout is not None:
            options["acquire_timeout"] = acquire_timeout
        return options

    def new(
        self, *, lease_seconds: float | None = None, acquire_timeout: float | None = None
    ) -> Any:
        """A journal on the store, as a new process would open it."""
        journal: Any
        if self.kind == "sqlite":
            journal = SQLiteJournal(self.path)
        else:
            assert self.dsn is not None
            journal = PostgresJournal(self.dsn, **self._options(lease_seconds, acquire_timeout))
        self._opened.append(journal)
        return journal

    def recording(self, events: list[str]) -> Any:
        """A journal on the store that logs its writes into ``events``."""
        journal: Any
        if self.kind == "sqlite":
            journal = RecordingSQLiteJournal(events, self.path)
        else:
            assert self.dsn is not None
            journal = RecordingPostgresJournal(events, self.dsn, **self._options(None, None))
        self._opened.append(journal)
        return journal

    def spec(self, *, lease_seconds: float | None = None) -> str:
        """How a child process opens a journal on this store (:func:`open_journal`)."""
        if self.kind == "sqlite":
            return json.dumps({"kind": "sqlite", "path": self.path})
        return json.dumps(
            {
                "kind": "postgres",
                "dsn": self.dsn,
                "schema": self.schema,
                "lease_seconds": lease_seconds or TEST_LEASE_SECONDS,
            }
        )

    def dump(self) -> str:
        """Every stored row of intents and keys, as text (what a reader of the
        store would see)."""
        if self.kind == "sqlite":
            with sqlite3.connect(self.path) as db:
                rows = db.execute("SELECT * FROM intents").fetchall()
                rows += db.execute("SELECT * FROM idempotency_keys").fetchall()
            return json.dumps(rows)
        import psycopg

        assert self.dsn is not None
        with psycopg.connect(self.dsn) as db:
            rows = db.execute(f"SELECT * FROM {self.schema}.intents").fetchall()
            rows += db.execute(f"SELECT * FROM {self.schema}.idempotency_keys").fetchall()
        return json.dumps(rows, default=str)

    def expire_lease(self, owner: str) -> None:
        """Make ``owner``'s lease expired now, as if its process had stopped."""
        import psycopg

        assert self.dsn is not None
        with psycopg.connect(self.dsn, autocommit=True) as db:
            db.execute(
                f"UPDATE {self.schema}.leases SET expires_at = clock_timestamp() WHERE owner = %s",
                (owner,),
            )

    def close(self) -> None:
        for journal in self._opened:
            journal.close_connection()
        if self.kind == "postgres":
            import psycopg

            assert self.dsn is not None
            with psycopg.connect(self.dsn, autocommit=True) as db:
                db.execute(f"DROP SCHEMA IF EXISTS {self.schema} CASCADE")


class Stall:
    """Pauses a :class:`PostgresJournal`'s heartbeat, as a stalled process (GC,
    SIGSTOP, a VM pause) stops it: while paused, nothing renews its lease or its
    recovery claims and its beat callbacks (recovery of expired owners) wait.
    The thread that is "stalled" blocks in :meth:`hold` (a hook of the test)."""

    def __init__(self, journal: Any) -> None:
        self.journal = journal
        self._running = threading.Event()
        self._running.set()
        original = journal._renew

        def renew() -> None:
            self._running.wait(60)
            original()

        journal._renew = renew

    def pause(self) -> None:
        self._running.clear()

    def resume(self) -> None:
        self._running.set()
