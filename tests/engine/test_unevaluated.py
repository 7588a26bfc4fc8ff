"""unevaluatedProperties / unevaluatedItems: what each applicator contributes."""

from __future__ import annotations

from typing import Any

import pytest

import schemacore

NO_PROPS = {"unevaluatedProperties": False}
NO_ITEMS = {"unevaluatedItems": False}


def check(schema: dict[str, Any], cases: list[tuple[Any, bool]]) -> None:
    """Assert each (instance, expected) with is_valid, and that iter_errors agrees."""
    validator = schemacore.compile(schema)
    for instance, expected in cases:
        assert validator.is_valid(instance) is expected, instance
        assert (not list(validator.iter_errors(instance))) is expected, instance


# -- properties -----------------------------------------------------------------------


def test_properties_seen_through_all_of() -> None:
    schema = {"allOf": [{"properties": {"a": {}}}], "properties": {"b": {}}, **NO_PROPS}
    check(schema, [({"a": 1, "b": 1}, True), ({"a": 1, "c": 1}, False)])


def test_every_passing_any_of_branch_counts() -> None:
    # A short-circuiting anyOf would stop at the first branch and miss "b".
    schema = {
        "anyOf": [
            {"properties": {"a": {}}, "required": ["a"]},
            {"properties": {"b": {}}, "required": ["b"]},
        ],
        **NO_PROPS,
    }
    check(schema, [({"a": 1, "b": 1}, True), ({"b": 1}, True), ({"a": 1, "c": 1}, False)])


def test_failing_any_of_branch_contributes_nothing() -> None:
    schema = {
        "anyOf": [{"properties": {"a": {"type": "string"}}}, {"properties": {"b": {}}}],
        **NO_PROPS,
    }
    check(schema, [({"a": "x", "b": 1}, True), ({"a": 1, "b": 1}, False)])


def test_one_of_contributes_the_passing_branch() -> None:
    schema = {
        "oneOf": [
            {"properties": {"a": {}}, "required": ["a"]},
            {"properties": {"b": {}}, "required": ["b"]},
        ],
        **NO_PROPS,
    }
    check(schema, [({"a": 1}, True), ({"b": 1}, True), ({"a": 1, "b": 1}, False)])


def test_not_contributes_nothing() -> None:
    schema = {"not": {"not": {"properties": {"a": {}}}}, **NO_PROPS}
    check(schema, [({}, True), ({"a": 1}, False)])


def test_if_then_else() -> None:
    schema = {
        "if": {"properties": {"kind": {"const": "t"}}, "required": ["kind"]},
        "then": {"properties": {"t": {}}},
        "else": {"properties": {"e": {}}},
        **NO_PROPS,
    }
    check(
        schema,
        [
            ({"kind": "t", "t": 1}, True),  # "kind" is evaluated by the passing "if"
            ({"kind": "t", "e": 1}, False),
            ({"e": 1}, True),
            ({"kind": "x", "e": 1}, False),  # a failing "if" evaluates nothing
            ({"t": 1}, False),
        ],
    )


def test_if_without_then_or_else_still_evaluates() -> None:
    check({"if": {"properties": {"k": {}}}, **NO_PROPS}, [({"k": 1}, True), ({"z": 1}, False)])


def test_dependent_schemas() -> None:
    schema = {
        "properties": {"a": {}},
        "dependentSchemas": {"a": {"properties": {"b": {}}}},
        **NO_PROPS,
    }
    check(schema, [({"a": 1, "b": 1}, True), ({"b": 1}, False)])


def test_ref_and_dynamic_ref_targets_count() -> None:
    by_ref = {"$ref": "#/$defs/x", "$defs": {"x": {"properties": {"a": {}}}}, **NO_PROPS}
    check(by_ref, [({"a": 1}, True), ({"b": 1}, False)])
    by_dynamic_ref = {
        "$id": "https://example.com/uneval",
        "$dynamicRef": "#m",
        "$defs": {"m": {"$dynamicAnchor": "m", "properties": {"a": {}}}},
        **NO_PROPS,
    }
    check(by_dynamic_ref, [({"a": 1}, True), ({"b": 1}, False)])


def test_ref_into_an_embedded_resource_keeps_its_base() -> None:
    schema = {
        "$id": "https://example.com/root",
        "allOf": [{"$id": "sub", "$ref": "#/$defs/x", "$defs": {"x": {"properties": {"a": {}}}}}],
        **NO_PROPS,
    }
    check(schema, [({"a": 1}, True), ({"b": 1}, False)])


def test_pattern_and_additional_properties() -> None:
    check({"patternProperties": {"^x-": {}}, **NO_PROPS}, [({"x-a": 1}, True), ({"y": 1}, False)])
    adjacent = {"properties": {"a": {}}, "additionalProperties": {"type": "integer"}, **NO_PROPS}
    check(adjacent, [({"a": "s", "b": 1}, True), ({"b": "s"}, False)])


def test_nested_unevaluated_properties() -> None:
    inner_true = {"properties": {"a": {}}, "allOf": [{"unevaluatedProperties": True}], **NO_PROPS}
    check(inner_true, [({"a": 1, "z": 1}, True)])
    # The inner keyword sees only its own schema object, not the outer "properties".
    inner_false = {
        "properties": {"a": {}},
        "allOf": [{"properties": {"b": {}}, "unevaluatedProperties": False}],
    }
    check(inner_false, [({"b": 1}, True), ({"a": 1, "b": 1}, False)])


def test_child_objects_do_not_leak_evaluations() -> None:
    schema = {"properties": {"a": {"properties": {"b": {}}}}, **NO_PROPS}
    check(schema, [({"a": {"b": 1}}, True), ({"a": {"b": 1}, "b": 1}, False)])


def test_property_names_does_not_evaluate() -> None:
    check({"propertyNames": {"maxLength": 3}, **NO_PROPS}, [({}, True), ({"a": 1}, False)])


def test_unevaluated_properties_schema_applies_to_the_rest() -> None:
    schema = {"properties": {"a": {}}, "unevaluatedProperties": {"type": "integer"}}
    check(schema, [({"a": "s", "b": 1}, True), ({"a": 1, "b": "s"}, False)])


def test_recursive_ref_with_unevaluated_properties() -> None:
    schema = {
        "$id": "https://example.com/rec",
        "properties": {"child": {"$ref": "#"}, "v": {}},
        **NO_PROPS,
    }
    check(
        schema,
        [({"v": 1, "child": {"child": {"v": 2}}}, True), ({"child": {"child": {"w": 2}}}, False)],
    )


def test_mutually_recursive_refs_with_unevaluated_properties() -> None:
    schema = {
        "$ref": "#/$defs/a",
        "$defs": {
            "a": {"properties": {"x": {"$ref": "#/$defs/b"}}, **NO_PROPS},
            "b": {"properties": {"y": {"$ref": "#/$defs/a"}}, **NO_PROPS},
        },
    }
    check(schema, [({"x": {"y": {"x": {}}}}, True), ({"x": {"y": {"y": {}}}}, False)])


def test_self_referencing_dynamic_ref_with_unevaluated_properties() -> None:
    schema = {
        "$id": "https://example.com/dyn",
        "$dynamicAnchor": "n",
        "properties": {"a": {"$dynamicRef": "#n"}, "v": {}},
        **NO_PROPS,
    }
    check(schema, [({"v": 1, "a": {"v": 2, "a": {}}}, True), ({"a": {"b": 1}}, False)])


@pytest.mark.parametrize("instance", ["str", 1, None, [1, 2], True])
def test_non_objects_and_non_arrays_are_ignored(instance: Any) -> None:
    check({**NO_PROPS, **NO_ITEMS}, [(instance, not isinstance(instance, list))])


# -- items ----------------------------------------------------------------------------


def test_prefix_items_in_place_and_through_all_of() -> None:
    check({"prefixItems": [{}], **NO_ITEMS}, [([1], True), ([1, 2], False)])
    schema = {"prefixItems": [{}], "allOf": [{"prefixItems": [{}, {}]}], **NO_ITEMS}
    check(schema, [([1, 2], True), ([1, 2, 3], False)])


def test_contains_marks_only_matching_items() -> None:
    # ajv marks every item evaluated once "contains" passes; only matches count.
    check({"contains": {"type": "string"}, **NO_ITEMS}, [(["a", "b"], True), (["a", 1], False)])
    schema = {"prefixItems": [{}], "allOf": [{"contains": {"type": "string"}}], **NO_ITEMS}
    check(schema, [([1, "a"], True), ([1, "a", 2], False), ([1, 2, "a"], False)])


def test_contains_with_min_contains_zero_still_marks_matches() -> None:
    schema = {"contains": {"type": "string"}, "minContains": 0, **NO_ITEMS}
    check(schema, [([], True), (["a"], True), (["a", 1], False)])


def test_contains_in_any_of_branches() -> None:
    schema = {"anyOf": [{"contains": {"const": 1}}, {"contains": {"const": 2}}], **NO_ITEMS}
    check(schema, [([1, 2], True), ([2, 2], True), ([1, 2, 3], False)])


def test_contains_under_not_contributes_nothing() -> None:
    double_negation = {"not": {"not": {"contains": {"const": 1}}}}
    check(double_negation, [([1], True)])
    check({**double_negation, **NO_ITEMS}, [([1], False)])


def test_items_through_any_of_one_of_and_if() -> None:
    any_of = {"anyOf": [{"prefixItems": [{"const": 1}]}, {"prefixItems": [{}, {}]}], **NO_ITEMS}
    check(any_of, [([1, 2], True), ([2], True), ([1, 2, 3], False)])
    one_of = {
        "oneOf": [{"prefixItems": [{"const": 1}]}, {"prefixItems": [{"const": 2}, {}]}],
        **NO_ITEMS,
    }
    check(one_of, [([1], True), ([2, 3], True), ([1, 3], False)])
    if_then = {"if": {"prefixItems": [{"const": 1}]}, "then": {"prefixItems": [{}, {}]}, **NO_ITEMS}
    check(if_then, [([1, 2], True), ([2], False), ([1, 2, 3], False)])


def test_items_through_ref_and_dynamic_ref() -> None:
    check({"$ref": "#/$defs/x", "$defs": {"x": {"items": True}}, **NO_ITEMS}, [([1, 2], True)])
    schema = {
        "$id": "https://example.com/items",
        "$dynamicRef": "#m",
        "$defs": {"m": {"$dynamicAnchor": "m", "prefixItems": [{}]}},
        **NO_ITEMS,
    }
    check(schema, [([1], True), ([1, 2], False)])


def test_nested_unevaluated_items() -> None:
    schema = {"prefixItems": [{}], "allOf": [{"unevaluatedItems": True}], **NO_ITEMS}
    check(schema, [([1, 2, 3], True)])


def test_unevaluated_items_schema_applies_to_the_rest() -> None:
    schema = {"prefixItems": [{"type": "string"}], "unevaluatedItems": {"type": "integer"}}
    check(schema, [(["s", 1, 2], True), (["s", "t"], False)])


# -- errors ---------------------------------------------------------------------------


def test_errors_name_the_unexpected_properties() -> None:
    schema = {"allOf": [{"properties": {"a": {}}}], **NO_PROPS}
    validator = schemacore.compile(schema)
    (error,) = validator.iter_errors({"a": 1, "zz": 2, "yy": 3})
    assert error.keyword == "unevaluatedProperties"
    assert error.keyword_location == "/unevaluatedProperties"
    assert error.instance_location == ""
    assert "'zz'" in error.message and "'yy'" in error.message
    assert "'a'" not in error.message


def test_errors_of_an_unevaluated_properties_schema_point_at_each_property() -> None:
    schema = {"properties": {"a": {}}, "unevaluatedProperties": {"type": "string"}}
    errors = list(schemacore.compile(schema).iter_errors({"a": 1, "b": 2, "c": "s"}))
    assert [(e.keyword, e.instance_location, e.keyword_location) for e in errors] == [
        ("type", "/b", "/unevaluatedProperties/type")
    ]


def test_errors_name_the_unexpected_items() -> None:
    schema = {"prefixItems": [{}], "contains": {"const": 5}, **NO_ITEMS}
    (error,) = schemacore.compile(schema).iter_errors([0, 5, 6, 5])
    assert error.keyword == "unevaluatedItems"
    assert "2" in error.message  # index 2 is the only unevaluated item
    assert "1" not in error.message and "3" not in error.message
