"""OpenTelemetry as a contract's ``observability`` names it, checked with the SDK's
in-memory exporters; and nothing of OpenTelemetry without it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from schemacore.runtime.gateway import OpenTelemetry
from tests.runtime.gateway_support import Recorder, admit, gateway, search_contract

ROOT = Path(__file__).resolve().parents[2]
SENTINEL = "VALUESENTINEL"
# A valid query (lower-case letters) that no random hex id in a span can contain,
# as "abc" could.
PAYLOAD = "quietzone"
ALL = {
    "requiredSpans": ["tool.validate", "tool.authorize", "tool.invoke"],
    "requiredMetrics": ["tool.calls", "tool.duration", "tool.errors"],
    "logPayloads": False,
}
PATTERNED = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "pattern": "^[a-z]+$", "description": "Lower-case words."},
        "limit": {"type": "integer"},
    },
    "required": ["query"],
    "additionalProperties": False,
}


class Exported:
    """A gateway wired to in-memory span and metric exporters."""

    def __init__(self, **changes: Any) -> None:
        self.spans = InMemorySpanExporter()
        tracer_provider = TracerProvider()
        tracer_provider.add_span_processor(SimpleSpanProcessor(self.spans))
        self.metrics = InMemoryMetricReader()
        meter_provider = MeterProvider(metric_readers=[self.metrics])
        telemetry = OpenTelemetry(tracer_provider=tracer_provider, meter_provider=meter_provider)
        contract = search_contract(inputSchema=PATTERNED, **changes)
        self.recorder = Recorder()
        self.gateway = gateway(admit({"search": contract}), self.recorder, telemetry=telemetry)

    def span_names(self) -> list[str]:
        return [span.name for span in self.spans.get_finished_spans()]

    def metric_points(self) -> dict[str, list[Any]]:
        found: dict[str, list[Any]] = {}
        data = self.metrics.get_metrics_data()
        for resource in data.resource_metrics if data is not None else ():
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    found.setdefault(metric.name, []).extend(metric.data.data_points)
        return found

    def dump(self) -> str:
        """Everything exported, as text, to look for values that must not be there."""
        spans = [span.to_json() for span in self.spans.get_finished_spans()]
        points = {
            name: [dict(point.attributes or {}) for point in points]
            for name, points in self.metric_points().items()
        }
        return json.dumps(spans) + json.dumps(points)


def test_the_named_spans_carry_the_call_attributes_and_no_argument_value() -> None:
    exported = Exported(observability=ALL)
    outcome = exported.gateway.call(
        "search", {"query": PAYLOAD, "limit": 7}, caller="alice", run="r", request_id="req-1"
    )
    assert outcome.ok
    assert exported.span_names() == ["tool.validate", "tool.authorize", "tool.invoke"]
    for span in exported.spans.get_finished_spans():
        assert dict(span.attributes or {}) == {
            "tool.name": "search",
            "tool.id": "docs.search.v1",
            "tool.version": "1.0.0",
            "tool.outcome": "succeeded",
            "tool.step": "",
            "tool.code": "",
        }
        assert span.start_time is not None and span.end_time is not None
        assert span.start_time <= span.end_time
    points = exported.metric_points()
    assert sorted(points) == ["tool.calls", "tool.duration"]  # no error to count
    assert [p.value for p in points["tool.calls"]] == [1]
    assert [p.count for p in points["tool.duration"]] == [1]
    assert PAYLOAD not in exported.dump()  # logPayloads is false


def test_refused_arguments_reach_telemetry_as_path_expected_got_only() -> None:
    exported = Exported(observability=ALL)
    outcome = exported.gateway.call(
        "search", {"query": SENTINEL, "limit": "seven"}, caller="alice", run="r"
    )
    assert (outcome.step, outcome.code) == ("arguments", "arguments-invalid")
    # The model's result carries the excerpt of the string (its own value)...
    assert SENTINEL in json.dumps(outcome.result)
    # ...telemetry does not: only the span that ran, and an event without values.
    assert exported.span_names() == ["tool.validate"]
    (span,) = exported.spans.get_finished_spans()
    assert dict(span.attributes or {})["tool.outcome"] == "refused"
    (event,) = span.events
    assert event.name == "tool.arguments.rejected"
    attributes = dict(event.attributes or {})
    assert list(attributes) == ["issue.path", "issue.expected", "issue.got"]
    assert set(attributes["issue.path"]) == {"query", "limit"}
    assert "integer" in attributes["issue.expected"]
    text = exported.dump()
    assert SENTINEL not in text and "VALUESENT" not in text and "seven" not in text
    points = exported.metric_points()
    assert dict(points["tool.errors"][0].attributes)["tool.code"] == "arguments-invalid"


def test_only_what_the_contract_names_is_emitted() -> None:
    exported = Exported(
        observability={
            "requiredSpans": ["tool.invoke"],
            "requiredMetrics": ["tool.errors"],
            "logPayloads": False,
        }
    )
    assert exported.gateway.call("search", {"query": "abc"}, caller="alice", run="r").ok
    assert exported.span_names() == ["tool.invoke"]
    assert exported.metric_points() == {}  # tool.errors only, and nothing failed
    exported.recorder.answers = [RuntimeError("lost")] * 3  # every attempt
    lost = exported.gateway.call("search", {"query": "abc"}, caller="alice", run="r")
    assert lost.status == "ambiguous"
    (point,) = exported.metric_points()["tool.errors"]
    assert dict(point.attributes)["tool.outcome"] == "ambiguous"


def test_payloads_only_when_log_payloads_is_true_and_never_a_credential() -> None:
    exported = Exported(
        observability=dict(ALL, logPayloads=True), authenticationRef="secretref://docs/index"
    )
    outcome = exported.gateway.call("search", {"query": "abc"}, caller="alice", run="r")
    assert outcome.ok and exported.recorder.requests[0].credential is not None
    validate = exported.spans.get_finished_spans()[0]
    assert json.loads(str(dict(validate.attributes or {})["tool.arguments"])) == {"query": "abc"}
    assert exported.recorder.secret not in exported.dump()


def test_failing_telemetry_does_not_change_the_outcome() -> None:
    class Broken:
        def record(self, trace: Any) -> None:
            raise RuntimeError("collector down")

    recorder = Recorder()
    gw = gateway(admit({"search": search_contract()}), recorder, telemetry=Broken())
    assert gw.call("search", {"query": "x"}, caller="alice", run="r").ok


@pytest.mark.parametrize("blocked", [False, True])
def test_without_telemetry_nothing_of_opentelemetry_is_imported(blocked: bool) -> None:
    # In a fresh interpreter: a gateway without telemetry works, and never loads
    # OpenTelemetry, even where importing it would fail.
    code = f"""
import sys
if {blocked}:
    sys.modules["opentelemetry"] = None  # any import of it now raises
from tests.runtime.gateway_support import Recorder, admit, gateway, search_contract
gw = gateway(admit({{"search": search_contract()}}), Recorder())
assert gw.call("search", {{"query": "x"}}, caller="alice", run="r").ok
loaded = [m for m in sys.modules if m.startswith("opentelemetry") and sys.modules[m]]
assert not loaded, loaded
print("ok")
"""
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
