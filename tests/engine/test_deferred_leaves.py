"""Leaf member subschemas are compiled when first needed (Compiler.defer_leaf).

A ``properties`` member whose only keyword is one ``type`` (annotations aside) gets
no node at compile time: the parent's fast path uses the check every such leaf
shares. These tests pin what must not change: every compile-time error and limit
stays one, and everything that reads nodes (errors, evaluation, generated code,
error ceilings) sees them all, from any thread.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

import schemacore
from schemacore import Limits

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "who"},
        "age": {"type": "integer"},
        "note": {"description": "anything"},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["name"],
}
BAD = {"name": 3, "age": 1.5, "tags": ["x", 2]}
EXPECTED = [
    ("/age", "/properties/age/type", "1.5 is not of type integer"),
    ("/name", "/properties/name/type", "integer is not of type string"),
    ("/tags/1", "/properties/tags/items/type", "integer is not of type string"),
]


def _errors(validator: schemacore.Validator, instance: Any) -> list[tuple[str, str, str]]:
    found = validator.iter_errors(instance)
    return sorted((e.instance_location, e.keyword_location, e.message) for e in found)


def _pending(validator: schemacore.Validator) -> int:
    return int(validator._compiler._deferred_count)


def test_leaf_members_wait_and_the_fast_path_answers_without_them() -> None:
    validator = schemacore.compile(SCHEMA)
    assert _pending(validator) == 3  # name, age, note; tags has a keyword (items)
    assert validator.is_valid({"name": "Ada", "age": 36, "note": [1], "tags": []})
    assert not validator.is_valid({"name": "Ada", "age": 36.5})
    assert not validator.is_valid({"name": 1})
    assert _pending(validator) == 3  # is_valid built none of them


@pytest.mark.parametrize(
    "first",
    ["iter_errors", "validate", "evaluate", "promote"],
)
def test_whatever_reads_nodes_first_builds_them_all(first: str) -> None:
    validator = schemacore.compile(SCHEMA)
    if first == "iter_errors":
        list(validator.iter_errors({}))
    elif first == "validate":
        with pytest.raises(schemacore.ValidationError):
            validator.validate(BAD)
    elif first == "evaluate":
        validator.evaluate({"name": "x"}).output("basic")
    else:
        validator._promote()
        assert not validator.is_valid({"name": "Ada", "age": "x"})
    assert _pending(validator) == 0
    children = validator._node.children
    assert {tokens for tokens in children} == {
        ("properties", "name"),
        ("properties", "age"),
        ("properties", "note"),
        ("properties", "tags"),
    }
    assert _errors(validator, BAD) == EXPECTED


def test_errors_and_annotations_are_those_of_built_leaves() -> None:
    deferred = schemacore.compile(SCHEMA)
    # A time budget wraps every node, so nothing is deferred: the reference answer.
    built = schemacore.compile(SCHEMA, limits=Limits(time_budget=60.0))
    assert _pending(built) == 0
    assert _errors(deferred, BAD) == _errors(built, BAD) == EXPECTED
    instance = {"name": "Ada", "note": 1}
    for fmt in ("basic", "list"):
        assert deferred.evaluate(instance).output(fmt) == built.evaluate(instance).output(fmt)
    with pytest.raises(schemacore.ValidationError) as caught:
        deferred.validate(BAD)
    with pytest.raises(schemacore.ValidationError) as again:
        built.validate(BAD)
    assert caught.value.keyword_location == again.value.keyword_location


def test_a_deferred_leaf_counts_against_max_subschemas() -> None:
    schema = {"properties": {f"p{i}": {"type": "string"} for i in range(10)}}
    with pytest.raises(schemacore.ExecutionFailure) as caught:
        schemacore.compile(schema, limits=Limits(max_subschemas=10))
    assert caught.value.limit == "max_subschemas"
    validator = schemacore.compile(schema, limits=Limits(max_subschemas=11))
    assert not validator.is_valid({"p3": 3})
    assert len(list(validator.iter_errors({"p3": 3, "p9": 9}))) == 2


def test_a_deferred_leaf_counts_against_max_reference_depth() -> None:
    schema = {"properties": {"a": {"properties": {"b": {"type": "string"}}}}}
    with pytest.raises(schemacore.ExecutionFailure) as caught:
        schemacore.compile(schema, limits=Limits(max_reference_depth=2))
    assert caught.value.limit == "max_reference_depth"
    assert schemacore.compile(schema, limits=Limits(max_reference_depth=3)).is_valid({})


@pytest.mark.parametrize(
    "leaf",
    [{"type": "strin"}, {"type": ["string", "nope"]}, {"type": []}, {"type": 7}],
)
def test_a_bad_type_is_still_a_compile_time_schema_error(leaf: dict[str, Any]) -> None:
    schema = {"properties": {"a": leaf}}
    with pytest.raises(schemacore.SchemaError):
        schemacore.compile(schema)
    # Without the meta-schema check the leaf's own compile words it, at compile time.
    with pytest.raises(schemacore.SchemaError) as caught:
        schemacore.Validator(schema, _check_schema=False)
    assert caught.value.location == "/properties/a/type"


def test_threads_reading_errors_at_once_build_the_leaves_once() -> None:
    schema = {"properties": {f"p{i}": {"type": "integer"} for i in range(200)}}
    validator = schemacore.compile(schema)
    instance = {f"p{i}": "x" for i in range(200)}
    start = threading.Barrier(8)
    counts: list[int] = []

    def work() -> None:
        start.wait()
        counts.append(len(list(validator.iter_errors(instance))))

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert counts == [200] * 8
    assert _pending(validator) == 0
    assert len(validator._compiler._cache) == 201  # one node per leaf, none twice


def test_writing_code_builds_the_leaves_a_slice_at_a_time() -> None:
    schema = {"properties": {f"p{i}": {"type": "integer"} for i in range(3000)}}
    validator = schemacore.compile(schema)
    compiler = validator._compiler
    assert _pending(validator) == 3000
    # A slice of no time builds one leaf per call, and writes nothing yet.
    assert not compiler.promote_for(0.0)
    assert _pending(validator) == 2999
    assert not compiler.promoted
    steps = 1
    while not compiler.promote_for(0.001):
        steps += 1
    assert steps > 2  # several calls shared the work
    assert _pending(validator) == 0
    assert validator.is_valid({"p1": 1}) and not validator.is_valid({"p2999": "x"})
