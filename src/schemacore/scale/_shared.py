"""A validator that is compiled once per worker process, however many tasks use it.

A :class:`~schemacore.Validator` pickles as its schema and options and compiles again
when it is unpickled: sent with every task of a cluster job, it would be compiled
once per task, and its generated code (written once a validator has been used
enough, see ``schemacore.codegen``) would never be reached. A
:class:`SharedValidator` pickles as the same bytes plus a key, the SHA-256 of those
bytes, and looks the key up in a cache of this process before compiling: the
first task on a worker compiles, every later one (on any of the worker's threads)
gets the same validator object.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import socket
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import schemacore

__all__ = ["CACHE_SIZE", "CacheInfo", "SharedValidator", "VersionMismatch", "cache_info"]

# Validators kept per process, least recently used dropped first: a long-lived
# worker serving many schemas must not keep every one of them.
CACHE_SIZE = 8


class VersionMismatch(RuntimeError):
    """A worker's schemacore is another version than the client's: its results could
    differ from the client's, so it refuses the work instead."""


@dataclass(frozen=True, slots=True)
class CacheInfo:
    """What the validator cache of one process holds (see :func:`cache_info`).

    Attributes:
        version: this process's ``schemacore.__version__``.
        pid: this process's id.
        compiles: key -> how many times this process compiled it (1 unless it was
            dropped from the cache and needed again).
        cached: the keys of the validators held now, least recently used first.
    """

    version: str
    pid: int
    compiles: dict[str, int]
    cached: tuple[str, ...]


# key -> validator, in order of use; a lock per key, so that a worker's threads
# compile one schema once while another schema can compile beside it.
_cache: OrderedDict[str, schemacore.Validator] = OrderedDict()
_compiles: dict[str, int] = {}
_key_locks: dict[str, threading.Lock] = {}
_guard = threading.Lock()


class SharedValidator:
    """A picklable handle on a compiled validator, compiled once per process.

    Pickling it carries the validator's pickled form (its schema, registry,
    loader and options), a key naming that content and the schemacore version of
    the process that made it. :meth:`validator` in another process compiles it
    the first time and returns the same object afterwards, in every thread;
    a process whose schemacore version differs raises :class:`VersionMismatch`.

    Args:
        validator: the compiled validator to share. The process that makes the
            handle uses this very object.
    """

    __slots__ = ("_key", "_payload", "_version")

    def __init__(self, validator: schemacore.Validator) -> None:
        if not isinstance(validator, schemacore.Validator):
            raise TypeError("SharedValidator takes a schemacore.Validator")
        payload = pickle.dumps(validator, protocol=pickle.HIGHEST_PROTOCOL)
        # The exact bytes, not a canonical form: the order of a schema's keys is
        # the order its errors are reported in, so it is part of what is shared.
        key = hashlib.sha256(payload).hexdigest()
        self._key = key
        self._payload = payload
        self._version = schemacore.__version__
        # This process has it compiled already.
        with _guard:
            if key not in _cache:
                _remember(key, validator)

    @classmethod
    def compile(cls, schema: Any, **options: Any) -> SharedValidator:
        """Compile ``schema`` here (so a schema error is raised at once, in this
        process) with the options of :func:`schemacore.compile`, and share it."""
        return cls(schemacore.compile(schema, **options))

    @property
    def key(self) -> str:
        """The SHA-256 (in hex) of the validator's pickled form, which holds its
        schema and options."""
        return self._key

    @property
    def version(self) -> str:
        """The schemacore version of the process that made this handle."""
        return self._version

    def validator(self) -> schemacore.Validator:
        """The compiled validator: from this process's cache, or compiled now once
        (other threads asking meanwhile wait for it).

        Raises:
            VersionMismatch: this process runs another schemacore version.
        """
        if self._version != schemacore.__version__:
            raise VersionMismatch(
                f"schemacore {schemacore.__version__} on {socket.gethostname()} "
                f"(pid {os.getpid()}) refuses work from a client running schemacore "
                f"{self._version}: install schemacore {self._version} on every worker, "
                "so that the cluster's results are the client's"
            )
        key = self._key
        with _guard:
            found = _cache.get(key)
            if found is not None:
                _cache.move_to_end(key)
                return found
            lock = _key_locks.setdefault(key, threading.Lock())
        with lock:
            with _guard:
                found = _cache.get(key)
            if found is None:
                found = pickle.loads(self._payload)
                if not isinstance(found, schemacore.Validator):
                    raise TypeError("a SharedValidator's payload is not a Validator")
                with _guard:
                    _remember(key, found)
                    _compiles[key] = _compiles.get(key, 0) + 1
        return found

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (self._key, self._payload, self._version))

    def __dask_tokenize__(self) -> tuple[str, str, str]:
        # Dask names graph keys by hashing their arguments; the key already is one.
        return ("schemacore.SharedValidator", self._key, self._version)

    def __repr__(self) -> str:
        return f"<schemacore.scale.SharedValidator {self._key[:12]} ({self._version})>"


def _rebuild(key: str, payload: bytes, version: str) -> SharedValidator:
    shared = object.__new__(SharedValidator)
    shared._key = key
    shared._payload = payload
    shared._version = version
    return shared


def _remember(key: str, validator: schemacore.Validator) -> None:
    """Cache ``validator`` (the caller holds ``_guard``)."""
    _cache[key] = validator
    _cache.move_to_end(key)
    while len(_cache) > CACHE_SIZE:
        dropped, _ = _cache.popitem(last=False)
        _key_locks.pop(dropped, None)


def cache_info() -> CacheInfo:
    """What this process's validator cache holds and how often it compiled: run it
    on every worker (``client.run(cache_info)``) to see that each compiled a
    schema once."""
    with _guard:
        return CacheInfo(
            version=schemacore.__version__,
            pid=os.getpid(),
            compiles=dict(_compiles),
            cached=tuple(_cache),
        )
