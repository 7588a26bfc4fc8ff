"""A small thread-safe pool of psycopg connections for the PostgreSQL journal.

Connections are made on demand up to ``size``, in autocommit mode with the
journal's schema as ``search_path``; one that broke (the server restarted, the
network dropped) is thrown away instead of being handed out again.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import psycopg

__all__ = ["Pool", "load_driver"]


def load_driver() -> Any:
    """The ``psycopg`` module, or an ImportError that says how to install it."""
    try:
        import psycopg
    except ImportError as exc:
        raise ImportError(
            "the PostgreSQL journal needs psycopg 3: pip install 'schemacore[postgres]'"
        ) from exc
    return psycopg


class Pool:
    """Up to ``size`` connections made by ``connect``; :meth:`connection` lends one."""

    def __init__(
        self,
        connect: Callable[[], psycopg.Connection[tuple[Any, ...]]],
        size: int,
        *,
        wait: float = 30.0,
    ) -> None:
        if size < 1:
            raise ValueError("the pool needs at least one connection")
        self._connect = connect
        self._size = size
        self._wait = wait
        self._idle: list[psycopg.Connection[tuple[Any, ...]]] = []
        self._count = 0
        self._closed = False
        self._cond = threading.Condition()

    def _take(self) -> psycopg.Connection[tuple[Any, ...]] | None:
        deadline = time.monotonic() + self._wait
        with self._cond:
            while True:
                if self._closed:
                    raise RuntimeError("the journal's connections are closed")
                if self._idle:
                    return self._idle.pop()
                if self._count < self._size:
                    self._count += 1
                    return None  # the caller connects, outside the lock
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError("no journal connection became free")
                self._cond.wait(left)

    def _give_back(self, connection: psycopg.Connection[tuple[Any, ...]] | None) -> None:
        with self._cond:
            if connection is None or self._closed:
                self._count -= 1
                if connection is not None:
                    with contextlib.suppress(Exception):
                        connection.close()
            else:
                self._idle.append(connection)
            self._cond.notify()

    @contextlib.contextmanager
    def connection(self) -> Iterator[psycopg.Connection[tuple[Any, ...]]]:
        """A connection for the ``with`` block; broken ones are not reused."""
        connection = self._take()
        if connection is None:
            try:
                connection = self._connect()
            except BaseException:
                self._give_back(None)
                raise
        try:
            yield connection
        finally:
            if connection.closed or connection.broken:
                with contextlib.suppress(Exception):
                    connection.close()
                self._give_back(None)
            else:
                self._give_back(connection)

    def close(self) -> None:
        """Close every idle connection; lent ones close when given back."""
        with self._cond:
            self._closed = True
            idle, self._idle = self._idle, []
            self._count -= len(idle)
            self._cond.notify_all()
        for connection in idle:
            with contextlib.suppress(Exception):
                connection.close()
