"""Isolate mode: every tool with a problem is left out with its own diagnostic, the
tools depending on it follow, and batch-level problems still refuse the batch."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from schemacore.runtime import AdmissionRejected, Authority, ToolCatalog

from .contracts import valid_contract
from .test_catalog import DRAFT_07, draft07, rejected, tool

BROKEN_PATTERN = tool("typo", {"type": "object", "properties": {"q": {"pattern": "(?P<n>"}}})


def test_isolate_leaves_out_each_broken_tool_and_admits_the_rest() -> None:
    tools = [tool("search"), draft07("legacy"), BROKEN_PATTERN, tool("fetch")]
    before = copy.deepcopy(tools)
    bundle = ToolCatalog().admit_batch(tools, mode="isolate")
    assert bundle.mode == "isolate"
    assert bundle.accepted == ("search", "fetch")
    assert [t["name"] for t in bundle.tools] == ["search", "fetch"]
    assert [(d.index, d.tool, d.field, d.error_class, d.code) for d in bundle.rejected] == [
        (1, "legacy", "inputSchema", "unsupported_capability", "schema-dialect-unsupported"),
        (2, "typo", "inputSchema", "validation", "schema-pattern-invalid"),
    ]
    assert tools == before  # nothing the caller passed was changed


def test_strict_and_quarantine_still_refuse_the_same_batch() -> None:
    tools = [tool("search"), draft07("legacy"), BROKEN_PATTERN]
    for mode in ("strict", "quarantine"):
        error = rejected(ToolCatalog(), tools, mode=mode)
        assert error.mode == mode
        assert [d.code for d in error.rejected] == [
            "schema-dialect-unsupported",
            "schema-pattern-invalid",
        ]


@pytest.mark.parametrize(
    "bad",
    [
        "not a tool",
        {"name": "bad name!", "inputSchema": {"type": "object"}},
        {"name": "x", "inputSchema": None},
        tool("x", annotations={"readOnlyHint": "yes"}),
        tool("x", outputSchema={"type": "nope"}),
        tool("x", {"type": "array"}),
        tool("x", {"type": "object", "$ref": "https://e.com/s"}),
    ],
)
def test_isolate_leaves_out_metadata_and_schema_problems(bad: Any) -> None:
    bundle = ToolCatalog().admit_batch([tool("search"), bad], mode="isolate")
    assert bundle.accepted == ("search",)
    assert [d.index for d in bundle.rejected] == [1]


def test_grants_are_narrowed_to_the_isolated_bundle() -> None:
    authority = Authority("u", "r", grants={"search": 1, "legacy": 2})
    bundle = ToolCatalog().admit_batch(
        [tool("search"), draft07("legacy")], mode="isolate", authority=authority
    )
    assert bundle.authority is not None
    assert dict(bundle.authority.grants) == {"search": 1}


@pytest.mark.parametrize(
    ("tools", "kwargs", "code"),
    [
        ([tool("search"), tool("search")], {}, "tool-name-duplicate"),
        ({"no": "tools"}, {}, "catalog-invalid"),
        ([tool("search")], {"contracts": {"absent": valid_contract()}}, "contract-tool-unknown"),
        ([tool("search")], {"authority": "root"}, "authority-invalid"),
    ],
)
def test_batch_level_problems_refuse_the_batch_in_isolate_mode(
    tools: Any, kwargs: dict[str, Any], code: str
) -> None:
    error = rejected(ToolCatalog(), tools, mode="isolate", **kwargs)
    assert error.mode == "isolate"
    assert code in [d.code for d in error.rejected]


def _governed(name: str, tool_id: str, ref: str, schema: Any = None) -> dict[str, Any]:
    contract = valid_contract()
    contract["toolId"] = tool_id
    contract["compensation"]["toolRef"] = ref
    if schema is not None:
        contract["inputSchema"] = schema
    entry = tool(name, contract["inputSchema"], outputSchema=contract["outputSchema"])
    entry["contract"] = contract
    return entry


def _admit(entries: list[dict[str, Any]], mode: Any = "isolate") -> Any:
    contracts = {e["name"]: e.pop("contract") for e in entries if "contract" in e}
    return ToolCatalog().admit_batch(entries, mode=mode, contracts=contracts)


def test_a_tool_whose_compensation_tool_is_left_out_is_left_out_too() -> None:
    legacy = {"$schema": DRAFT_07, "type": "object"}
    charge = _governed("charge", "payments.charge.v2", "payments.refund.v2", legacy)
    refund = _governed("refund", "payments.refund.v2", "payments.charge.v2")
    void = _governed("void", "payments.void.v2", "payments.refund.v2")
    other = _governed("other", "payments.other.v2", "payments.other-undo.v2")
    bundle = _admit([charge, refund, void, other, tool("search")])
    assert bundle.accepted == ("other", "search")
    dependency = [(d.tool, d.field, d.code, d.error.path) for d in bundle.rejected[-2:]]
    assert dependency == [
        ("refund", "contract", "tool-dependency-left-out", "/compensation/toolRef"),
        ("void", "contract", "tool-dependency-left-out", "/compensation/toolRef"),
    ]
    assert bundle.rejected[0].tool == "charge"
    assert "charge" not in [d.tool for d in bundle.rejected[-2:]]


def test_dependents_are_kept_when_their_compensation_tool_is_admitted() -> None:
    charge = _governed("charge", "payments.charge.v2", "payments.refund.v2")
    refund = _governed("refund", "payments.refund.v2", "payments.charge.v2")
    bundle = _admit([charge, refund, draft07("legacy")])
    assert bundle.accepted == ("charge", "refund")
    assert [d.tool for d in bundle.rejected] == ["legacy"]


def test_an_unknown_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="isolate"):
        ToolCatalog().admit_batch([tool("search")], mode="lenient")  # type: ignore[arg-type]


def test_isolate_refuses_nothing_silently() -> None:
    with pytest.raises(AdmissionRejected):
        ToolCatalog().admit_batch([tool("a"), tool("a"), draft07("b")], mode="isolate")
