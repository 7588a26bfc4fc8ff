"""A reference to the root of a published meta-schema calls the process-wide compile
of it (Compiler.shared_root) instead of compiling the document again, wherever that
compile behaves exactly as the referring one's would; it answers, words its errors
and evaluates as a compile of its own copy does, on both tiers."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest

import schemacore
from schemacore import dialects, pipeline
from schemacore.errors import ExecutionFailure
from schemacore.model import Node
from schemacore.resources import bundled_metaschemas
from tests.engine.test_flat_metaschema import _values
from tests.suite.cases import load_cases
from tests.suite.locate import SuiteUnavailable, locate_suite

try:
    _SUITE = locate_suite()
except SuiteUnavailable:
    _SUITE = None

_FOLDERS = {
    "2020-12": "draft2020-12",
    "2019-09": "draft2019-09",
    "draft-07": "draft7",
    "draft-06": "draft6",
    "draft-04": "draft4",
}


def _referring(dialect: dialects.Dialect) -> dict[str, Any]:
    """A schema of ``dialect`` that is a reference to its own meta-schema."""
    return {"$schema": dialect.uri, "$ref": dialect.uri}


def _published_root(dialect: dialects.Dialect) -> Node:
    return pipeline._meta_for(dialect)[1][0]


def _reachable(validator: schemacore.Validator) -> Iterator[Node]:
    seen: set[int] = set()
    pending = [validator._node]
    while pending:
        node = pending.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        yield node
        pending.extend(node.children.values())


def _shares(validator: schemacore.Validator, dialect: dialects.Dialect) -> bool:
    root = _published_root(dialect)
    return any(node is root for node in _reachable(validator))


def _own_copy(schema: Any, dialect: dialects.Dialect, **options: Any) -> schemacore.Validator:
    """The same schema, the meta-schema compiled from a registered copy of it."""
    registry = {dialect.uri: copy.deepcopy(bundled_metaschemas()[dialect.uri])}
    return schemacore.compile(schema, registry=registry, **options)


def _report(validator: schemacore.Validator, value: Any) -> Any:
    try:
        if validator.is_valid(value):
            return True
        return [
            (
                e.message,
                e.keyword,
                e.instance_location,
                e.keyword_location,
                e.absolute_keyword_location,
                e.params,
            )
            for e in validator.iter_errors(value)
        ]
    except ExecutionFailure as exc:
        return ("failure", exc.limit, exc.location, exc.schema_location)


@pytest.mark.parametrize("dialect", dialects.DIALECTS, ids=lambda d: d.name)
def test_a_reference_to_a_published_meta_schema_shares_its_compile(
    dialect: dialects.Dialect,
) -> None:
    validator = schemacore.compile(_referring(dialect))
    assert _shares(validator, dialect)
    assert not _shares(_own_copy(_referring(dialect), dialect), dialect)
    # Its nodes are not this compile's own: its analyses and code writing skip them.
    root = _published_root(dialect)
    assert all(node is not root for node in validator._compiler.nodes)


@pytest.mark.skipif(_SUITE is None, reason="JSON-Schema-Test-Suite unavailable")
@pytest.mark.parametrize("dialect", dialects.DIALECTS, ids=lambda d: d.name)
def test_shared_and_own_compiles_agree_on_every_schema_of_the_suite(
    dialect: dialects.Dialect,
) -> None:
    # Every schema of the draft's cases and every value inside them, through a
    # schema that refers to the meta-schema twice: at its root and under a property.
    assert _SUITE is not None
    schema = {
        "$schema": dialect.uri,
        "allOf": [{"$ref": dialect.uri}, {"properties": {"wrapped": {"$ref": dialect.uri}}}],
    }
    shared = schemacore.compile(schema)
    own = _own_copy(schema, dialect)
    assert _shares(shared, dialect)
    values = [
        value
        for case in load_cases(_SUITE.path)
        if case.draft == _FOLDERS[dialect.name]
        for value in _values(case.schema)
    ]
    invalid = 0
    for tier in ("closures", "generated"):
        if tier == "generated":
            shared._promote()
            own._promote()
            assert pipeline._meta_for(dialect)[1][1].promoted  # written with the referrer
        for value in values:
            answer = _report(shared, value)
            assert answer == _report(own, value), value
            invalid += answer is not True
            wrapped = {"wrapped": value}
            assert _report(shared, wrapped) == _report(own, wrapped), value
    assert len(values) > 500 and invalid > 50


def test_output_formats_agree() -> None:
    dialect = dialects.DEFAULT
    shared = schemacore.compile(_referring(dialect))
    own = _own_copy(_referring(dialect), dialect)
    for value in (
        {"type": "string", "minLength": 2, "title": "a name"},
        {"type": "strin", "properties": {"a": {"minimum": "3"}}},
        {"$defs": {"x": {"items": [1]}}, "required": "a"},
    ):
        for fmt in ("flag", "basic", "list"):
            assert shared.evaluate(value).output(fmt) == own.evaluate(value).output(fmt)


@pytest.mark.parametrize(
    ("schema", "options"),
    [
        # It would have to record what it evaluated, for unevaluatedProperties.
        ({"$ref": dialects.DEFAULT.uri, "unevaluatedProperties": False}, {}),
        # The referring resource binds "meta": its $dynamicRef resolves out here.
        (
            {
                "$id": "https://example.com/strict",
                "$dynamicAnchor": "meta",
                "$ref": dialects.DEFAULT.uri,
            },
            {},
        ),
        # Other options than the shared compile's.
        ({"$ref": dialects.DEFAULT.uri}, {"format_assertion": True}),
        ({"$ref": dialects.DEFAULT.uri}, {"limits": schemacore.Limits(max_instance_depth=50)}),
        # Not its root.
        ({"$ref": dialects.DEFAULT.uri + "#/properties/definitions"}, {}),
        # A resource of the schema itself holds that URI.
        (
            {
                "$ref": dialects.DEFAULT.uri,
                "$defs": {"mine": {"$id": dialects.DEFAULT.uri, "type": "integer"}},
            },
            {},
        ),
    ],
    ids=["tracking", "dynamic-scope", "format-assertion", "limits", "pointer", "embedded-id"],
)
def test_not_shared_where_the_compile_would_differ(
    schema: dict[str, Any], options: dict[str, Any]
) -> None:
    assert not _shares(schemacore.compile(schema, **options), dialects.DEFAULT)


def test_a_registered_document_of_that_uri_is_compiled_as_registered() -> None:
    uri = dialects.DEFAULT.uri
    validator = schemacore.compile({"$ref": uri}, registry={uri: {"type": "integer"}})
    assert not _shares(validator, dialects.DEFAULT)
    assert validator.is_valid(3) and not validator.is_valid({"type": "string"})


def test_the_dynamic_scope_of_the_referrer_still_applies_where_not_shared() -> None:
    # The strict-tree pattern: extending the meta-schema through its "meta" anchor.
    strict = {
        "$id": "https://example.com/strict",
        "$dynamicAnchor": "meta",
        "$ref": dialects.DEFAULT.uri,
        "unevaluatedProperties": False,
    }
    validator = schemacore.compile(strict)
    assert validator.is_valid({"properties": {"a": {"type": "string"}}})
    assert not validator.is_valid({"properties": {"a": {"typo": "string"}}})


def _nested(outer: int, inner: int) -> Any:
    """``outer`` levels of the referrer's recursion around a schema nested ``inner``
    levels deep (each level a recursive application of the meta-schema)."""
    schema: Any = {}
    for _ in range(inner):
        schema = {"not": schema}
    value = {"schema": schema}
    for _ in range(outer):
        value = {"next": value}
    return value


@pytest.mark.parametrize(("outer", "inner"), [(0, 400), (150, 150), (200, 40), (250, 10)])
def test_the_instance_depth_counts_through_both_compiles_as_one(outer: int, inner: int) -> None:
    # The referrer's recursion and the meta-schema's add up against
    # max_instance_depth (256) as they do in one compile, on every path and tier.
    dialect = dialects.DEFAULT
    schema = {
        "$defs": {"node": {"properties": {"schema": {"$ref": dialect.uri}, "next": {"$ref": "#"}}}},
        "$ref": "#/$defs/node",
    }
    shared = schemacore.compile(schema)
    own = _own_copy(schema, dialect)
    assert _shares(shared, dialect)
    value = _nested(outer, inner)
    for tier in ("closures", "generated"):
        if tier == "generated":
            shared._promote()
            own._promote()
        answers = []
        for validator in (shared, own):
            try:
                answers.append(
                    (
                        validator.is_valid(value),
                        len(list(validator.iter_errors(value))),
                        validator.evaluate(value).output("flag"),
                    )
                )
            except ExecutionFailure as exc:
                answers.append(exc.limit)
        assert answers[0] == answers[1]
        if outer + inner < 250:
            assert answers[0] == (True, 0, {"valid": True})
        else:
            assert answers[0] == "max_instance_depth"


def test_recursion_of_the_referrer_around_the_shared_compile() -> None:
    dialect = dialects.DEFAULT
    schema = {
        "$defs": {
            "node": {
                "type": "object",
                "properties": {"schema": {"$ref": dialect.uri}, "next": {"$ref": "#/$defs/node"}},
            }
        },
        "$ref": "#/$defs/node",
    }
    shared = schemacore.compile(schema)
    own = _own_copy(schema, dialect)
    assert _shares(shared, dialect)
    chain: Any = {"schema": {"type": "string"}}
    for step in range(30):
        chain = {"next": chain, "schema": {"minimum": step}}
    bad = {"next": {"next": {"schema": {"minimum": "0"}}}}
    for tier in ("closures", "generated"):
        if tier == "generated":
            shared._promote()
            own._promote()
        for value in (chain, bad, {"schema": {"type": 3}}):
            assert _report(shared, value) == _report(own, value)


@pytest.mark.parametrize(
    "schema",
    [
        {"$ref": "http://json-schema.org/draft-04/schema"},
        # Compiled here to track: its own references to its root are not shared (each
        # closes a cycle of this compile, and counts one level there).
        {"$ref": "http://json-schema.org/draft-04/schema", "unevaluatedProperties": False},
        {
            "oneOf": [
                {"$ref": "http://json-schema.org/draft-07/schema", "unevaluatedProperties": False},
                {"$ref": "http://json-schema.org/draft-07/schema"},
            ]
        },
    ],
    ids=["shared", "tracking", "both"],
)
def test_the_depth_limit_falls_at_the_same_level_shared_or_not(schema: dict[str, Any]) -> None:
    # Found by a differential fuzzer: a tracking compile of the meta-schema whose
    # "$ref": "#" went to the shared compile failed one level later than its own.
    dialect = dialects.by_name(schema.get("$ref") or schema["oneOf"][1]["$ref"])
    assert dialect is not None
    shared, own = schemacore.compile(schema), _own_copy(schema, dialect)
    for levels in (254, 255, 256, 257, 258):
        value: Any = {}
        for _ in range(levels):
            value = {"not": value}
        assert _report(shared, value) == _report(own, value), levels
