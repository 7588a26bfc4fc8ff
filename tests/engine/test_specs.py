"""The keyword specs and every table derived from them agree, mechanically.

A keyword is one :class:`~schemacore.spec.Spec`; the dialect tables, the resource
index's subschema positions, the evaluation walk and the generated-code emitters all
read it. These tests fail when a spec is incomplete or a table forgets one: a new
keyword that the walk cannot evaluate, a shape that does not match where its
compiler puts subschemas, a vocabulary that disagrees with the published
meta-schemas.
"""

from __future__ import annotations

from typing import Any

import pytest

import schemacore
from schemacore import dialects
from schemacore.codegen import EMITTERS
from schemacore.dialect import Dialect
from schemacore.evaluation import HANDLERS
from schemacore.resources import bundled_metaschemas
from schemacore.spec import Role, Shape, Spec

DIALECTS = {dialect.name: dialect for dialect in dialects.DIALECTS}
ALL_SPECS = {spec for d in dialects.DIALECTS for spec, _ in d.keywords.values()}


def _specs(dialect: Dialect) -> list[Spec]:
    return [spec for spec, _ in dialect.keywords.values()]


@pytest.mark.parametrize("name", DIALECTS)
def test_every_applicator_has_an_evaluation_walk(name: str) -> None:
    missing = [
        s.name for s in _specs(DIALECTS[name]) if s.role is Role.APPLICATOR and s not in HANDLERS
    ]
    assert not missing, f"evaluation.HANDLERS lacks {missing}"


def test_every_handler_and_emitter_serves_a_spec_of_some_dialect() -> None:
    assert set(HANDLERS) <= ALL_SPECS
    assert set(EMITTERS) <= ALL_SPECS
    assert all(spec.role is Role.APPLICATOR for spec in HANDLERS)


@pytest.mark.parametrize("name", DIALECTS)
def test_parts_and_continuations_name_keywords_of_their_dialect(name: str) -> None:
    dialect = DIALECTS[name]
    for spec in _specs(dialect):
        if spec.role is Role.PART:
            assert spec.part_of in dialect.keywords, spec
            assert spec.compile is None, spec
        if spec.continues is not None:
            assert dialect.keywords[spec.continues][0].shape is Shape.ONE_OR_LIST, spec
        if spec.compile is None:
            assert spec.role is not Role.APPLICATOR or spec.reference, spec


@pytest.mark.parametrize("name", DIALECTS)
def test_keyword_names_are_the_table_keys(name: str) -> None:
    for keyword, (spec, _) in DIALECTS[name].keywords.items():
        assert spec.name == keyword


def _sample(spec: Spec, form: str) -> Any:
    sub = {"minLength": 1}
    if spec.shape is Shape.ONE or (spec.shape is Shape.ONE_OR_LIST and form == "one"):
        return sub
    if spec.shape in (Shape.LIST, Shape.ONE_OR_LIST):
        return [sub, sub]
    return {"a": sub, "b": sub}


def _cases() -> list[Any]:
    cases = []
    for dialect in dialects.DIALECTS:
        for keyword, (spec, _) in dialect.keywords.items():
            if spec.shape is Shape.NONE or spec.compile is None:
                continue
            forms = ["one", "list"] if spec.shape is Shape.ONE_OR_LIST else ["one"]
            for form in forms:
                cases.append(
                    pytest.param(dialect.name, keyword, form, id=f"{dialect.name}-{keyword}-{form}")
                )
    return cases


# Siblings a keyword needs to apply at all (content applies only to JSON media types).
_NEEDS = {
    "contentSchema": {"contentMediaType": "application/json"},
    "additionalItems": {"items": [{}]},
}


@pytest.mark.parametrize(("name", "keyword", "form"), _cases())
def test_shape_matches_where_the_compiler_puts_subschemas(
    name: str, keyword: str, form: str
) -> None:
    dialect = DIALECTS[name]
    spec = dialect.keywords[keyword][0]
    schema: dict[str, Any] = {
        "$schema": dialect.uri,
        **_NEEDS.get(keyword, {}),
        keyword: _sample(spec, form),
    }
    validator = schemacore.Validator(schema, _check_schema=False)
    node = validator._node
    own = [tokens for tokens in node.children if tokens[0] == keyword]
    assert own, f"{keyword} compiled no subschema"
    if spec.shape is Shape.ONE or (spec.shape is Shape.ONE_OR_LIST and form == "one"):
        assert own == [(keyword,)]
    elif spec.shape is Shape.MAP:
        assert sorted(own) == [(keyword, "a"), (keyword, "b")]
    else:
        assert sorted(own) == [(keyword, 0), (keyword, 1)]
    # The index walks exactly those positions: an $anchor there resolves.
    anchored = {"$schema": dialect.uri, **_NEEDS.get(keyword, {})}
    if "$anchor" in dialect.keywords:
        value = _sample(spec, form)
        first = value if isinstance(value, dict) and "minLength" in value else None
        if first is None:
            first = value[0] if isinstance(value, list) else value["a"]
        first = dict(first, **{"$anchor": "here"})
        if isinstance(value, list):
            value = [first, *value[1:]]
        elif "minLength" in value:
            value = first
        else:
            value = {**value, "a": first}
        anchored[keyword] = value
        anchored["$ref"] = "#here"
        assert not schemacore.Validator(anchored, _check_schema=False).is_valid("")


@pytest.mark.parametrize("name", DIALECTS)
def test_compiled_keywords_apply_to_the_type_their_spec_says(name: str) -> None:
    dialect = DIALECTS[name]
    samples = {
        "type": "string",
        "const": 1,
        "enum": [1],
        "required": ["a"],
        "pattern": "a",
        "format": "email",
    }
    checked: set[str] = set()
    for keyword, (spec, _) in dialect.keywords.items():
        if spec.compile is None or spec.shape is not Shape.NONE or spec.reference:
            continue
        value = samples.get(keyword, True if keyword == "uniqueItems" else 1)
        if keyword == "dependentRequired":
            value = {"a": ["b"]}
        validator = schemacore.Validator(
            {"$schema": dialect.uri, keyword: value},
            _check_schema=False,
            format_assertion=True,
            content_assertion=True,
        )
        compiled = validator._node.keywords.get(keyword)
        if compiled is None:
            continue  # no run-time work for this value (contentEncoding: 1, say)
        assert compiled.spec is spec
        assert compiled.applies_to == spec.applies_to, keyword
        checked.add(keyword)
    # The walk is not vacuous: the assertions of every draft were compiled and seen.
    expected = {"maximum", "minLength", "maxItems", "required", "pattern", "enum", "format"}
    assert expected <= checked, expected - checked


# Which vocabulary meta-schema lists each keyword (2019-09 and 2020-12).
@pytest.mark.parametrize("name", ["2020-12", "2019-09"])
def test_vocabularies_agree_with_the_published_meta_schemas(name: str) -> None:
    dialect = DIALECTS[name]
    bundled = bundled_metaschemas()
    prefix = dialect.uri.removesuffix("schema")
    by_vocabulary: dict[str, set[str]] = {}
    for keyword, (_, vocabulary) in dialect.keywords.items():
        if vocabulary is not None:
            by_vocabulary.setdefault(vocabulary, set()).add(keyword)
    for vocabulary, keywords in by_vocabulary.items():
        short = vocabulary.rsplit("/", 1)[1]
        meta = bundled[f"{prefix}meta/{short}"]
        listed = set(meta.get("properties", {}))
        # The deprecated keywords the top meta-schema keeps ("dependencies") are in no
        # vocabulary meta-schema; unevaluated* sit in the applicator one in 2019-09.
        assert keywords - {"dependencies"} == listed, vocabulary


# Keywords each draft's specification defines that its meta-schema does not list:
# draft-07's meta-schema has readOnly but not writeOnly; draft-04's lists no $ref.
_UNLISTED = {"draft-07": {"writeOnly"}, "draft-06": set(), "draft-04": {"$ref"}}


@pytest.mark.parametrize("name", ["draft-07", "draft-06", "draft-04"])
def test_older_drafts_agree_with_their_meta_schema(name: str) -> None:
    dialect = DIALECTS[name]
    meta = bundled_metaschemas()[dialect.uri]
    assert set(dialect.keywords) - _UNLISTED[name] == set(meta["properties"])
