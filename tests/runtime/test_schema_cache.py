"""Admission compiles each schema content once (runtime.schemacache)."""

from __future__ import annotations

import copy
import threading
from decimal import Decimal
from typing import Any

import pytest

import schemacore
from schemacore.runtime import BoundaryError, toolschema, validate_schema
from schemacore.runtime.schemacache import ContentCache, schema_text

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"q": {"type": "string", "maxLength": 3}, "n": {"type": "integer"}},
    "required": ["q"],
}


@pytest.fixture(autouse=True)
def _fresh_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(toolschema, "COMPILED", ContentCache())


def test_equal_schemas_share_one_compiled_validator() -> None:
    first = validate_schema(copy.deepcopy(SCHEMA))
    second = validate_schema(copy.deepcopy(SCHEMA))
    assert first.validator is second.validator
    assert first.schema is not second.schema  # each keeps its caller's object
    assert len(toolschema.COMPILED) == 1


def test_options_and_content_are_part_of_the_key() -> None:
    plain = validate_schema(SCHEMA)
    assert validate_schema(SCHEMA, format_assertion=True).validator is not plain.validator
    limited = validate_schema(SCHEMA, limits=schemacore.Limits(max_subschemas=50))
    assert limited.validator is not plain.validator
    # 1 and 1.0 mean different things to draft-04; key order is kept too.
    assert schema_text({"minimum": 1}) != schema_text({"minimum": 1.0})
    assert schema_text({"a": 1, "b": 2}) != schema_text({"b": 2, "a": 1})
    other = validate_schema({**SCHEMA, "required": ["n"]})
    assert other.validator is not plain.validator
    assert not other.validator.is_valid({"q": "a"})
    assert plain.validator.is_valid({"q": "a"})


def test_changing_an_admitted_schema_changes_no_validator() -> None:
    mine = copy.deepcopy(SCHEMA)
    tool = validate_schema(mine)
    mine["properties"]["q"]["maxLength"] = 100
    mine["required"].append("n")
    again = validate_schema(copy.deepcopy(SCHEMA))
    assert again.validator is tool.validator
    tool.validator._promote()  # generated code reads the schema it was built from
    assert tool.validator.is_valid({"q": "abc"})
    assert not tool.validator.is_valid({"q": "abcd"})
    # The changed schema is a new content: compiled anew, with its own meaning.
    changed = validate_schema(mine)
    assert changed.validator is not tool.validator
    assert not changed.validator.is_valid({"q": "abcd"})


def test_refusals_are_never_cached() -> None:
    bad = {"type": "object", "properties": {"p": {"pattern": "("}}}
    for _ in range(2):
        with pytest.raises(BoundaryError) as caught:
            validate_schema(bad)
        assert caught.value.code == "schema-pattern-invalid"
    assert len(toolschema.COMPILED) == 0


def test_without_a_text_key_nothing_is_cached() -> None:
    # A Decimal would read back as a float; a registry or loader may change.
    tool = validate_schema({"type": "object", "properties": {"n": {"maximum": Decimal("1.5")}}})
    assert tool.validator.is_valid({"n": Decimal("1.5")})
    validate_schema(SCHEMA, registry={"urn:x": {"type": "string"}})
    validate_schema(SCHEMA, loader=lambda uri: {})
    assert len(toolschema.COMPILED) == 0


def test_the_cache_is_bounded_by_entries_and_text() -> None:
    cache = ContentCache(max_entries=3, max_chars=10_000)
    for n in range(10):
        assert cache.get_or_build(f'{{"n":{n}}}', (), lambda copy: copy["n"]) == n
        assert len(cache) <= 3
    big = '{"t":"' + "x" * 20_000 + '"}'
    assert cache.get_or_build(big, (), lambda copy: len(copy["t"])) == 20_000
    assert (big, ()) not in cache._entries  # larger than the whole budget
    small = ContentCache(max_entries=100, max_chars=40)
    for n in range(10):
        small.get_or_build(f'{{"name":"{n:08}"}}', (), lambda copy: copy)
    assert small._chars <= 40


def test_the_least_recently_used_entry_goes_first() -> None:
    cache = ContentCache(max_entries=2)
    built: list[str] = []

    def build(copy: Any) -> str:
        built.append(copy["k"])
        return str(copy["k"])

    cache.get_or_build('{"k":"a"}', (), build)
    cache.get_or_build('{"k":"b"}', (), build)
    cache.get_or_build('{"k":"a"}', (), build)  # a is used again
    cache.get_or_build('{"k":"c"}', (), build)  # so b goes
    cache.get_or_build('{"k":"a"}', (), build)
    assert built == ["a", "b", "c"]


def test_threads_admitting_one_schema_agree() -> None:
    results: list[Any] = []

    def admit() -> None:
        results.append(validate_schema(copy.deepcopy(SCHEMA)).validator)

    threads = [threading.Thread(target=admit) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 8
    assert all(v.is_valid({"q": "a"}) and not v.is_valid({}) for v in results)
    assert len(toolschema.COMPILED) == 1


def test_every_admission_checks_the_dialects_again() -> None:
    # The checks before compiling run on every admission, cached or not: a nested
    # draft-07 resource is refused each time, and a property named "$schema" (a
    # name, not a declaration) is admitted each time.
    nested = {
        "type": "object",
        "properties": {"a": {"$id": "urn:a", "$schema": "http://json-schema.org/draft-07/schema#"}},
    }
    for _ in range(2):
        with pytest.raises(BoundaryError) as caught:
            validate_schema(nested)
        assert caught.value.code == "schema-dialect-unsupported"
        assert caught.value.path == "/properties/a/$schema"
    named = {"type": "object", "properties": {"$schema": {"type": "string"}}}
    for _ in range(2):
        assert validate_schema(named).validator.is_valid({"$schema": "x"})
    allowed = validate_schema(nested, dialects=("2020-12", "draft-07"))
    assert allowed.validator.is_valid({"a": 1})
