"""``aruntime.tool-contract.v1`` envelopes in the published field shapes, to derive
test cases from, and the published example read from its seed file."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

SEED_002 = Path(__file__).resolve().parents[3] / "shared" / "seeds" / "002_a7bee9b9e74c8eca.txt"

_VALID: dict[str, Any] = {
    "contractVersion": "aruntime.tool-contract.v1",
    "toolId": "payments.refund.v2",
    "version": "2.3.1",
    "description": "Refund a captured payment.",
    "inputSchema": {
        "type": "object",
        "properties": {
            "paymentId": {"type": "string"},
            "amountCents": {"type": "integer", "minimum": 1},
            "requestId": {"type": "string"},
        },
        "required": ["paymentId", "amountCents", "requestId"],
        "additionalProperties": False,
    },
    "outputSchema": {"type": "object", "properties": {"refundId": {"type": "string"}}},
    "authenticationRef": "secretref://payments/refund-api",
    "permissionClass": "financial-high-impact",
    "sideEffectClass": "compensatable",
    "dataClassification": "confidential",
    "egressPolicy": {"allowed": True, "destinations": ["api.payments.example.com"]},
    "timeoutMs": 30000,
    "retryPolicy": {
        "maxAttempts": 3,
        "backoff": "exponential",
        "retryableErrors": ["timeout", "rate-limited"],
    },
    "idempotency": {
        "supported": True,
        "keyLocation": "argument:requestId",
        "deduplicationWindowSeconds": 3600,
    },
    "concurrency": {"mode": "parallel", "maxConcurrent": 4},
    "approvalTriggers": ["amount-over-limit"],
    "compensation": {"supported": True, "toolRef": "payments.charge.v2", "deadlineSeconds": 600},
    "errorTaxonomy": [
        {"code": "rate-limited", "retryable": True, "meaning": "Too many requests."},
        {"code": "insufficient-funds", "retryable": False, "meaning": "Declined."},
    ],
    "rateLimits": {"requests": 60, "perSeconds": 60, "scope": "tenant"},
    "observability": {
        "requiredSpans": ["tool.validate", "tool.invoke"],
        "requiredMetrics": ["tool.duration"],
        "logPayloads": False,
    },
    "auditFields": ["requestId", "actorRef", "tenantRef", "toolVersion", "outcome"],
    "deprecation": {"status": "active", "replacementRef": None, "sunsetUtc": None},
}


def valid_contract() -> dict[str, Any]:
    """A fresh deep copy of a contract that passes every rule."""
    return copy.deepcopy(_VALID)


def seed_example() -> dict[str, Any]:
    """The "Validated example" of the published description, parsed from the seed
    file as it stands (skips where ../shared is not present)."""
    if not SEED_002.is_file():
        pytest.skip(f"the published contract description is not at {SEED_002}")
    text = SEED_002.read_text(encoding="utf-8")
    start = text.index("{", text.index("Validated examples"))
    example, _ = json.JSONDecoder().raw_decode(text, start)
    assert isinstance(example, dict)
    return example
