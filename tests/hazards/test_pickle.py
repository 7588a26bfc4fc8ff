"""Hazard: pickling compiled validators (to send them to worker processes, or cache them).

A round trip through pickle (any protocol), copy.copy and copy.deepcopy gives a new,
freshly compiled validator with the same schema, registry, loader, options and limits,
which answers every instance exactly as the original did, in this process or another.
"""

from __future__ import annotations

import copy
import functools
import json
import os
import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import schemacore
from schemacore import Limits

from .support import nested_list, outcome

REGISTRY = {
    "https://example.com/tree.json": {
        "$id": "https://example.com/tree.json",
        "$dynamicAnchor": "node",
        "type": "object",
        "properties": {
            "value": {"type": "integer"},
            "children": {"type": "array", "items": {"$dynamicRef": "#node"}},
        },
    },
    "https://example.com/strict-tree.json": {
        "$id": "https://example.com/strict-tree.json",
        "$dynamicAnchor": "node",
        "$ref": "tree.json",
        "unevaluatedProperties": False,
    },
}

LOADED: list[str] = []


def loader(uri: str) -> Any:
    """A picklable loader (module level) that records what it was asked for."""
    LOADED.append(uri)
    return {"type": "string", "maxLength": 4}


# (id, schema, compile options, instances)
CASES: list[tuple[str, Any, dict[str, Any], list[Any]]] = [
    ("boolean", False, {}, [None, 1]),
    (
        "plain",
        {
            "type": "object",
            "properties": {"a": {"type": "integer", "multipleOf": 3}, "b": {"pattern": "^x"}},
            "patternProperties": {"^n": {"type": "number"}},
            "additionalProperties": False,
            "dependentRequired": {"a": ["b"]},
        },
        {},
        [{"a": 3, "b": "x"}, {"a": 4}, {"n1": 1.5, "z": 1}, [], {"b": "y"}],
    ),
    (
        "registry",
        {"$ref": "https://example.com/strict-tree.json"},
        {"registry": REGISTRY},
        [
            {"value": 1, "children": [{"value": 2}]},
            {"value": 1, "children": [{"value": 2, "extra": True}]},
            {"value": "x"},
        ],
    ),
    (
        "loader",
        {"properties": {"name": {"$ref": "https://example.com/name.json"}}},
        {"loader": loader},
        [{"name": "abcd"}, {"name": "abcde"}, {"name": 1}],
    ),
    (
        "options",
        {
            "properties": {
                "email": {"format": "email"},
                "payload": {
                    "contentEncoding": "base64",
                    "contentMediaType": "application/json",
                    "contentSchema": {"type": "object", "required": ["id"]},
                },
            }
        },
        {"format_assertion": True, "content_assertion": True},
        [
            {"email": "a@example.com"},
            {"email": "not an email"},
            {"payload": "eyJpZCI6IDF9"},  # {"id": 1}
            {"payload": "e30="},  # {}
            {"payload": "!!!"},
        ],
    ),
    (
        "limits",
        {"items": {"$ref": "#"}, "pattern": "^a+$", "type": ["array", "string"]},
        {
            "limits": Limits(
                max_instance_depth=10,
                max_pattern_input=5,
                regex_timeout=0.25,
                time_budget=5.0,
                max_instance_nodes=100,
                max_subschemas=100,
                max_references=10,
                max_schema_depth=20,
            )
        },
        [["aa", ["a"]], ["aaaaaa"], nested_list(5), nested_list(20), list(range(200)), [b"x"]],
    ),
]
IDS = [case[0] for case in CASES]


def pickle_round_trip(validator: schemacore.Validator, protocol: int) -> Any:
    return pickle.loads(pickle.dumps(validator, protocol))


def round_trips() -> list[Any]:
    trips: list[Any] = [
        pytest.param(
            functools.partial(pickle_round_trip, protocol=protocol), id=f"pickle-{protocol}"
        )
        for protocol in range(pickle.HIGHEST_PROTOCOL + 1)
    ]
    trips.append(pytest.param(copy.copy, id="copy"))
    trips.append(pytest.param(copy.deepcopy, id="deepcopy"))
    return trips


@pytest.mark.parametrize("trip", round_trips())
@pytest.mark.parametrize(("name", "schema", "options", "instances"), CASES, ids=IDS)
def test_round_trip_gives_the_same_answers(
    name: str, schema: Any, options: dict[str, Any], instances: list[Any], trip: Any
) -> None:
    original = schemacore.compile(schema, **options)
    clone = trip(original)
    assert isinstance(clone, schemacore.Validator)
    assert clone is not original
    assert clone.schema == original.schema
    for instance in instances:
        assert outcome(clone, instance) == outcome(original, instance), instance
    # And the original is unaffected by having been pickled.
    for instance in instances:
        assert outcome(original, instance) == outcome(
            schemacore.compile(schema, **options), instance
        )


def test_outcomes_cover_every_kind_of_answer() -> None:
    # The cases above exercise valid, invalid and execution-failure answers.
    kinds = set()
    for _, schema, options, instances in CASES:
        validator = schemacore.compile(schema, **options)
        for instance in instances:
            valid, _ = outcome(validator, instance)
            kinds.add(valid if isinstance(valid, bool) else valid[1])
    assert {
        True,
        False,
        "max_instance_depth",
        "max_pattern_input",
        "max_instance_nodes",
        "json_data_model",
    } <= kinds


def test_unpickled_validator_is_compiled_anew() -> None:
    original = schemacore.compile(CASES[3][1], loader=loader)
    asked = len(LOADED)
    data = pickle.dumps(original)
    assert len(LOADED) == asked  # pickling does not compile
    clone = pickle.loads(data)
    assert len(LOADED) == asked + 1  # unpickling compiles again (and loads again)
    assert LOADED[-1] == "https://example.com/name.json"
    assert clone.schema is not original.schema
    assert clone.is_valid({"name": "abcd"})
    assert not clone.is_valid({"name": "abcde"})


def test_limits_and_options_survive() -> None:
    limits = Limits(max_instance_depth=10, time_budget=5.0)
    original = schemacore.compile({"items": {"$ref": "#"}}, limits=limits, format_assertion=True)
    clone = pickle.loads(pickle.dumps(original))
    with pytest.raises(schemacore.ExecutionFailure) as caught:
        clone.is_valid(nested_list(50))
    assert caught.value.limit == "max_instance_depth"
    assert caught.value.value == 10
    assert pickle.loads(pickle.dumps(limits)) == limits


def test_pickle_is_small_and_carries_no_closures() -> None:
    # The pickle holds the inputs, not the compiled closures.
    schema = CASES[1][1]
    data = pickle.dumps(schemacore.compile(schema))
    assert len(data) < 10 * len(json.dumps(schema)) + 1_000
    assert b"<lambda>" not in data


def test_unpicklable_loader_fails_at_dumps() -> None:
    validator = schemacore.compile(
        {"$ref": "https://example.com/x.json"}, loader=lambda uri: {"type": "string"}
    )
    with pytest.raises((pickle.PicklingError, AttributeError, TypeError)):
        pickle.dumps(validator)


def test_round_trip_through_another_process() -> None:
    _, schema, options, instances = CASES[2]
    original = schemacore.compile(schema, **options)
    expected = [original.is_valid(instance) for instance in instances]
    code = (
        "import pickle, sys, json\n"
        "validator = pickle.loads(sys.stdin.buffer.read())\n"
        f"instances = json.loads({json.dumps(json.dumps(instances))})\n"
        "print(json.dumps([validator.is_valid(i) for i in instances]))\n"
    )
    src = str(Path(schemacore.__file__).resolve().parent.parent)
    result = subprocess.run(
        [sys.executable, "-c", code],
        input=pickle.dumps(original),
        capture_output=True,
        check=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": src},
    )
    assert json.loads(result.stdout) == expected
