"""Tiering: closures first, generated code once it pays, written node by node.

The suite checks closures and fully generated code (``tests/suite``); here every
suite schema is also checked at each step in between, one node written per call,
and the costs the tiering promises are checked structurally (never by timing).
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from typing import Any

import pytest

import schemacore
from schemacore import codegen
from schemacore.emit import Writer, emit_node
from tests.suite.cases import DRAFTS, SuiteCase, load_cases
from tests.suite.locate import SuiteUnavailable, load_registry, locate_suite


def _generated(v: schemacore.Validator) -> list[Any]:
    return [node for node in v._compiler.nodes if node.generated is not None]


def _writing_every_call(v: schemacore.Validator) -> None:
    """From the next call on, write generated code at once, one node per call."""
    v._calls[2] = 0.0
    v._calls[3] = 0.0


def _wide(n: int) -> dict[str, Any]:
    shapes: list[Any] = [
        {"type": "string", "maxLength": 5},
        {"type": "integer", "minimum": 0},
        {"type": "array", "items": {"type": "boolean"}},
    ]
    return {
        "type": "object",
        "properties": {f"p{i}": shapes[i % 3] for i in range(n)},
        "required": [f"p{i}" for i in range(0, n, 50)],
        "additionalProperties": False,
    }


def test_a_validator_used_a_few_times_writes_no_code() -> None:
    v = schemacore.compile(_wide(40))
    instance = {f"p{i}": "ab" if i % 3 == 0 else 1 if i % 3 == 1 else [True] for i in range(40)}
    for _ in range(20):
        assert v.is_valid(instance)
    # Twenty calls on closures cost far less than the compile did.
    assert _generated(v) == []


def test_a_call_writes_for_at_most_half_the_compile_time() -> None:
    v = schemacore.compile({"type": "string"})
    assert 0 < v._calls[3] <= v._calls[2] / 4  # half the compile, a quarter the threshold
    big = schemacore.compile(_wide(3_000))
    assert big._calls[3] == codegen.WRITE_SLICE  # the compile took longer than 4 ms


def test_code_is_written_once_the_closures_have_cost_the_compile() -> None:
    v = schemacore.compile({"type": "array", "items": {"type": "integer"}})
    big = list(range(200_000))
    assert v.is_valid(big)  # one long call is reason enough
    calls = 1
    while not v._calls[0]:
        assert v.is_valid(big)
        calls += 1
    assert calls < 50
    assert _generated(v)


def test_each_call_writes_about_one_slice() -> None:
    v = schemacore.compile(_wide(300))
    _writing_every_call(v)
    instance = {f"p{i}": "a" for i in range(0, 300, 50)}
    before = 0
    steps = 0
    while not v._calls[0]:
        v.is_valid(instance)
        now = len(_generated(v))
        # A zero slice stops after the first node written.
        assert now - before <= 1
        before = now
        steps += 1
    assert steps > 3  # really written over several calls


def test_generated_code_binds_constants_once() -> None:
    v = schemacore.compile(_wide(2_000))
    v._promote()
    fn = v._node.valid
    # No default arguments to copy into every call's frame: the constants are the
    # function's globals.
    assert fn.__defaults__ is None
    assert any(name.startswith("_c") for name in fn.__globals__)


def test_a_large_node_writes_bounded_code() -> None:
    for n in (300, 10_000):
        v = schemacore.compile(_wide(n))
        root = v._node
        w = Writer()
        assert root.context is not None
        emit_node(w, 1, root, root.context, "x", 0)
        assert len(w.lines) < 40, n


def test_schema_objects_of_one_shape_share_code() -> None:
    short = schemacore.compile({"type": "string", "maxLength": 3})
    longer = schemacore.compile({"type": "string", "maxLength": 5})
    short._promote()
    longer._promote()
    assert short._node.valid.__code__ is longer._node.valid.__code__
    assert short.is_valid("abc") and not short.is_valid("abcd")
    assert longer.is_valid("abcd") and not longer.is_valid("abcdef")


def test_the_code_cache_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(codegen, "_CODE", {})
    monkeypatch.setattr(codegen, "_MAX_CODE", 8)
    for n in range(1, 30):
        # Different property counts write different source.
        v = schemacore.compile({"type": "object", "required": [f"r{i}" for i in range(n)]})
        v._promote()
        assert v.is_valid({f"r{i}": 0 for i in range(n)})
        assert len(codegen._CODE) <= 8


try:
    _SUITE = locate_suite()
except SuiteUnavailable:
    _SUITE = None


def _groups() -> list[list[SuiteCase]]:
    if _SUITE is None:
        return []
    groups: dict[str, list[SuiteCase]] = defaultdict(list)
    for case in load_cases(_SUITE.path):
        groups[case.group_id].append(case)
    return list(groups.values())


@pytest.mark.skipif(_SUITE is None, reason="JSON-Schema-Test-Suite unavailable")
@pytest.mark.parametrize("draft", list(DRAFTS))
def test_suite_at_every_step_of_writing(draft: str) -> None:
    """Every suite group, with its cases run after each node written: closures and
    generated code mixed in every proportion give the suite's answers."""
    assert _SUITE is not None
    registry = load_registry(_SUITE.path)
    checked = 0
    for group in _groups():
        first = group[0]
        if first.draft != draft:
            continue
        try:
            v = schemacore.compile(
                first.schema,
                registry=registry,
                format_assertion=first.format_assertion,
                default_dialect=DRAFTS[draft],
            )
        except schemacore.SchemaCoreError:
            continue  # the suite test reports compile problems
        _writing_every_call(v)
        for step in itertools.count():
            for case in group:
                try:
                    answer = v.is_valid(case.data)
                except schemacore.SchemaCoreError:
                    continue  # a limit, as on the suite's own paths
                assert answer is case.valid, (case.id, step)
                checked += 1
            if v._calls[0]:
                break
    assert checked > 500


def test_code_written_during_a_call_ends_the_warm_path() -> None:
    # Deep recursion writes all the code at once, inside a call (calls.recursion):
    # the next call finds it written and takes the generated path from then on.
    v = schemacore.compile({"items": {"$ref": "#"}})
    v._calls[2] = float("inf")  # the time spent alone never justifies writing
    deep: list[Any] = []
    for _ in range(40):
        deep = [deep]
    assert v.is_valid(deep)
    assert v._compiler.promoted
    assert v._calls[0]
