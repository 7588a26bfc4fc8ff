"""Embedded resources of another dialect: every outer/inner pair of the five drafts,
in every kind of subschema position.

A document's meta-schema check leaves out each embedded resource that declares its
own ``$schema`` (that resource is checked against its own meta-schema instead). What
stands in for it must be a schema the outer meta-schema accepts there: draft-04 has
no boolean schemas, so a draft-04 document embedding any resource used to be refused
("boolean is not of type object").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

import schemacore
from schemacore import SchemaError


@dataclass(frozen=True)
class Draft:
    name: str
    uri: str
    identifier: str  # "$id", "id" in draft-04
    tuple_keyword: str  # the array-of-schemas form of items


DRAFTS = {
    draft.name: draft
    for draft in (
        Draft("2020-12", "https://json-schema.org/draft/2020-12/schema", "$id", "prefixItems"),
        Draft("2019-09", "https://json-schema.org/draft/2019-09/schema", "$id", "items"),
        Draft("draft-07", "http://json-schema.org/draft-07/schema#", "$id", "items"),
        Draft("draft-06", "http://json-schema.org/draft-06/schema#", "$id", "items"),
        Draft("draft-04", "http://json-schema.org/draft-04/schema#", "id", "items"),
    )
}
INNER_URI = "https://example.com/inner"


def probe(inner: Draft, uri: str = INNER_URI, **extra: Any) -> dict[str, Any]:
    """A resource whose verdicts on PROBES tell its dialect from each other one."""
    return {
        "$schema": inner.uri,
        inner.identifier: uri,
        "properties": {
            # 1.0 is an integer in every draft but draft-04.
            "int": {"type": "integer"},
            # A sibling of $ref is ignored before 2019-09.
            "sib": {"$ref": "#/properties/any", "maximum": 3},
            "any": {},
            # if/then from draft-07 on (an unknown keyword before).
            "cond": {"if": {}, "then": {"not": {}}},
            # prefixItems in 2020-12 only.
            "tuple": {"prefixItems": [{"type": "string"}]},
        },
        **extra,
    }


# Instances of the probe, and whether each dialect accepts them.
PROBES: list[tuple[Any, dict[str, bool]]] = [
    (
        {"int": 1.0},
        {"2020-12": True, "2019-09": True, "draft-07": True, "draft-06": True, "draft-04": False},
    ),
    (
        {"sib": 5},
        {"2020-12": False, "2019-09": False, "draft-07": True, "draft-06": True, "draft-04": True},
    ),
    (
        {"cond": 1},
        {"2020-12": False, "2019-09": False, "draft-07": False, "draft-06": True, "draft-04": True},
    ),
    (
        {"tuple": [1]},
        {"2020-12": False, "2019-09": True, "draft-07": True, "draft-06": True, "draft-04": True},
    ),
    (
        {"int": 2, "sib": 2, "tuple": ["x"]},
        dict.fromkeys(DRAFTS, True),
    ),
]


def place(position: str, outer: Draft, resource: Any) -> tuple[dict[str, Any], str]:
    """The members of an outer schema holding ``resource`` at ``position``, and its
    pointer there. None of these positions applies to the root instance (an object
    with members a and b only) or changes its verdict."""
    if position == "one":  # a keyword taking a schema
        return {"additionalProperties": resource}, "/additionalProperties"
    if position == "items":  # another, where arrays are concerned
        return {"items": resource}, "/items"
    if position == "definitions":  # a map of schemas, never applied
        return {"definitions": {"inner": resource}}, "/definitions/inner"
    if position == "properties":  # a map of schemas, applied by name
        return {"properties": {"holder": resource}}, "/properties/holder"
    if position == "allOf":  # an array of schemas, applied in place
        return {"allOf": [{}, resource]}, "/allOf/1"
    if position == "tuple":  # an array of schemas, applied by index
        return {outer.tuple_keyword: [{}, resource]}, f"/{outer.tuple_keyword}/1"
    if position == "nested":  # several levels down: a map, an array, a keyword
        held = {"definitions": {"x": {"anyOf": [{}, {"not": resource}]}}}
        return held, "/definitions/x/anyOf/1/not"
    raise AssertionError(position)


POSITIONS = ["one", "items", "definitions", "properties", "allOf", "tuple", "nested"]


def outer_schema(outer: Draft, position: str, resource: Any, declared: bool) -> dict[str, Any]:
    """An outer document of draft ``outer`` (declared, or the default dialect)
    embedding ``resource`` and referring to it from property a."""
    members, _ = place(position, outer, resource)
    properties = {
        "a": {"$ref": INNER_URI},
        # The outer dialect's own reading of 1.0 still applies around the resource.
        "b": {"type": "integer"},
        **members.pop("properties", {}),
    }
    schema: dict[str, Any] = {"$schema": outer.uri} if declared else {}
    schema.update(members)
    schema["properties"] = properties
    return schema


def compile_outer(outer: Draft, schema: Any) -> schemacore.Validator:
    if "$schema" in schema:
        return schemacore.compile(schema)
    return schemacore.compile(schema, default_dialect=outer.name)


PAIRS = [(outer, inner) for outer in DRAFTS for inner in DRAFTS]


@pytest.mark.parametrize("declared", [True, False], ids=["declared", "default-dialect"])
@pytest.mark.parametrize("position", POSITIONS)
@pytest.mark.parametrize(("outer_name", "inner_name"), PAIRS)
def test_an_embedded_resource_of_any_dialect_compiles_under_its_own_rules(
    outer_name: str, inner_name: str, position: str, declared: bool
) -> None:
    outer, inner = DRAFTS[outer_name], DRAFTS[inner_name]
    validator = compile_outer(outer, outer_schema(outer, position, probe(inner), declared))
    for instance, verdicts in PROBES:
        wrapped = {"a": instance}
        expected = verdicts[inner.name]
        assert validator.is_valid(wrapped) is expected, instance
        assert (not list(validator.iter_errors(wrapped))) is expected, instance
        assert validator.evaluate(wrapped).valid is expected, instance
    # Around the resource, the outer dialect's rules.
    assert validator.is_valid({"b": 1.0}) is (outer.name != "draft-04")


# Per inner draft: a resource its own meta-schema refuses (at the member named),
# which some other draft's meta-schema accepts.
INVALID: dict[str, tuple[dict[str, Any], str]] = {
    "2020-12": ({"items": [{}]}, "/items"),  # array-form items is 2019-09's
    "2019-09": ({"$recursiveAnchor": "yes"}, "/$recursiveAnchor"),  # unknown in 2020-12
    "draft-07": ({"if": 5}, "/if"),  # unknown in draft-06
    "draft-06": ({"contains": 5}, "/contains"),  # unknown in draft-04
    "draft-04": ({"exclusiveMinimum": 5}, "/exclusiveMinimum"),  # a number from draft-06
}


@pytest.mark.parametrize("position", POSITIONS)
@pytest.mark.parametrize(("outer_name", "inner_name"), PAIRS)
def test_an_embedded_resource_is_still_checked_against_its_own_meta_schema(
    outer_name: str, inner_name: str, position: str
) -> None:
    outer, inner = DRAFTS[outer_name], DRAFTS[inner_name]
    members, at = INVALID[inner.name]
    schema = outer_schema(outer, position, probe(inner, **members), declared=True)
    with pytest.raises(SchemaError) as caught:
        schemacore.compile(schema)
    _, pointer = place(position, outer, None)
    assert caught.value.reason == "meta-schema"
    assert caught.value.location.startswith(pointer)
    assert caught.value.location.endswith(at)
    if outer is not inner:
        assert inner.name in caught.value.message  # its own draft's meta-schema refused it


@pytest.mark.parametrize("position", POSITIONS)
@pytest.mark.parametrize(("outer_name", "inner_name"), PAIRS)
def test_the_document_around_an_embedded_resource_is_still_checked(
    outer_name: str, inner_name: str, position: str
) -> None:
    outer, inner = DRAFTS[outer_name], DRAFTS[inner_name]
    schema = outer_schema(outer, position, probe(inner), declared=True)
    schema["minLength"] = -1  # no draft takes a negative length
    with pytest.raises(SchemaError) as caught:
        schemacore.compile(schema)
    assert caught.value.reason == "meta-schema"
    assert caught.value.location == "/minLength"


def test_the_reported_draft_04_document_embedding_draft_07_compiles() -> None:
    d4, d7 = DRAFTS["draft-04"], DRAFTS["draft-07"]
    schema = {
        "$schema": d4.uri,
        "definitions": {"new": {"$schema": d7.uri, "$id": "http://e.com/x", "type": "integer"}},
        "properties": {"a": {"$ref": "http://e.com/x"}},
    }
    validator = schemacore.compile(schema)
    assert validator.is_valid({"a": 1.0})  # an integer under draft-07's rules
    assert not validator.is_valid({"a": 1.5})


def test_resources_of_alternating_dialects_nest() -> None:
    # draft-04 around 2020-12 around draft-04: each level checked and read as its own.
    d4, d2020 = DRAFTS["draft-04"], DRAFTS["2020-12"]
    innermost = probe(d4, "https://example.com/innermost")
    middle = probe(d2020, "https://example.com/middle", **{"$defs": {"in": innermost}})
    schema = {
        "$schema": d4.uri,
        "definitions": {"mid": middle},
        "properties": {
            "m": {"$ref": "https://example.com/middle"},
            "i": {"$ref": "https://example.com/innermost"},
        },
    }
    validator = schemacore.compile(schema)
    for instance, verdicts in PROBES:
        assert validator.is_valid({"m": instance}) is verdicts["2020-12"], instance
        assert validator.is_valid({"i": instance}) is verdicts["draft-04"], instance
    broken = probe(d4, "https://example.com/innermost", exclusiveMinimum=5)
    schema["definitions"] = {"mid": {**middle, "$defs": {"in": broken}}}
    with pytest.raises(SchemaError) as caught:
        schemacore.compile(schema)
    assert caught.value.location == "/definitions/mid/$defs/in/exclusiveMinimum"
