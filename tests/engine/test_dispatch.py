"""Tagged unions written as ``allOf`` of ``if``/``then``: the error path reports only the
tag's branch. Each schema is checked against the same schema with a ``$comment`` in one
branch, which keeps its meaning but is not recognised as a tagged union, so every
branch is walked: both must report the same errors."""

from __future__ import annotations

import copy
from typing import Any

import pytest

import schemacore


class Tag(str):
    """A str subclass: the dispatch hands it to every branch."""


UNION = {
    "type": ["object", "string"],
    "allOf": [
        {
            "if": {"required": ["kind"], "properties": {"kind": {"const": "a"}}},
            "then": {"required": ["a"], "properties": {"a": {"type": "integer"}}},
        },
        {
            "if": {"required": ["kind"], "properties": {"kind": {"const": "b"}}},
            "then": {"properties": {"b": {"type": "string", "maxLength": 2}}},
        },
    ],
}


def _walked(schema: dict[str, Any]) -> dict[str, Any]:
    plain = copy.deepcopy(schema)
    plain["allOf"][0]["$comment"] = "not a tagged union any more"
    return plain


def _fields(errors: list[schemacore.ValidationError]) -> list[tuple[Any, ...]]:
    return [
        (
            e.message,
            e.keyword,
            e.instance_location,
            e.keyword_location,
            e.absolute_keyword_location,
            _fields(list(e.context)),
        )
        for e in errors
    ]


@pytest.mark.parametrize(
    "instance",
    [
        {"kind": "a", "a": 1},
        {"kind": "a"},
        {"kind": "a", "a": "x"},
        {"kind": "b", "b": "xyz"},
        {"kind": "b", "b": 5},
        {"kind": "c", "a": "x", "b": 5},
        {"kind": 5, "a": "x"},
        {"kind": None},
        {},
        {"kind": Tag("a")},
        {"kind": Tag("b"), "b": "xyz"},
        "a string: every condition holds",
        7,
    ],
)
def test_errors_of_a_tagged_union_are_those_of_every_branch(instance: Any) -> None:
    tagged = schemacore.compile(UNION)
    walked = schemacore.compile(_walked(UNION))
    assert _fields(list(tagged.iter_errors(instance))) == _fields(
        list(walked.iter_errors(instance))
    )
    assert tagged.is_valid(instance) is walked.is_valid(instance)
    tagged._promote()
    assert tagged.is_valid(instance) is walked.is_valid(instance)


def test_a_value_outside_json_under_the_tag_still_fails_closed() -> None:
    tagged = schemacore.compile(UNION)
    for validator in (tagged, schemacore.compile(_walked(UNION))):
        with pytest.raises(schemacore.ExecutionFailure):
            list(validator.iter_errors({"kind": float("nan")}))
