"""The durable intent journal: an intent before dispatch, the outcome after.

The gateway writes an :class:`Intent` before it resolves credentials or calls a
backend, marks it when dispatch starts, and closes it with the outcome. An intent
left open by a runtime that died is found by the next runtime with the same
``owner`` and closed as *ambiguous* (it was dispatched, or may have been) or as
*interrupted before dispatch*; nothing is re-run by the journal. It never stores
tool arguments or idempotency keys, only their SHA-256 digests, so it cannot replay
a call by itself. It does store each outcome's model result, which a repeated
idempotency key gets back: protect the journal file like the tools' data.

:class:`IntentJournal` is the interface the gateway uses; :class:`SQLiteJournal`
(standard-library ``sqlite3``, a file or ``":memory:"``) is the default. Another
backing store (a database shared by several runtime processes) implements the same
methods with the same atomicity: :meth:`IntentJournal.begin` must check the key and
insert the intent in one transaction.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

__all__ = ["Intent", "IntentJournal", "SQLiteJournal"]


@dataclass(frozen=True, slots=True)
class Intent:
    """One published intent.

    Attributes:
        intent_id: unique id (random, 128 bits).
        tool, tool_id: the MCP name and the contract's ``toolId``.
        caller, run: who called, in which run.
        key_digest: SHA-256 of the idempotency key, or None without one.
        args_digest: SHA-256 of the canonical JSON of the validated arguments.
        owner: the gateway (runtime process) that published it.
        created_at: wall-clock seconds.
        dispatched_at: when dispatch started, None before.
        closed_at, outcome: set when the outcome was recorded (the outcome is a
            ``ToolOutcome.to_dict(evidence=False)``).
        compensates: the intent this call compensates, if it is a compensation.
    """

    intent_id: str
    tool: str
    tool_id: str
    caller: str
    run: str
    key_digest: str | None
    args_digest: str
    owner: str
    created_at: float
    dispatched_at: float | None = None
    closed_at: float | None = None
    outcome: Mapping[str, Any] | None = None
    compensates: str | None = None

    @property
    def is_open(self) -> bool:
        return self.closed_at is None


class IntentJournal(Protocol):
    """What the gateway needs of a journal (see the module docstring)."""

    def begin(self, intent: Intent, *, window: float) -> Intent | None:
        """Publish ``intent``, or return the intent already recorded for the same
        (tool_id, caller, key_digest) within ``window`` seconds of
        ``intent.created_at``. One that closed without dispatch does not count.
        An intent that is still open holds its key whatever its age. Check and
        insert are one atomic step."""
        ...

    def find(self, tool_id: str, caller: str, key_digest: str, *, since: float) -> Intent | None:
        """The intent recorded for that key since ``since`` (read only)."""
        ...

    def mark_dispatched(self, intent_id: str, at: float) -> bool:
        """Record that dispatch starts (the backend may now act). False when the
        intent is no longer open (closed by a recovery): it must not be dispatched."""
        ...

    def close(self, intent_id: str, outcome: Mapping[str, Any], at: float) -> None:
        """Record the outcome of an open intent."""
        ...

    def close_interrupted(
        self,
        intent_id: str,
        verdicts: tuple[Mapping[str, Any], Mapping[str, Any]],
        at: float,
        *,
        recoverer: str,
    ) -> bool | None:
        """Close an intent a stopped runtime left open, choosing between
        ``verdicts`` (before dispatch, after dispatch) by whether dispatch had
        started *when the row is written*, in one atomic step, never from an
        earlier read: a before-dispatch verdict frees the key, so it must not be
        recorded once :meth:`mark_dispatched` has succeeded. Returns True when
        closed before dispatch, False when closed after, None when nothing was
        written (already closed, or a shared journal whose ``recoverer`` no
        longer holds the owner's lease or recovery claim)."""
        ...

    def get(self, intent_id: str) -> Intent | None:
        """One intent by id."""
        ...

    def open_intents(self, owner: str) -> list[Intent]:
        """The intents of ``owner`` that have no outcome yet, oldest first."""
        ...


_SCHEMA = """
CREATE TABLE IF NOT EXISTS intents (
    intent_id TEXT PRIMARY KEY,
    tool TEXT NOT NULL,
    tool_id TEXT NOT NULL,
    caller TEXT NOT NULL,
    run TEXT NOT NULL,
    key_digest TEXT,
    args_digest TEXT NOT NULL,
    owner TEXT NOT NULL,
    created_at REAL NOT NULL,
    dispatched_at REAL,
    closed_at REAL,
    outcome TEXT,
    compensates TEXT
);
CREATE INDEX IF NOT EXISTS intents_open ON intents (owner, closed_at);
CREATE TABLE IF NOT EXISTS idempotency_keys (
    tool_id TEXT NOT NULL,
    caller TEXT NOT NULL,
    key_digest TEXT NOT NULL,
    intent_id TEXT NOT NULL,
    created_at REAL NOT NULL,
    PRIMARY KEY (tool_id, caller, key_digest)
);
"""

_COLUMNS = (
    "intent_id, tool, tool_id, caller, run, key_digest, args_digest, owner, "
    "created_at, dispatched_at, closed_at, outcome, compensates"
)


def _holding_key(intent: Intent, recorded_at: float, since: float) -> Intent | None:
    """The intent an idempotency key recorded at ``recorded_at`` still answers for,
    or None when the key is free (every journal decides alike)."""
    if intent.is_open:
        return intent  # still running somewhere: never a second dispatch, whatever its age
    if recorded_at < since:
        return None  # outside the window
    if intent.outcome is not None and intent.outcome.get("dispatched") is False:
        return None  # nothing happened: the key is free for a new attempt
    return intent


def _row_to_intent(row: tuple[Any, ...]) -> Intent:
    values = list(row)
    if values[11] is not None:
        values[11] = json.loads(values[11])
    return Intent(*values)


class SQLiteJournal:
    """An :class:`IntentJournal` in SQLite: ``path`` is a file, or ``":memory:"``.

    A file journal uses WAL mode with ``synchronous=FULL``, so a recorded intent
    survives a crash of the process (and of the machine, as far as the disk
    keeps its promises). One connection, serialised by a lock, serves all threads;
    several processes may open the same file (SQLite's locking, ``BEGIN
    IMMEDIATE`` around check-and-insert).
    """

    def __init__(self, path: str = ":memory:", *, timeout: float = 10.0) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._db = sqlite3.connect(
            path, timeout=timeout, isolation_level=None, check_same_thread=False
        )
        if path != ":memory:":
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
        self._db.executescript(_SCHEMA)

    def close_connection(self) -> None:
        """Close the database connection."""
        with self._lock:
            self._db.close()

    def _live(self, row: tuple[Any, ...] | None, since: float) -> Intent | None:
        if row is None:
            return None
        found = self._db.execute(
            f"SELECT {_COLUMNS} FROM intents WHERE intent_id = ?", (row[0],)
        ).fetchone()
        if found is None:
            return None
        return _holding_key(_row_to_intent(found), row[1], since)

    def _key_row(self, tool_id: str, caller: str, key_digest: str) -> tuple[Any, ...] | None:
        row: tuple[Any, ...] | None = self._db.execute(
            "SELECT intent_id, created_at FROM idempotency_keys "
            "WHERE tool_id = ? AND caller = ? AND key_digest = ?",
            (tool_id, caller, key_digest),
        ).fetchone()
        return row

    def begin(self, intent: Intent, *, window: float) -> Intent | None:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                if intent.key_digest is not None:
                    row = self._key_row(intent.tool_id, intent.caller, intent.key_digest)
                    existing = self._live(row, intent.created_at - window)
                    if existing is not None:
                        self._db.execute("COMMIT")
                        return existing
                    self._db.execute(
                        "INSERT OR REPLACE INTO idempotency_keys VALUES (?, ?, ?, ?, ?)",
                        (
                            intent.tool_id,
                            intent.caller,
                            intent.key_digest,
                            intent.intent_id,
                            intent.created_at,
                        ),
                    )
                self._db.execute(
                    f"INSERT INTO intents ({_COLUMNS}) VALUES "
                    "(?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL, NULL, ?)",
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
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return None

    def find(self, tool_id: str, caller: str, key_digest: str, *, since: float) -> Intent | None:
        with self._lock:
            return self._live(self._key_row(tool_id, caller, key_digest), since)

    def mark_dispatched(self, intent_id: str, at: float) -> bool:
        with self._lock:
            marked = self._db.execute(
                "UPDATE intents SET dispatched_at = ? "
                "WHERE intent_id = ? AND dispatched_at IS NULL AND closed_at IS NULL",
                (at, intent_id),
            ).rowcount
        return bool(marked == 1)

    def close(self, intent_id: str, outcome: Mapping[str, Any], at: float) -> None:
        text = json.dumps(outcome, ensure_ascii=False, allow_nan=False)
        with self._lock:
            self._db.execute(
                "UPDATE intents SET closed_at = ?, outcome = ? "
                "WHERE intent_id = ? AND closed_at IS NULL",
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
        before, after = (json.dumps(v, ensure_ascii=False, allow_nan=False) for v in verdicts)
        with self._lock:
            rows = self._db.execute(
                "UPDATE intents SET closed_at = ?, "
                "outcome = CASE WHEN dispatched_at IS NULL THEN ? ELSE ? END "
                "WHERE intent_id = ? AND closed_at IS NULL RETURNING dispatched_at IS NULL",
                (at, before, after, intent_id),
            ).fetchall()  # all: the statement ends (and its write lock goes) here
        return bool(rows[0][0]) if rows else None

    def get(self, intent_id: str) -> Intent | None:
        with self._lock:
            row = self._db.execute(
                f"SELECT {_COLUMNS} FROM intents WHERE intent_id = ?", (intent_id,)
            ).fetchone()
        return _row_to_intent(row) if row is not None else None

    def open_intents(self, owner: str) -> list[Intent]:
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_COLUMNS} FROM intents WHERE owner = ? AND closed_at IS NULL "
                "ORDER BY created_at",
                (owner,),
            ).fetchall()
        return [_row_to_intent(row) for row in rows]

    def purge(self, before: float) -> int:
        """Delete closed intents (and their keys) created before ``before``; returns
        how many intents went. Open intents are kept whatever their age."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute(
                    "DELETE FROM idempotency_keys WHERE intent_id IN (SELECT intent_id FROM "
                    "intents WHERE closed_at IS NOT NULL AND created_at < ?)",
                    (before,),
                )
                count = self._db.execute(
                    "DELETE FROM intents WHERE closed_at IS NOT NULL AND created_at < ?",
                    (before,),
                ).rowcount
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return int(count)
