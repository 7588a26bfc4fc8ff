"""Validator.evaluate, the output formats and best_match, on schemas written here."""

from __future__ import annotations

from typing import Any

import pytest

import schemacore

SCHEMA = {
    "$id": "https://example.com/person",
    "type": "object",
    "title": "Person",
    "properties": {
        "name": {"type": "string", "description": "full name"},
        "age": {"type": "integer", "minimum": 0, "default": 0},
        "contact": {
            "anyOf": [
                {"type": "string", "format": "email"},
                {"type": "object", "required": ["phone"]},
            ]
        },
    },
    "required": ["name"],
}


@pytest.fixture(scope="module")
def validator() -> schemacore.Validator:
    return schemacore.compile(SCHEMA)


def test_valid_instance_collects_annotations(validator: schemacore.Validator) -> None:
    evaluation = validator.evaluate({"name": "Ada", "age": 36})
    assert evaluation.valid and evaluation.errors == []
    found = {(a.instance_location, a.keyword): a.value for a in evaluation.annotations}
    assert found[("", "title")] == "Person"
    assert found[("/name", "description")] == "full name"
    assert found[("/age", "default")] == 0
    assert sorted(found[("", "properties")]) == ["age", "name"]
    # The annotation of a property that is absent is not there.
    assert ("/contact", "format") not in found


def test_annotations_of_failed_branches_are_dropped(validator: schemacore.Validator) -> None:
    evaluation = validator.evaluate({"name": "Ada", "contact": "ada@example.com"})
    formats = [a for a in evaluation.annotations if a.keyword == "format"]
    assert [(a.instance_location, a.value) for a in formats] == [("/contact", "email")]
    assert formats[0].schema_location == "https://example.com/person#/properties/contact/anyOf/0"


def test_invalid_instance_has_no_annotations(validator: schemacore.Validator) -> None:
    evaluation = validator.evaluate({"age": -1})
    assert not evaluation.valid
    assert evaluation.annotations == []
    assert [e.keyword for e in evaluation.errors] == [
        e.keyword for e in validator.iter_errors({"age": -1})
    ]


@pytest.mark.parametrize("instance", [{"name": "Ada"}, {"age": "x"}, 5, {"contact": 1}])
def test_every_format_agrees_on_validity(validator: schemacore.Validator, instance: Any) -> None:
    evaluation = validator.evaluate(instance)
    for fmt in ("flag", "basic", "detailed", "verbose", "list", "hierarchical"):
        assert evaluation.output(fmt)["valid"] is validator.is_valid(instance)


def test_basic_lists_exactly_the_errors(validator: schemacore.Validator) -> None:
    instance = {"age": -1, "contact": 1}
    basic = validator.evaluate(instance).output("basic")
    assert [(e["keywordLocation"], e["instanceLocation"]) for e in basic["errors"]] == [
        (e.keyword_location, e.instance_location) for e in validator.iter_errors(instance)
    ]
    assert all(e["absoluteKeywordLocation"].startswith(SCHEMA["$id"]) for e in basic["errors"])


def test_detailed_keeps_only_what_failed(validator: schemacore.Validator) -> None:
    detailed = validator.evaluate({"name": "Ada", "age": -1}).output("detailed")
    assert detailed["valid"] is False

    def locations(unit: dict[str, Any]) -> list[str]:
        out = [unit["keywordLocation"]]
        for child in unit.get("errors", []):
            out.extend(locations(child))
        return out

    found = locations(detailed)
    assert "/properties/age/minimum" in found
    assert not any(location.startswith("/properties/name") for location in found)


def test_hierarchical_nests_schema_objects(validator: schemacore.Validator) -> None:
    output = validator.evaluate({"name": "Ada"}).output("hierarchical")
    assert output["evaluationPath"] == ""
    assert output["schemaLocation"] == "https://example.com/person#"
    children = {d["evaluationPath"]: d for d in output["details"]}
    assert children["/properties/name"]["annotations"] == {"description": "full name"}


def test_unknown_format_is_refused(validator: schemacore.Validator) -> None:
    with pytest.raises(ValueError, match="unknown output format"):
        validator.evaluate({}).output("yaml")


def test_validate_raises_the_most_relevant_error() -> None:
    schema = {
        "properties": {
            "item": {
                "oneOf": [
                    {"type": "object", "required": ["a", "b", "c"]},
                    {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                ]
            }
        }
    }
    validator = schemacore.compile(schema)
    with pytest.raises(schemacore.ValidationError) as caught:
        validator.validate({"item": {"a": 1}})
    # The second branch came closest (one error, deeper): its error is the one shown.
    assert caught.value.instance_location == "/item/a"
    assert caught.value.keyword == "type"


@pytest.mark.parametrize("keyword", ["anyOf", "oneOf"])
def test_best_match_prefers_the_branch_whose_type_matched(keyword: str) -> None:
    # "bar" was meant for the string branch: its minLength is the error to show, not
    # the array branch's type error, though both branches have one error.
    schema = {
        keyword: [
            {"type": "array", "items": {"type": "string"}},
            {"type": "string", "minLength": 5},
        ]
    }
    validator = schemacore.compile(schema)
    with pytest.raises(schemacore.ValidationError) as caught:
        validator.validate("bar")
    assert caught.value.keyword == "minLength"
    assert caught.value.keyword_location == f"/{keyword}/1/minLength"
    best = schemacore.best_match(validator.iter_errors("bar"))
    assert best is not None and best.keyword == "minLength"
    # The array still gets the array branch's error.
    with pytest.raises(schemacore.ValidationError) as caught:
        validator.validate([1])
    assert caught.value.instance_location == "/0" and caught.value.keyword == "type"


def test_a_matched_type_outranks_fewer_errors() -> None:
    schema = {
        "anyOf": [{"type": "object"}, {"type": "string", "minLength": 5, "pattern": "^[0-9]+$"}]
    }
    with pytest.raises(schemacore.ValidationError) as caught:
        schemacore.compile(schema).validate("bar")
    assert caught.value.keyword in ("minLength", "pattern")


def test_only_a_type_error_at_the_branch_point_demotes_a_branch() -> None:
    # A type error deeper down is a branch that matched and went wrong inside: with
    # one error each, the deeper branch wins, as before.
    schema = {
        "anyOf": [
            {"type": "object", "required": ["a", "b"]},
            {"type": "object", "properties": {"a": {"type": "string"}}},
        ]
    }
    with pytest.raises(schemacore.ValidationError) as caught:
        schemacore.compile(schema).validate({"a": 1})
    assert caught.value.instance_location == "/a" and caught.value.keyword == "type"
    # Where every branch failed on its type, the fewest errors still decide.
    schema = {"anyOf": [{"type": "string", "enum": ["a"]}, {"type": ["array", "null"]}]}
    with pytest.raises(schemacore.ValidationError) as caught:
        schemacore.compile(schema).validate(3)
    assert caught.value.keyword_location == "/anyOf/1/type"


def test_relevance_counts_the_tokens_of_the_instance_location() -> None:
    from schemacore.relevance import relevance

    validator = schemacore.compile({"additionalProperties": {"items": {"type": "string"}}})
    instance = {"a/b": [1], "~": [2], "": [3]}
    # Counted from the path before the pointer is written, then from the pointer.
    depths = [relevance(error)[0] for error in validator.iter_errors(instance)]
    assert depths == [2, 2, 2]
    for error in validator.iter_errors(instance):
        assert error.instance_location.count("/") == 2 and relevance(error) == (2, 1)
    built = schemacore.ValidationError(
        "m",
        keyword="anyOf",
        instance_location="/x~1y/0",
        keyword_location="",
        absolute_keyword_location="",
        instance=None,
    )
    assert relevance(built) == (2, 0)


def test_best_match_prefers_deeper_errors() -> None:
    validator = schemacore.compile(
        {"required": ["x"], "properties": {"y": {"properties": {"z": {"type": "string"}}}}}
    )
    best = schemacore.best_match(validator.iter_errors({"y": {"z": 1}}))
    assert best is not None and best.instance_location == "/y/z"
    assert schemacore.best_match([]) is None


@pytest.mark.parametrize(
    "schema",
    [
        {"contains": {"type": "string"}},
        {"contains": {"type": "object", "required": ["a"]}},
        {"items": {"contains": {"const": 1}}},
        {
            "anyOf": [
                {"type": "null", "allOf": [{"type": "string"}]},
                {"contains": {"type": "number", "minimum": 5}},
            ]
        },
    ],
)
def test_a_failed_contains_is_its_own_best_match(schema: Any) -> None:
    # No item was meant to match: one item's error would blame an arbitrary item.
    instance: Any = [[2, 3], [0, 4]] if "items" in schema else [1, {"b": 2}, 3]
    validator = schemacore.compile(schema)
    with pytest.raises(schemacore.ValidationError) as caught:
        validator.validate(instance)
    assert caught.value.keyword == "contains"
    assert caught.value.keyword_location.endswith("/contains")
    assert caught.value.message == "the array contains no item that matches the contains schema"
    best = schemacore.best_match(validator.iter_errors(instance))
    assert best is not None and best.keyword == "contains"
    # Each item's errors are still there, for whoever reads them.
    assert best.context and all(e.instance_location.count("/") > 0 for e in best.context)


def test_best_match_still_follows_the_closest_branch_of_any_of() -> None:
    validator = schemacore.compile(
        {
            "anyOf": [
                {"allOf": [{"type": "string"}, {"type": "null"}]},
                {"type": "array", "contains": {"const": 1}},
            ]
        }
    )
    with pytest.raises(schemacore.ValidationError) as caught:
        validator.validate([2])
    assert caught.value.keyword == "contains"
    with pytest.raises(schemacore.ValidationError) as caught:
        validator.validate({"a": 1})
    assert caught.value.keyword == "type"  # each branch fails on its type: the first
