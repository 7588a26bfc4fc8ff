"""End to end through the runtime: admit a governed catalog, pick a model route, and
make calls through the execution gateway. Prints every outcome and its evidence as JSON.

Run: ``python examples/runtime_pipeline.py`` (add ``--journal FILE`` to keep the
intent journal in a SQLite file instead of memory).
"""

from __future__ import annotations

import argparse
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

# -- the catalog: what the providers list, and the contracts that govern it ----------------

LOOKUP_SCHEMA = {
    "type": "object",
    "properties": {"invoiceId": {"type": "string", "pattern": "^INV-[0-9]{4}$"}},
    "required": ["invoiceId"],
    "additionalProperties": False,
}
LOOKUP_OUTPUT = {
    "type": "object",
    "properties": {"invoiceId": {"type": "string"}, "amountCents": {"type": "integer"}},
    "required": ["invoiceId", "amountCents"],
}
PAY_SCHEMA = {
    "type": "object",
    "properties": {
        "invoiceId": {"type": "string", "pattern": "^INV-[0-9]{4}$"},
        "amountCents": {"type": "integer", "minimum": 1},
    },
    "required": ["invoiceId", "amountCents"],
    "additionalProperties": False,
}

TOOLS = [
    {
        "name": "lookup_invoice",
        "description": "Read an invoice.",
        "inputSchema": LOOKUP_SCHEMA,
        "outputSchema": LOOKUP_OUTPUT,
    },
    {
        "name": "pay_invoice",
        "description": "Pay an invoice. Cannot be undone.",
        "inputSchema": PAY_SCHEMA,
    },
]


def _contract(**fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "contractVersion": "aruntime.tool-contract.v1",
        "outputSchema": None,
        "authenticationRef": None,
        "egressPolicy": {"allowed": False, "destinations": []},
        "timeoutMs": 5000,
        "retryPolicy": {"maxAttempts": 1, "backoff": "none", "retryableErrors": []},
        "idempotency": {
            "supported": False,
            "keyLocation": None,
            "deduplicationWindowSeconds": None,
        },
        "concurrency": {"mode": "parallel", "maxConcurrent": 4},
        "approvalTriggers": [],
        "compensation": {"supported": False, "toolRef": None, "deadlineSeconds": None},
        "errorTaxonomy": [],
        "rateLimits": {"requests": 120, "perSeconds": 60, "scope": "tenant"},
        "observability": {
            "requiredSpans": ["tool.validate", "tool.invoke"],
            "requiredMetrics": ["tool.duration", "tool.errors"],
            "logPayloads": False,
        },
        "auditFields": ["requestId", "actorRef", "tenantRef", "toolVersion", "outcome"],
        "deprecation": {"status": "active", "replacementRef": None, "sunsetUtc": None},
    }
    base.update(fields)
    return base


CONTRACTS = {
    "lookup_invoice": _contract(
        toolId="billing.lookup-invoice.v1",
        version="1.0.0",
        description="Read an invoice.",
        inputSchema=LOOKUP_SCHEMA,
        outputSchema=LOOKUP_OUTPUT,
        permissionClass="read",
        sideEffectClass="none",
        dataClassification="internal",
        retryPolicy={
            "maxAttempts": 2,
            "backoff": "exponential-jitter",
            "retryableErrors": ["timeout", "busy"],
        },
        errorTaxonomy=[{"code": "busy", "retryable": True, "meaning": "Try again."}],
    ),
    "pay_invoice": _contract(
        toolId="billing.pay-invoice.v1",
        version="1.0.0",
        description="Pay an invoice. Cannot be undone.",
        inputSchema=PAY_SCHEMA,
        authenticationRef="secretref://billing/payments-api",
        permissionClass="financial-high-impact",
        sideEffectClass="irreversible",
        dataClassification="confidential",
        egressPolicy={"allowed": True, "destinations": ["payments.example.com"]},
        # The payment service deduplicates on the key it receives in this header.
        idempotency={
            "supported": True,
            "keyLocation": "header:Idempotency-Key",
            "deduplicationWindowSeconds": 86400,
        },
        approvalTriggers=["side-effect-irreversible", "large-amount"],
        errorTaxonomy=[
            {
                "code": "declined",
                "retryable": False,
                "meaning": "The bank declined the payment.",
            }
        ],
        auditFields=[
            "requestId",
            "actorRef",
            "tenantRef",
            "toolVersion",
            "outcome",
            "approvedBy",
        ],
    ),
}

# -- the host: backends, credentials and a (scripted) human approver ---------------------

INVOICES = {"INV-0001": 12_500, "INV-0002": 250_000}
PAID: list[str] = []


def lookup(request: DispatchRequest) -> Mapping[str, Any]:
    invoice = request.arguments["invoiceId"]
    amount = INVOICES.get(invoice, 0)
    return {
        "content": [{"type": "text", "text": f"{invoice}: {amount / 100:.2f} EUR"}],
        "structuredContent": {"invoiceId": invoice, "amountCents": amount},
    }


def pay(request: DispatchRequest) -> Mapping[str, Any]:
    assert request.credential is not None  # resolved by the gateway just before dispatch
    # The contract's keyLocation: the key travels in this header, for the service to dedupe.
    assert request.headers["Idempotency-Key"]
    PAID.append(request.arguments["invoiceId"])
    return {"content": [{"type": "text", "text": f"paid {request.arguments['invoiceId']}"}]}


def approver(request: CallRequest, triggers: tuple[str, ...]) -> Decision:
    """Stands in for a person reviewing the call: approves up to 1,000.00 EUR."""
    amount = request.arguments["amountCents"]
    if amount > 100_000:
        return Decision(False, "above the reviewer's limit", by="reviewer@example.com")
    return Decision(True, by="reviewer@example.com")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--journal", default=":memory:", help="SQLite journal file")
    options = parser.parse_args()

    authority = runtime.Authority(
        caller="agent-42",
        run="run-2026-11-30",
        grants={"lookup_invoice": True, "pay_invoice": True},
    )
    backends_of = {"lookup_invoice": "billing", "pay_invoice": "billing"}
    descriptors = [
        runtime.ToolDescriptor.from_mcp(t, backend=backends_of[t["name"]]) for t in TOOLS
    ]
    bundle = runtime.ToolCatalog(backends={"billing"}).admit_batch(
        descriptors, contracts=CONTRACTS, authority=authority
    )

    routes = [ModelRoute("hosted-general", "internal"), ModelRoute("private-eu", "confidential")]
    route = allowed_routes(routes, bundle)[0]

    billing = FunctionBackend(
        lambda r: pay(r) if r.tool == "pay_invoice" else lookup(r),
        egress=lambda r: ["payments.example.com"] if r.tool == "pay_invoice" else [],
    )
    gateway = Gateway(
        bundle,
        backends={"billing": billing},
        approver=approver,
        triggers={"large-amount": lambda r: r.arguments["amountCents"] > 50_000},
        credentials=lambda reference: "token-from-the-vault",
        journal=SQLiteJournal(options.journal),
    )
    who = {"caller": "agent-42", "run": "run-2026-11-30", "tenant": "acme"}

    def show(title: str, outcome: ToolOutcome) -> dict[str, Any]:
        return {"call": title, **outcome.to_dict()}

    report: dict[str, Any] = {
        "catalog": {
            "accepted": list(bundle.accepted),
            "classification": catalog_classification(bundle),
        },
        "modelRoute": route.name,
        "calls": [
            show("valid read", gateway.call("lookup_invoice", {"invoiceId": "INV-0001"}, **who)),
            show(
                "bad arguments (the model sent text the schema refuses)",
                gateway.call("lookup_invoice", '{"invoiceId": "0001"}', **who),
            ),
            show(
                "needs approval: approved",
                gateway.call(
                    "pay_invoice",
                    {"invoiceId": "INV-0001", "amountCents": 12_500},
                    idempotency_key="pay-INV-0001",
                    **who,
                ),
            ),
            show(
                "same idempotency key again: the recorded outcome, no second payment",
                gateway.call(
                    "pay_invoice",
                    {"invoiceId": "INV-0001", "amountCents": 12_500},
                    idempotency_key="pay-INV-0001",
                    **who,
                ),
            ),
            show(
                "needs approval: refused",
                gateway.call(
                    "pay_invoice",
                    {"invoiceId": "INV-0002", "amountCents": 250_000},
                    idempotency_key="pay-INV-0002",
                    **who,
                ),
            ),
        ],
        "paymentsMade": PAID,
    }
    print(json.dumps(report, indent=2, ensure_ascii=False))
    assert PAID == ["INV-0001"], "exactly one payment must have been made"


if __name__ == "__main__":
    main()
