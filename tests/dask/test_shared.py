"""SharedValidator: compiled once per process, in every thread, and refused by a
process of another schemacore version (no cluster needed)."""

from __future__ import annotations

import multiprocessing
import pickle
import threading
from typing import Any

import pytest

import schemacore
from schemacore.scale import (
    CACHE_SIZE,
    SharedValidator,
    VersionMismatch,
    _shared,
    cache_info,
)

# Enough properties that compiling takes a while: threads asking at once overlap.
_BIG = {"type": "object", "properties": {f"p{i}": {"minimum": i} for i in range(400)}}


def _use(payload: bytes) -> tuple[int, int, bool]:
    """In a worker process: unpickle a handle, get its validator; what the cache
    says then."""
    handle: SharedValidator = pickle.loads(payload)
    validator = handle.validator()
    return id(validator), cache_info().compiles.get(handle.key, 0), validator.is_valid({"p1": 2})


def test_a_process_compiles_a_handle_once_however_often_it_unpickles_it() -> None:
    payload = pickle.dumps(SharedValidator.compile(_BIG))
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        seen = pool.map(_use, [payload] * 6, chunksize=1)
    assert {identity for identity, _, _ in seen} == {seen[0][0]}  # one object
    assert [compiles for _, compiles, _ in seen] == [1] * 6
    assert all(valid for _, _, valid in seen)


def test_threads_asking_at_once_compile_once() -> None:
    handle = SharedValidator.compile({**_BIG, "title": "threads"})
    copy: SharedValidator = pickle.loads(pickle.dumps(handle))
    with _shared._guard:  # as in a process that has not compiled it yet
        del _shared._cache[copy.key]
    barrier = threading.Barrier(8)
    got: list[schemacore.Validator] = []

    def ask() -> None:
        barrier.wait(timeout=30)
        got.append(copy.validator())

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert len(got) == 8 and all(validator is got[0] for validator in got)
    assert cache_info().compiles[copy.key] == 1


def test_the_process_that_makes_a_handle_uses_its_validator() -> None:
    validator = schemacore.compile({"type": "integer", "title": "own"})
    handle = SharedValidator(validator)
    assert handle.validator() is validator
    assert pickle.loads(pickle.dumps(handle)).validator() is validator
    assert handle.key not in cache_info().compiles


def test_another_version_is_refused() -> None:
    handle = SharedValidator.compile({"type": "integer"})
    foreign = _shared._rebuild(handle.key, pickle.dumps(schemacore.compile(True)), "0.0.0-other")
    with pytest.raises(VersionMismatch) as caught:
        foreign.validator()
    message = str(caught.value)
    assert f"schemacore {schemacore.__version__} on " in message
    assert "client running schemacore 0.0.0-other" in message
    assert "install schemacore 0.0.0-other on every worker" in message
    # And it pickles (Dask sends a worker's exception to the client).
    assert str(pickle.loads(pickle.dumps(caught.value))) == message


def test_the_key_is_the_schema_and_its_options() -> None:
    schema: dict[str, Any] = {"type": "string", "format": "email"}
    plain = SharedValidator.compile(schema)
    assert SharedValidator.compile(dict(schema)).key == plain.key
    assert SharedValidator.compile(schema, format_assertion=True).key != plain.key
    assert SharedValidator.compile({**schema, "minLength": 1}).key != plain.key
    # Key order is the order errors are reported in: another schema to share.
    assert SharedValidator.compile({"format": "email", "type": "string"}).key != plain.key


def test_the_cache_keeps_the_most_recently_used() -> None:
    handles = [SharedValidator.compile({"const": index}) for index in range(CACHE_SIZE + 1)]
    cached = cache_info().cached
    assert handles[0].key not in cached
    assert [handle.key for handle in handles[1:]] == list(cached[-CACHE_SIZE:])
    # Needed again, it is compiled again and counted.
    again: SharedValidator = pickle.loads(pickle.dumps(handles[0]))
    assert again.validator().is_valid(0)
    assert cache_info().compiles[handles[0].key] == 1


def test_only_a_validator_is_shared() -> None:
    with pytest.raises(TypeError, match=r"schemacore\.Validator"):
        SharedValidator({"type": "string"})  # type: ignore[arg-type]
