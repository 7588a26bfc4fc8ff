"""The flat meta-schema (schemacore.flatmeta) answers is_valid as the published one
does: on every value of the test suite, on generated schema-like documents, and it
is refused for any meta-schema not of the form it relies on."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schemacore import dialects, pipeline
from schemacore.errors import ExecutionFailure
from schemacore.flatmeta import flatten
from schemacore.resources import bundled_metaschemas
from tests.properties.strategies import json_values
from tests.suite.cases import load_cases
from tests.suite.locate import SuiteUnavailable, locate_suite

FLAT = ("2019-09", "2020-12")


def _answer(meta: pipeline.Meta, value: Any) -> Any:
    try:
        return pipeline._meta_valid(meta, value)
    except ExecutionFailure as exc:
        return ("failure", exc.limit)


def _agree(name: str, value: Any) -> None:
    fast, published = pipeline._meta_for(dialects.by_name(name) or dialects.DEFAULT)
    assert _answer(fast, value) == _answer(published, value), value


@pytest.mark.parametrize("dialect", dialects.DIALECTS, ids=lambda d: d.name)
def test_the_drafts_built_of_vocabularies_get_a_flat_meta_schema(
    dialect: dialects.Dialect,
) -> None:
    fast, published = pipeline._meta_for(dialect)
    flat = flatten(dialect.uri, bundled_metaschemas())
    if dialect.name in FLAT:
        assert flat is not None and fast is not published
        assert "allOf" not in flat and len(flat["properties"]) > 50
    else:
        assert flat is None and fast is published


def _values(value: Any) -> Iterator[Any]:
    """``value`` and every value nested in it."""
    yield value
    if isinstance(value, dict):
        for item in value.values():
            yield from _values(item)
    elif isinstance(value, list):
        for item in value:
            yield from _values(item)


try:
    _SUITE = locate_suite()
except SuiteUnavailable:
    _SUITE = None


@pytest.mark.skipif(_SUITE is None, reason="JSON-Schema-Test-Suite unavailable")
@pytest.mark.parametrize("name", FLAT)
def test_both_agree_on_every_value_of_the_suite(name: str) -> None:
    # Every schema and instance of every draft's cases, and every value inside them:
    # schemas of every kind, valid and not, and arbitrary JSON.
    assert _SUITE is not None
    fast, published = pipeline._meta_for(dialects.by_name(name) or dialects.DEFAULT)
    checked = invalid = 0
    for case in load_cases(_SUITE.path):
        for value in (*_values(case.schema), *_values(case.data)):
            answer = _answer(fast, value)
            assert answer == _answer(published, value), (case.id, value)
            checked += 1
            invalid += answer is False
    # Both answers occur often: the comparison is not of two constant functions.
    assert checked > 10_000 and invalid > 1_000, (checked, invalid)


_KEYWORDS = sorted(
    {
        name
        for uri in ("https://json-schema.org/draft/2020-12/schema",)
        for name in (flatten(uri, bundled_metaschemas()) or {}).get("properties", {})
    }
    | {"x-other", "$recursiveRef", "dependencies"}
)


def _schema_like(depth: int) -> st.SearchStrategy[Any]:
    leaf = json_values(4)
    if depth == 0:
        return leaf
    below = _schema_like(depth - 1)
    return st.one_of(
        st.booleans(),
        st.dictionaries(st.sampled_from(_KEYWORDS), st.one_of(leaf, below), max_size=4),
        st.dictionaries(
            st.sampled_from(_KEYWORDS),
            st.one_of(
                st.lists(below, max_size=3),
                st.dictionaries(st.sampled_from(["a", "b", "$ref"]), below, max_size=2),
            ),
            max_size=3,
        ),
    )


@settings(max_examples=400, deadline=None)
@given(_schema_like(3))
def test_both_agree_on_generated_schema_like_documents(document: Any) -> None:
    for name in FLAT:
        _agree(name, document)


def _documents() -> dict[str, Any]:
    return copy.deepcopy(bundled_metaschemas())


ROOT = "https://json-schema.org/draft/2020-12/schema"


def _edited(path: str, key: str, value: Any) -> dict[str, Any]:
    documents = _documents()
    documents[path][key] = value
    return documents


@pytest.mark.parametrize(
    "documents",
    [
        # A vocabulary schema asserting more than type and properties.
        _edited("https://json-schema.org/draft/2020-12/meta/validation", "required", ["type"]),
        # Of another type.
        _edited("https://json-schema.org/draft/2020-12/meta/core", "type", "object"),
        # Without the shared anchor: its recursive references would go elsewhere.
        _edited("https://json-schema.org/draft/2020-12/meta/content", "$dynamicAnchor", "other"),
        # A branch that is not a plain reference.
        _edited(ROOT, "allOf", [{"$ref": "meta/core", "type": "object"}]),
        # A reference to a document that is not merged.
        _edited(ROOT, "allOf", [{"$ref": "meta/nowhere"}]),
        # Two documents defining one $defs name differently.
        _edited(
            "https://json-schema.org/draft/2020-12/meta/core",
            "$defs",
            {"stringArray": {"type": "string"}},
        ),
    ],
)
def test_a_meta_schema_of_another_form_is_not_flattened(documents: dict[str, Any]) -> None:
    assert flatten(ROOT, documents) is None


def test_a_reference_outside_the_merged_documents_is_not_flattened() -> None:
    documents = _documents()
    applicator = documents["https://json-schema.org/draft/2020-12/meta/applicator"]
    applicator["properties"]["not"] = {"$ref": "https://example.com/elsewhere"}
    assert flatten(ROOT, documents) is None


def test_a_name_two_documents_declare_gets_both_subschemas() -> None:
    documents = _documents()
    documents["https://json-schema.org/draft/2020-12/meta/content"]["properties"]["title"] = {
        "maxLength": 3
    }
    flat = flatten(ROOT, documents)
    assert flat is not None
    assert flat["properties"]["title"] == {"allOf": [{"type": "string"}, {"maxLength": 3}]}
