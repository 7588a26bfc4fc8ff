"""$schema, $vocabulary and schema checking at compile time."""

from __future__ import annotations

from typing import Any

import pytest

import schemacore
from schemacore import SchemaError, UnsupportedCapability

DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
VOCAB = "https://json-schema.org/draft/2020-12/vocab/"
META = "https://json-schema.org/draft/2020-12/meta/"


def custom_meta(uri: str, vocabularies: dict[str, bool], metas: list[str]) -> dict[str, Any]:
    """A 2020-12 dialect meta-schema declaring ``vocabularies``."""
    return {
        "$schema": DRAFT_2020_12,
        "$id": uri,
        "$vocabulary": vocabularies,
        "$dynamicAnchor": "meta",
        "allOf": [{"$ref": META + name} for name in metas],
    }


NO_VALIDATION_URI = "https://example.com/meta/no-validation"
NO_VALIDATION = custom_meta(
    NO_VALIDATION_URI,
    {VOCAB + "core": True, VOCAB + "applicator": True},
    ["core", "applicator"],
)


# -- the 2020-12 dialect --------------------------------------------------------------


@pytest.mark.parametrize("declared", [None, DRAFT_2020_12, DRAFT_2020_12 + "#"])
def test_2020_12_is_accepted_with_or_without_fragment(declared: str | None) -> None:
    schema: dict[str, Any] = {"minimum": 3, "prefixItems": [{"type": "string"}]}
    if declared is not None:
        schema["$schema"] = declared
    validator = schemacore.compile(schema)
    assert validator.is_valid(3)
    assert not validator.is_valid(2)
    assert not validator.is_valid([1])  # prefixItems is a 2020-12 keyword


DRAFT_07 = "http://json-schema.org/draft-07/schema#"
DRAFT_04 = "http://json-schema.org/draft-04/schema#"
DRAFT_03 = "http://json-schema.org/draft-03/schema#"


@pytest.mark.parametrize(
    "declared",
    [
        DRAFT_03,
        "http://json-schema.org/draft-03/schema",
        "http://json-schema.org/schema#",
        "https://json-schema.org/draft/next/schema",
        "https://example.com/unknown-dialect",
    ],
)
def test_draft_3_and_unknown_dialects_are_refused(declared: str) -> None:
    with pytest.raises(UnsupportedCapability) as caught:
        schemacore.compile({"$schema": declared, "type": "string"})
    assert caught.value.error_class == "unsupported_capability"
    assert isinstance(caught.value, schemacore.SchemaCoreError)
    assert caught.value.location == "/$schema"


# Each draft's own reading of one schema: array-form items (with additionalItems) is
# 2020-12's prefixItems before 2020-12, and an unknown keyword in 2020-12.
TUPLE = {"items": [{"type": "integer"}], "additionalItems": False}


@pytest.mark.parametrize(
    "declared",
    [
        DRAFT_04,
        "http://json-schema.org/draft-06/schema#",
        DRAFT_07,
        "https://json-schema.org/draft/2019-09/schema",
    ],
)
def test_drafts_before_2020_12_read_array_form_items(declared: str) -> None:
    validator = schemacore.compile({"$schema": declared, **TUPLE})
    assert validator.is_valid([1])
    assert not validator.is_valid([1, 2])
    assert not validator.is_valid(["a"])


def test_2020_12_refuses_array_form_items_as_not_a_schema() -> None:
    with pytest.raises(SchemaError, match="Draft 2020-12"):
        schemacore.compile(TUPLE)
    with pytest.raises(SchemaError, match="must be an object or a boolean"):
        schemacore.Validator(TUPLE, _check_schema=False)


def test_default_dialect_applies_where_no_schema_is_declared() -> None:
    validator = schemacore.compile(TUPLE, default_dialect="draft-07")
    assert not validator.is_valid([1, 2])
    by_uri = schemacore.compile(TUPLE, default_dialect=DRAFT_07)
    assert not by_uri.is_valid([1, 2])
    # A declared $schema still wins over the default.
    declared = schemacore.compile(
        {"$schema": DRAFT_2020_12, "prefixItems": [{"type": "integer"}]}, default_dialect="draft-04"
    )
    assert not declared.is_valid(["a"])


def test_default_dialect_refuses_draft_3() -> None:
    with pytest.raises(UnsupportedCapability):
        schemacore.compile({}, default_dialect=DRAFT_03)


def test_draft_04_rules() -> None:
    exclusive = schemacore.compile({"$schema": DRAFT_04, "maximum": 3, "exclusiveMaximum": True})
    assert exclusive.is_valid(2) and not exclusive.is_valid(3)
    # No const in draft-04: an unknown keyword.
    assert schemacore.compile({"$schema": DRAFT_04, "const": 1}).is_valid(2)
    # 1.0 is no integer in draft-04 (it is in every later draft).
    integer = schemacore.compile({"$schema": DRAFT_04, "type": "integer"})
    assert integer.is_valid(1) and not integer.is_valid(1.0)
    assert schemacore.compile({"type": "integer"}).is_valid(1.0)
    # "id" is its identifier, "$id" is not.
    schema = {
        "$schema": DRAFT_04,
        "definitions": {"a": {"id": "http://example.com/a", "type": "string"}},
        "$ref": "http://example.com/a",
    }
    assert schemacore.compile(schema).is_valid("x")


def test_ref_stands_alone_before_2019_09() -> None:
    schema = {
        "$schema": DRAFT_07,
        "$ref": "#/definitions/s",
        "maxLength": 1,
        "definitions": {"s": {"type": "string"}},
    }
    assert schemacore.compile(schema).is_valid("long")  # maxLength beside $ref is ignored
    later = {**schema, "$schema": DRAFT_2020_12}
    assert not schemacore.compile(later).is_valid("long")


def test_each_resource_is_read_under_its_own_draft() -> None:
    schema = {
        "$schema": DRAFT_2020_12,
        "$ref": "https://example.com/old",
        "$defs": {
            "old": {
                "$id": "https://example.com/old",
                "$schema": DRAFT_07,
                "items": [{"type": "integer"}],
                "additionalItems": False,
            }
        },
    }
    validator = schemacore.compile(schema)
    assert validator.is_valid([1]) and not validator.is_valid([1, 2])
    registry = {
        "https://example.com/r": {"$schema": DRAFT_04, "maximum": 1, "exclusiveMaximum": True}
    }
    remote = schemacore.compile({"$ref": "https://example.com/r"}, registry=registry)
    assert remote.is_valid(0) and not remote.is_valid(1)


def test_embedded_draft_3_resource_is_unsupported_not_unresolvable() -> None:
    schema = {
        "$ref": "https://example.com/old",
        "$defs": {"old": {"$id": "https://example.com/old", "$schema": DRAFT_03}},
    }
    with pytest.raises(UnsupportedCapability):
        schemacore.compile(schema)


def test_custom_meta_schema_extending_draft_07() -> None:
    registry = {
        "https://example.com/meta/7": {
            "$schema": DRAFT_07,
            "$id": "https://example.com/meta/7",
            "allOf": [{"$ref": DRAFT_07}],
        }
    }
    validator = schemacore.compile(
        {"$schema": "https://example.com/meta/7", **TUPLE}, registry=registry
    )
    assert not validator.is_valid([1, 2])  # read as draft-07


def test_custom_meta_schema_embedded_in_the_schema_itself() -> None:
    meta_uri = "https://example.com/meta/embedded"
    schema = {
        "$schema": meta_uri,
        "$id": "https://example.com/root",
        "$defs": {
            "meta": {
                "$schema": DRAFT_2020_12,
                "$id": meta_uri,
                "$vocabulary": {VOCAB + "core": True, VOCAB + "applicator": True},
            }
        },
        "minimum": 5,
    }
    # The embedded meta-schema turns validation off: minimum does nothing.
    assert schemacore.compile(schema).is_valid(1)


def test_non_string_schema_keyword_is_a_schema_error() -> None:
    with pytest.raises(SchemaError):
        schemacore.compile({"$schema": 2020})


# -- vocabularies ---------------------------------------------------------------------


def test_meta_schema_without_validation_vocabulary_disables_assertions() -> None:
    registry = {NO_VALIDATION_URI: NO_VALIDATION}
    schema = {
        "$schema": NO_VALIDATION_URI,
        "minimum": 3,
        "type": "string",
        "properties": {"a": {"maxLength": 1}, "b": {"not": {"type": "integer"}}},
    }
    validator = schemacore.compile(schema, registry=registry)
    assert validator.is_valid(1)  # minimum and type are inactive
    assert validator.is_valid({"a": "long"})  # so is maxLength
    # Applicators stay active: with "type" inactive, {"type": "integer"} accepts
    # everything, so the "not" rejects every value of "b".
    assert not validator.is_valid({"b": "s"})


def test_inactive_keywords_are_not_checked_either() -> None:
    # The custom meta-schema does not describe "minimum", so any value is acceptable.
    registry = {NO_VALIDATION_URI: NO_VALIDATION}
    schemacore.compile({"$schema": NO_VALIDATION_URI, "minimum": "abc"}, registry=registry)
    with pytest.raises(SchemaError):
        schemacore.compile({"$schema": NO_VALIDATION_URI, "properties": 5}, registry=registry)


def test_meta_schema_without_applicator_vocabulary() -> None:
    uri = "https://example.com/meta/no-applicator"
    meta = custom_meta(
        uri, {VOCAB + "core": True, VOCAB + "unevaluated": True}, ["core", "unevaluated"]
    )
    schema = {"$schema": uri, "properties": {"a": {}}, "unevaluatedProperties": False}
    validator = schemacore.compile(schema, registry={uri: meta})
    # "properties" is inactive, so it evaluates nothing.
    assert not validator.is_valid({"a": 1})
    assert validator.is_valid({})


def test_required_unknown_vocabulary_is_refused() -> None:
    uri = "https://example.com/meta/required"
    meta = custom_meta(
        uri, {VOCAB + "core": True, "https://example.com/vocab/custom": True}, ["core"]
    )
    with pytest.raises(UnsupportedCapability) as caught:
        schemacore.compile({"$schema": uri}, registry={uri: meta})
    assert caught.value.error_class == "unsupported_capability"


def test_optional_unknown_vocabulary_is_ignored() -> None:
    uri = "https://example.com/meta/optional"
    vocabularies = {
        VOCAB + "core": True,
        VOCAB + "validation": True,
        "https://example.com/vocab/custom": False,
    }
    meta = custom_meta(uri, vocabularies, ["core", "validation"])
    validator = schemacore.compile({"$schema": uri, "minimum": 3}, registry={uri: meta})
    assert validator.is_valid(3)
    assert not validator.is_valid(1)


def test_meta_schema_without_vocabulary_keyword_uses_the_default_dialect() -> None:
    uri = "https://example.com/meta/plain"
    meta = {"$schema": DRAFT_2020_12, "$id": uri, "$ref": DRAFT_2020_12}
    validator = schemacore.compile({"$schema": uri, "minimum": 3}, registry={uri: meta})
    assert not validator.is_valid(1)


def test_format_is_an_annotation_by_default() -> None:
    assert schemacore.compile({"format": "email"}).is_valid("not an email")
    assert schemacore.compile({"format": "date"}).is_valid("yesterday")


def test_unknown_format_is_ignored_even_when_asserting() -> None:
    validator = schemacore.compile({"format": "x-made-up"}, format_assertion=True)
    assert validator.is_valid("anything")


# -- invalid schemas ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("schema", "location"),
    [
        ({"type": "foo"}, "/type"),
        ({"type": ["string", 7]}, "/type/1"),  # the offending entry itself
        ({"minLength": -1}, "/minLength"),
        ({"minLength": 1.5}, "/minLength"),
        ({"multipleOf": 0}, "/multipleOf"),
        ({"required": ["a", "a"]}, "/required"),
        ({"uniqueItems": "yes"}, "/uniqueItems"),
        ({"allOf": []}, "/allOf"),
        ({"items": [{}]}, "/items"),
        ({"properties": {"a": {"minimum": "x"}}}, "/properties/a/minimum"),
        ({"properties": {"a/b": {"items": {"maxItems": -2}}}}, "/properties/a~1b/items/maxItems"),
        ({"properties": {"a~b": {"type": "x"}}}, "/properties/a~0b/type"),
        ({"$defs": {"d": {"anyOf": [{"enum": 5}]}}}, "/$defs/d/anyOf/0/enum"),
        ({"prefixItems": [{}, {"$ref": 5}]}, "/prefixItems/1/$ref"),
        ({"$id": "#fragment"}, "/$id"),
    ],
)
def test_invalid_schema_reports_the_offending_location(
    schema: dict[str, Any], location: str
) -> None:
    with pytest.raises(SchemaError) as caught:
        schemacore.compile(schema)
    assert caught.value.error_class == "validation"
    assert caught.value.location == location


@pytest.mark.parametrize("schema", [5, None, "string", ["type"], 1.5])
def test_schema_must_be_an_object_or_a_boolean(schema: Any) -> None:
    with pytest.raises(SchemaError):
        schemacore.compile(schema)


@pytest.mark.parametrize(
    ("schema", "location"),
    [
        ({"pattern": "("}, "/pattern"),
        ({"pattern": "[a-"}, "/pattern"),
        ({"properties": {"p": {"pattern": "a{2,1}"}}}, "/properties/p/pattern"),
        ({"patternProperties": {"(": {}}}, "/patternProperties/("),
    ],
)
def test_invalid_regex_is_a_schema_error_at_compile(schema: Any, location: str) -> None:
    with pytest.raises(SchemaError) as caught:
        schemacore.compile(schema)
    assert caught.value.location == location


def test_boolean_schemas_are_schemas() -> None:
    assert schemacore.compile(True).is_valid({"anything": [1]})
    assert not schemacore.compile(False).is_valid(None)
