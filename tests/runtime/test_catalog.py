"""Catalog admission: strict and quarantine modes, diagnostics, authority, views."""

from __future__ import annotations

import copy
import dataclasses
import json
import pickle
from typing import Any

import pytest

import schemacore
from schemacore.runtime import (
    AdmissionRejected,
    AdmittedBundle,
    Authority,
    BoundaryError,
    BoundaryLimits,
    CatalogCheckpoint,
    CatalogEvent,
    Diagnostic,
    ToolCatalog,
    ToolDescriptor,
    tools_from_listing,
)

DRAFT_07 = "http://json-schema.org/draft-07/schema#"


def tool(name: str, schema: Any = None, **extra: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": name, "description": f"The {name} tool."}
    entry["inputSchema"] = (
        schema
        if schema is not None
        else {
            "type": "object",
            "properties": {"q": {"type": "string"}},
        }
    )
    entry.update(extra)
    return entry


def draft07(name: str) -> dict[str, Any]:
    return tool(name, {"$schema": DRAFT_07, "type": "object"})


AUTHORITY = Authority(
    caller="user-1",
    run="run-9",
    grants={"search": {"scope": "read"}, "legacy": {"scope": "read"}, "other": {}},
    attributes={"tenant": "acme", "budgetCents": 500},
)


def rejected(catalog: ToolCatalog, tools: Any, **kwargs: Any) -> AdmissionRejected:
    with pytest.raises(AdmissionRejected) as info:
        catalog.admit_batch(tools, **kwargs)
    return info.value


def summary(diagnostics: tuple[Diagnostic, ...]) -> list[tuple[Any, ...]]:
    return [(d.index, d.tool, d.field, d.error_class, d.code) for d in diagnostics]


def test_admits_a_healthy_batch() -> None:
    tools = [tool("search"), tool("fetch", outputSchema={"type": "array"})]
    before = copy.deepcopy(tools)
    bundle = ToolCatalog().admit_batch(tools, authority=AUTHORITY)
    assert isinstance(bundle, AdmittedBundle)
    assert bundle.accepted == ("search", "fetch")
    assert list(bundle.registry) == ["search", "fetch"]
    assert bundle.tools[0] is tools[0] and bundle.tools[1] is tools[1]
    assert bundle.registry["fetch"].output is not None
    assert bundle.registry["search"].input.schema is tools[0]["inputSchema"]
    assert bundle.rejected == () and bundle.mode == "strict"
    assert tools == before
    assert bundle.authority is not None
    assert dict(bundle.authority.grants) == {"search": {"scope": "read"}}
    assert (bundle.authority.caller, bundle.authority.run) == ("user-1", "run-9")
    assert bundle.authority.attributes == AUTHORITY.attributes
    assert len(AUTHORITY.grants) == 3  # the caller's authority is not mutated
    with pytest.raises(TypeError):
        bundle.registry["x"] = bundle.registry["search"]  # type: ignore[index]


def test_accepts_an_mcp_tools_list_result() -> None:
    listing = {"tools": [tool("search")], "nextCursor": None}
    assert ToolCatalog().admit_batch(listing).accepted == ("search",)
    assert tools_from_listing({"jsonrpc": "2.0", "id": 1, "result": listing}) == listing["tools"]
    error = rejected(ToolCatalog(), {"tool": []})
    assert summary(error.rejected) == [(None, None, "", "validation", "catalog-invalid")]


def test_strict_rejects_the_batch_with_every_diagnostic_in_order() -> None:
    tools = [
        tool("search"),
        draft07("legacy"),
        tool("broken", {"type": "object", "properties": {"a": {"pattern": "[a-"}}}),
        tool("search"),
        tool("out", outputSchema={"$schema": DRAFT_07}),
    ]
    error = rejected(ToolCatalog(), tools, authority=AUTHORITY)
    assert summary(error.rejected) == [
        (1, "legacy", "inputSchema", "unsupported_capability", "schema-dialect-unsupported"),
        (2, "broken", "inputSchema", "validation", "schema-pattern-invalid"),
        (3, "search", "name", "validation", "tool-name-duplicate"),
        (4, "out", "outputSchema", "unsupported_capability", "schema-dialect-unsupported"),
    ]
    assert error.rejected[1].error.path == "/properties/a/pattern"
    assert error.mode == "strict"
    assert all(d.revision and d.revision.startswith("sha256:") for d in error.rejected)


def test_quarantine_omits_only_unsupported_capability_tools() -> None:
    tools = [draft07("legacy"), tool("search"), tool("out", outputSchema={"$schema": DRAFT_07})]
    bundle = ToolCatalog().admit_batch(tools, mode="quarantine", authority=AUTHORITY)
    assert bundle.accepted == ("search",)
    assert bundle.tools == (tools[1],)
    assert summary(bundle.rejected) == [
        (0, "legacy", "inputSchema", "unsupported_capability", "schema-dialect-unsupported"),
        (2, "out", "outputSchema", "unsupported_capability", "schema-dialect-unsupported"),
    ]
    assert bundle.authority is not None
    assert dict(bundle.authority.grants) == {"search": {"scope": "read"}}  # legacy's removed
    assert bundle.authority.attributes == {"tenant": "acme", "budgetCents": 500}


@pytest.mark.parametrize(
    ("bad", "field", "code"),
    [
        (tool("x", {"type": "array"}), "inputSchema", "input-schema-root-not-object"),
        (
            tool("x", {"type": "object", "$ref": "https://e.com/s"}),
            "inputSchema",
            "schema-ref-unresolved",
        ),
        (
            tool("x", {"type": "object", "pattern": "(?P<n>)"}),
            "inputSchema",
            "schema-pattern-invalid",
        ),
        (tool("x", {"type": "object", "minimum": "1"}), "inputSchema", "schema-invalid"),
        ({"name": "bad name!", "inputSchema": {"type": "object"}}, "", "tool-name-invalid"),
        ({"name": "x"}, "", "tool-input-schema-missing"),
        ({"name": "x", "inputSchema": None}, "", "tool-input-schema-missing"),
        (tool("x", description=3), "", "tool-metadata-invalid"),
        (tool("x", annotations={"readOnlyHint": "yes"}), "", "tool-metadata-invalid"),
        (tool("x", title=5), "", "tool-metadata-invalid"),
        ("not a tool", "", "tool-not-object"),
        (tool("search"), "name", "tool-name-duplicate"),
    ],
)
def test_quarantine_keeps_every_other_error_fatal(bad: Any, field: str, code: str) -> None:
    tools = [tool("search"), draft07("legacy"), bad]
    error = rejected(ToolCatalog(), tools, mode="quarantine")
    assert error.mode == "quarantine"
    assert [(d.index, d.field, d.code) for d in error.rejected] == [
        (1, "inputSchema", "schema-dialect-unsupported"),
        (2, field, code),
    ]


def test_a_tool_with_an_unsupported_and_a_fatal_problem_is_fatal() -> None:
    mixed = tool("mixed", {"$schema": DRAFT_07}, outputSchema={"type": "nope"})
    error = rejected(ToolCatalog(), [mixed], mode="quarantine")
    assert [(d.field, d.code) for d in error.rejected] == [
        ("inputSchema", "schema-dialect-unsupported"),
        ("outputSchema", "schema-invalid"),
    ]


def test_limits_are_fatal_in_quarantine() -> None:
    catalog = ToolCatalog(boundary_limits=BoundaryLimits(max_schema_depth=3))
    deep = tool("deep", {"type": "object", "properties": {"a": {"items": {"items": {}}}}})
    error = rejected(catalog, [deep], mode="quarantine")
    assert summary(error.rejected) == [
        (0, "deep", "inputSchema", "execution_failure", "schema-too-deep")
    ]
    engine = ToolCatalog(limits=schemacore.Limits(max_subschemas=1))
    error = rejected(engine, [tool("search")], mode="quarantine")
    assert error.rejected[0].code == "schema-limit-exceeded"


def test_backends() -> None:
    catalog = ToolCatalog(backends={"github"})
    good = ToolDescriptor.from_mcp(tool("search"), backend="github")
    stray = ToolDescriptor.from_mcp(tool("fetch"), backend="gitlab")
    assert catalog.admit_batch([good]).registry["search"].descriptor.backend == "github"
    error = rejected(catalog, [good, stray], mode="quarantine")
    assert summary(error.rejected) == [
        (1, "fetch", "backend", "validation", "tool-backend-unknown")
    ]
    error = rejected(catalog, [tool("plain")])
    assert error.rejected[0].code == "tool-backend-unknown"


def test_authority_errors_are_fatal() -> None:
    bad = Authority(caller="u", run="r", grants={1: "x"})  # type: ignore[dict-item]
    error = rejected(ToolCatalog(), [tool("search")], mode="quarantine", authority=bad)
    assert summary(error.rejected) == [(None, None, "authority", "validation", "authority-invalid")]
    error = rejected(ToolCatalog(), [], authority={"caller": "u"})
    assert error.rejected[0].code == "authority-invalid"


def test_empty_and_fully_quarantined_batches_are_empty() -> None:
    for tools, mode in (([], "strict"), ([], "quarantine"), ([draft07("legacy")], "quarantine")):
        bundle = ToolCatalog().admit_batch(tools, mode=mode, authority=AUTHORITY)  # type: ignore[arg-type]
        assert (bundle.accepted, bundle.tools, dict(bundle.registry)) == ((), (), {})
        assert bundle.authority is not None and dict(bundle.authority.grants) == {}
        assert bundle.authority.caller == "user-1"
    assert ToolCatalog().admit_batch([]).authority is None


def test_order_of_checks_per_tool() -> None:
    # Metadata first: a bad name stops the other checks of that tool.
    nameless = {"name": "", "inputSchema": {"$schema": DRAFT_07}}
    assert [d.code for d in rejected(ToolCatalog(), [nameless]).rejected] == ["tool-name-invalid"]
    # Then duplicate name, backend, input schema, output schema.
    twin = ToolDescriptor.from_mcp(
        tool("a", {"type": "array"}, outputSchema={"$schema": DRAFT_07}), backend="elsewhere"
    )
    first = ToolDescriptor.from_mcp(tool("a"), backend="home")
    error = rejected(ToolCatalog(backends={"home"}), [first, twin])
    assert [(d.field, d.code) for d in error.rejected] == [
        ("name", "tool-name-duplicate"),
        ("backend", "tool-backend-unknown"),
        ("inputSchema", "input-schema-root-not-object"),
        ("outputSchema", "schema-dialect-unsupported"),
    ]


def test_unknown_mode() -> None:
    with pytest.raises(ValueError):
        ToolCatalog().admit_batch([], mode="lenient")  # type: ignore[arg-type]


def test_descriptor_from_mcp() -> None:
    entry = tool("search", title="Search", annotations={"readOnlyHint": True})
    descriptor = ToolDescriptor.from_mcp(entry, backend="github")
    assert (descriptor.name, descriptor.title, descriptor.backend) == ("search", "Search", "github")
    assert descriptor.input_schema is entry["inputSchema"]
    assert descriptor.to_mcp() is entry
    assert descriptor.revision == ToolDescriptor.from_mcp(copy.deepcopy(entry)).revision
    changed = copy.deepcopy(entry)
    changed["description"] = "else"
    assert ToolDescriptor.from_mcp(changed).revision != descriptor.revision
    assert ToolDescriptor.from_mcp(entry, revision="r7").revision == "r7"
    built = ToolDescriptor(name="t", input_schema={"type": "object"}, description="d")
    assert built.to_mcp() == {"name": "t", "description": "d", "inputSchema": {"type": "object"}}
    assert built.revision.startswith("sha256:")
    with pytest.raises(BoundaryError) as info:
        ToolDescriptor.from_mcp({"name": "x" * 129, "inputSchema": {}})
    assert (info.value.code, info.value.path) == ("tool-name-invalid", "/name")
    with pytest.raises(BoundaryError) as info:
        ToolDescriptor.from_mcp(tool("x", annotations={"title": 1}))
    assert info.value.path == "/annotations/title"


# -- diagnostics are trusted-host data ---------------------------------------------------------

SENTINEL = "SENTINEL-7f3a9c"


def test_model_subscriber_and_checkpoint_views_cannot_carry_diagnostics() -> None:
    legacy = tool("legacy", {"$schema": DRAFT_07, "description": SENTINEL})
    legacy["description"] = SENTINEL
    bundle = ToolCatalog().admit_batch(
        [legacy, tool("search")], mode="quarantine", authority=AUTHORITY
    )
    assert bundle.rejected and bundle.rejected[0].tool == "legacy"

    event, checkpoint = bundle.event(), bundle.checkpoint()
    assert event == CatalogEvent(("search",), (bundle.registry["search"].descriptor.revision,))
    assert checkpoint.granted == ("search",)
    for view in (bundle.tools, event, checkpoint):
        text = repr(view) + json.dumps(
            view if isinstance(view, tuple) else dataclasses.asdict(view), default=str
        )
        assert SENTINEL not in text and "legacy" not in text
        assert SENTINEL.encode() not in pickle.dumps(view)

    for view_type in (CatalogEvent, CatalogCheckpoint):
        names = {f.name for f in dataclasses.fields(view_type)}
        assert names.isdisjoint({"rejected", "diagnostics", "error", "errors"})
        with pytest.raises(TypeError):
            view_type(*([(bundle.rejected[0],)] * len(names)))  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        CatalogEvent(("x",), (bundle.rejected[0].error,))  # type: ignore[arg-type]


def test_diagnostic_serialises() -> None:
    error = rejected(ToolCatalog(), [draft07("legacy")])
    (diagnostic,) = error.rejected
    assert diagnostic.to_dict() == {
        "index": 0,
        "tool": "legacy",
        "revision": diagnostic.revision,
        "field": "inputSchema",
        "error": {
            "errorClass": "unsupported_capability",
            "code": "schema-dialect-unsupported",
            "path": "/$schema",
            "message": diagnostic.error.message,
        },
    }
    assert "1 diagnostic(s) for 1 tool(s): schema-dialect-unsupported" in str(error)


# -- descriptors given directly get the same metadata checks -------------------------------------


@pytest.mark.parametrize(
    ("fields", "code", "path"),
    [
        ({"name": "bad name!"}, "tool-name-invalid", "/name"),
        ({"name": None}, "tool-name-invalid", "/name"),
        ({"name": ""}, "tool-name-invalid", "/name"),
        ({"name": ["x"]}, "tool-name-invalid", "/name"),
        ({"name": "x" * 129}, "tool-name-invalid", "/name"),
        ({"description": 5}, "tool-metadata-invalid", "/description"),
        ({"title": ["t"]}, "tool-metadata-invalid", "/title"),
        ({"annotations": []}, "tool-metadata-invalid", "/annotations"),
        (
            {"annotations": {"readOnlyHint": "yes"}},
            "tool-metadata-invalid",
            "/annotations/readOnlyHint",
        ),
        ({"input_schema": None}, "tool-input-schema-missing", "/inputSchema"),
        ({"backend": ["github"]}, "tool-metadata-invalid", ""),
        ({"revision": 7}, "tool-metadata-invalid", ""),
        (
            {"mcp": {"name": "other", "inputSchema": {"type": "object"}}},
            "tool-metadata-invalid",
            "/name",
        ),
        (
            {"mcp": {"name": "t", "inputSchema": {"type": "string"}}},
            "tool-metadata-invalid",
            "/inputSchema",
        ),
        ({"mcp": {"name": "bad name!", "inputSchema": {}}}, "tool-name-invalid", "/name"),
        ({"mcp": ["t"]}, "tool-not-object", ""),
    ],
)
def test_descriptors_passed_directly_get_the_metadata_checks(
    fields: dict[str, Any], code: str, path: str
) -> None:
    values: dict[str, Any] = {"name": "t", "input_schema": {"type": "object"}, **fields}
    descriptor = ToolDescriptor(**values)
    for mode in ("strict", "quarantine"):
        error = rejected(ToolCatalog(), [tool("search"), descriptor], mode=mode)
        (diagnostic,) = error.rejected
        assert (diagnostic.index, diagnostic.field, diagnostic.error_class) == (1, "", "validation")
        assert (diagnostic.code, diagnostic.error.path) == (code, path)
        if code == "tool-name-invalid" and "name" in fields:
            assert diagnostic.tool is None


def test_well_formed_descriptors_are_admitted() -> None:
    schema = {"type": "object"}
    built = ToolDescriptor(
        name="t",
        input_schema=schema,
        description="d",
        annotations={"readOnlyHint": True},
        backend="github",
    )
    entry = tool("search")
    listed = ToolDescriptor(name="search", input_schema=entry["inputSchema"], mcp=entry)
    bundle = ToolCatalog().admit_batch([built, listed, ToolDescriptor.from_mcp(tool("fetch"))])
    assert bundle.accepted == ("t", "search", "fetch")
    assert bundle.tools[1] is entry
