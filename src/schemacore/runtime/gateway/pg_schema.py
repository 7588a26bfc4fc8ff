"""The PostgreSQL journal's tables, as numbered migrations.

:func:`migrate` brings a database schema (namespace) to :data:`SCHEMA_VERSION` on
first use: under a transaction-level advisory lock, so gateways starting together
migrate once, each step applied in the same transaction as the version it records.
A database newer than this code is refused rather than used half-understood.

Times: ``created_at``/``dispatched_at``/``closed_at`` and the idempotency window are
the gateways' wall-clock seconds (as in SQLite); leases, concurrency slots and rate
buckets use the database server's clock (``clock_timestamp()``), so the limits and
lease expiry do not depend on the gateways' clocks agreeing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    import psycopg

__all__ = ["SCHEMA_VERSION", "SchemaTooNew", "migrate"]

_V1: Final = """
CREATE TABLE intents (
    intent_id text PRIMARY KEY,
    tool text NOT NULL,
    tool_id text NOT NULL,
    caller text NOT NULL,
    run text NOT NULL,
    key_digest text,
    args_digest text NOT NULL,
    owner text NOT NULL,
    created_at double precision NOT NULL,
    dispatched_at double precision,
    closed_at double precision,
    outcome text,
    compensates text
);
CREATE INDEX intents_open ON intents (owner, created_at) WHERE closed_at IS NULL;
CREATE INDEX intents_closed ON intents (created_at) WHERE closed_at IS NOT NULL;
CREATE TABLE idempotency_keys (
    tool_id text NOT NULL,
    caller text NOT NULL,
    key_digest text NOT NULL,
    intent_id text NOT NULL,
    created_at double precision NOT NULL,
    PRIMARY KEY (tool_id, caller, key_digest)
);
CREATE INDEX idempotency_keys_intent ON idempotency_keys (intent_id);

-- One row per owner id. token is the holder's secret for this tenure: a restarted
-- process takes a new one, so nothing its previous life held counts any more.
-- expired_at/recovered_at/recovered_by: the last recovery by another gateway.
CREATE TABLE leases (
    owner text PRIMARY KEY,
    token text,
    expires_at timestamptz NOT NULL,
    renewed_at timestamptz NOT NULL,
    acquired_at timestamptz NOT NULL,
    expired_at timestamptz,
    recovered_at timestamptz,
    recovered_by text
);

CREATE TABLE rate_buckets (
    tool_id text NOT NULL,
    scope text NOT NULL,
    who text NOT NULL,
    tokens double precision NOT NULL,
    updated double precision NOT NULL,
    PRIMARY KEY (tool_id, scope, who)
);
-- A concurrency place in use; it counts only while its owner's lease (same token) lives.
CREATE TABLE slots (
    slot_id text PRIMARY KEY,
    tool_id text NOT NULL,
    owner text NOT NULL,
    token text NOT NULL,
    taken_at timestamptz NOT NULL
);
CREATE INDEX slots_tool ON slots (tool_id);
CREATE INDEX slots_owner ON slots (owner);

CREATE TABLE catalog_revisions (
    revision bigserial PRIMARY KEY,
    checkpoint text NOT NULL,
    published_by text NOT NULL,
    published_at timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- The shared limits in one round trip. NULL: reserved; -1: concurrency-limited;
-- otherwise rate-limited, the seconds until a token frees. The advisory lock
-- serialises reservations of one tool (count, then insert); other tools never wait.
CREATE FUNCTION reserve_slot(
    p_slot text, p_tool text, p_owner text, p_token text, p_max integer,
    p_scope text, p_who text, p_capacity double precision, p_rate double precision
) RETURNS double precision LANGUAGE plpgsql AS $$
DECLARE
    now_s double precision := extract(epoch FROM clock_timestamp());
    busy integer;
    have double precision;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended('schemacore-slots:' || p_tool, 0));
    SELECT count(*) INTO busy FROM slots s
        JOIN leases l ON l.owner = s.owner AND l.token = s.token
        WHERE s.tool_id = p_tool AND l.expires_at > clock_timestamp();
    IF busy >= p_max THEN
        RETURN -1;
    END IF;
    INSERT INTO rate_buckets VALUES (p_tool, p_scope, p_who, p_capacity, now_s)
        ON CONFLICT DO NOTHING;
    SELECT LEAST(p_capacity, tokens + GREATEST(0, now_s - updated) * p_rate) INTO have
        FROM rate_buckets WHERE tool_id = p_tool AND scope = p_scope AND who = p_who
        FOR UPDATE;
    IF have < 1 THEN
        RETURN (1 - have) / p_rate;
    END IF;
    UPDATE rate_buckets SET tokens = have - 1, updated = now_s
        WHERE tool_id = p_tool AND scope = p_scope AND who = p_who;
    INSERT INTO slots VALUES (p_slot, p_tool, p_owner, p_token, clock_timestamp());
    RETURN NULL;
END $$;

CREATE FUNCTION release_slot(
    p_slot text, p_tool text, p_scope text, p_who text, p_capacity double precision,
    p_refund boolean
) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM slots WHERE slot_id = p_slot;
    IF p_refund THEN
        UPDATE rate_buckets SET tokens = LEAST(p_capacity, tokens + 1)
            WHERE tool_id = p_tool AND scope = p_scope AND who = p_who;
    END IF;
END $$;
"""

# Version 2: reserve_slot read the clock before waiting for the per-tool lock, so a
# reservation that waited could set ``updated`` back to before its predecessor's and
# the next one refilled that interval twice. The clock is now read under the lock,
# and ``updated`` never moves backwards (a wall-clock step back refills nothing).
_V2: Final = """
CREATE OR REPLACE FUNCTION reserve_slot(
    p_slot text, p_tool text, p_owner text, p_token text, p_max integer,
    p_scope text, p_who text, p_capacity double precision, p_rate double precision
) RETURNS double precision LANGUAGE plpgsql AS $$
DECLARE
    now_s double precision;
    busy integer;
    have double precision;
    last double precision;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended('schemacore-slots:' || p_tool, 0));
    now_s := extract(epoch FROM clock_timestamp());
    SELECT count(*) INTO busy FROM slots s
        JOIN leases l ON l.owner = s.owner AND l.token = s.token
        WHERE s.tool_id = p_tool AND l.expires_at > clock_timestamp();
    IF busy >= p_max THEN
        RETURN -1;
    END IF;
    INSERT INTO rate_buckets VALUES (p_tool, p_scope, p_who, p_capacity, now_s)
        ON CONFLICT DO NOTHING;
    SELECT LEAST(p_capacity, tokens + GREATEST(0, now_s - updated) * p_rate),
           GREATEST(updated, now_s) INTO have, last
        FROM rate_buckets WHERE tool_id = p_tool AND scope = p_scope AND who = p_who
        FOR UPDATE;
    IF have < 1 THEN
        RETURN (1 - have) / p_rate;
    END IF;
    UPDATE rate_buckets SET tokens = have - 1, updated = last
        WHERE tool_id = p_tool AND scope = p_scope AND who = p_who;
    INSERT INTO slots VALUES (p_slot, p_tool, p_owner, p_token, clock_timestamp());
    RETURN NULL;
END $$;
"""

# Migration n (1-based) is _STEPS[n - 1]; append, never edit a released step.
_STEPS: Final = (_V1, _V2)
SCHEMA_VERSION: Final = len(_STEPS)


class SchemaTooNew(RuntimeError):
    """The database's journal schema is newer than this version of schemacore."""

    def __init__(self, schema: str, found: int) -> None:
        super().__init__(
            f"the journal schema {schema!r} is at version {found}; this schemacore knows "
            f"versions up to {SCHEMA_VERSION}"
        )
        self.schema = schema
        self.found = found

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.schema, self.found))


def migrate(connection: psycopg.Connection[tuple[Any, ...]], schema: str) -> int:
    """Create or migrate ``schema`` to :data:`SCHEMA_VERSION`; returns the version
    found before (0 for a new schema). ``connection`` is in autocommit mode."""
    from psycopg import sql

    name = sql.Identifier(schema)
    with connection.transaction():
        connection.execute(
            "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))",
            (f"schemacore-migrate:{schema}",),
        )
        connection.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(name))
        connection.execute(sql.SQL("SET LOCAL search_path TO {}").format(name))
        connection.execute("CREATE TABLE IF NOT EXISTS schema_version (version integer NOT NULL)")
        row = connection.execute("SELECT max(version) FROM schema_version").fetchone()
        found = int(row[0]) if row is not None and row[0] is not None else 0
        if found > SCHEMA_VERSION:
            raise SchemaTooNew(schema, found)
        for version in range(found + 1, SCHEMA_VERSION + 1):
            connection.execute(_STEPS[version - 1])
            connection.execute("DELETE FROM schema_version")
            connection.execute("INSERT INTO schema_version VALUES (%s)", (version,))
    return found
