"""The runtime pipeline of ``aruntime.tool-contract.v1`` end to end, in Python.

Admits a governed catalog (the published example contract ``customer.read.v3``
among its tools), shows a contract the rules refuse (in the published error shape),
picks a model route the catalog's data classification allows, and makes calls
through the execution gateway: a read, an idempotent read replayed, a call without
its idempotency key, a permission refusal, an approval given and one refused, and
an egress denial. Every outcome carries its minimised evidence.

The clock and the ids are fixed, so the JSON it prints is byte-stable; the tests
compare it with ``tests/runtime/golden/runtime_pipeline.json``. After an intended
change: ``python examples/runtime_pipeline.py > tests/runtime/golden/runtime_pipeline.json``.

Run: ``python examples/runtime_pipeline.py`` (``--journal FILE`` keeps the intent
journal in a SQLite file instead of memory; a second run then replays).
"""

from __future__ import annotations

import argparse
import copy
import itertools
import json
from collections.abc import Mapping
from typing import Any

from schemacore import runtime
from schemacore.runtime.gateway import (
    CallRequest,
    Decision,
    DispatchRequest,
    FunctionBackend,
    Gateway,
    SQLiteJournal,
    ToolOutcome,
)
from schemacore.runtime.routing import ModelRoute, allowed_routes, catalog_classification

# -- the contracts ------------------------------------------------------------------------

# The "Validated example" of the published aruntime.tool-contract.v1 description.
CUSTOMER_READ: dict[str, Any] = {
    "contractVersion": "aruntime.tool-contract.v1",
    "toolId": "customer.read.v3",
    "version": "3.2.0",
    "description": "Reads a bounded customer account projection without modifying the account.",
    "inputSchema": {
        "type": "object",
        "required": ["customerRef"],
        "properties": {"customerRef": {"type": "string"}},
        "additionalProperties": False,
    },
    "outputSchema": {
        "type": "object",
        "required": ["customerRef", "status"],
        "properties": {"customerRef": {"type": "string"}, "status": {"type": "string"}},
        "additionalProperties": True,
    },
    "authenticationRef": "secretref://customer-api/runtime-reader",
    "permissionClass": "read",
    "sideEffectClass": "none",
    "dataClassification": "confidential",
    "egressPolicy": {"allowed": True, "destinations": ["customer-api.internal"]},
    "timeoutMs": 3000,
    "retryPolicy": {
        "maxAttempts": 3,
        "backoff": "exponential-jitter",
        "retryableErrors": ["timeout", "upstream-unavailable"],
    },
    "idempotency": {
        "supported": True,
        "keyLocation": "header:Idempotency-Key",
        "deduplicationWindowSeconds": 86400,
    },
    "concurrency": {"mode": "parallel", "maxConcurrent": 100},
    "approvalTriggers": [],
    "compensation": {"supported": False, "toolRef": None, "deadlineSeconds": None},
    "errorTaxonomy": [
        {
            "code": "not-found",
            "retryable": False,
            "meaning": "The customer reference does not exist.",
        },
        {
            "code": "upstream-unavailable",
            "retryable": True,
            "meaning": "The authoritative customer service is unavailable.",
        },
    ],
    "rateLimits": {"requests": 100, "perSeconds": 60, "scope": "tenant"},
    "observability": {
        "requiredSpans": ["tool.validate", "tool.invoke"],
        "requiredMetrics": ["tool.duration", "tool.errors"],
        "logPayloads": False,
    },
    "auditFields": ["requestId", "actorRef", "tenantRef", "toolVersion", "outcome"],
    "deprecation": {"status": "active", "replacementRef": None, "sunsetUtc": None},
}


def _contract(base: Mapping[str, Any], **fields: Any) -> dict[str, Any]:
    envelope = copy.deepcopy(dict(base))
    envelope.update(copy.deepcopy(fields))
    return envelope


PAY_SCHEMA = {
    "type": "object",
    "properties": {
        "invoiceId": {"type": "string", "pattern": "^INV-[0-9]{4}$"},
        "amountCents": {"type": "integer", "minimum": 1},
    },
    "required": ["invoiceId", "amountCents"],
    "additionalProperties": False,
}
REPORT_SCHEMA = {
    "type": "object",
    "properties": {"customerRef": {"type": "string"}, "to": {"type": "string"}},
    "required": ["customerRef", "to"],
    "additionalProperties": False,
}
ERASE_SCHEMA = {
    "type": "object",
    "properties": {"customerRef": {"type": "string"}},
    "required": ["customerRef"],
    "additionalProperties": False,
}
NO_IDEMPOTENCY = {"supported": False, "keyLocation": None, "deduplicationWindowSeconds": None}

CONTRACTS = {
    "read_customer": CUSTOMER_READ,
    "pay_invoice": _contract(
        CUSTOMER_READ,
        toolId="billing.pay-invoice.v1",
        version="1.0.0",
        description="Pay an invoice. Cannot be undone.",
        inputSchema=PAY_SCHEMA,
        outputSchema=None,
        authenticationRef="secretref://billing/payments-api",
        permissionClass="financial-high-impact",
        sideEffectClass="irreversible",
        egressPolicy={"allowed": True, "destinations": ["payments.example.com"]},
        retryPolicy={"maxAttempts": 1, "backoff": "none", "retryableErrors": []},
        concurrency={"mode": "serial", "maxConcurrent": 1},
        approvalTriggers=["side-effect-irreversible", "large-amount"],
        errorTaxonomy=[
            {"code": "declined", "retryable": False, "meaning": "The bank declined the payment."}
        ],
        auditFields=["requestId", "actorRef", "tenantRef", "toolVersion", "outcome", "approvedBy"],
    ),
    "send_report": _contract(
        CUSTOMER_READ,
        toolId="customer.send-report.v1",
        version="1.0.0",
        description="Mail a customer report to an internal address.",
        inputSchema=REPORT_SCHEMA,
        outputSchema=None,
        authenticationRef="secretref://mail/sender",
        permissionClass="external-communication",
        sideEffectClass="irreversible",
        egressPolicy={"allowed": True, "destinations": ["mail.example.com"]},
        retryPolicy={"maxAttempts": 1, "backoff": "none", "retryableErrors": []},
        idempotency=NO_IDEMPOTENCY,
        errorTaxonomy=[],
    ),
    "erase_customer": _contract(
        CUSTOMER_READ,
        toolId="customer.erase.v1",
        version="1.0.0",
        description="Erase a customer account.",
        inputSchema=ERASE_SCHEMA,
        outputSchema=None,
        permissionClass="administrative",
        sideEffectClass="irreversible",
        retryPolicy={"maxAttempts": 1, "backoff": "none", "retryableErrors": []},
        idempotency=NO_IDEMPOTENCY,
        approvalTriggers=["always"],
        errorTaxonomy=[],
    ),
}

# The catalog as the providers list it (what the model is shown).
TOOLS = [
    {
        "name": name,
        "description": envelope["description"],
        "inputSchema": envelope["inputSchema"],
        **({"outputSchema": envelope["outputSchema"]} if envelope["outputSchema"] else {}),
    }
    for name, envelope in CONTRACTS.items()
]

# A contract the rules refuse: irreversible, no deduplication, yet retried on timeout.
UNSAFE = _contract(
    CONTRACTS["erase_customer"],
    retryPolicy={"maxAttempts": 3, "backoff": "exponential", "retryableErrors": ["timeout"]},
)

# -- the host: backends, credentials, a scripted approver, fixed time and ids -------------

CUSTOMERS = {"cust-001": "active"}
PAID: list[str] = []
MAILED: list[str] = []
FIXED_TIME = 1_796_040_000.0  # 2026-11-30T12:00:00Z


def crm(request: DispatchRequest) -> Mapping[str, Any]:
    if request.tool == "send_report":
        MAILED.append(request.arguments["to"])
        return {"content": [{"type": "text", "text": "sent"}]}
    ref = request.arguments["customerRef"]
    assert request.headers["Idempotency-Key"]  # the contract's keyLocation
    status = CUSTOMERS.get(ref, "unknown")
    return {
        "content": [{"type": "text", "text": f"{ref}: {status}"}],
        "structuredContent": {"customerRef": ref, "status": status},
    }


def crm_destinations(request: DispatchRequest) -> list[str]:
    if request.tool == "send_report":
        return [request.arguments["to"].rpartition("@")[2]]  # the recipient's mail domain
    return ["customer-api.internal"]


def billing(request: DispatchRequest) -> Mapping[str, Any]:
    assert request.credential is not None  # resolved only after egress passed
    PAID.append(request.arguments["invoiceId"])
    return {"content": [{"type": "text", "text": f"paid {request.arguments['invoiceId']}"}]}


def approver(request: CallRequest, triggers: tuple[str, ...]) -> Decision:
    """Stands in for a person reviewing the call: approves up to 1,000.00 EUR."""
    if request.arguments["amountCents"] > 100_000:
        return Decision(False, "above the reviewer's limit", by="reviewer@example.com")
    return Decision(True, by="reviewer@example.com")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--journal", default=":memory:", help="SQLite journal file")
    options = parser.parse_args()

    refused = None
    try:
        runtime.validate_contract(UNSAFE)
    except runtime.ContractError as error:
        refused = error.to_dict()

    authority = runtime.Authority(
        caller="agent-42",
        run="run-2026-11-30",
        # erase_customer is in the catalog but not granted: a permission refusal.
        grants={"read_customer": True, "pay_invoice": True, "send_report": True},
    )
    backend_of = {"pay_invoice": "billing"}
    descriptors = [
        runtime.ToolDescriptor.from_mcp(t, backend=backend_of.get(t["name"], "crm")) for t in TOOLS
    ]
    bundle = runtime.ToolCatalog(backends={"crm", "billing"}).admit_batch(
        descriptors, contracts=CONTRACTS, authority=authority
    )
    routes = [ModelRoute("hosted-general", "internal"), ModelRoute("private-eu", "confidential")]
    ids = (f"id-{n:04d}" for n in itertools.count(1))
    gateway = Gateway(
        bundle,
        backends={
            "crm": FunctionBackend(crm, egress=crm_destinations),
            "billing": FunctionBackend(billing, egress=["payments.example.com"]),
        },
        approver=approver,
        triggers={"large-amount": lambda r: r.arguments["amountCents"] > 50_000},
        credentials=lambda reference: f"token-for-{reference.rpartition('/')[2]}",
        journal=SQLiteJournal(options.journal),
        clock=lambda: FIXED_TIME,
        monotonic=lambda: 0.0,
        sleep=lambda seconds: None,
        jitter=lambda: 0.5,
        ids=lambda: next(ids),
    )
    who = {"caller": "agent-42", "run": "run-2026-11-30", "tenant": "acme"}
    calls = [
        ("read (the published example contract)", "read_customer", {"customerRef": "cust-001"},
         {"idempotency_key": "read-cust-001"}),
        ("the same idempotency key again: replayed", "read_customer",
         {"customerRef": "cust-001"}, {"idempotency_key": "read-cust-001"}),
        ("no idempotency key: refused", "read_customer", {"customerRef": "cust-001"}, {}),
        ("bad arguments: the model sent what the schema refuses", "read_customer",
         '{"customerRef": 1}', {"idempotency_key": "read-1"}),
        ("permission refused", "erase_customer", {"customerRef": "cust-001"}, {}),
        ("approval given", "pay_invoice", {"invoiceId": "INV-0001", "amountCents": 12_500},
         {"idempotency_key": "pay-INV-0001"}),
        ("approval refused", "pay_invoice", {"invoiceId": "INV-0002", "amountCents": 250_000},
         {"idempotency_key": "pay-INV-0002"}),
        ("egress denied", "send_report", {"customerRef": "cust-001", "to": "x@evil.example.net"},
         {}),
    ]  # fmt: skip

    def show(number: int, title: str, outcome: ToolOutcome) -> dict[str, Any]:
        return {"call": title, **outcome.to_dict()}

    report: dict[str, Any] = {
        "refusedContract": refused,
        "catalog": {
            "accepted": list(bundle.accepted),
            "classification": catalog_classification(bundle),
        },
        "modelRoute": allowed_routes(routes, bundle)[0].name,
        "calls": [
            show(
                number,
                title,
                gateway.call(tool, arguments, request_id=f"req-{number}", **who, **extra),
            )
            for number, (title, tool, arguments, extra) in enumerate(calls, 1)
        ],
        "paymentsMade": PAID,
        "mailsSent": MAILED,
    }
    print(json.dumps(report, indent=2, ensure_ascii=False))
    assert PAID == ["INV-0001"], "exactly one payment must have been made"
    assert not MAILED, "the mail to an undeclared destination must not have been sent"


if __name__ == "__main__":
    main()
