"""Hazard: mutating what the caller passed in.

Schemas, instances and registry documents must be exactly as they were (equal, same
key order, same container objects) after compile, is_valid, iter_errors, validate and
a pickle round trip; ``default`` values are never inserted. Read-only containers that
raise on any mutation are used as a second, stricter check.
"""

from __future__ import annotations

import copy
import json
import pickle
from types import MappingProxyType
from typing import Any, NoReturn

import pytest

import schemacore
from schemacore import ExecutionFailure, Limits, SchemaCoreError

from .support import WARM_UP

REGISTRY_URI = "https://example.com/shared.json"
OTHER_URI = "https://example.com/other.json"


def registry() -> dict[str, Any]:
    return {
        REGISTRY_URI: {
            "$id": REGISTRY_URI,
            "$defs": {
                "name": {"type": "string", "minLength": 1, "default": "anonymous"},
                "tags": {
                    "type": "array",
                    "items": {"$ref": "#/$defs/name"},
                    "default": ["x"],
                    "uniqueItems": True,
                },
                "tree": {
                    "$dynamicAnchor": "node",
                    "type": "object",
                    "properties": {"children": {"items": {"$dynamicRef": "#node"}}},
                    "default": {"children": []},
                },
            },
        },
        OTHER_URI: {"$ref": "shared.json#/$defs/tags", "default": []},
    }


# (id, schema, instances, uses the registry)
CASES: list[tuple[str, Any, list[Any], bool]] = [
    ("boolean", True, [None, {"a": [1]}], False),
    (
        "types",
        {"type": ["object", "array"], "minProperties": 1, "maxItems": 2},
        [{}, {"a": 1}, [1, 2, 3], "x"],
        False,
    ),
    (
        "defaults",
        {
            "type": "object",
            "default": {"filled": True},
            "properties": {
                "a": {"default": 1},
                "b": {"type": "object", "default": {}, "properties": {"c": {"default": [1]}}},
                "list": {"type": "array", "default": [], "items": {"default": {"x": 1}}},
            },
            "patternProperties": {"^p": {"default": "p"}},
            "additionalProperties": {"default": None},
            "prefixItems": [{"default": 0}],
        },
        [{}, {"b": {}}, {"list": [{}, {}]}, {"b": {"c": []}, "extra": 1}, [], [None]],
        False,
    ),
    (
        "refs",
        {
            "$defs": {
                "node": {
                    "type": "object",
                    "properties": {"value": {"type": "integer"}, "next": {"$ref": "#/$defs/node"}},
                    "required": ["value"],
                    "default": {"value": 0},
                }
            },
            "$ref": "#/$defs/node",
        },
        [{"value": 1, "next": {"value": 2}}, {"value": 1, "next": {}}, {}],
        False,
    ),
    (
        "unevaluated",
        {
            "type": "object",
            "properties": {"a": True},
            "allOf": [{"properties": {"b": {"default": 2}}}],
            "anyOf": [{"properties": {"c": True}}, {"required": ["d"]}],
            "if": {"required": ["e"]},
            "then": {"properties": {"e": True}},
            "else": {"properties": {"f": {"default": "f"}}},
            "dependentSchemas": {"g": {"properties": {"h": True}}},
            "unevaluatedProperties": {"default": "no", "type": "string"},
        },
        [{"a": 1, "b": 2, "c": 3}, {"d": 1, "x": 1}, {"e": 1, "g": 1, "h": 1, "z": "z"}],
        False,
    ),
    (
        "unevaluatedItems",
        {
            "prefixItems": [{"default": 1}],
            "anyOf": [{"prefixItems": [True, {"type": "string"}]}, {"contains": {"const": 9}}],
            "unevaluatedItems": {"type": "boolean", "default": False},
        },
        [[1, "a"], [1, 2, 9], [1, "a", True], [0, 1, 2]],
        False,
    ),
    (
        "values",
        {
            "enum": [[1, 2], {"a": [1, {"b": None}]}, "x"],
            "const": {"a": [1, {"b": None}]},
            "examples": [{"a": 1}],
        },
        [{"a": [1, {"b": None}]}, [1, 2], [2, 1]],
        False,
    ),
    (
        "strings",
        {
            "type": "object",
            "propertyNames": {"pattern": "^[a-z]+$", "maxLength": 5},
            "patternProperties": {"^s": {"pattern": "^\\d+$", "format": "email"}},
            "dependentRequired": {"a": ["b"]},
            "items": {"uniqueItems": True},
        },
        [{"s": "12", "a": 1, "b": 2}, {"s": "x"}, {"TOO-LONG": 1}],
        False,
    ),
    (
        "registry",
        {
            "type": "object",
            "properties": {
                "name": {"$ref": f"{REGISTRY_URI}#/$defs/name"},
                "tags": {"$ref": OTHER_URI},
                "tree": {"$ref": f"{REGISTRY_URI}#/$defs/tree"},
            },
        },
        [
            {"name": "n", "tags": ["a", "b"], "tree": {"children": [{"children": []}]}},
            {"name": "", "tags": ["a", "a"], "tree": {"children": [1]}},
            {},
        ],
        True,
    ),
    (
        "embedded",
        {
            "$id": "https://example.com/root.json",
            "$defs": {
                "inner": {"$id": "inner.json", "$anchor": "here", "type": "integer", "default": 5},
            },
            "items": {"$ref": "inner.json#here"},
        },
        [[1, 2], [1, "x"], {"default": 1}],
        False,
    ),
    (
        "metaschema",
        {"$ref": "https://json-schema.org/draft/2020-12/schema"},
        [{"type": "string"}, {"type": 12}, {"properties": {"a": {"default": 1}}}],
        False,
    ),
]


def ids_of(value: Any, path: str = "") -> list[tuple[str, int, str]]:
    """Every container in ``value`` with its identity, in order."""
    found: list[tuple[str, int, str]] = []
    stack: list[tuple[str, Any]] = [(path, value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, dict):
            found.append((where, id(item), type(item).__name__))
            stack.extend((f"{where}/{key}", member) for key, member in item.items())
        elif isinstance(item, list):
            found.append((where, id(item), type(item).__name__))
            stack.extend((f"{where}/{index}", member) for index, member in enumerate(item))
    return found


class Snapshot:
    """Equality, key order and container identity of a value, to compare later."""

    def __init__(self, value: Any) -> None:
        self.value = value
        self.copy = copy.deepcopy(value)
        self.text = json.dumps(value)
        self.ids = ids_of(value)

    def assert_unchanged(self, what: str) -> None:
        assert self.value == self.copy, f"{what} was modified"
        assert json.dumps(self.value) == self.text, f"{what} was modified (order or values)"
        assert ids_of(self.value) == self.ids, f"{what}: a container was replaced"


def exercise(validator: schemacore.Validator, instance: Any) -> None:
    """Everything a caller may do with an instance."""
    valid = validator.is_valid(instance)
    errors = list(validator.iter_errors(instance))
    assert valid == (not errors)
    for error in errors:
        str(error)
        repr(error)
        list(error.context)
    try:
        validator.validate(instance)
    except schemacore.ValidationError:
        assert not valid
    clone = pickle.loads(pickle.dumps(validator))
    assert clone.is_valid(instance) == valid


@pytest.mark.parametrize(
    ("name", "schema", "instances", "with_registry"), CASES, ids=[case[0] for case in CASES]
)
def test_nothing_passed_in_is_modified(
    name: str, schema: Any, instances: list[Any], with_registry: bool
) -> None:
    documents = registry() if with_registry else None
    watched = [(Snapshot(schema), "the schema"), (Snapshot(instances), "an instance")]
    if documents is not None:
        watched.append((Snapshot(documents), "the registry"))
    for options in ({}, {"format_assertion": True, "content_assertion": True}):
        validator = schemacore.compile(schema, registry=documents, **options)
        assert validator.schema is schema
        for instance in instances:
            exercise(validator, instance)
        for _ in range(WARM_UP):  # is_valid moves on to generated code
            for instance in instances:
                validator.is_valid(instance)
        for instance in instances:
            exercise(validator, instance)
    for snapshot, what in watched:
        snapshot.assert_unchanged(what)


def test_defaults_are_never_inserted() -> None:
    schema = {
        "properties": {
            "a": {"default": 1},
            "b": {"properties": {"c": {"default": {"d": 1}}}, "default": {}},
        },
        "prefixItems": [{"default": "first"}],
        "items": {"default": 0},
    }
    validator = schemacore.compile(schema)
    instance: dict[str, Any] = {}
    nested: dict[str, Any] = {"b": {}}
    array: list[Any] = []
    for value in (instance, nested, array):
        assert validator.is_valid(value)
        assert list(validator.iter_errors(value)) == []
        validator.validate(value)
    assert instance == {}
    assert nested == {"b": {}}
    assert array == []


def test_errors_refer_to_the_callers_objects() -> None:
    validator = schemacore.compile({"properties": {"a": {"type": "string"}}})
    member = [1, 2]
    instance = {"a": member}
    (error,) = validator.iter_errors(instance)
    assert error.instance is member
    assert instance == {"a": [1, 2]}


# -- read-only containers: any mutation attempt fails loudly --------------------------


def _refuse(*args: Any, **kwargs: Any) -> NoReturn:
    raise AssertionError("schemacore tried to modify a caller's container")


class FrozenDict(dict[str, Any]):
    __setitem__ = __delitem__ = __ior__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse


class FrozenList(list[Any]):
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse
    append = extend = insert = pop = remove = clear = sort = reverse = _refuse


def frozen(value: Any) -> Any:
    if isinstance(value, dict):
        return FrozenDict((key, frozen(member)) for key, member in value.items())
    if isinstance(value, list):
        return FrozenList(frozen(item) for item in value)
    return value


@pytest.mark.parametrize(
    ("name", "schema", "instances", "with_registry"), CASES, ids=[case[0] for case in CASES]
)
def test_read_only_inputs_are_enough(
    name: str, schema: Any, instances: list[Any], with_registry: bool
) -> None:
    documents = (
        MappingProxyType({uri: frozen(doc) for uri, doc in registry().items()})
        if with_registry
        else None
    )
    validator = schemacore.compile(frozen(schema), registry=documents)
    plain = schemacore.compile(schema, registry=registry() if with_registry else None)
    for instance in instances:
        locked = frozen(instance)
        assert validator.is_valid(locked) == plain.is_valid(instance)
        assert len(list(validator.iter_errors(locked))) == len(list(plain.iter_errors(instance)))


# -- failures leave inputs alone too --------------------------------------------------


def test_a_schema_that_fails_to_compile_is_not_modified() -> None:
    for schema in (
        {"properties": {"a": {"$ref": "#/$defs/missing"}}, "default": {}},
        {"type": "strin", "properties": {"a": {"default": 1}}},
        {"$defs": {"a": {"$anchor": "x"}, "b": {"$anchor": "x"}}},
        {"pattern": "(unclosed"},
    ):
        snapshot = Snapshot(schema)
        with pytest.raises(SchemaCoreError):
            schemacore.compile(schema)
        snapshot.assert_unchanged("the schema")


def test_a_schema_and_instance_that_run_a_reference_loop_are_not_modified() -> None:
    schema = {
        "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
        "$ref": "#/$defs/a",
    }
    instance = {"a": [1, {"default": 2}]}
    snapshots = Snapshot(schema), Snapshot(instance)
    with pytest.raises(ExecutionFailure):
        schemacore.compile(schema).is_valid(instance)
    snapshots[0].assert_unchanged("the schema")
    snapshots[1].assert_unchanged("the instance")


def test_an_instance_that_hits_a_limit_is_not_modified() -> None:
    instance: Any = {"a": [1, {"b": None}]}
    for _ in range(50):
        instance = {"a": [instance], "x": {"default": 1}}
    snapshot = Snapshot(instance)
    validator = schemacore.compile(
        {"properties": {"a": {"items": {"$ref": "#"}, "default": []}}},
        limits=Limits(max_instance_depth=20),
    )
    with pytest.raises(ExecutionFailure):
        validator.is_valid(instance)
    with pytest.raises(ExecutionFailure):
        list(validator.iter_errors(instance))
    walker = schemacore.compile(True, limits=Limits(max_instance_nodes=50))
    with pytest.raises(ExecutionFailure):
        walker.is_valid(instance)
    snapshot.assert_unchanged("the instance")
