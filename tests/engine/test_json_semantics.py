"""The JSON data model: number equality, booleans apart from numbers, exact arithmetic."""

from __future__ import annotations

from typing import Any

import pytest

import schemacore


def valid(schema: Any, instance: Any) -> bool:
    return schemacore.compile(schema).is_valid(instance)


def agree(schema: Any, instance: Any) -> bool:
    """is_valid, after checking that iter_errors gives the same answer."""
    validator = schemacore.compile(schema)
    answer = validator.is_valid(instance)
    assert answer == (not list(validator.iter_errors(instance)))
    return answer


# -- 1 == 1.0 -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("member", "instance"),
    [(1, 1.0), (1.0, 1), ([1, 2], [1.0, 2.0]), ({"a": 1}, {"a": 1.0}), ({"a": [0]}, {"a": [0.0]})],
)
def test_integral_floats_equal_integers(member: Any, instance: Any) -> None:
    assert agree({"enum": ["other", member]}, instance)
    assert agree({"const": member}, instance)
    assert not agree({"uniqueItems": True}, [member, instance])


def test_large_int_and_nearest_float_are_different_numbers() -> None:
    # 2**53 + 1 has no float representation; the nearest float is another number.
    assert not agree({"const": 2**53 + 1}, float(2**53))
    assert agree({"uniqueItems": True}, [2**53 + 1, float(2**53)])


# -- booleans are not numbers ---------------------------------------------------------


@pytest.mark.parametrize(
    ("member", "instance"),
    [
        (1, True),
        (True, 1),
        (0, False),
        (False, 0),
        (1.0, True),
        (None, False),
        (0, None),
        ("1", 1),
        ([1], [True]),
        ([False], [0]),
        ({"a": 0}, {"a": False}),
        ({"a": True}, {"a": 1.0}),
        ({"a": [1, {"b": 0}]}, {"a": [1, {"b": False}]}),
    ],
)
def test_values_of_different_json_types_never_equal(member: Any, instance: Any) -> None:
    assert not agree({"enum": [member]}, instance)
    assert not agree({"const": member}, instance)
    assert agree({"uniqueItems": True}, [member, instance])


def test_boolean_enum_members_still_match_booleans() -> None:
    assert agree({"enum": [True, 0]}, True)
    assert agree({"enum": [True, 0]}, 0)
    assert not agree({"enum": [True, 0]}, False)
    assert not agree({"enum": [True, 0]}, 1)


@pytest.mark.parametrize("flag", [True, False])
def test_bool_is_not_a_number_or_an_integer(flag: bool) -> None:
    assert not agree({"type": "number"}, flag)
    assert not agree({"type": "integer"}, flag)
    assert agree({"type": "boolean"}, flag)


@pytest.mark.parametrize(
    "schema",
    [{"minimum": 5}, {"maximum": -5}, {"exclusiveMinimum": 5}, {"exclusiveMaximum": -5},
     {"multipleOf": 7}],
)  # fmt: skip
def test_numeric_keywords_ignore_booleans(schema: dict[str, Any]) -> None:
    # True would be 1 and False 0 if they were numbers: each bound excludes both.
    assert agree(schema, True)
    assert agree(schema, False)
    assert not agree(schema, 1)


# -- integers -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("instance", "expected"),
    [(1, True), (1.0, True), (-0.0, True), (1e308, True), (10**40, True), (1.5, False),
     (1e-9, False), ("1", False), (None, False)],
)  # fmt: skip
def test_integer_type_includes_integral_floats(instance: Any, expected: bool) -> None:
    assert agree({"type": "integer"}, instance) is expected


def test_integer_and_number_in_one_type_list() -> None:
    assert agree({"type": ["integer", "string"]}, 2.0)
    assert not agree({"type": ["integer", "string"]}, 2.5)
    assert agree({"type": ["integer", "number"]}, 2.5)


# -- multipleOf -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("divisor", "instance", "expected"),
    [
        (0.01, 4.02, True),  # 4.02 / 0.01 == 401.99999999999994 in binary floats
        (0.1, 0.3, True),
        (0.1, 0.31, False),
        (0.0001, 0.0075, True),
        (0.5, 4.5, True),
        (0.5, 4.25, False),
        (3, 10**30, False),
        (3, 3 * 10**30, True),
        (2, 4.0, True),
        (2, 5.0, False),
        (1.5, 4.5, True),
        (1e-308, 1.0, True),
    ],
)
def test_multiple_of_is_exact(divisor: Any, instance: Any, expected: bool) -> None:
    assert agree({"multipleOf": divisor}, instance) is expected


def test_multiple_of_with_huge_values_does_not_crash() -> None:
    # Division overflows a float here; the answer must still be exact.
    assert agree({"type": "integer", "multipleOf": 0.5}, 1e308)
    assert not agree({"multipleOf": 0.123}, 1e308)
    assert agree({"multipleOf": 1e-300}, 1e300)


# -- strings --------------------------------------------------------------------------


def test_string_length_counts_code_points() -> None:
    emoji = "\N{GRINNING FACE}"  # one code point, two UTF-16 units, four UTF-8 bytes
    assert agree({"maxLength": 1}, emoji)
    assert not agree({"minLength": 2}, emoji)
    assert agree({"minLength": 3, "maxLength": 3}, "a" + emoji + "b")
    # A combining sequence is two code points, not one grapheme.
    assert not agree({"maxLength": 1}, "e\N{COMBINING ACUTE ACCENT}")


def test_string_keywords_ignore_other_types() -> None:
    assert agree({"maxLength": 0, "pattern": "^x$"}, 12345)
    assert agree({"maxLength": 0}, ["a", "b"])


# -- structural equality --------------------------------------------------------------


def test_objects_compare_regardless_of_key_order() -> None:
    member = {"a": 1, "b": [1, {"c": 2, "d": None}]}
    instance = {"b": [1.0, {"d": None, "c": 2}], "a": 1}
    assert agree({"const": member}, instance)
    assert agree({"enum": [0, member]}, instance)
    assert not agree({"uniqueItems": True}, [member, instance])


def test_array_order_matters() -> None:
    assert not agree({"const": [1, 2]}, [2, 1])
    assert agree({"uniqueItems": True}, [[1, 2], [2, 1]])


def test_objects_with_different_members_differ() -> None:
    assert not agree({"const": {"a": 1}}, {"a": 1, "b": 2})
    assert not agree({"const": {"a": 1}}, {"b": 1})
    assert agree({"uniqueItems": True}, [{"a": 1}, {"a": 1, "b": 2}, {}])


def test_string_is_not_an_array_of_characters() -> None:
    assert not agree({"const": ["a", "b"]}, "ab")
    assert agree({"uniqueItems": True}, ["ab", ["a", "b"]])
