"""Contracts, bundles and recording fakes for the execution gateway tests.

Every fake appends to one shared ``events`` list, so a test can assert the exact
order in which the gateway consulted them, and that nothing ran after a stop.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

from schemacore import runtime
from schemacore.runtime.gateway import (
    CallRequest,
    Decision,
    DispatchRequest,
    Gateway,
    Intent,
    SQLiteJournal,
    ToolFailure,
)

SEARCH_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "minLength": 1, "description": "What to look for."},
        "limit": {"type": "integer", "minimum": 1, "maximum": 50},
    },
    "required": ["query"],
    "additionalProperties": False,
}

PAY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "recipient": {"type": "string"},
        "amountCents": {"type": "integer", "minimum": 1},
        "memo": {"type": "string", "maxLength": 140},
    },
    "required": ["recipient", "amountCents"],
    "additionalProperties": False,
}

BOOK_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"flight": {"type": "string"}, "requestId": {"type": "string"}},
    "required": ["flight", "requestId"],
    "additionalProperties": False,
}

CANCEL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"bookingId": {"type": "string"}},
    "required": ["bookingId"],
    "additionalProperties": False,
}

NO_IDEMPOTENCY: dict[str, Any] = {
    "supported": False,
    "keyLocation": None,
    "deduplicationWindowSeconds": None,
}
NO_COMPENSATION: dict[str, Any] = {"supported": False, "toolRef": None, "deadlineSeconds": None}

_BASE: dict[str, Any] = {
    "contractVersion": "aruntime.tool-contract.v1",
    "description": "A test tool.",
    "outputSchema": None,
    "authenticationRef": None,
    "egressPolicy": {"allowed": False, "destinations": []},
    "timeoutMs": 2000,
    "retryPolicy": {"maxAttempts": 1, "backoff": "none", "retryableErrors": []},
    "idempotency": NO_IDEMPOTENCY,
    "concurrency": {"mode": "parallel", "maxConcurrent": 1000},
    "approvalTriggers": [],
    "compensation": NO_COMPENSATION,
    "errorTaxonomy": [],
    "rateLimits": {"requests": 1_000_000, "perSeconds": 1, "scope": "global"},
    "observability": {"requiredSpans": [], "requiredMetrics": [], "logPayloads": True},
    "auditFields": [],
    "deprecation": {"status": "active", "replacementRef": None, "sunsetUtc": None},
}


def search_contract(**changes: Any) -> dict[str, Any]:
    """A read-only tool: no side effect, no credentials, no egress."""
    envelope = copy.deepcopy(_BASE)
    envelope.update(
        toolId="docs.search.v1",
        version="1.0.0",
        inputSchema=copy.deepcopy(SEARCH_SCHEMA),
        outputSchema={
            "type": "object",
            "properties": {"hits": {"type": "array", "items": {"type": "string"}}},
            "required": ["hits"],
        },
        permissionClass="read",
        sideEffectClass="none",
        dataClassification="internal",
        retryPolicy={
            "maxAttempts": 3,
            "backoff": "exponential",
            "retryableErrors": ["timeout", "busy"],
        },
        errorTaxonomy=[
            {"code": "busy", "retryable": True, "meaning": "The index is busy."},
            {"code": "bad_query", "retryable": False, "meaning": "The query is invalid."},
        ],
        auditFields=["requestId", "actorRef", "toolVersion", "outcome"],
    )
    envelope.update(copy.deepcopy(changes))
    return envelope


def pay_contract(**changes: Any) -> dict[str, Any]:
    """An irreversible tool with credentials, egress and approval."""
    envelope = copy.deepcopy(_BASE)
    envelope.update(
        toolId="payments.send.v1",
        version="1.2.0",
        inputSchema=copy.deepcopy(PAY_SCHEMA),
        authenticationRef="secretref://payments/api-key",
        permissionClass="irreversible",
        sideEffectClass="irreversible",
        dataClassification="confidential",
        egressPolicy={"allowed": True, "destinations": ["api.payments.example.com"]},
        approvalTriggers=["side-effect-irreversible"],
        errorTaxonomy=[
            {"code": "declined", "retryable": False, "meaning": "The payment was declined."}
        ],
        observability={"requiredSpans": [], "requiredMetrics": [], "logPayloads": False},
        auditFields=["requestId", "actorRef", "runRef", "outcome", "approvedBy"],
    )
    envelope.update(copy.deepcopy(changes))
    return envelope


def book_contract(**changes: Any) -> dict[str, Any]:
    """A compensatable, deduplicating tool whose undo is ``cancel_booking``."""
    envelope = copy.deepcopy(_BASE)
    envelope.update(
        toolId="travel.book.v1",
        version="1.0.0",
        inputSchema=copy.deepcopy(BOOK_SCHEMA),
        permissionClass="reversible-write",
        sideEffectClass="compensatable",
        dataClassification="internal",
        idempotency={
            "supported": True,
            "keyLocation": "argument:requestId",
            "deduplicationWindowSeconds": 86400,
        },
        retryPolicy={"maxAttempts": 3, "backoff": "none", "retryableErrors": ["timeout"]},
        compensation={"supported": True, "toolRef": "travel.cancel.v1", "deadlineSeconds": 3600},
    )
    envelope.update(copy.deepcopy(changes))
    return envelope


def cancel_contract(**changes: Any) -> dict[str, Any]:
    envelope = copy.deepcopy(_BASE)
    envelope.update(
        toolId="travel.cancel.v1",
        version="1.0.0",
        inputSchema=copy.deepcopy(CANCEL_SCHEMA),
        permissionClass="reversible-write",
        sideEffectClass="reversible",
        dataClassification="internal",
    )
    envelope.update(copy.deepcopy(changes))
    return envelope


def admit(
    contracts: Mapping[str, dict[str, Any]],
    *,
    caller: str = "alice",
    run: str = "run-1",
    grants: Mapping[str, Any] | None = None,
    backend: str = "local",
) -> runtime.AdmittedBundle:
    """A bundle of one tool per contract (the tool's schemas are the contract's)."""
    descriptors = [
        runtime.ToolDescriptor.from_mcp(
            {
                "name": name,
                "description": envelope["description"],
                "inputSchema": envelope["inputSchema"],
                **(
                    {"outputSchema": envelope["outputSchema"]}
                    if envelope["outputSchema"] is not None
                    else {}
                ),
            },
            backend=backend,
        )
        for name, envelope in contracts.items()
    ]
    authority = runtime.Authority(
        caller, run, grants if grants is not None else {name: True for name in contracts}
    )
    return runtime.ToolCatalog().admit_batch(
        descriptors, contracts=dict(contracts), authority=authority
    )


class Recorder:
    """Recording fakes for every hook and the backend; ``events`` is their log."""

    def __init__(self) -> None:
        self.events: list[str] = []
        self.authorize: Decision | bool = True
        self.approve: Decision | bool = Decision(True, by="reviewer-7")
        self.allow_budget: bool = True
        self.secret: Any = "sk-live-SENTINEL-CREDENTIAL"
        self.destinations: dict[str, list[str]] = {}  # tool name -> where it goes
        self.answers: list[Any] = []  # one per attempt; a BaseException is raised
        self.requests: list[DispatchRequest] = []
        self.evidence: list[Mapping[str, Any]] = []
        self.released: list[str] = []

    # hooks
    def authorizer(self, request: CallRequest, authority: Any) -> Decision | bool:
        self.events.append("authorization")
        return self.authorize

    def approver(self, request: CallRequest, triggers: tuple[str, ...]) -> Decision | bool:
        self.events.append("approval")
        return self.approve

    def reserve(self, request: CallRequest) -> bool:
        self.events.append("budget")
        return self.allow_budget

    def release(self, request: CallRequest) -> None:
        self.released.append(request.tool)

    def credentials(self, reference: str) -> Any:
        self.events.append("credentials")
        return self.secret

    def sink(self, record: Mapping[str, Any]) -> None:
        self.events.append("evidence")
        self.evidence.append(record)

    # backend
    def egress(self, request: DispatchRequest) -> list[str]:
        self.events.append("egress")
        return self.destinations.get(request.tool, [])

    def call(self, request: DispatchRequest) -> Mapping[str, Any]:
        self.events.append("dispatch")
        self.requests.append(request)
        answer = (
            self.answers.pop(0)
            if self.answers
            else {"content": [], "structuredContent": {"hits": []}}
        )
        if isinstance(answer, BaseException):
            raise answer
        if callable(answer):
            result: Mapping[str, Any] = answer(request)
            return result
        return answer  # type: ignore[no-any-return]


class RecordingJournal(SQLiteJournal):
    """The SQLite journal, logging its writes into the recorder's events."""

    def __init__(self, events: list[str], path: str = ":memory:") -> None:
        super().__init__(path)
        self.events = events

    def begin(self, intent: Intent, *, window: float) -> Intent | None:
        self.events.append("intent")
        return super().begin(intent, window=window)

    def mark_dispatched(self, intent_id: str, at: float) -> bool:
        self.events.append("intent-dispatched")
        return super().mark_dispatched(intent_id, at)

    def close(self, intent_id: str, outcome: Mapping[str, Any], at: float) -> None:
        self.events.append("intent-closed")
        super().close(intent_id, outcome, at)


class _Budget:
    def __init__(self, recorder: Recorder) -> None:
        self.recorder = recorder

    def reserve(self, request: CallRequest) -> bool:
        return self.recorder.reserve(request)

    def release(self, request: CallRequest) -> None:
        self.recorder.release(request)


class Clock:
    """A settable clock for wall time and monotonic time; ``sleep`` advances it."""

    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def gateway(
    bundle: runtime.AdmittedBundle,
    recorder: Recorder,
    *,
    clock: Clock | None = None,
    journal: Any = None,
    **options: Any,
) -> Gateway:
    """A gateway wired to the recorder's fakes (``options`` override any of them)."""
    from schemacore.runtime.gateway import FunctionBackend

    clock = clock or Clock()
    settings: dict[str, Any] = {
        "backends": {"local": FunctionBackend(recorder.call, egress=recorder.egress)},
        "authorizer": recorder.authorizer,
        "approver": recorder.approver,
        "budget": _Budget(recorder),
        "journal": journal if journal is not None else RecordingJournal(recorder.events),
        "credentials": recorder.credentials,
        "evidence_sink": recorder.sink,
        "clock": clock,
        "monotonic": clock,
        "sleep": clock.sleep,
    }
    settings.update(options)
    return Gateway(bundle, **settings)


def failure(code: str) -> ToolFailure:
    return ToolFailure(code, f"backend said {code}")


Handler = Callable[[DispatchRequest], Mapping[str, Any]]
