"""Generated is_valid code against the closures it replaces, on the shapes it special-
cases. Each schema is compiled twice: one validator stays on closures, the other is
promoted to generated code at once; both must answer as the error path does."""

from __future__ import annotations

from typing import Any

import pytest

import schemacore


class Tag(str):
    """A str subclass: generated code hands such values to the closures."""


def _pair(schema: Any) -> tuple[schemacore.Validator, schemacore.Validator]:
    closures = schemacore.compile(schema)
    generated = schemacore.compile(schema)
    generated._promote()
    return closures, generated


def _agree(schema: Any, instances: list[Any]) -> None:
    closures, generated = _pair(schema)
    for instance in instances:
        expected = not list(closures.iter_errors(instance))
        assert closures.is_valid(instance) is expected, instance
        assert generated.is_valid(instance) is expected, instance


DISPATCH = {
    "type": ["object", "string"],
    "allOf": [
        {
            "if": {"required": ["kind"], "properties": {"kind": {"const": "a"}}},
            "then": {"required": ["a"]},
        },
        {
            "if": {"required": ["kind"], "properties": {"kind": {"const": "b"}}},
            "then": {"properties": {"b": {"type": "integer"}}},
        },
    ],
}


@pytest.mark.parametrize(
    "instance",
    [
        {"kind": "a", "a": 1},
        {"kind": "a"},  # then fails
        {"kind": "b", "b": 1},
        {"kind": "b", "b": "x"},  # then fails
        {"kind": "c"},  # no condition holds
        {"kind": 5},  # not a string: no condition holds
        {},  # required fails in every condition
        {"b": "x"},
        {"kind": Tag("a")},  # a str subclass equals "a"
        {"kind": Tag("a"), "a": 1},
        "a string",  # not an object: every condition holds vacuously
    ],
)
def test_discriminated_all_of(instance: Any) -> None:
    _agree(DISPATCH, [instance])


def test_conditions_without_required_are_not_dispatched() -> None:
    # Without "required", a missing key makes every condition true.
    schema = {
        "allOf": [
            {"if": {"properties": {"k": {"const": "a"}}}, "then": {"required": ["a"]}},
            {"if": {"properties": {"k": {"const": "b"}}}, "then": {"required": ["b"]}},
        ]
    }
    _agree(schema, [{}, {"a": 1}, {"a": 1, "b": 2}, {"k": "a", "a": 1}, {"k": "b"}])


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"n": {"type": "integer", "minimum": 2}}},
        {"properties": {"s": {"pattern": "^[a-z]+$", "maxLength": 4}}, "required": ["s"]},
        {"items": {"enum": ["x", "y"]}, "maxItems": 2},
        {"additionalProperties": {"type": "string"}, "properties": {"a": True}},
        {"anyOf": [{"type": "string"}, {"minimum": 3}]},
        {"oneOf": [{"type": "integer"}, {"minimum": 3}]},
        {"not": {"type": "null"}},
        {"if": {"type": "string"}, "then": {"minLength": 2}, "else": {"type": "integer"}},
        {"type": "integer"},
        {"$defs": {"p": {"type": "number"}}, "properties": {"a": {"$ref": "#/$defs/p"}}},
        # A lone applicator stands for its node; one branch stands for the applicator.
        {"anyOf": [{"type": "string"}, {"items": {"type": "integer"}}]},
        {"oneOf": [{"type": "array", "maxItems": 1}, {"items": {"enum": ["x"]}}]},
        {"anyOf": [{"minLength": 2}]},
        {"oneOf": [{"properties": {"n": {"minimum": 2}}}]},
        {"allOf": [{"not": {"type": "null"}}]},
        # Recursion: through a reference, a lone branch, a reference with siblings.
        {"anyOf": [{"type": "string"}, {"type": "array", "items": {"$ref": "#"}}]},
        {"items": {"anyOf": [{"$ref": "#"}]}, "maxItems": 2},
        {"items": {"$ref": "#", "maxItems": 1}},
        {"$defs": {"n": {"properties": {"n": {"$ref": "#"}}}}, "$ref": "#/$defs/n"},
    ],
)
def test_generated_code_agrees_with_the_closures(schema: Any) -> None:
    instances = [
        None, True, 0, 1, 1.0, 2.5, 3, "", "ab", "abcde", "ABC", [], ["x"], ["x", "y", "x"],
        ["z"], {}, {"n": 1}, {"n": 2}, {"n": 2.0}, {"n": True}, {"s": "abc"}, {"s": "abcdef"},
        {"s": 1}, {"a": 1}, {"a": "x", "b": 2}, {"a": "x", "b": "y"}, Tag("abc"),
    ]  # fmt: skip
    _agree(schema, instances)


# More optional properties than generated code looks up one by one: it walks the
# value's names through a table of checks instead.
MANY = {
    "required": ["id"],
    "properties": {
        "id": {"type": "integer"},
        "child": {"$ref": "#"},
        "never": False,
        "anything": True,
        "tagged": {"unevaluatedProperties": False, "properties": {"t": True}},
        **{f"p{n}": {"type": "string", "maxLength": n} for n in range(10)},
    },
}


@pytest.mark.parametrize(
    "instance",
    [
        {"id": 1},
        {},  # required fails
        {"id": 1, "p3": "abc", "p9": "x"},
        {"id": 1, "p3": "abcd"},  # too long
        {"id": 1, "p0": 5},
        {"id": 1, "never": None},
        {"id": 1, "anything": [1, 2]},
        {"id": 1, "tagged": {"t": 1}},
        {"id": 1, "tagged": {"u": 1}},
        {"id": 1, "child": {"id": 2, "child": {"id": 3, "p1": "x"}}},
        {"id": 1, "child": {"id": 2, "child": {"p1": "x"}}},  # required fails two deep
        {"id": 1, "child": {"id": 2, "child": {"id": 3, "p1": "xy"}}},
        {"id": 1, Tag("p2"): "abc"},  # a str subclass key is the same name
        {"id": 1, "p2": Tag("ab")},
        {"id": 1, "unknown": "ignored"},
        "not an object",
    ],
)
def test_many_declared_properties_walk_the_value(instance: Any) -> None:
    _agree(MANY, [instance])


def test_many_declared_properties_still_count_the_depth() -> None:
    closures, generated = _pair(MANY)
    deep: dict[str, Any] = {"id": 0}
    for level in range(1, 2_000):
        deep = {"id": level, "child": deep}
    for validator in (closures, generated):
        with pytest.raises(schemacore.ExecutionFailure) as caught:
            validator.is_valid(deep)
        assert caught.value.limit == "max_instance_depth"


def test_non_json_values_fail_closed_on_both_paths() -> None:
    closures, generated = _pair({"properties": {"a": {"type": "number"}}})
    for validator in (closures, generated):
        with pytest.raises(schemacore.ExecutionFailure):
            validator.is_valid({"a": float("nan")})
        with pytest.raises(schemacore.ExecutionFailure):
            validator.is_valid({"a": (1, 2)})


def test_time_budget_holds_in_generated_code() -> None:
    # Each schema object checks the deadline, inlined into its parent's code or not.
    schema = {"type": "array", "items": {"properties": {"a": {"type": "integer"}}}}
    limits = schemacore.Limits(time_budget=0.01)
    closures = schemacore.compile(schema, limits=limits)
    generated = schemacore.compile(schema, limits=limits)
    generated._promote()
    instance = [{"a": i} for i in range(1_000_000)]
    for validator in (closures, generated):
        with pytest.raises(schemacore.ExecutionFailure) as caught:
            validator.is_valid(instance)
        assert caught.value.limit == "time_budget"
        assert validator.is_valid([{"a": 1}])


# Leaves whose "type" is their only keyword: the properties closure answers a value
# whose type needs no check in line, and calls the leaf for any other value.
LEAVES = {
    "properties": {
        "s": {"type": "string", "description": "a leaf"},
        "i": {"type": "integer"},
        "n": {"type": "number"},
        "b": {"type": "boolean"},
        "z": {"type": "null"},
        "o": {"type": ["object", "array"]},
    }
}


@pytest.mark.parametrize(
    ("member", "value", "expected"),
    [
        ("s", "x", True),
        ("s", Tag("x"), True),  # a subclass: the leaf decides
        ("s", 1, False),
        ("i", 1, True),
        ("i", True, False),  # bool is not an integer
        ("i", 1.0, True),  # an integral float is (2020-12)
        ("i", 1.5, False),
        ("n", 2.5, True),
        ("n", True, False),
        ("b", False, True),
        ("b", 0, False),
        ("z", None, True),
        ("z", 0, False),
        ("o", {}, True),
        ("o", [], True),
        ("o", "x", False),
    ],
)
@pytest.mark.parametrize("others", [0, 8])  # instances smaller and larger than the table
def test_leaf_members_answered_in_line(
    member: str, value: Any, expected: bool, others: int
) -> None:
    instance = {member: value, **{f"extra{k}": k for k in range(others)}}
    closures, generated = _pair(LEAVES)
    assert closures.is_valid(instance) is expected
    assert generated.is_valid(instance) is expected


@pytest.mark.parametrize("others", [0, 8])
def test_leaf_members_outside_json_fail_closed_in_line(others: int) -> None:
    closures, _ = _pair(LEAVES)
    padding = {f"extra{k}": k for k in range(others)}
    for member, value in (("n", float("nan")), ("s", ("x",)), ("i", float("inf"))):
        with pytest.raises(schemacore.ExecutionFailure):
            closures.is_valid({member: value, **padding})


@pytest.mark.parametrize(
    ("schema", "instance", "expected"),
    [
        ({"items": {"type": "string"}}, ["a", "b"], True),
        ({"items": {"type": "string"}}, ["a", Tag("b")], True),
        ({"items": {"type": "string"}}, ["a", 1], False),
        ({"items": {"type": "integer"}}, [1, True], False),
        ({"items": {"type": "integer"}}, [1, 2.0], True),
        ({"prefixItems": [True], "items": {"type": "null"}}, [1, None], True),
        ({"prefixItems": [True], "items": {"type": "null"}}, [1, 0], False),
    ],
)
def test_leaf_items_answered_in_line(schema: Any, instance: Any, expected: bool) -> None:
    closures, generated = _pair(schema)
    assert closures.is_valid(instance) is expected
    assert generated.is_valid(instance) is expected
