"""The minimised evidence record of one call.

Always: who, what (tool, toolId, version), when, how it ended (status, step, code,
dispatched, attempts, replayed), the intent, the approval, the egress destinations
and a SHA-256 digest of the validated arguments. The contract's ``auditFields``
(top-level input properties) are recorded once the arguments passed validation:
scalars as they are (strings cut to :data:`AUDIT_STRING_LIMIT` characters), objects
and arrays as their type. Payloads follow ``observability``: ``logArguments`` /
``logResults`` ``"full"`` records the arguments / the result; ``"redacted"`` records
their shape (property names the schema declares, other names as ``*``, and JSON
types); ``"none"`` records neither. Credentials and idempotency keys are never
recorded (a key only as its digest).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any, Final

from ..contract import ToolContract
from ..jsonvalues import REDACTED, json_type

__all__ = [
    "AUDIT_STRING_LIMIT",
    "EVIDENCE_VERSION",
    "audit_values",
    "digest",
    "payload_view",
    "result_view",
]

EVIDENCE_VERSION: Final = "schemacore.gateway.evidence.v1"
AUDIT_STRING_LIMIT: Final = 256


def digest(value: Any) -> str:
    """``sha256:`` and the hex digest of the canonical JSON of ``value``."""
    text = json.dumps(
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


def payload_view(level: str, value: Any, schema: Any) -> Any:
    """What ``observability`` allows of a payload: the value, its shape, or None."""
    if level == "full":
        return value
    if level == "redacted":
        return _shape(value, _declared(schema))
    return None


def result_view(level: str, result: Mapping[str, Any], output_schema: Any) -> Any:
    """The result as ``logResults`` allows: all of it, or its outline."""
    if level == "full":
        return result
    if level != "redacted":
        return None
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


def audit_values(contract: ToolContract, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """The contract's ``auditFields`` present in the arguments, minimised."""
    recorded: dict[str, Any] = {}
    for name in contract["auditFields"]:
        if name not in arguments:
            continue
        value = arguments[name]
        if isinstance(value, str):
            recorded[name] = value[:AUDIT_STRING_LIMIT]
        elif value is None or isinstance(value, (bool, int, float)):
            recorded[name] = value
        else:
            recorded[name] = f"<{json_type(value)}>"
    return recorded
