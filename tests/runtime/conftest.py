"""Fixtures for the journal backends (see ``journal_backends.py``).

The PostgreSQL tests use the server named by ``SCHEMACORE_TEST_POSTGRES_DSN``; without
it, a throwaway cluster started here when the server binaries exist. Without either
they skip with the reason, except where ``SCHEMACORE_REQUIRE_POSTGRES=1`` (CI) makes a
missing server a failure.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.runtime import pg_cluster
from tests.runtime.journal_backends import JournalBackend

DSN_VARIABLE = "SCHEMACORE_TEST_POSTGRES_DSN"
REQUIRE_VARIABLE = "SCHEMACORE_REQUIRE_POSTGRES"


def _unavailable(reason: str) -> None:
    if os.environ.get(REQUIRE_VARIABLE) == "1":
        pytest.fail(f"PostgreSQL is required ({REQUIRE_VARIABLE}=1) but {reason}")
    pytest.skip(f"no PostgreSQL server: {reason}; set {DSN_VARIABLE} to run these tests")


@pytest.fixture(scope="session")
def postgres_dsn() -> Iterator[str]:
    """A DSN of a server the tests may create schemas in."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        _unavailable("psycopg is not installed (pip install 'schemacore[postgres]')")
    given = os.environ.get(DSN_VARIABLE)
    if given:
        yield given
        return
    parent = pg_cluster.scratch_parent()
    try:
        cluster = pg_cluster.start(parent / "cluster")
    except pg_cluster.ClusterUnavailable as exc:
        pg_cluster.stop(parent / "cluster")
        parent.rmdir()
        _unavailable(str(exc))
    try:
        yield cluster.dsn
    finally:
        pg_cluster.stop(cluster.directory)
        parent.rmdir()


@pytest.fixture(params=["sqlite", "postgres"])
def journal_backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[JournalBackend]:
    """Each journal backend in turn, with a store of its own for this test."""
    dsn = request.getfixturevalue("postgres_dsn") if request.param == "postgres" else None
    backend = JournalBackend(request.param, tmp_path, dsn)
    try:
        yield backend
    finally:
        backend.close()


@pytest.fixture
def postgres_backend(postgres_dsn: str, tmp_path: Path) -> Iterator[JournalBackend]:
    """The PostgreSQL backend alone, for what only a shared journal does."""
    backend = JournalBackend("postgres", tmp_path, postgres_dsn)
    try:
        yield backend
    finally:
        backend.close()
