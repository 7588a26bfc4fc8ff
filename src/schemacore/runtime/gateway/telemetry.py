"""Spans and metrics a contract's ``observability`` names, through OpenTelemetry.

The gateway reports each finished call to its ``telemetry`` hook as a
:class:`CallTrace`; without one (the default) nothing here runs and OpenTelemetry
is never imported. :class:`OpenTelemetry` (the optional extra
``schemacore[otel]``, i.e. ``opentelemetry-api``) turns a trace into:

- the spans the contract lists in ``requiredSpans``, each over its part of the
  call: ``tool.validate`` (lookup and arguments), ``tool.authorize``
  (authorisation and approval), ``tool.invoke`` (dispatch, every attempt);
  a span whose part did not run (the call stopped before it) is not emitted;
- the metrics it lists in ``requiredMetrics``: ``tool.calls`` (a counter, every
  call), ``tool.duration`` (a histogram, milliseconds), ``tool.errors`` (a counter,
  every call that did not succeed);

with the attributes ``tool.name``, ``tool.id``, ``tool.version``, ``tool.outcome``,
``tool.step`` and ``tool.code``. Refused arguments add an event
``tool.arguments.rejected`` to ``tool.validate`` (``tool.arguments.warned`` for a
call that ran in the gateway's ``warn`` argument mode) with the issues' ``path``,
``expected`` and ``got`` only: never a value, never the excerpt a string-shape
issue carries for the model. The arguments themselves are recorded
(``tool.arguments``, JSON) only when ``observability.logPayloads`` is true; a
credential never is (it is not part of the arguments and never reaches telemetry).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..jsonvalues import json_text

__all__ = ["SPAN_PHASES", "CallTrace", "OpenTelemetry", "Telemetry"]

SPAN_PHASES: tuple[str, ...] = ("tool.validate", "tool.authorize", "tool.invoke")
"""The spans the gateway can emit, in call order (the envelope schema's closed set)."""


@dataclass(frozen=True, slots=True)
class CallTrace:
    """One finished call, as telemetry sees it (no payload unless ``logPayloads``).

    Attributes:
        tool, tool_id, version: which tool.
        status, step, code: how the call ended.
        started, ended: wall-clock seconds of the call.
        phases: span name -> (start, end) seconds, for the parts that ran.
        required_spans, required_metrics: the contract's observability lists.
        arguments: the validated arguments when ``logPayloads`` is true, else None.
        issues: for refused (or warned) arguments, (path, expected, got) of each issue.
        warned: the issues did not stop the call (``warn`` argument mode).
    """

    tool: str
    tool_id: str
    version: str
    status: str
    step: str | None
    code: str | None
    started: float
    ended: float
    phases: Mapping[str, tuple[float, float]]
    required_spans: tuple[str, ...]
    required_metrics: tuple[str, ...]
    arguments: Any = field(default=None, repr=False)
    issues: tuple[tuple[str, str, str], ...] = ()
    warned: bool = False


class Telemetry(Protocol):
    """Where the gateway reports finished calls (a failure here changes nothing)."""

    def record(self, trace: CallTrace) -> None: ...


def _nanoseconds(seconds: float) -> int:
    return round(seconds * 1_000_000_000)


class OpenTelemetry:
    """A :class:`Telemetry` through ``opentelemetry-api``.

    Args:
        tracer_provider, meter_provider: the providers to use (default: the global
            ones the host configured).
    """

    def __init__(self, *, tracer_provider: Any = None, meter_provider: Any = None) -> None:
        # Imported here, not at module level: without this class in use, nothing
        # of OpenTelemetry is needed or loaded.
        from opentelemetry import metrics, trace

        scope = "schemacore.runtime.gateway"
        self._tracer = (
            tracer_provider.get_tracer(scope) if tracer_provider else trace.get_tracer(scope)
        )
        meter = meter_provider.get_meter(scope) if meter_provider else metrics.get_meter(scope)
        self._calls = meter.create_counter("tool.calls", unit="{call}", description="Tool calls")
        self._errors = meter.create_counter(
            "tool.errors", unit="{call}", description="Tool calls that did not succeed"
        )
        self._duration = meter.create_histogram(
            "tool.duration", unit="ms", description="Duration of a tool call"
        )

    def record(self, trace: CallTrace) -> None:
        attributes: dict[str, str] = {
            "tool.name": trace.tool,
            "tool.id": trace.tool_id,
            "tool.version": trace.version,
            "tool.outcome": trace.status,
            "tool.step": trace.step or "",
            "tool.code": trace.code or "",
        }
        for name in SPAN_PHASES:
            if name not in trace.required_spans or name not in trace.phases:
                continue
            start, end = trace.phases[name]
            span = self._tracer.start_span(
                name, start_time=_nanoseconds(start), attributes=attributes
            )
            if name == "tool.validate":
                if trace.issues:
                    span.add_event(
                        "tool.arguments.warned" if trace.warned else "tool.arguments.rejected",
                        attributes={
                            "issue.path": [issue[0] for issue in trace.issues],
                            "issue.expected": [issue[1] for issue in trace.issues],
                            "issue.got": [issue[2] for issue in trace.issues],
                        },
                        timestamp=_nanoseconds(end),
                    )
                if trace.arguments is not None:
                    span.set_attribute("tool.arguments", json_text(trace.arguments))
            span.end(end_time=_nanoseconds(end))
        metrics = trace.required_metrics
        if "tool.calls" in metrics:
            self._calls.add(1, attributes)
        if "tool.errors" in metrics and trace.status != "succeeded":
            self._errors.add(1, attributes)
        if "tool.duration" in metrics:
            self._duration.record(max(0.0, (trace.ended - trace.started) * 1000.0), attributes)
