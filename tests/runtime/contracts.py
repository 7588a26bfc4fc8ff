"""A valid ``aruntime.tool-contract.v1`` envelope to derive test cases from."""

from __future__ import annotations

import copy
from typing import Any

_VALID: dict[str, Any] = {
    "contractVersion": "aruntime.tool-contract.v1",
    "toolId": "payments/refund@v2",
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
        "retryOnAmbiguousTimeout": True,
        "retryableErrorCodes": ["rate_limited"],
        "backoffMs": 500,
    },
    "idempotency": {"supported": True, "keyField": "requestId"},
    "concurrency": {"maxInFlight": 4},
    "approvalTriggers": ["amount-over-limit"],
    "compensation": {"strategy": "compensating-tool", "toolId": "payments/charge@v2"},
    "errorTaxonomy": [
        {"code": "rate_limited", "retryable": True, "description": "Too many requests."},
        {"code": "insufficient_funds", "retryable": False, "description": "Declined."},
    ],
    "rateLimits": {"requestsPerMinute": 60, "burst": 10},
    "observability": {"logArguments": "redacted", "logResults": "redacted"},
    "auditFields": ["paymentId", "amountCents"],
    "deprecation": {"deprecated": False, "sunsetAt": None, "replacementToolId": None},
}


def valid_contract() -> dict[str, Any]:
    """A fresh deep copy of a contract that passes every rule."""
    return copy.deepcopy(_VALID)
