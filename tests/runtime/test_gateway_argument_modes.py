"""Argument modes of the gateway (seed 001): enforce refuses, warn runs the call and
reports the issues, off drops the schema's verdict; non-JSON values and limit hits
are refused in every mode."""

from __future__ import annotations

import json
from typing import Any

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from schemacore.runtime.gateway import OpenTelemetry
from tests.runtime.gateway_support import Recorder, admit, gateway, search_contract

OBSERVED = {"requiredSpans": ["tool.validate"], "requiredMetrics": [], "logPayloads": False}
WRONG = {"query": "x", "limit": "SENTINEL-seven"}  # limit must be an integer


def _gateway(recorder: Recorder, **options: Any) -> tuple[Any, InMemorySpanExporter]:
    spans = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))
    bundle = admit(
        {
            "search": search_contract(observability=OBSERVED),
            "lookup": search_contract(toolId="docs.lookup.v1", observability=OBSERVED),
        }
    )
    telemetry = OpenTelemetry(tracer_provider=provider)
    return gateway(bundle, recorder, telemetry=telemetry, **options), spans


def test_enforce_refuses_before_anything_runs() -> None:
    recorder = Recorder()
    gw, spans = _gateway(recorder)
    outcome = gw.call("search", WRONG, caller="alice", run="r")
    assert (outcome.step, outcome.code) == ("arguments", "arguments-invalid")
    assert recorder.events == ["evidence"]
    (event,) = spans.get_finished_spans()[0].events
    assert event.name == "tool.arguments.rejected"


def test_warn_runs_the_call_and_reports_the_issues_without_values() -> None:
    recorder = Recorder()
    gw, spans = _gateway(recorder, argument_mode="warn")
    outcome = gw.call("search", WRONG, caller="alice", run="r")
    assert outcome.ok and len(recorder.requests) == 1
    assert recorder.events[0] == "authorization" and "dispatch" in recorder.events
    assert outcome.evidence["argumentIssues"] == ["type-mismatch"]
    (event,) = spans.get_finished_spans()[0].events
    assert event.name == "tool.arguments.warned"
    assert dict(event.attributes or {})["issue.path"] == ("limit",)
    text = json.dumps([span.to_json() for span in spans.get_finished_spans()])
    assert "SENTINEL" not in text


def test_off_drops_the_verdict_and_reports_nothing() -> None:
    recorder = Recorder()
    gw, spans = _gateway(recorder, argument_mode="off")
    outcome = gw.call("search", WRONG, caller="alice", run="r")
    assert outcome.ok and "argumentIssues" not in outcome.evidence
    assert spans.get_finished_spans()[0].events == ()


def test_a_mode_per_tool_overrides_the_gateways() -> None:
    recorder = Recorder()
    gw, _ = _gateway(recorder, argument_mode="warn", argument_modes={"lookup": "enforce"})
    assert gw.call("search", WRONG, caller="alice", run="r").ok
    refused = gw.call("lookup", WRONG, caller="alice", run="r")
    assert (refused.step, refused.code) == ("arguments", "arguments-invalid")


@pytest.mark.parametrize("mode", ["warn", "off"])
def test_non_json_values_and_limit_hits_are_refused_in_every_mode(mode: str) -> None:
    recorder = Recorder()
    gw, _ = _gateway(recorder, argument_mode=mode)
    for arguments, code in (
        ({"query": float("nan")}, "arguments-value-not-json"),
        ({"query": "x", 1: "y"}, "arguments-key-not-string"),
        ([1], "arguments-not-object"),
        ({"query": "x" * 2_000_000}, "arguments-string-too-long"),
    ):
        outcome = gw.call("search", arguments, caller="alice", run="r")
        assert (outcome.status, outcome.step) == ("refused", "arguments"), (mode, code)
        meta = outcome.result["_meta"]["schemacore/tool-arg-issues"]
        # The boundary's own code at the top, never the schema mismatches' one.
        assert outcome.code == meta["code"] == code, (mode, code)
        assert [issue["code"] for issue in meta["issues"]] == [code]
    assert recorder.requests == []


def test_an_unknown_mode_is_a_host_mistake() -> None:
    with pytest.raises(ValueError):
        _gateway(Recorder(), argument_mode="lenient")
    with pytest.raises(ValueError):
        _gateway(Recorder(), argument_modes={"search": "maybe"})
