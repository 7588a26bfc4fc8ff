"""``dialects=``: which declared dialects admission hands to the engine."""

from __future__ import annotations

from typing import Any

import pytest

import schemacore
from schemacore.runtime import BoundaryError, ToolCatalog, validate_schema
from schemacore.runtime import toolschema as toolschema_module
from schemacore.runtime.dialects import DIALECT_URIS, dialect_name, parse_dialects

from .test_catalog import DRAFT_07, draft07, tool


@pytest.mark.parametrize(
    ("given", "names"),
    [
        (("2020-12",), {"2020-12"}),
        (["2020-12", "draft-07"], {"2020-12", "draft-07"}),
        (
            ("https://json-schema.org/draft/2020-12/schema#", DRAFT_07),
            {"2020-12", "draft-07"},
        ),
        (("2020-12", "https://json-schema.org/draft-07/schema"), {"2020-12", "draft-07"}),
        (
            ("2020-12", "2019-09", "draft-06", "draft-04"),
            {"2020-12", "2019-09", "draft-06", "draft-04"},
        ),
    ],
)
def test_dialects_are_named_by_short_name_or_uri(given: Any, names: set[str]) -> None:
    assert parse_dialects(given) == names


@pytest.mark.parametrize(
    ("given", "error"),
    [
        ("2020-12", TypeError),
        (("2020-12", 7), TypeError),
        (7, TypeError),
        (("2020-12", "draft-05"), ValueError),
        (("2020-12", "https://example.com/my-dialect"), ValueError),
    ],
)
def test_bad_dialect_lists_get_a_clear_error(given: Any, error: type[Exception]) -> None:
    with pytest.raises(error):
        parse_dialects(given)
    with pytest.raises(error):
        validate_schema({"type": "object"}, dialects=given)
    with pytest.raises(error):
        ToolCatalog(dialects=given)
    with pytest.raises(error):
        ToolCatalog().admit_batch([tool("a")], dialects=given)


@pytest.mark.parametrize(
    ("given", "names"),
    [
        ((), {"2020-12"}),
        (("draft-07",), {"2020-12", "draft-07"}),
        ((DRAFT_07, "2019-09"), {"2020-12", "draft-07", "2019-09"}),
    ],
)
def test_2020_12_is_admitted_whether_listed_or_not(given: Any, names: set[str]) -> None:
    # It is the dialect of every schema that declares none: a list without it
    # means the drafts it names, besides 2020-12.
    assert parse_dialects(given) == names
    catalog = ToolCatalog(dialects=given)
    bundle = catalog.admit_batch([tool("plain"), draft07("legacy")], mode="isolate")
    admitted = ("plain", "legacy") if "draft-07" in names else ("plain",)
    assert bundle.accepted == admitted
    assert validate_schema({"type": "object"}, dialects=given) is not None


@pytest.mark.parametrize(
    ("declared", "dialects", "admitted", "how"),
    [
        (DRAFT_07, ("2020-12",), "only JSON Schema Draft 2020-12 is admitted here", "draft-07"),
        (
            "https://json-schema.org/draft-07/schema",
            ("draft-06",),
            "the dialects admitted here are 2020-12, draft-06",
            "draft-07",
        ),
        ("http://json-schema.org/draft-04/schema", (), "only JSON Schema", "draft-04"),
        ("https://json-schema.org/draft/2019-09/schema#", (), "only JSON Schema", "2019-09"),
    ],
)
def test_a_draft_that_is_not_listed_is_refused_naming_how_to_admit_it(
    declared: str, dialects: tuple[str, ...], admitted: str, how: str
) -> None:
    with pytest.raises(BoundaryError) as caught:
        validate_schema({"$schema": declared, "type": "object"}, dialects=dialects)
    message = caught.value.message
    assert admitted in message
    assert message.endswith(f'; list "{how}" in dialects= to admit it under its own rules')
    # Value-safe: the draft is named from the runtime's table, never as declared.
    assert declared not in message and "json-schema.org" not in message
    # And listing it as the message says admits it.
    assert validate_schema({"$schema": declared, "type": "object"}, dialects=(how,))


def test_a_draft_no_list_admits_is_refused_without_that_advice() -> None:
    with pytest.raises(BoundaryError) as caught:
        validate_schema(
            {"$schema": "http://json-schema.org/draft-03/schema#", "type": "object"},
            dialects=("draft-04", "draft-06", "draft-07", "2019-09"),
        )
    assert caught.value.code == "schema-dialect-unsupported"
    assert caught.value.message.endswith("; no dialects= admits it")


def test_every_spelling_of_a_meta_schema_is_recognised() -> None:
    for name, uri in DIALECT_URIS.items():
        rest = uri.partition("://")[2]
        for spelling in (
            f"http://{rest}",
            f"https://{rest}",
            f"http://{rest}#",
            f"https://{rest}#",
        ):
            assert dialect_name(spelling) == name
    assert dialect_name("http://json-schema.org/draft-07/schema/") is None


def test_a_listed_draft_is_validated_under_its_own_rules() -> None:
    schema = {"$schema": DRAFT_07, "type": "object", "dependencies": {"a": ["b"]}}
    with pytest.raises(BoundaryError) as caught:
        validate_schema(schema, dialects=("2020-12",))
    assert (caught.value.error_class, caught.value.code) == (
        "unsupported_capability",
        "schema-dialect-unsupported",
    )
    assert caught.value.path == "/$schema"
    admitted = validate_schema(schema, dialects=("2020-12", "draft-07"))
    assert admitted is not None
    # Draft-07's own meta-schema judges it: array-form items is valid there.
    tuple_schema = {
        "$schema": DRAFT_07,
        "type": "object",
        "properties": {"pair": {"items": [{"type": "string"}, {"type": "integer"}]}},
    }
    assert validate_schema(tuple_schema, dialects=("2020-12", "draft-07")) is not None


def test_an_unlisted_draft_is_named_with_the_listed_ones() -> None:
    with pytest.raises(BoundaryError) as caught:
        validate_schema(
            {"$schema": "https://json-schema.org/draft/2019-09/schema", "type": "object"},
            dialects=("2020-12", "draft-07"),
        )
    assert caught.value.error_class == "unsupported_capability"
    assert "2020-12, draft-07" in caught.value.message


def _engine_that_reads_draft_07(calls: list[Any]) -> Any:
    real = schemacore.compile

    def compile_(schema: Any, **options: Any) -> schemacore.Validator:
        calls.append(schema)
        if isinstance(schema, dict) and schema.get("$schema") == DRAFT_07:
            # Stands for the engine once it validates draft-07 under its own rules.
            schema = {k: v for k, v in schema.items() if k != "$schema"}
        return real(schema, **options)

    return compile_


def test_listing_a_draft_admits_it_as_soon_as_the_engine_can(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[Any] = []
    monkeypatch.setattr(toolschema_module.schemacore, "compile", _engine_that_reads_draft_07(calls))
    tools = [tool("search"), draft07("legacy")]
    bundle = ToolCatalog().admit_batch(tools, mode="isolate", dialects=("draft-07", "2020-12"))
    assert bundle.accepted == ("search", "legacy")
    assert bundle.rejected == ()
    # Unlisted, the runtime refuses it before the engine is asked.
    calls.clear()
    bundle = ToolCatalog().admit_batch(tools, mode="isolate")
    assert bundle.accepted == ("search",)
    assert [d.code for d in bundle.rejected] == ["schema-dialect-unsupported"]
    assert all(schema.get("$schema") != DRAFT_07 for schema in calls)


def test_the_catalogs_dialects_are_the_default_for_its_batches(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(toolschema_module.schemacore, "compile", _engine_that_reads_draft_07([]))
    catalog = ToolCatalog(dialects=("2020-12", "draft-07"))
    assert catalog.admit_batch([draft07("legacy")]).accepted == ("legacy",)
    strict = catalog.admit_batch([draft07("legacy")], mode="isolate", dialects=("2020-12",))
    assert strict.accepted == ()
