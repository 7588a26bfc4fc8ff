"""The minimised evidence record of one call.

Always: who, what (tool, toolId, version), when, how it ended (status, step, code,
dispatched, attempts, replayed), the intent, the approval, the egress destinations
and a SHA-256 digest of the validated arguments. Once the tool's contract is known,
``audit`` holds the audit-record fields the contract's ``auditFields`` names, filled
from the call's context (:data:`AUDIT_FIELDS`). Payloads follow
``observability.logPayloads``: true records the arguments and the result; false
records only their shape (property names the schema declares, other names as
``*``, and JSON types), never a value. Credentials and idempotency keys are never
recorded (a key only as its digest).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any, Final

from ..contract import ToolContract
from ..jsonvalues import REDACTED, json_text, json_type

__all__ = [
    "AUDIT_FIELDS",
    "EVIDENCE_VERSION",
    "audit_record",
    "digest",
    "payload_view",
    "result_view",
]

EVIDENCE_VERSION: Final = "schemacore.gateway.evidence.v2"

AUDIT_FIELDS: Final[Mapping[str, str]] = {
    "requestId": "requestId",
    "actorRef": "caller",
    "tenantRef": "tenant",
    "runRef": "run",
    "toolId": "toolId",
    "toolVersion": "version",
    "outcome": "status",
    "step": "step",
    "code": "code",
    "intentId": "intentId",
    "argumentsDigest": "argumentsDigest",
    "timestamp": "time",
}
"""Audit-record field (as a contract's ``auditFields`` names it) -> the evidence
field it is filled from. ``approvedBy`` (the approver's ``Decision.by``) is the one
field read from elsewhere. The envelope schema allows exactly these names."""


def digest(value: Any) -> str:
    """``sha256:`` and the hex digest of the canonical JSON of ``value``."""
    text = json_text(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def _declared(schema: Any) -> frozenset[str]:
    if isinstance(schema, Mapping) and isinstance(schema.get("properties"), Mapping):
        return frozenset(schema["properties"])
    return frozenset()


def _shape(value: Any, declared: frozenset[str]) -> Any:
    """Top-level property names (declared ones only) and JSON types."""
    if isinstance(value, Mapping):
        return {
            (key if key in declared else REDACTED): json_type(item) for key, item in value.items()
        }
    return json_type(value)


def payload_view(log_payloads: bool, value: Any, schema: Any) -> Any:
    """What ``observability.logPayloads`` allows of the arguments: the value, or its shape."""
    return value if log_payloads else _shape(value, _declared(schema))


def result_view(log_payloads: bool, result: Mapping[str, Any], output_schema: Any) -> Any:
    """The result as ``logPayloads`` allows: all of it, or its outline."""
    if log_payloads:
        return result
    content = result.get("content")
    outline: dict[str, Any] = {
        "isError": result.get("isError") is True,
        "content": [
            item.get("type") if isinstance(item, Mapping) else json_type(item)
            for item in (content if isinstance(content, list) else [])
        ],
    }
    if "structuredContent" in result:
        outline["structuredContent"] = _shape(result["structuredContent"], _declared(output_schema))
    return outline


def audit_record(contract: ToolContract, record: Mapping[str, Any]) -> dict[str, Any]:
    """The contract's ``auditFields``, in its order, from an evidence ``record``
    (null where the call has no such value, e.g. ``intentId`` before the intent)."""
    audit: dict[str, Any] = {}
    for name in contract["auditFields"]:
        if name == "approvedBy":
            approval = record.get("approval")
            audit[name] = approval.get("by") if isinstance(approval, Mapping) else None
        else:
            audit[name] = record.get(AUDIT_FIELDS[name])
    return audit
