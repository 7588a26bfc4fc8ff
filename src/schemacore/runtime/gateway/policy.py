"""The decisions before dispatch: authorisation, approval and budget.

Each is a hook the host supplies. A hook may answer a :class:`Decision` or a plain
bool; a hook that raises is a refusal (fail closed), never a pass.

Authorisation (default :func:`grants_authorizer`) decides *who may use the tool*
from the admitted bundle's :class:`~schemacore.runtime.Authority`. Approval decides
*whether this call needs a human*: the contract's ``approvalTriggers`` are read as
named conditions (see :func:`fired_triggers`), and the approver is asked only when
one fires. The permission class and the side-effect class are two different
triggers: ``permission-financial-high-impact`` says what the tool may touch,
``side-effect-irreversible`` what a call cannot undo; a contract lists either or both.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..contract import ToolContract

__all__ = [
    "Approver",
    "Authorizer",
    "Budget",
    "CallRequest",
    "Decision",
    "RunBudget",
    "Trigger",
    "fired_triggers",
    "grants_authorizer",
]


@dataclass(frozen=True, slots=True)
class CallRequest:
    """One call as the hooks see it, after its arguments passed validation.

    Attributes:
        tool: the MCP tool name.
        contract: the tool's validated contract.
        arguments: the validated arguments (the caller's object: hooks must not
            change it).
        caller, run: who calls, in which run.
        grant: the bundle's grant for this tool (None when there is none).
        idempotency_key: the call's key (given, or read from the argument the
            contract's ``keyLocation`` names), or None.
        compensates: for a compensation, the intent it compensates.
        tenant: the tenant the call is made for, or None.
        request_id: the call's request id (the ``requestId`` audit field).
    """

    tool: str
    contract: ToolContract
    arguments: Mapping[str, Any] = field(repr=False)
    caller: str
    run: str
    grant: Any = field(default=None, repr=False)
    idempotency_key: str | None = field(default=None, repr=False)
    compensates: str | None = None
    tenant: str | None = None
    request_id: str | None = None

    @property
    def tool_id(self) -> str:
        return self.contract.tool_id


@dataclass(frozen=True, slots=True)
class Decision:
    """A hook's answer: ``allowed``, and for the host's records who decided and why."""

    allowed: bool
    reason: str | None = None
    by: str | None = None


Authorizer = Callable[[CallRequest, Any], "Decision | bool"]
"""``authorizer(request, authority) -> Decision | bool``; ``authority`` is the
bundle's :class:`~schemacore.runtime.Authority` (None when the bundle has none)."""

Approver = Callable[[CallRequest, tuple[str, ...]], "Decision | bool"]
"""``approver(request, fired_triggers) -> Decision | bool``."""

Trigger = Callable[[CallRequest], bool]
"""A host-defined approval trigger: does it fire for this call?"""


def grants_authorizer(request: CallRequest, authority: Any) -> Decision:
    """The default authoriser: the bundle's authority must name this caller and
    run, and hold a grant for the tool. A grant that is a mapping may narrow it:
    ``{"permissionClasses": [...]}`` lists the permission classes it covers. A
    grant of ``False`` or ``None`` grants nothing."""
    if authority is None:
        return Decision(False, "the catalog was admitted without an authority")
    if request.caller != authority.caller:
        return Decision(False, "the caller is not the one the catalog was admitted for")
    if request.run != authority.run:
        return Decision(False, "the run is not the one the catalog was admitted for")
    if request.tool not in authority.grants:
        return Decision(False, "the authority has no grant for this tool")
    grant = authority.grants[request.tool]
    if grant is None or grant is False:
        return Decision(False, "the grant for this tool is empty")
    if isinstance(grant, Mapping) and "permissionClasses" in grant:
        classes = grant["permissionClasses"]
        if not isinstance(classes, (list, tuple)) or (
            request.contract.permission_class not in classes
        ):
            return Decision(False, "the grant does not cover the tool's permission class")
    return Decision(True, by="grants")


_PERMISSION_CLASSES = (
    "read",
    "reversible-write",
    "irreversible",
    "financial-high-impact",
    "external-communication",
    "code-execution",
    "administrative",
)
_SIDE_EFFECT_CLASSES = ("none", "reversible", "compensatable", "irreversible")
_DATA_CLASSES = ("public", "internal", "confidential", "restricted")
_BUILTIN_NAMES = frozenset(
    {
        "always",
        *(f"permission-{name}" for name in _PERMISSION_CLASSES),
        *(f"side-effect-{name}" for name in _SIDE_EFFECT_CLASSES),
        *(f"data-{name}" for name in _DATA_CLASSES),
    }
)


def fired_triggers(
    request: CallRequest, triggers: Mapping[str, Trigger]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Which of the contract's ``approvalTriggers`` fire for this call, and which of
    those are unknown (they fire too: an approval rule that cannot be evaluated
    asks a human).

    Built-in names: ``always``; ``permission-<permissionClass>`` (e.g.
    ``permission-financial-high-impact``); ``side-effect-<sideEffectClass>`` (e.g.
    ``side-effect-irreversible``); ``data-<dataClassification>`` (e.g.
    ``data-restricted``). Any other name is looked up in ``triggers``; a trigger
    that raises fires.
    """
    contract = request.contract
    builtin = {
        "always",
        f"permission-{contract.permission_class}",
        f"side-effect-{contract.side_effect_class}",
        f"data-{contract.data_classification}",
    }
    fired: list[str] = []
    unknown: list[str] = []
    for name in contract["approvalTriggers"]:
        if name in builtin:
            fired.append(name)
        elif name in _BUILTIN_NAMES:
            continue  # a built-in condition about another class: does not fire
        elif name in triggers:
            try:
                fires = triggers[name](request) is not False
            except Exception:
                fires = True
            if fires:
                fired.append(name)
        else:
            fired.append(name)
            unknown.append(name)
    return tuple(fired), tuple(unknown)


class Budget(Protocol):
    """A host budget, consulted after the contract's own rate and concurrency limits.

    ``reserve`` answers whether the call may take its share; ``release`` gives it
    back when the call ends without being dispatched (a refusal after the budget
    step, or a crash before dispatch). A dispatched call keeps its share.
    """

    def reserve(self, request: CallRequest) -> Decision | bool: ...

    def release(self, request: CallRequest) -> None: ...


class RunBudget:
    """A :class:`Budget` of at most ``max_calls`` dispatched calls per run."""

    def __init__(self, max_calls: int) -> None:
        if max_calls < 0:
            raise ValueError("max_calls must not be negative")
        self.max_calls = max_calls
        self._used: dict[str, int] = {}
        self._lock = threading.Lock()

    def reserve(self, request: CallRequest) -> Decision:
        with self._lock:
            used = self._used.get(request.run, 0)
            if used >= self.max_calls:
                return Decision(False, f"the run has used its {self.max_calls} calls", "budget")
            self._used[request.run] = used + 1
            return Decision(True, by="budget")

    def release(self, request: CallRequest) -> None:
        with self._lock:
            used = self._used.get(request.run, 0)
            if used > 0:
                self._used[request.run] = used - 1

    def used(self, run: str) -> int:
        """Calls counted against ``run`` so far."""
        with self._lock:
            return self._used.get(run, 0)
