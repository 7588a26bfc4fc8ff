"""References: static and dynamic resolution, URI bases, pointers, remote documents, loops."""

from __future__ import annotations

import socket
import urllib.request
from typing import Any

import pytest

import schemacore
from schemacore import SchemaError


def valid(schema: Any, instance: Any, **options: Any) -> bool:
    return schemacore.compile(schema, **options).is_valid(instance)


# -- $ref to a $dynamicAnchor name is static ------------------------------------------


# The outer resource binds the dynamic anchor "a" to strings, the inner one to integers.
# The inner resource's plain `$ref: "#a"` must stay inside the inner resource (integer),
# while a `$dynamicRef` to the same fragment jumps to the outermost binding (string).
def _anchor_schema(reference_keyword: str) -> dict[str, Any]:
    return {
        "$id": "https://example.com/outer",
        "properties": {"x": {"$ref": "inner"}},
        "$defs": {
            "outerA": {"$dynamicAnchor": "a", "type": "string"},
            "inner": {
                "$id": "inner",
                reference_keyword: "#a",
                "$defs": {"innerA": {"$dynamicAnchor": "a", "type": "integer"}},
            },
        },
    }


def test_ref_to_dynamic_anchor_resolves_statically() -> None:
    validator = schemacore.compile(_anchor_schema("$ref"))
    assert validator.is_valid({"x": 5})
    assert not validator.is_valid({"x": "hi"})
    assert [e.keyword for e in validator.iter_errors({"x": "hi"})] == ["type"]


def test_dynamic_ref_to_same_anchor_resolves_dynamically() -> None:
    # The control for the test above: the two keywords must give opposite answers.
    validator = schemacore.compile(_anchor_schema("$dynamicRef"))
    assert validator.is_valid({"x": "hi"})
    assert not validator.is_valid({"x": 5})


def test_ref_with_full_uri_to_dynamic_anchor_is_static() -> None:
    schema = {
        "$id": "https://example.com/root",
        "$dynamicAnchor": "a",
        "type": "object",
        "properties": {"x": {"$ref": "inner#a"}},
        "$defs": {
            "inner": {"$id": "inner", "$defs": {"a": {"$dynamicAnchor": "a", "type": "integer"}}}
        },
    }
    assert valid(schema, {"x": 5})
    assert not valid(schema, {"x": {}})


# -- $dynamicRef ------------------------------------------------------------------------


def _bookend_schema(anchor_keyword: str) -> dict[str, Any]:
    return {
        "$id": "https://example.com/root",
        "$dynamicAnchor": "meta",
        "type": "object",
        "properties": {"x": {"$ref": "inner"}},
        "$defs": {
            "inner": {
                "$id": "inner",
                "$dynamicRef": "#meta",
                "$defs": {"m": {anchor_keyword: "meta", "type": "integer"}},
            }
        },
    }


def test_dynamic_ref_without_bookend_behaves_like_ref() -> None:
    # The initial target is a plain $anchor, so the outer $dynamicAnchor is not consulted.
    validator = schemacore.compile(_bookend_schema("$anchor"))
    assert validator.is_valid({"x": 1})
    assert not validator.is_valid({"x": {}})


def test_dynamic_ref_with_bookend_uses_outermost_anchor() -> None:
    validator = schemacore.compile(_bookend_schema("$dynamicAnchor"))
    assert validator.is_valid({"x": {}})
    assert not validator.is_valid({"x": 1})


def _scope_schema(first_branch_binds_numbers: bool) -> dict[str, Any]:
    """The second allOf branch reaches a $dynamicRef through a resource binding "v" to null.

    The first branch, a sibling, may bind "v" to numbers; its scope ends with it.
    """
    first: dict[str, Any] = {"$id": "numbers"}
    if first_branch_binds_numbers:
        first["$defs"] = {"v": {"$dynamicAnchor": "v", "type": "number"}}
    return {
        "$id": "https://example.com/scopes",
        "allOf": [
            first,
            {
                "$id": "nulls",
                "$ref": "entry",
                "$defs": {"v": {"$dynamicAnchor": "v", "type": "null"}},
            },
        ],
        "$defs": {
            "entry": {"$id": "entry", "$dynamicRef": "fallback#v"},
            "fallback": {"$id": "fallback", "$dynamicAnchor": "v", "type": "string"},
        },
    }


@pytest.mark.parametrize("sibling_binds", [False, True])
def test_dynamic_scope_ends_with_the_branch_that_entered_it(sibling_binds: bool) -> None:
    validator = schemacore.compile(_scope_schema(sibling_binds))
    assert validator.is_valid(None)
    assert not validator.is_valid(1)  # a leaked "numbers" scope would accept this
    assert not validator.is_valid("s")


def test_dynamic_ref_outside_any_binding_scope_uses_its_initial_target() -> None:
    schema = {
        "$id": "https://example.com/plain",
        "$ref": "entry",
        "$defs": {
            "entry": {"$id": "entry", "$dynamicRef": "fallback#v"},
            "fallback": {"$id": "fallback", "$dynamicAnchor": "v", "type": "string"},
        },
    }
    assert valid(schema, "s")
    assert not valid(schema, None)


def test_dynamic_ref_lets_an_extension_tighten_a_recursive_list() -> None:
    # The base list recurses through "#entry"; the extension rebinds "entry" to itself,
    # so its extra requirement applies at every depth, not only at the top.
    base = {
        "$id": "https://example.com/list",
        "$dynamicAnchor": "entry",
        "type": "object",
        "properties": {
            "label": {"type": "string"},
            "sub": {"type": "array", "items": {"$dynamicRef": "#entry"}},
        },
    }
    priced = {
        "$id": "https://example.com/priced-list",
        "$dynamicAnchor": "entry",
        "$ref": "list",
        "required": ["price"],
    }
    registry = {"https://example.com/list": base}
    unpriced_child = {"price": 1, "sub": [{"label": "x"}]}
    assert valid(base, unpriced_child)
    assert not valid(priced, unpriced_child, registry=registry)
    assert valid(priced, {"price": 1, "sub": [{"price": 2, "sub": []}]}, registry=registry)


# -- base URIs ------------------------------------------------------------------------


def test_urn_base_resolves_pointer_fragments() -> None:
    urn = "urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed"
    schema = {
        "$id": urn,
        "properties": {"a": {"$ref": "#/$defs/x"}, "b": {"$ref": urn + "#/$defs/x"}},
        "$defs": {"x": {"type": "integer"}},
    }
    validator = schemacore.compile(schema)
    assert validator.is_valid({"a": 1, "b": 2})
    assert not validator.is_valid({"a": "s"})
    assert not validator.is_valid({"b": "s"})


def test_urn_and_tag_bases_resolve_anchors_and_embedded_ids() -> None:
    assert not valid(
        {"$id": "tag:example.com,2024:root", "$ref": "#foo",
         "$defs": {"x": {"$anchor": "foo", "type": "integer"}}},
        "s",
    )  # fmt: skip
    assert not valid(
        {"$id": "urn:example:root", "$ref": "urn:example:child",
         "$defs": {"x": {"$id": "urn:example:child", "type": "integer"}}},
        "s",
    )  # fmt: skip


def test_relative_ids_resolve_against_the_enclosing_resource() -> None:
    schema = {
        "$id": "https://example.com/root/schema.json",
        "properties": {"a": {"$ref": "sub/item.json"}, "b": {"$ref": "../other.json"}},
        "$defs": {"i": {"$id": "sub/item.json", "type": "integer"}},
    }
    registry = {"https://example.com/other.json": {"type": "string"}}
    validator = schemacore.compile(schema, registry=registry)
    assert validator.is_valid({"a": 1, "b": "x"})
    assert not validator.is_valid({"a": "x"})
    assert not validator.is_valid({"b": 1})


def test_pointer_fragment_is_relative_to_the_embedded_resource() -> None:
    # Inside "emb", "#/$defs/x" means emb's own $defs, not the document root's.
    schema = {
        "$id": "https://example.com/root",
        "$ref": "emb",
        "$defs": {
            "x": {"type": "string"},
            "emb": {"$id": "emb", "$ref": "#/$defs/x", "$defs": {"x": {"type": "integer"}}},
        },
    }
    assert valid(schema, 1)
    assert not valid(schema, "s")


def test_anchor_of_an_embedded_resource_is_not_visible_from_the_parent() -> None:
    schema = {
        "$id": "https://example.com/root",
        "$ref": "#foo",
        "$defs": {"e": {"$id": "e", "$defs": {"x": {"$anchor": "foo"}}}},
    }
    with pytest.raises(SchemaError):
        schemacore.compile(schema)
    schema["$ref"] = "e#foo"
    schemacore.compile(schema)


def test_id_with_empty_fragment_is_the_same_resource() -> None:
    schema = {
        "$id": "https://example.com/h#",
        "$ref": "https://example.com/h#/$defs/x",
        "$defs": {"x": {"type": "integer"}},
    }
    assert valid(schema, 1)
    assert not valid(schema, "s")


# -- JSON Pointer fragments -----------------------------------------------------------


@pytest.mark.parametrize(
    ("reference", "name"),
    [
        ("#/$defs/a~0b", "a~b"),
        ("#/$defs/c~1d", "c/d"),
        ("#/$defs/e%25f", "e%f"),
        ("#/$defs/g%22h", 'g"h'),
        ("#/$defs/i%20j", "i j"),
        ("#/$defs/~01", "~1"),  # "~01" is "~" then "1", never "/"
    ],
)
def test_pointer_escapes_and_percent_encoding(reference: str, name: str) -> None:
    schema = {
        "$ref": reference,
        "$defs": {name: {"type": "integer"}, "~1": {"type": "integer"}, "/": {"type": "string"}},
    }
    assert valid(schema, 1)
    assert not valid(schema, "s")


def test_similar_definition_names_stay_distinct() -> None:
    # fastjsonschema once mapped a_b and a-b to the same generated function.
    schema = {
        "properties": {"x": {"$ref": "#/$defs/a_b"}, "y": {"$ref": "#/$defs/a-b"}},
        "$defs": {"a_b": {"type": "string"}, "a-b": {"type": "integer"}},
    }
    validator = schemacore.compile(schema)
    assert validator.is_valid({"x": "s", "y": 1})
    assert not validator.is_valid({"x": 1})
    assert not validator.is_valid({"y": "s"})


def test_pointer_into_an_array_of_subschemas() -> None:
    schema = {
        "prefixItems": [{"type": "string"}, {"type": "integer"}],
        "properties": {"a": {"$ref": "#/prefixItems/1"}},
    }
    assert valid(schema, {"a": 1})
    assert not valid(schema, {"a": "s"})


def test_malformed_pointer_escape_is_a_schema_error() -> None:
    with pytest.raises(SchemaError) as caught:
        schemacore.compile({"$ref": "#/$defs/a~2b", "$defs": {"a~2b": {}}})
    assert caught.value.location == "/$ref"


def test_ref_into_an_unknown_keyword() -> None:
    schema = {
        "x-library": {"positive": {"type": "integer", "minimum": 1}},
        "$ref": "#/x-library/positive",
    }
    assert valid(schema, 3)
    assert not valid(schema, 0)
    assert not valid(schema, "s")


@pytest.mark.parametrize("container", ["x-unknown", "enum", "const"])
def test_id_inside_non_schema_data_is_not_a_resource(container: str) -> None:
    # An "$id" inside plain data (or an unknown keyword, whose value is not known to be
    # a schema) does not create a resource that a $ref could reach.
    fake = {"$id": "https://example.com/fake", "type": "integer"}
    payload: Any = [fake] if container == "enum" else fake
    schema = {"$defs": {"a": {container: payload}}, "$ref": "https://example.com/fake"}
    with pytest.raises(SchemaError):
        schemacore.compile(schema)


@pytest.mark.parametrize(
    ("marker", "reference"),
    [({"$anchor": "x"}, "#x"), ({"$id": "https://a.example/dep"}, "https://a.example/dep")],
)
def test_identifiers_inside_dependencies_are_indexed(
    marker: dict[str, str], reference: str
) -> None:
    # The 2020-12 meta-schema still reserves "dependencies" for subschemas.
    schema = {"dependencies": {"a": {**marker, "type": "integer"}}, "$ref": reference}
    assert valid(schema, 1)
    assert not valid(schema, "s")


def test_ref_siblings_still_apply() -> None:
    schema = {"$ref": "#/$defs/s", "maxLength": 2, "$defs": {"s": {"type": "string"}}}
    assert valid(schema, "ab")
    assert not valid(schema, "abc")
    assert not valid(schema, 1)


# -- a subschema is where it is, whichever object it is --------------------------------

_TARGETS = {
    "https://one.example/t.json": {"type": "string"},
    "https://two.example/t.json": {"type": "integer"},
}


def _two_places(registry: dict[str, Any]) -> schemacore.Validator:
    root = {
        "properties": {
            "p": {"$ref": "https://one.example/d.json"},
            "q": {"$ref": "https://two.example/d.json"},
        }
    }
    return schemacore.compile(root, registry={**_TARGETS, **registry})


def _check_two_places(validator: schemacore.Validator) -> None:
    # "t.json" means a string under one.example and an integer under two.example.
    assert validator.is_valid({"p": "s", "q": 1})
    assert not validator.is_valid({"p": "s", "q": "s"})
    assert not validator.is_valid({"p": 1, "q": 1})
    errors = list(validator.iter_errors({"p": 1, "q": "s"}))
    assert sorted(e.absolute_keyword_location for e in errors) == [
        "https://one.example/t.json#/type",
        "https://two.example/t.json#/type",
    ]


def test_one_dict_under_two_id_bases_resolves_against_each() -> None:
    shared = {"$ref": "t.json"}
    _check_two_places(
        _two_places(
            {
                uri: {"$id": uri, "allOf": [shared]}
                for uri in ("https://one.example/d.json", "https://two.example/d.json")
            }
        )
    )


def test_one_document_registered_under_two_uris() -> None:
    shared = {"allOf": [{"$ref": "t.json"}]}
    _check_two_places(
        _two_places({"https://one.example/d.json": shared, "https://two.example/d.json": shared})
    )


def test_loader_returning_one_object_for_two_uris() -> None:
    shared = {"$ref": "t.json"}
    root = {
        "properties": {
            "p": {"$ref": "https://one.example/d.json"},
            "q": {"$ref": "https://two.example/d.json"},
        }
    }

    def loader(uri: str) -> Any:
        return _TARGETS.get(uri, shared)

    _check_two_places(schemacore.compile(root, loader=loader))


def test_pointer_reference_into_a_document_registered_twice() -> None:
    shared = {"properties": {"v": {"$ref": "t.json"}}}
    registry = {
        **_TARGETS,
        "https://one.example/d.json": shared,
        "https://two.example/d.json": shared,
    }
    validator = schemacore.compile(
        {"$ref": "https://two.example/d.json#/properties/v"}, registry=registry
    )
    assert validator.is_valid(1)
    assert not validator.is_valid("s")


def test_every_false_subschema_reports_its_own_location() -> None:
    validator = schemacore.compile({"properties": {"a": False, "b": False, "c": {"not": True}}})
    instance = {"a": 1, "b": 2, "c": 3}
    located = sorted(
        (e.keyword_location, e.absolute_keyword_location) for e in validator.iter_errors(instance)
    )
    assert located == [
        ("/properties/a", "#/properties/a"),
        ("/properties/b", "#/properties/b"),
        ("/properties/c/not", "#/properties/c/not"),
    ]
    evaluation = validator.evaluate(instance)
    basic = evaluation.output("basic")["errors"]
    assert sorted(
        u["absoluteKeywordLocation"] for u in basic if "properties/c" not in u["keywordLocation"]
    ) == [
        "#/properties/a",
        "#/properties/b",
    ]
    listed = evaluation.output("list")["details"]
    assert {u["schemaLocation"] for u in listed} >= {"#/properties/a", "#/properties/b"}


# -- duplicate identifiers ------------------------------------------------------------


@pytest.mark.parametrize(
    ("schema", "first", "second"),
    [
        ({"$id": "https://a.example/", "$defs": {"x": {"$id": "/"}}}, "#", "#/$defs/x"),
        (
            {"$defs": {"x": {"$id": "https://a.example/s"}, "y": {"$id": "https://a.example/s"}}},
            "#/$defs/x",
            "#/$defs/y",
        ),
        ({"$defs": {"x": {"$anchor": "q"}, "y": {"$anchor": "q"}}}, "#/$defs/x", "#/$defs/y"),
        (
            {"$defs": {"x": {"$anchor": "q"}, "y": {"$dynamicAnchor": "q"}}},
            "#/$defs/x",
            "#/$defs/y",
        ),
    ],
)
def test_an_identifier_defined_twice_in_one_document_is_a_schema_error(
    schema: dict[str, Any], first: str, second: str
) -> None:
    # Which definition a reference would reach is ambiguous: refuse, naming both.
    with pytest.raises(SchemaError) as caught:
        schemacore.compile(schema)
    assert f"at {first} and at {second}" in str(caught.value)
    assert caught.value.location == second[1:]


def test_one_dict_with_an_absolute_id_at_two_places_is_a_duplicate() -> None:
    # As its JSON copy would be.
    shared = {"$id": "https://a.example/s", "type": "integer"}
    with pytest.raises(SchemaError, match="defined twice"):
        schemacore.compile({"$defs": {"x": shared, "y": shared}})


def test_the_same_anchor_in_two_resources_or_on_one_schema_is_fine() -> None:
    schema = {
        "$defs": {
            "a": {"$id": "https://a.example/a", "$anchor": "q", "type": "integer"},
            "b": {"$id": "https://a.example/b", "$anchor": "q", "$dynamicAnchor": "q"},
        },
        "$ref": "https://a.example/a#q",
    }
    assert valid(schema, 1)
    assert not valid(schema, "s")


def test_a_bundle_registered_beside_its_parts_keeps_the_first_definition() -> None:
    part = {"$id": "https://a.example/part", "type": "integer"}
    bundle = {"$id": "https://a.example/bundle", "$defs": {"part": dict(part)}}
    registry = {"https://a.example/part": part, "https://a.example/bundle": bundle}
    schema = {"allOf": [{"$ref": "https://a.example/part"}, {"$ref": "https://a.example/bundle"}]}
    assert valid(schema, 1, registry=registry)
    assert not valid(schema, "s", registry=registry)


# -- remote documents -----------------------------------------------------------------


def test_registry_supplies_remote_documents() -> None:
    registry = {"https://example.com/int.json": {"type": "integer"}}
    schema = {"properties": {"n": {"$ref": "https://example.com/int.json"}}}
    assert valid(schema, {"n": 1}, registry=registry)
    assert not valid(schema, {"n": "1"}, registry=registry)


def test_registry_remote_anchor_and_pointer() -> None:
    registry = {
        "urn:example:lib": {
            "$defs": {"a": {"$anchor": "pos", "minimum": 1}, "b": {"type": "string"}}
        }
    }
    schema = {"anyOf": [{"$ref": "urn:example:lib#pos"}, {"$ref": "urn:example:lib#/$defs/b"}]}
    validator = schemacore.compile(schema, registry=registry)
    assert validator.is_valid(1)
    assert validator.is_valid("s")
    assert not validator.is_valid(0)


def test_loader_gets_the_absolute_uri_once() -> None:
    calls: list[str] = []

    def loader(uri: str) -> Any:
        calls.append(uri)
        return {"type": "integer"}

    schema = {
        "$id": "https://example.com/a/b.json",
        "properties": {
            "x": {"$ref": "c.json"},
            "y": {"$ref": "c.json#"},
            "z": {"$ref": "/a/c.json"},
        },
    }
    validator = schemacore.compile(schema, loader=loader)
    assert calls == ["https://example.com/a/c.json"]
    assert validator.is_valid({"x": 1, "y": 2, "z": 3})
    assert not validator.is_valid({"z": "3"})
    assert calls == ["https://example.com/a/c.json"]  # validation loads nothing


def test_loader_is_not_called_when_not_needed() -> None:
    calls: list[str] = []

    def loader(uri: str) -> Any:
        calls.append(uri)
        return {}

    embedded = {
        "$id": "https://example.com/a/b.json",
        "$ref": "c.json",
        "$defs": {"x": {"$id": "c.json", "type": "integer"}},
    }
    assert not valid(embedded, "s", loader=loader)
    registered = {"$ref": "https://example.com/r.json"}
    registry = {"https://example.com/r.json": {"type": "string"}}
    assert valid(registered, "s", registry=registry, loader=loader)
    # The 2020-12 meta-schema is bundled, both as $schema and as a $ref target.
    meta = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": "https://json-schema.org/draft/2020-12/schema",
    }
    assert not valid(meta, {"type": "not-a-type"}, loader=loader)
    assert valid(meta, {"type": "string"}, loader=loader)
    assert calls == []


def test_loader_failure_is_a_schema_error() -> None:
    def loader(uri: str) -> Any:
        raise KeyError(uri)

    with pytest.raises(SchemaError):
        schemacore.compile({"$ref": "https://example.com/missing.json"}, loader=loader)


@pytest.mark.parametrize(
    "reference",
    ["https://example.com/nowhere.json", "http://127.0.0.1:9/x.json", "#/$defs/missing", "#nope"],
)
def test_unresolvable_ref_fails_at_compile_without_network(
    reference: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_network(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("schemacore tried to use the network")

    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(urllib.request, "urlopen", no_network)
    schema = {"properties": {"a": {"$ref": reference}}}
    with pytest.raises(SchemaError) as caught:
        schemacore.compile(schema)
    assert caught.value.error_class == "validation"
    assert caught.value.location == "/properties/a/$ref"


# -- recursion and loops --------------------------------------------------------------


def test_recursive_tree() -> None:
    tree = {
        "$id": "https://example.com/tree",
        "type": "object",
        "required": ["value"],
        "properties": {
            "value": {"type": "number"},
            "children": {"type": "array", "items": {"$ref": "#"}},
        },
    }
    validator = schemacore.compile(tree)
    good = {"value": 1, "children": [{"value": 2, "children": [{"value": 3}]}]}
    bad = {"value": 1, "children": [{"value": 2, "children": [{}]}]}
    assert validator.is_valid(good)
    assert not validator.is_valid(bad)
    (error,) = validator.iter_errors(bad)
    assert error.keyword == "required"
    assert error.instance_location == "/children/0/children/0"
    assert error.keyword_location == (
        "/properties/children/items/$ref/properties/children/items/$ref/required"
    )
    assert error.absolute_keyword_location == "https://example.com/tree#/required"


def test_mutually_recursive_definitions() -> None:
    schema = {
        "$ref": "#/$defs/a",
        "$defs": {
            "a": {"type": "object", "properties": {"b": {"$ref": "#/$defs/b"}}},
            "b": {"type": "array", "items": {"$ref": "#/$defs/a"}},
        },
    }
    validator = schemacore.compile(schema)
    assert validator.is_valid({"b": [{"b": []}, {}]})
    assert not validator.is_valid({"b": [{"b": {}}]})


# Each with an instance that takes the loop.
LOOPS = [
    pytest.param({"$ref": "#"}, 1, id="self"),
    pytest.param(
        {
            "$ref": "#/$defs/a",
            "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
        },
        1,
        id="two-step-defs",
    ),
    pytest.param({"allOf": [{"$ref": "#"}]}, 1, id="allOf"),
    pytest.param({"anyOf": [{"type": "string"}, {"$ref": "#"}]}, 1, id="anyOf"),
    pytest.param({"oneOf": [{"$ref": "#"}, {"type": "string"}]}, 1, id="oneOf"),
    pytest.param({"not": {"$ref": "#"}}, 1, id="not"),
    pytest.param({"if": True, "then": {"$ref": "#"}}, 1, id="then"),
    pytest.param({"dependentSchemas": {"a": {"$ref": "#"}}}, {"a": 1}, id="dependentSchemas"),
    pytest.param({"$id": "https://example.com/s", "$ref": "https://example.com/s"}, 1, id="by-id"),
    pytest.param(
        {"$id": "https://example.com/d", "$dynamicAnchor": "x", "$dynamicRef": "#x"},
        1,
        id="dynamicRef",
    ),
]


def _fails_closed(validator: schemacore.Validator, instance: Any) -> None:
    for run in (
        validator.is_valid,
        lambda x: list(validator.iter_errors(x)),
        lambda x: validator.evaluate(x),
    ):
        with pytest.raises(schemacore.ExecutionFailure) as caught:
            run(instance)
        assert caught.value.reason == "reference-loop"
        assert "loop without progress" in caught.value.message


@pytest.mark.parametrize(("schema", "instance"), LOOPS)
def test_reference_loop_without_progress_fails_closed_when_it_runs(
    schema: dict[str, Any], instance: Any
) -> None:
    validator = schemacore.compile(schema)  # no error: nothing has run the loop yet
    _fails_closed(validator, instance)
    validator._promote()
    _fails_closed(validator, instance)


def test_a_sibling_that_fails_first_answers_is_valid_but_not_the_error_walk() -> None:
    # is_valid stops at the first failing keyword, before the loop runs: the instance
    # is certainly invalid. Listing every error must run the loop too, and fails
    # closed (found by the fuzz profile of the property tests).
    validator = schemacore.compile({"const": None, "$ref": "#"})
    for generated in (False, True):
        if generated:
            validator._promote()
        assert validator.is_valid([]) is False
        with pytest.raises(schemacore.ExecutionFailure) as caught:
            list(validator.iter_errors([]))
        assert caught.value.reason == "reference-loop"
        _fails_closed(validator, None)  # const holds: the loop runs for both


def test_reference_loop_across_registry_documents() -> None:
    registry = {
        "https://example.com/a": {"$ref": "https://example.com/b"},
        "https://example.com/b": {"$ref": "https://example.com/a"},
    }
    validator = schemacore.compile({"$ref": "https://example.com/a"}, registry=registry)
    _fails_closed(validator, None)


@pytest.mark.parametrize(
    ("schema", "good", "bad"),
    [
        ({"type": "array", "items": {"$ref": "#"}}, [[[]], []], [[1]]),
        ({"type": "object", "properties": {"a": {"$ref": "#"}}}, {"a": {"a": {}}}, {"a": {"a": 1}}),
        (
            {"type": "object", "additionalProperties": {"$ref": "#"}},
            {"x": {"y": {}}},
            {"x": {"y": 2}},
        ),
        ({"type": "array", "prefixItems": [{"$ref": "#"}]}, [[[]], 1], [[1]]),
        (
            {"type": "object", "unevaluatedProperties": {"$ref": "#"}},
            {"a": {"b": {}}},
            {"a": {"b": 1}},
        ),
    ],
)
def test_recursion_that_descends_compiles_and_works(
    schema: dict[str, Any], good: Any, bad: Any
) -> None:
    validator = schemacore.compile(schema)
    assert validator.is_valid(good)
    assert not validator.is_valid(bad)
    assert [e.keyword for e in validator.iter_errors(bad)] == ["type"]
