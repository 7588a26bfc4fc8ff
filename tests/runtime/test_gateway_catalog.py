"""Contracts in catalog admission, catalog replacement, compensation and model routes."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from schemacore import runtime
from schemacore.runtime.gateway import CallRequest, Gateway, GatewayConfigError
from schemacore.runtime.routing import ModelRoute, allowed_routes, catalog_classification
from tests.runtime.gateway_support import (
    SEARCH_SCHEMA,
    Clock,
    Recorder,
    admit,
    book_contract,
    cancel_contract,
    gateway,
    pay_contract,
    search_contract,
)


def _codes(tools: list[Any], **kwargs: Any) -> list[str]:
    with pytest.raises(runtime.AdmissionRejected) as caught:
        runtime.ToolCatalog().admit_batch(tools, **kwargs)
    return [d.code for d in caught.value.rejected]


def test_admission_checks_each_contract_and_its_agreement_with_the_tool() -> None:
    tool = {"name": "search", "inputSchema": copy.deepcopy(SEARCH_SCHEMA)}
    other_schema = search_contract(inputSchema={"type": "object"})
    assert _codes([tool], contracts={"search": other_schema}) == ["contract-schema-mismatch"]
    assert _codes(
        [tool], contracts={"search": search_contract(outputSchema=None, version="x")}
    ) == ["contract-validation-failed"]
    assert _codes([tool], contracts={"nope": search_contract()}) == ["contract-tool-unknown"]
    twin = {"name": "search2", "inputSchema": copy.deepcopy(SEARCH_SCHEMA)}
    same_id = search_contract(outputSchema=None)
    assert _codes([tool, twin], contracts={"search": same_id, "search2": same_id}) == [
        "contract-tool-id-duplicate"
    ]
    bundle = runtime.ToolCatalog().admit_batch(
        [tool], contracts={"search": search_contract(outputSchema=None)}
    )
    contract = bundle.registry["search"].contract
    assert contract is not None and contract.tool_id == "docs.search.v1"


def test_a_descriptor_can_carry_its_contract() -> None:
    envelope = search_contract(outputSchema=None)
    descriptor = runtime.ToolDescriptor.from_mcp(
        {"name": "search", "inputSchema": envelope["inputSchema"]}, contract=envelope
    )
    bundle = runtime.ToolCatalog().admit_batch([descriptor])
    assert bundle.registry["search"].contract is not None


def test_quarantine_omits_a_tool_whose_contract_schema_is_another_draft() -> None:
    draft7 = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"}
    tools = [
        {"name": "old", "inputSchema": draft7},
        {"name": "search", "inputSchema": copy.deepcopy(SEARCH_SCHEMA)},
    ]
    contracts = {
        "old": search_contract(toolId="docs.old.v1", inputSchema=draft7, outputSchema=None),
        "search": search_contract(outputSchema=None),
    }
    bundle = runtime.ToolCatalog().admit_batch(tools, mode="quarantine", contracts=contracts)
    assert bundle.accepted == ("search",)
    assert {d.field for d in bundle.rejected} == {"inputSchema", "contract"}


def test_the_gateway_serves_only_governed_tools_on_known_backends() -> None:
    ungoverned = runtime.ToolCatalog().admit_batch(
        [runtime.ToolDescriptor.from_mcp({"name": "t", "inputSchema": {}}, backend="local")]
    )
    with pytest.raises(GatewayConfigError, match="has no contract"):
        Gateway(ungoverned, backends={"local": object()})  # type: ignore[dict-item]
    with pytest.raises(GatewayConfigError, match="backend"):
        Gateway(admit({"search": search_contract()}), backends={})


def test_replacing_the_catalog_is_atomic_for_a_call_in_flight() -> None:
    old = admit({"search": search_contract()})
    new = admit({"search": search_contract(version="1.1.0")})
    recorder = Recorder()
    gw: Gateway | None = None

    def authorizer(request: CallRequest, authority: Any) -> bool:
        assert gw is not None
        gw.replace_catalog(new)  # swapped while this call is between its steps
        return True

    gw = gateway(old, recorder, authorizer=authorizer)
    first = gw.call("search", {"query": "x"}, caller="alice", run="r")
    assert first.ok and first.evidence["version"] == "1.0.0"
    assert gw.bundle is new
    second = gw.call("search", {"query": "x"}, caller="alice", run="r")
    assert second.evidence["version"] == "1.1.0"


def test_a_refused_replacement_keeps_the_old_catalog() -> None:
    old = admit({"search": search_contract()})
    gw = gateway(old, Recorder())
    ungoverned = runtime.ToolCatalog().admit_batch(
        [runtime.ToolDescriptor.from_mcp({"name": "t", "inputSchema": {}}, backend="local")]
    )
    with pytest.raises(GatewayConfigError):
        gw.replace_catalog(ungoverned)
    assert gw.bundle is old


def test_compensation_is_a_new_governed_call_linked_to_the_original() -> None:
    recorder = Recorder()
    gw = gateway(admit({"book": book_contract(), "cancel": cancel_contract()}), recorder)
    booked = gw.call("book", {"flight": "LH1", "requestId": "q1"}, caller="alice", run="r")
    assert booked.ok and booked.intent_id is not None
    recorder.events.clear()
    undone = gw.compensate(booked.intent_id, {"bookingId": "b-1"}, caller="alice", run="r")
    assert undone.ok and undone.tool == "cancel" and undone.intent_id != booked.intent_id
    assert undone.evidence["compensates"] == booked.intent_id
    assert recorder.events[0] == "authorization" and "intent" in recorder.events
    # The original outcome is unchanged: a replay of its key still answers it.
    again = gw.call("book", {"flight": "LH1", "requestId": "q1"}, caller="alice", run="r")
    assert again.replayed and again.status == "succeeded" and again.tool == "book"
    # Bad compensation arguments are refused like any other call.
    bad = gw.compensate(booked.intent_id, {"bookingId": 7}, caller="alice", run="r")
    assert (bad.step, bad.code) == ("arguments", "arguments-invalid")


def test_compensation_after_its_deadline_is_refused_before_anything_runs() -> None:
    recorder, clock = Recorder(), Clock()
    gw = gateway(
        admit({"book": book_contract(), "cancel": cancel_contract()}), recorder, clock=clock
    )
    booked = gw.call("book", {"flight": "LH1", "requestId": "q1"}, caller="alice", run="r")
    assert booked.intent_id is not None
    clock.now += 3601  # the contract's compensation.deadlineSeconds is 3600
    recorder.events.clear()
    late = gw.compensate(booked.intent_id, {"bookingId": "b-1"}, caller="alice", run="r")
    assert (late.status, late.step, late.code) == (
        "refused",
        "lookup",
        "compensation-deadline-passed",
    )
    assert recorder.events == ["evidence"] and len(recorder.requests) == 1


def test_compensation_is_refused_where_the_contract_does_not_provide_it() -> None:
    recorder = Recorder()
    recorder.destinations = {"send_payment": ["api.payments.example.com"]}
    gw = gateway(admit({"send_payment": pay_contract()}), recorder)
    paid = gw.call("send_payment", {"recipient": "a", "amountCents": 5}, caller="alice", run="r")
    assert paid.intent_id is not None
    manual = gw.compensate(paid.intent_id, {}, caller="alice", run="r")
    assert (manual.step, manual.code) == ("lookup", "compensation-unavailable")
    unknown = gw.compensate("no-such-intent", {}, caller="alice", run="r")
    assert unknown.code == "intent-unknown" and unknown.dispatched is False


def test_model_routes_are_chosen_by_the_catalogs_data_classification() -> None:
    bundle = admit({"search": search_contract(), "send_payment": pay_contract()})
    assert catalog_classification(bundle) == "confidential"
    routes = [
        ModelRoute("public-api", "internal"),
        ModelRoute("private-deployment", "confidential"),
        ModelRoute("on-prem", "restricted"),
    ]
    assert [r.name for r in allowed_routes(routes, bundle)] == ["private-deployment", "on-prem"]
    with pytest.raises(ValueError):
        ModelRoute("x", "secret")
