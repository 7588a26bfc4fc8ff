"""Hazard: one compiled validator shared between threads.

Eight threads validate thousands of instances (valid, invalid, recursive, and deep
enough to hit max_instance_depth) on the same validators at once, interleaving
is_valid with half-consumed iter_errors generators, and every answer must equal the
single-threaded one. The per-call bookkeeping (recursion depth, time_budget deadline)
belongs to the calling thread.
"""

from __future__ import annotations

import random
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

import schemacore
from schemacore import ExecutionFailure, Limits

from .support import nested_list, nested_object, outcome

THREADS = 8
CALLS_PER_THREAD = 600
ROUNDS = 3

TREE = {
    "$defs": {
        "node": {
            "type": "object",
            "properties": {
                "name": {"type": "string", "pattern": "^[a-z]+$"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/node"}},
            },
            "required": ["name"],
            "anyOf": [
                {"properties": {"weight": {"type": "number", "minimum": 0}}},
                {"properties": {"label": {"type": "string"}}, "required": ["label"]},
            ],
            "unevaluatedProperties": False,
        }
    },
    "$ref": "#/$defs/node",
}
NESTED = {
    "$dynamicAnchor": "n",
    "type": ["array", "integer"],
    "items": {"$dynamicRef": "#n"},
    "contains": {"type": "integer"},
    "uniqueItems": True,
}


def random_tree(rng: random.Random, depth: int) -> Any:
    node: dict[str, Any] = {"name": rng.choice(["ok", "alsook", "Bad", "x1", ""])}
    if rng.random() < 0.3:
        node["weight"] = rng.choice([1, 2.5, -1, "heavy"])
    if rng.random() < 0.3:
        node["label"] = rng.choice(["l", 3])
    if rng.random() < 0.05:
        node["extra"] = True
    if rng.random() < 0.05:
        del node["name"]
    if depth > 0:
        node["children"] = [random_tree(rng, depth - 1) for _ in range(rng.randint(0, 2))]
    return node


def random_nested(rng: random.Random, depth: int) -> Any:
    if depth == 0 or rng.random() < 0.2:
        return rng.choice([1, 2, 3, "s", 1.5])
    return [random_nested(rng, depth - 1) for _ in range(rng.randint(0, 3))]


def deep_tree(depth: int) -> Any:
    tree: Any = {"name": "leaf", "weight": 1}
    for _ in range(depth):
        tree = {"name": "node", "weight": 1, "children": [tree]}
    return tree


SCHEMAS = {"tree": TREE, "nested": NESTED}


def workload(seed: int) -> list[tuple[str, Any]]:
    """(schema name, instance) pairs: valid, invalid, deep, too deep, not JSON."""
    rng = random.Random(seed)
    items: list[tuple[str, Any]] = []
    for _ in range(120):
        items.append(("tree", random_tree(rng, rng.randint(0, 5))))
        items.append(("nested", random_nested(rng, rng.randint(0, 6))))
    for depth in (50, 120):  # within the limits
        items.append(("tree", deep_tree(depth)))
        items.append(("nested", nested_list(depth, 1)))
    for depth in (300, 600):  # beyond max_instance_depth
        items.append(("tree", deep_tree(depth)))
        items.append(("nested", nested_list(depth, 1)))
    items.append(("tree", nested_object(50)))
    items.append(("nested", [1, b"not json"]))
    return items


def single_threaded_answers(items: list[tuple[str, Any]]) -> list[Any]:
    """The answer to each item from a fresh validator, and from a long-used one."""
    used = {name: schemacore.compile(schema) for name, schema in SCHEMAS.items()}
    fresh: dict[str, schemacore.Validator] = {}
    answers = []
    for position, (name, instance) in enumerate(items):
        if position % 8 == 0:  # well before a validator changes tier
            fresh = {name: schemacore.compile(schema) for name, schema in SCHEMAS.items()}
        answer = outcome(fresh[name], instance)
        assert outcome(used[name], instance) == answer, "tiers disagree single-threaded"
        answers.append(answer)
    return answers


@pytest.fixture
def busy_switching() -> Iterator[None]:
    """Switch threads far more often than usual, to interleave validations finely."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-4)
    try:
        yield
    finally:
        sys.setswitchinterval(interval)


def test_shared_validators_give_single_threaded_answers(busy_switching: None) -> None:
    items = workload(seed=5)
    expected = single_threaded_answers(items)
    assert any(answer[0] is True for answer in expected)
    assert any(answer[0] is False for answer in expected)
    assert ("ExecutionFailure", "max_instance_depth") in [answer[0] for answer in expected]

    mismatches: list[str] = []
    crashes: list[BaseException] = []
    done = [0] * THREADS

    def finish(entry: tuple[int, Iterator[Any]], index: int) -> None:
        position, errors = entry
        try:
            found: Any = sorted(
                (e.instance_location, e.keyword_location, e.message) for e in errors
            )
        except schemacore.SchemaCoreError as exc:
            found = (type(exc).__name__, getattr(exc, "limit", None))
        if found != expected[position][1]:
            mismatches.append(f"thread {index}, generator for item {position}")

    for round_ in range(ROUNDS):
        # Fresh validators each round: they change tier while the threads share them.
        shared = {name: schemacore.compile(schema) for name, schema in SCHEMAS.items()}
        barrier = threading.Barrier(THREADS)

        def worker(
            index: int, round_: int = round_, shared: Any = shared, barrier: Any = barrier
        ) -> None:
            rng = random.Random(index * 100 + round_)
            try:
                barrier.wait(timeout=30)
                pending: list[tuple[int, Iterator[Any]]] = []
                for call in range(CALLS_PER_THREAD // ROUNDS):
                    position = (call * 7 + index * 13 + round_) % len(items)
                    name, instance = items[position]
                    validator = shared[name]
                    if rng.random() < 0.1:
                        # Start an error generator and leave it half-consumed a while.
                        errors = validator.iter_errors(instance)
                        pending.append((position, errors))
                    answer = outcome(validator, instance)
                    if answer != expected[position]:
                        mismatches.append(f"thread {index}, item {position}: {answer[0]!r}")
                    if pending and rng.random() < 0.3:
                        finish(pending.pop(rng.randrange(len(pending))), index)
                    done[index] += 1
                while pending:
                    finish(pending.pop(), index)
            except BaseException as exc:  # reported below
                crashes.append(exc)

        threads = [threading.Thread(target=worker, args=(i,)) for i in range(THREADS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=300)
        assert not any(thread.is_alive() for thread in threads)

    assert crashes == []
    assert mismatches == []
    assert done == [CALLS_PER_THREAD // ROUNDS * ROUNDS] * THREADS


def test_compiling_in_many_threads_at_once(busy_switching: None) -> None:
    # Compilation shares module-level caches (patterns, meta-schema): race it.
    barrier = threading.Barrier(THREADS)
    results: list[Any] = []
    crashes: list[BaseException] = []
    schema = {
        "properties": {f"p{i}": {"pattern": f"^{i}[a-z]*$"} for i in range(50)},
        "required": ["p3"],
        "additionalProperties": {"$ref": "#"},
    }

    def worker() -> None:
        try:
            barrier.wait(timeout=30)
            for _ in range(5):
                validator = schemacore.compile(schema)
                results.append(
                    (
                        validator.is_valid({"x": {"p3": "3"}, "p3": "3abc"}),
                        validator.is_valid({"x": {"p3": "4"}, "p3": "3abc"}),
                    )
                )
        except BaseException as exc:
            crashes.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert crashes == []
    assert results == [(True, False)] * (THREADS * 5)


class SlowEviction(dict[str, Any]):
    """The pattern cache, with a thread switch in the middle of every eviction."""

    def __delitem__(self, key: str) -> None:
        time.sleep(0.001)
        super().__delitem__(key)


def test_pattern_cache_eviction_in_many_threads(
    busy_switching: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # More distinct patterns than the cache holds, from every thread at once: each
    # insertion evicts, and two threads must not evict the same entry (the slow
    # eviction lets the others find that oldest entry while one is deleting it).
    from schemacore import ecma262

    monkeypatch.setattr(ecma262, "_CACHE_SIZE", 4)
    monkeypatch.setattr(ecma262, "_CACHE", SlowEviction())
    barrier = threading.Barrier(THREADS)
    crashes: list[BaseException] = []
    answers: list[bool] = []

    def worker(index: int) -> None:
        try:
            barrier.wait(timeout=30)
            for i in range(50):
                number = (i * 7 + index) % 97
                search = ecma262.compile_pattern(f"^x{number}[a-z]*$")
                answers.append(bool(search(f"x{number}abc")) and not search(f"y{number}"))
        except BaseException as exc:  # reported below
            crashes.append(exc)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert crashes == []
    assert answers == [True] * (THREADS * 50)
    assert len(ecma262._CACHE) <= 4


# -- the time budget is per thread, per call ------------------------------------------


class Gate(list[Any]):
    """A JSON array whose length is only known once the test lets it be."""

    def __init__(self, items: list[Any], entered: threading.Event, release: threading.Event):
        super().__init__(items)
        self.entered = entered
        self.release = release

    def __len__(self) -> int:
        self.entered.set()
        assert self.release.wait(timeout=30)
        return super().__len__()


@pytest.mark.parametrize("path", ["is_valid", "iter_errors"])
def test_time_budget_deadline_belongs_to_the_calling_thread(path: str) -> None:
    budget = 0.5
    validator = schemacore.compile(
        {"items": {"type": ["array", "integer"], "minItems": 1}},
        limits=Limits(time_budget=budget),
    )
    entered, release = threading.Event(), threading.Event()
    slow_result: list[Any] = []
    fast_results: list[Any] = []

    def slow() -> None:
        # Blocks inside validation (on the Gate) for longer than the budget.
        instance = [Gate([1], entered, release), [1], [2], 3]
        try:
            if path == "is_valid":
                slow_result.append(validator.is_valid(instance))
            else:
                slow_result.append(list(validator.iter_errors(instance)))
        except ExecutionFailure as exc:
            slow_result.append(exc)

    def fast() -> None:
        # Starts fresh calls (fresh deadlines) right up to the moment slow() resumes.
        while not release.is_set():
            try:
                fast_results.append(validator.is_valid([[1], 2]))
            except ExecutionFailure as exc:
                fast_results.append(exc)

    slow_thread = threading.Thread(target=slow)
    slow_thread.start()
    assert entered.wait(timeout=30)
    fast_thread = threading.Thread(target=fast)
    fast_thread.start()
    time.sleep(budget * 2)
    release.set()
    slow_thread.join(timeout=30)
    fast_thread.join(timeout=30)

    (result,) = slow_result
    assert isinstance(result, ExecutionFailure), f"the slow call answered {result!r}"
    assert result.limit == "time_budget"
    assert result.value == budget
    assert fast_results, "the fast thread never ran"
    assert all(answer is True for answer in fast_results), fast_results[:3]


def test_time_budget_is_per_call() -> None:
    validator = schemacore.compile({"items": {"type": "integer"}}, limits=Limits(time_budget=0.3))
    instance = list(range(100))
    started = time.monotonic()
    calls = 0
    # Many calls whose total far exceeds the budget: each one has its own deadline.
    while time.monotonic() - started < 0.9:
        assert validator.is_valid(instance)
        assert list(validator.iter_errors(instance)) == []
        calls += 1
    assert calls > 1
