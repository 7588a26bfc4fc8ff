"""What a gateway call answers: the steps, the statuses and :class:`ToolOutcome`.

Every outcome carries an MCP ``CallToolResult`` for the model. For a call that did
not complete, that result is an ``isError`` result worded from the stopping step's
code only (a rejected argument gets the value-safe issue text of the admission
layer); host-side reasons (an authoriser's or an approver's words, backend
exception text) stay in :attr:`ToolOutcome.message` and never reach the model.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from ..toolresult import error_result

__all__ = [
    "GATEWAY_META_KEY",
    "STEPS",
    "Status",
    "ToolOutcome",
    "model_result",
]

# The order of the steps is the gateway's contract: a failure at one stops every
# later one. "evidence" always runs, for every outcome.
STEPS: Final = (
    "lookup",
    "arguments",
    "authorization",
    "approval",
    "budget",
    "intent",
    "egress",
    "credentials",
    "dispatch",
    "output",
    "evidence",
)

Status = Literal["succeeded", "refused", "failed", "output-invalid", "ambiguous", "in-progress"]
"""``succeeded``: dispatched and answered; ``refused``: stopped before dispatch, nothing
happened; ``failed``: dispatched, and the tool reported an error; ``output-invalid``:
dispatched, but its structured output broke the output schema (enforce mode);
``ambiguous``: it may or may not have happened (timeout, lost backend, crash);
``in-progress``: the same idempotency key is being served now."""

GATEWAY_META_KEY: Final = "schemacore/gateway"
"""The ``_meta`` key under which a gateway result says which step stopped the call."""

# What the model reads when a call did not complete, by code. Fixed words only: a
# reason written by a hook or a backend is host data and stays out of it.
_MODEL_TEXT: Final[Mapping[str, str]] = {
    "tool-unknown": "there is no such tool in the catalog",
    "tool-not-governed": "the tool has no governance contract, so it cannot be called",
    "tool-sunset": "the tool was retired (its deprecation sunset has passed)",
    "tool-retired": "the tool was retired",
    "tenant-missing": "the call does not say which tenant it is made for",
    "contract-validation-failed": "a stable idempotency key is required",
    "idempotency-key-mismatch": (
        "the idempotency key given with the call is not the one in the arguments"
    ),
    "compensation-deadline-passed": "the time to compensate this call has passed",
    "not-authorized": "the caller is not authorised to use this tool",
    "authorizer-failed": "authorisation could not be decided",
    "approval-denied": "the call needs human approval, which was refused",
    "approval-unavailable": "the call needs human approval, and none is available",
    "approval-failed": "the call needs human approval, which could not be obtained",
    "rate-limited": "the tool's rate limit is reached; try again later",
    "concurrency-limited": "too many calls of this tool are in flight; try again later",
    "budget-exhausted": "the run's budget does not allow this call",
    "journal-unavailable": "the call could not be recorded, so it was not made",
    "idempotency-key-conflict": (
        "the idempotency key was already used for a call with other arguments"
    ),
    "intent-in-progress": "a call with the same idempotency key is in progress; try again later",
    "credential-unavailable": "the tool's credentials could not be obtained",
    "egress-denied": "the tool would contact a destination its policy does not allow",
    "backend-unavailable": "the tool's backend is not available",
    "dispatch-timeout": "the tool did not answer in time; it may or may not have run",
    "backend-failed": "the tool's backend failed; the call may or may not have run",
    "tool-error-undeclared": "the tool failed with an error it does not declare",
    "result-invalid": "the tool ran but its result was not a valid tool result",
    "output-invalid": "the tool ran but its output did not match its declared output schema",
    "interrupted": "the runtime stopped while the call was in flight; it may or may not have run",
    "interrupted-before-dispatch": "the runtime stopped before the call was made",
    "intent-closed": "the call's record was closed by another runtime before it was made",
    "internal-error": "the runtime failed unexpectedly",
    "compensation-unavailable": "the call cannot be compensated automatically",
    "intent-unknown": "there is no recorded call to compensate",
}


def model_result(
    tool: str,
    step: str,
    code: str,
    *,
    dispatched: bool | None,
    retryable: bool,
    path: str | None = None,
) -> dict[str, Any]:
    """An MCP ``isError`` result for a call that did not complete, from the code
    (and the JSON Pointer of what is missing in the call, when there is one)."""
    why = _MODEL_TEXT.get(code, "the call could not be completed")
    name = json.dumps(tool, ensure_ascii=False)
    if dispatched is False:
        text = f"The tool {name} was not called: {why}."
    else:
        text = f"The tool {name} did not complete: {why}."
    meta: dict[str, Any] = {
        "step": step,
        "code": code,
        "dispatched": dispatched,
        "retryable": retryable,
    }
    if path is not None:
        meta["path"] = path
    return error_result(text, GATEWAY_META_KEY, meta)


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    """The answer to one :meth:`Gateway.call`.

    Attributes:
        tool: the MCP tool name that was called.
        tool_id: the contract's ``toolId`` (None when the tool was not found).
        status: see :data:`Status`.
        step: the step that stopped the call, or None when every step passed.
        code: a stable code for that stop (None when every step passed).
        message: a host-facing sentence (may carry a hook's reason; not for models).
        dispatched: True when the backend was called, False when it certainly was
            not, None when that is unknown (ambiguous).
        retryable: whether the same call may be made again safely.
        result: the MCP ``CallToolResult`` for the model.
        attempts: backend attempts made (0 when not dispatched).
        intent_id: the journal intent, once one was published.
        replayed: the outcome was read from the journal (a repeated idempotency key),
            nothing ran this time.
        approval: who approved and on which triggers, when approval was needed.
        path: for a call refused for something missing in the call itself, its
            JSON Pointer (``/idempotencyKey``), else None.
        evidence: the minimised evidence record of this call.
    """

    tool: str
    tool_id: str | None
    status: Status
    step: str | None
    code: str | None
    message: str
    dispatched: bool | None
    retryable: bool
    result: Mapping[str, Any]
    attempts: int = 0
    intent_id: str | None = None
    replayed: bool = False
    approval: Mapping[str, Any] | None = None
    path: str | None = None
    evidence: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def stopped(
        cls,
        tool: str,
        tool_id: str | None,
        step: str,
        code: str,
        message: str,
        *,
        status: Status = "refused",
        dispatched: bool | None = False,
        retryable: bool = False,
        result: Mapping[str, Any] | None = None,
        **details: Any,
    ) -> ToolOutcome:
        """The outcome of a call stopped at ``step``; the model's result is worded
        from the code unless ``result`` is given."""
        if result is None:
            result = model_result(
                tool,
                step,
                code,
                dispatched=dispatched,
                retryable=retryable,
                path=details.get("path"),
            )
        return cls(
            tool=tool,
            tool_id=tool_id,
            status=status,
            step=step,
            code=code,
            message=message,
            dispatched=dispatched,
            retryable=retryable,
            result=result,
            **details,
        )

    @property
    def ok(self) -> bool:
        """True when the tool ran and answered (``succeeded``)."""
        return self.status == "succeeded"

    def to_dict(self, *, evidence: bool = True) -> dict[str, Any]:
        """A JSON form (the journal stores it without the evidence)."""
        data: dict[str, Any] = {
            "tool": self.tool,
            "toolId": self.tool_id,
            "status": self.status,
            "step": self.step,
            "code": self.code,
            "message": self.message,
            "dispatched": self.dispatched,
            "retryable": self.retryable,
            "attempts": self.attempts,
            "intentId": self.intent_id,
            "replayed": self.replayed,
            "approval": dict(self.approval) if self.approval is not None else None,
            "result": self.result,
        }
        if self.path is not None:
            data["path"] = self.path
        if evidence:
            data["evidence"] = dict(self.evidence)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ToolOutcome:
        """The outcome stored by :meth:`to_dict` (``evidence`` is not restored)."""
        return cls(
            tool=data["tool"],
            tool_id=data["toolId"],
            status=data["status"],
            step=data["step"],
            code=data["code"],
            message=data["message"],
            dispatched=data["dispatched"],
            retryable=data["retryable"],
            result=data["result"],
            attempts=data["attempts"],
            intent_id=data["intentId"],
            replayed=data["replayed"],
            approval=data["approval"],
            path=data.get("path"),
        )
