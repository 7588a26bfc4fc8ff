"""The execution gateway: every governed tool call passes through :meth:`Gateway.call`.

The steps, in order (a failure at one stops every later one; see ``docs/gateway.md``):

1. ``lookup``: the tool is in the admitted bundle, governed, and not past its sunset;
2. ``arguments``: strict JSON text (when text is given) and the input schema, the
   same boundary as admission; a refusal is an MCP ``isError`` result the model reads;
3. ``authorization``: the authoriser, against the bundle's grants;
4. ``approval``: when one of the contract's ``approvalTriggers`` fires, the approver;
5. ``budget``: the contract's rate and concurrency limits, then the host budget;
6. ``intent``: the intent is published in the journal (a repeated idempotency key
   gets the recorded outcome instead, without any later step);
7. ``credentials``: the ``authenticationRef`` is resolved, never earlier, never logged;
8. ``egress``: the backend's destinations against the default-deny ``egressPolicy``;
9. ``dispatch``: the backend, under ``timeoutMs``, retried per ``retryPolicy`` only
   where that is safe;
10. ``output``: ``structuredContent`` against ``outputSchema`` (enforce or report);
11. ``evidence``: the minimised record, for every outcome.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from types import MappingProxyType
from typing import Any, Literal

from ..catalog import AdmittedBundle, AdmittedTool
from ..contract import ToolContract
from ..errors import BoundaryError
from ..issues import ISSUE_META_KEY, tool_error_result, validate_property_value, validate_tool_args
from ..jsontext import parse_tool_args
from .backends import Backend, DispatchRequest, Secret, run_attempt
from .evidence import EVIDENCE_VERSION, audit_values, digest, payload_view, result_view
from .journal import Intent, IntentJournal, SQLiteJournal
from .limiter import ContractLimiter, Slot
from .outcome import GATEWAY_META_KEY, Status, ToolOutcome, model_result
from .policy import (
    Approver,
    Authorizer,
    Budget,
    CallRequest,
    Decision,
    Trigger,
    fired_triggers,
    grants_authorizer,
)

__all__ = ["Gateway", "GatewayConfigError"]

OutputMode = Literal["enforce", "report"]
_ALWAYS_RECORDED = frozenset({"toolId", "status", "step", "code", "dispatched"})
_KEY_LIMIT = 256


class GatewayConfigError(ValueError):
    """A bundle the gateway cannot serve (an ungoverned tool, an unknown backend).
    ``problems`` lists them, one sentence each; the previous bundle stays in force."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = tuple(problems)


@dataclass(frozen=True, slots=True)
class _Catalog:
    """One bundle and what the gateway derives from it, swapped as one reference."""

    bundle: AdmittedBundle
    by_tool_id: Mapping[str, str]


class _Stop(Exception):
    """Raised inside a call to end it at a step (caught in :meth:`Gateway.call`)."""

    def __init__(self, outcome: ToolOutcome) -> None:
        super().__init__(outcome.code)
        self.outcome = outcome


class _Holder:
    """Frees a call's in-flight place when the call and every attempt thread ended."""

    def __init__(self, slot: Slot) -> None:
        self._slot = slot
        self._count = 1
        self._lock = threading.Lock()
        self.dispatched = False

    def enter(self) -> None:
        with self._lock:
            self._count += 1

    def leave(self) -> None:
        with self._lock:
            self._count -= 1
            last = self._count == 0
        if last:
            self._slot.release(refund=not self.dispatched)


def _decided(answer: Decision | bool) -> Decision:
    if isinstance(answer, Decision):
        return answer
    return Decision(answer is True)


def _sunset_passed(contract: ToolContract, now: float) -> bool:
    deprecation = contract["deprecation"]
    sunset = deprecation["sunsetAt"]
    if not deprecation["deprecated"] or not isinstance(sunset, str):
        return False
    text = sunset.replace("Z", "+00:00").replace("z", "+00:00")
    if text[17:19] == "60":  # a leap second: the instant is the next second's start
        text = text[:17] + "59" + text[19:]
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return True  # the contract check admitted it; if it cannot be read, fail closed
    return moment.astimezone(UTC).timestamp() <= now


def _result_problem(result: Any) -> str | None:
    """Why a backend's answer is not an MCP CallToolResult the gateway can pass on."""
    if not isinstance(result, Mapping):
        return "the backend answered something other than an object"
    if "content" in result and not isinstance(result["content"], list):
        return "content is not an array"
    if "isError" in result and not isinstance(result["isError"], bool):
        return "isError is not a boolean"
    if "structuredContent" in result and not isinstance(result["structuredContent"], dict):
        return "structuredContent is not an object"
    try:
        json.dumps(result, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return "the result is not JSON"
    return None


class Gateway:
    """Validation first, then authority, approval, budget, a durable intent, and dispatch.

    Args:
        bundle: an :class:`AdmittedBundle` whose tools all carry contracts.
        backends: backend name -> :class:`Backend`; every tool's ``backend`` must be one.
        authorizer: decides who may call (default :func:`grants_authorizer`).
        approver: asked when an approval trigger fires; None means no approval can
            be given (such calls are refused).
        triggers: host-defined approval triggers by name.
        budget: a host :class:`Budget`, after the contract's own limits.
        journal: the :class:`IntentJournal` (default: an in-memory SQLite journal).
        credentials: resolves an ``authenticationRef`` to a credential.
        output_mode: ``"enforce"`` refuses output that breaks ``outputSchema``;
            ``"report"`` passes it on and records the issues in the evidence.
        evidence_sink: called with each evidence record (e.g. an audit log writer).
        owner: this runtime process's stable name in the journal; a restarted
            process must use the same name to recover its own open intents.
        dedup_window_seconds: how long a repeated idempotency key is answered from
            the journal when the contract gives no ``deduplicationWindowSeconds``.
        recover: recover this owner's open intents now (see :meth:`recover`).
        clock, monotonic, sleep: time sources, injectable for tests.
    """

    def __init__(
        self,
        bundle: AdmittedBundle,
        *,
        backends: Mapping[str, Backend],
        authorizer: Authorizer = grants_authorizer,
        approver: Approver | None = None,
        triggers: Mapping[str, Trigger] | None = None,
        budget: Budget | None = None,
        journal: IntentJournal | None = None,
        credentials: Callable[[str], Any] | None = None,
        output_mode: OutputMode = "enforce",
        evidence_sink: Callable[[Mapping[str, Any]], None] | None = None,
        owner: str = "gateway",
        dedup_window_seconds: float = 86400.0,
        recover: bool = True,
        clock: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if output_mode not in ("enforce", "report"):
            raise ValueError(f"output_mode must be 'enforce' or 'report', not {output_mode!r}")
        if not isinstance(owner, str) or not owner:
            raise ValueError("owner must be a non-empty string")
        self._backends = MappingProxyType(dict(backends))
        self._authorizer = authorizer
        self._approver = approver
        self._triggers = MappingProxyType(dict(triggers or {}))
        self._budget = budget
        self._journal: IntentJournal = journal if journal is not None else SQLiteJournal()
        self._credentials = credentials
        self._output_mode = output_mode
        self._evidence_sink = evidence_sink
        self.owner = owner
        self._window = float(dedup_window_seconds)
        self._clock = clock
        self._monotonic = monotonic
        self._sleep = sleep
        self._limiter = ContractLimiter(monotonic)
        self._catalog = self._prepare(bundle)
        self.recovered: tuple[ToolOutcome, ...] = tuple(self.recover()) if recover else ()

    # -- catalog ----------------------------------------------------------------------------

    def _prepare(self, bundle: AdmittedBundle) -> _Catalog:
        if not isinstance(bundle, AdmittedBundle):
            raise TypeError("the gateway serves an AdmittedBundle (from ToolCatalog.admit_batch)")
        problems: list[str] = []
        by_tool_id: dict[str, str] = {}
        for name, tool in bundle.registry.items():
            if tool.contract is None:
                problems.append(f"tool {name!r} has no contract")
            else:
                by_tool_id[tool.contract.tool_id] = name
            if tool.descriptor.backend not in self._backends:
                problems.append(f"tool {name!r} names a backend this gateway does not have")
        if problems:
            raise GatewayConfigError(problems)
        return _Catalog(bundle, MappingProxyType(by_tool_id))

    @property
    def bundle(self) -> AdmittedBundle:
        """The bundle calls are served from now."""
        return self._catalog.bundle

    def replace_catalog(self, bundle: AdmittedBundle) -> None:
        """Serve ``bundle`` from now on. Atomic: a call reads the catalog once, so it
        sees the old bundle or the new one, never a mix. Rate and concurrency state
        (per ``toolId``) carries over.

        Raises:
            GatewayConfigError: the bundle cannot be served; the old one stays.
        """
        self._catalog = self._prepare(bundle)

    # -- calls ------------------------------------------------------------------------------

    def call(
        self,
        tool_name: str,
        arguments: Any,
        *,
        caller: str,
        run: str,
        idempotency_key: str | None = None,
    ) -> ToolOutcome:
        """Make one governed tool call; see the module docstring for the steps.

        ``arguments`` is the parsed arguments object or the JSON text the model sent.
        Never raises for anything the model sent or a hook or backend did; raises
        ``TypeError``/``ValueError`` only for the host's own mistakes (a caller or
        run that is not a non-empty string, an idempotency key that is not one of
        at most 256 characters).
        """
        return self._call(tool_name, arguments, caller, run, idempotency_key, None)

    def compensate(
        self,
        intent_id: str,
        arguments: Any,
        *,
        caller: str,
        run: str,
        idempotency_key: str | None = None,
    ) -> ToolOutcome:
        """Undo a recorded call with the contract's compensating tool: a new governed
        call through every step (validated, authorised, journaled with a link to
        ``intent_id``). The original outcome is never changed. A tool whose
        ``compensation.strategy`` is ``none`` or ``manual``, or a call that was
        never dispatched, is refused (step ``lookup``, ``compensation-unavailable``).
        """
        _check_host_inputs(caller, run, idempotency_key)
        original = self._journal.get(intent_id) if isinstance(intent_id, str) else None
        catalog = self._catalog
        if original is None:
            return self._refusal(None, None, "lookup", "intent-unknown", "no such intent")
        name = catalog.by_tool_id.get(original.tool_id)
        contract = catalog.bundle.registry[name].contract if name is not None else None
        if contract is None:
            return self._refusal(
                original.tool,
                None,
                "lookup",
                "compensation-unavailable",
                "the original tool is no longer in the catalog",
            )
        compensation = contract["compensation"]
        target = catalog.by_tool_id.get(compensation["toolId"] or "")
        dispatched = original.outcome is None or original.outcome.get("dispatched") is not False
        if compensation["strategy"] != "compensating-tool" or target is None or not dispatched:
            reason = (
                "the original call was never dispatched"
                if not dispatched
                else f"compensation strategy is {compensation['strategy']!r}"
                if compensation["strategy"] != "compensating-tool"
                else "the compensating tool is not in the catalog"
            )
            return self._refusal(
                original.tool, contract.tool_id, "lookup", "compensation-unavailable", reason
            )
        return self._call(target, arguments, caller, run, idempotency_key, intent_id)

    def recover(self) -> list[ToolOutcome]:
        """Close this owner's intents left open by a previous process: one that had
        started dispatch is *ambiguous* (never re-run: the effect may have
        happened), one that had not is *interrupted before dispatch* (safe to call
        again). Returns their outcomes; each also gets an evidence record."""
        recovered: list[ToolOutcome] = []
        for intent in self._journal.open_intents(self.owner):
            before = intent.dispatched_at is None
            status: Status = "refused" if before else "ambiguous"
            code = "interrupted-before-dispatch" if before else "interrupted"
            dispatched = False if before else None
            outcome = ToolOutcome(
                tool=intent.tool,
                tool_id=intent.tool_id,
                status=status,
                step="dispatch" if not before else "intent",
                code=code,
                message="the runtime stopped while this intent was open",
                dispatched=dispatched,
                retryable=before,
                result=model_result(
                    intent.tool, "dispatch", code, dispatched=dispatched, retryable=before
                ),
                intent_id=intent.intent_id,
            )
            self._journal.close(intent.intent_id, outcome.to_dict(evidence=False), self._clock())
            record = {
                "evidence": EVIDENCE_VERSION,
                "time": _iso(self._clock()),
                "intentId": intent.intent_id,
                "tool": intent.tool,
                "toolId": intent.tool_id,
                "caller": intent.caller,
                "run": intent.run,
                "status": status,
                "step": outcome.step,
                "code": code,
                "dispatched": dispatched,
                "recovered": True,
                "argumentsDigest": intent.args_digest,
            }
            recovered.append(self._emit(outcome, record))
        return recovered

    # -- the steps --------------------------------------------------------------------------

    def _refusal(
        self,
        tool: str | None,
        tool_id: str | None,
        step: str,
        code: str,
        message: str,
        *,
        retryable: bool = False,
        result: Mapping[str, Any] | None = None,
    ) -> ToolOutcome:
        name = tool if isinstance(tool, str) else ""
        outcome = ToolOutcome(
            tool=name,
            tool_id=tool_id,
            status="refused",
            step=step,
            code=code,
            message=message,
            dispatched=False,
            retryable=retryable,
            result=result
            if result is not None
            else model_result(name, step, code, dispatched=False, retryable=retryable),
        )
        record = {
            "evidence": EVIDENCE_VERSION,
            "time": _iso(self._clock()),
            "tool": name,
            "toolId": tool_id,
            "status": "refused",
            "step": step,
            "code": code,
            "dispatched": False,
        }
        return self._emit(outcome, record)

    def _emit(self, outcome: ToolOutcome, record: dict[str, Any]) -> ToolOutcome:
        # Optional fields only when set; the verdict fields always, even when null.
        record = {
            key: value
            for key, value in record.items()
            if value is not None or key in _ALWAYS_RECORDED
        }
        if self._evidence_sink is not None:
            try:
                self._evidence_sink(MappingProxyType(record))
            except Exception:
                record["sinkFailed"] = True
        return replace(outcome, evidence=MappingProxyType(record))

    def _call(
        self,
        tool_name: Any,
        arguments: Any,
        caller: str,
        run: str,
        idempotency_key: str | None,
        compensates: str | None,
    ) -> ToolOutcome:
        _check_host_inputs(caller, run, idempotency_key)
        catalog = self._catalog  # read once: the whole call sees one bundle
        run_ = _Run(self, catalog, tool_name, caller, run, compensates)
        try:
            outcome = run_.steps(arguments, idempotency_key)
        except _Stop as stop:
            outcome = stop.outcome
        finally:
            run_.release()
        return run_.finish(outcome)


class _Run:
    """The state of one call while it goes through the steps."""

    def __init__(
        self,
        gateway: Gateway,
        catalog: _Catalog,
        tool_name: Any,
        caller: str,
        run: str,
        compensates: str | None,
    ) -> None:
        self.g = gateway
        self.catalog = catalog
        self.tool = tool_name if isinstance(tool_name, str) else ""
        self.caller = caller
        self.run = run
        self.compensates = compensates
        self.started = gateway._monotonic()
        self.admitted: AdmittedTool | None = None
        self.contract: ToolContract | None = None
        self.request: CallRequest | None = None
        self.args_digest: str | None = None
        self.key_digest: str | None = None
        self.approval: dict[str, Any] | None = None
        self.egress: list[str] | None = None
        self.intent_id: str | None = None
        self.holder: _Holder | None = None
        self.budget_taken = False
        self.output_issues: list[str] | None = None

    # A stop at a step: the outcome, with the intent closed if one was published.
    def stop(
        self,
        step: str,
        code: str,
        message: str,
        *,
        status: Status = "refused",
        dispatched: bool | None = False,
        retryable: bool = False,
        result: Mapping[str, Any] | None = None,
        attempts: int = 0,
    ) -> _Stop:
        outcome = ToolOutcome(
            tool=self.tool,
            tool_id=self.contract.tool_id if self.contract is not None else None,
            status=status,
            step=step,
            code=code,
            message=message,
            dispatched=dispatched,
            retryable=retryable,
            result=result
            if result is not None
            else model_result(self.tool, step, code, dispatched=dispatched, retryable=retryable),
            attempts=attempts,
            intent_id=self.intent_id,
            approval=self.approval,
        )
        return _Stop(self.record(outcome))

    def record(self, outcome: ToolOutcome) -> ToolOutcome:
        """Close the open intent with ``outcome`` (the journal keeps it for replays)."""
        if self.intent_id is not None:
            try:
                self.g._journal.close(
                    self.intent_id, outcome.to_dict(evidence=False), self.g._clock()
                )
            except Exception:
                # The intent stays open: a restart reports it as ambiguous, never re-runs it.
                self.journal_failed = True
        return outcome

    journal_failed = False

    def steps(self, arguments: Any, idempotency_key: str | None) -> ToolOutcome:
        g = self.g
        # 1. lookup
        self.admitted = self.catalog.bundle.registry.get(self.tool) if self.tool else None
        if self.admitted is None:
            raise self.stop("lookup", "tool-unknown", "the tool is not in the admitted bundle")
        self.contract = self.admitted.contract
        if self.contract is None:
            raise self.stop("lookup", "tool-not-governed", "the tool has no contract")
        contract = self.contract
        if _sunset_passed(contract, g._clock()):
            raise self.stop("lookup", "tool-sunset", "the tool's deprecation sunset has passed")

        # 2. arguments: the admission layer's boundary, and nothing is done before it.
        if isinstance(arguments, (str, bytes, bytearray)):
            try:
                arguments = parse_tool_args(
                    bytes(arguments) if isinstance(arguments, bytearray) else arguments
                )
            except BoundaryError as exc:
                raise self.stop(
                    "arguments",
                    exc.code,
                    exc.message,
                    result=tool_error_result(self.tool, exc),
                ) from None
        checked = validate_tool_args(arguments, self.admitted.input, mode="enforce")
        if not checked.ok:
            result = tool_error_result(self.tool, checked)
            code = result["_meta"][ISSUE_META_KEY]["code"]
            raise self.stop(
                "arguments",
                code,
                f"the arguments were refused ({checked.total} issue(s))",
                result=result,
            )
        self.args_digest = digest(arguments)
        key = idempotency_key
        key_field = contract["idempotency"]["keyField"]
        if key is None and key_field is not None:
            value = arguments.get(key_field)
            if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
                key = str(value)
        if key is not None:
            self.key_digest = digest(key)
        grants = self.catalog.bundle.authority
        request = self.request = CallRequest(
            tool=self.tool,
            contract=contract,
            arguments=arguments,
            caller=self.caller,
            run=self.run,
            grant=grants.grants.get(self.tool) if grants is not None else None,
            idempotency_key=key,
            compensates=self.compensates,
        )

        # 3. authorization
        try:
            decision = _decided(g._authorizer(request, grants))
        except Exception as exc:
            raise self.stop(
                "authorization",
                "authorizer-failed",
                f"the authoriser raised {type(exc).__name__}",
            ) from None
        if not decision.allowed:
            raise self.stop(
                "authorization", "not-authorized", decision.reason or "the authoriser refused"
            )

        # A repeated idempotency key is answered from the journal here, before any
        # approval or budget is spent on a call that will not run again.
        window = float(contract["idempotency"].get("deduplicationWindowSeconds", g._window))
        if self.key_digest is not None:
            try:
                seen = g._journal.find(
                    contract.tool_id,
                    self.caller,
                    self.key_digest,
                    since=g._clock() - window,
                )
            except Exception as exc:
                raise self.stop(
                    "intent",
                    "journal-unavailable",
                    f"the journal could not be read ({type(exc).__name__})",
                    retryable=True,
                ) from None
            if seen is not None:
                return self.replay(seen)

        # 4. approval
        fired, unknown = fired_triggers(request, g._triggers)
        if fired:
            self.approval = {"triggers": list(fired)}
            if unknown:
                self.approval["unknownTriggers"] = list(unknown)
            if g._approver is None:
                raise self.stop(
                    "approval", "approval-unavailable", "approval is needed and no approver is set"
                )
            try:
                verdict = _decided(g._approver(request, fired))
            except Exception as exc:
                raise self.stop(
                    "approval", "approval-failed", f"the approver raised {type(exc).__name__}"
                ) from None
            self.approval["approved"] = verdict.allowed
            if verdict.by is not None:
                self.approval["by"] = verdict.by
            if not verdict.allowed:
                raise self.stop("approval", "approval-denied", verdict.reason or "not approved")

        # 5. budget: the contract's limits, then the host's budget.
        slot = g._limiter.reserve(contract)
        if isinstance(slot, tuple):
            raise self.stop("budget", slot[0], slot[1], retryable=True)
        self.holder = _Holder(slot)
        if g._budget is not None:
            try:
                verdict = _decided(g._budget.reserve(request))
            except Exception as exc:
                verdict = Decision(False, f"the budget raised {type(exc).__name__}")
            if not verdict.allowed:
                raise self.stop("budget", "budget-exhausted", verdict.reason or "no budget")
            self.budget_taken = True

        # 6. intent: published before anything can act.
        intent = Intent(
            intent_id=uuid.uuid4().hex,
            tool=self.tool,
            tool_id=contract.tool_id,
            caller=self.caller,
            run=self.run,
            key_digest=self.key_digest,
            args_digest=self.args_digest,
            owner=g.owner,
            created_at=g._clock(),
            compensates=self.compensates,
        )
        try:
            existing = g._journal.begin(intent, window=window)
        except Exception as exc:
            raise self.stop(
                "intent",
                "journal-unavailable",
                f"the intent could not be published ({type(exc).__name__})",
                retryable=True,
            ) from None
        if existing is not None:  # another call with this key got there first
            return self.replay(existing)
        self.intent_id = intent.intent_id

        # 7. credentials: resolved only now, handed to the backend only.
        credential: Secret | None = None
        reference = contract["authenticationRef"]
        if reference is not None:
            if g._credentials is None:
                raise self.stop(
                    "credentials",
                    "credential-unavailable",
                    "no credential resolver is set",
                    retryable=True,
                )
            try:
                value = g._credentials(reference)
            except Exception as exc:
                raise self.stop(
                    "credentials",
                    "credential-unavailable",
                    f"the resolver raised {type(exc).__name__}",
                    retryable=True,
                ) from None
            credential = value if isinstance(value, Secret) else Secret(value)

        # 8. egress: default deny.
        backend = g._backends.get(self.admitted.descriptor.backend or "")
        if backend is None:
            raise self.stop("egress", "backend-unavailable", "the tool's backend is not configured")
        timeout_ms = contract["timeoutMs"]
        dispatch = DispatchRequest(
            tool=self.tool,
            tool_id=contract.tool_id,
            arguments=arguments,
            credential=credential,
            timeout=timeout_ms / 1000.0 if timeout_ms is not None else None,
            intent_id=self.intent_id,
            idempotency_key=key,
        )
        self.check_egress(backend, dispatch)

        # 9. dispatch
        try:
            g._journal.mark_dispatched(self.intent_id, g._clock())
        except Exception as exc:
            raise self.stop(
                "dispatch",
                "journal-unavailable",
                f"the dispatch could not be recorded ({type(exc).__name__})",
                retryable=True,
            ) from None
        result, attempts = self.dispatch(backend, dispatch)

        # 10. output
        self.check_output(result, attempts)
        return self.record(
            ToolOutcome(
                tool=self.tool,
                tool_id=contract.tool_id,
                status="succeeded",
                step=None,
                code=None,
                message="the tool ran and answered",
                dispatched=True,
                retryable=False,
                result=result,
                attempts=attempts,
                intent_id=self.intent_id,
                approval=self.approval,
            )
        )

    def check_egress(self, backend: Backend, dispatch: DispatchRequest) -> None:
        assert self.contract is not None
        policy = self.contract["egressPolicy"]
        try:
            destinations = [str(d) for d in backend.destinations(dispatch)]
        except Exception as exc:
            raise self.stop(
                "egress",
                "egress-denied",
                f"the backend's destinations could not be read ({type(exc).__name__})",
            ) from None
        self.egress = destinations
        allowed = {d.lower() for d in policy["destinations"]} if policy["allowed"] else set()
        denied = [d for d in destinations if d.lower() not in allowed]
        if denied:
            raise self.stop(
                "egress",
                "egress-denied",
                f"{len(denied)} destination(s) are not in the tool's egress policy",
            )

    def may_repeat_after_ambiguity(self) -> bool:
        """After a timeout or a lost backend the effect may have happened: repeat
        only when the policy says so and a repeat cannot apply it twice (no side
        effect, or the backend deduplicates on a key this call carries)."""
        assert self.contract is not None and self.request is not None
        contract = self.contract
        if not contract["retryPolicy"]["retryOnAmbiguousTimeout"]:
            return False
        if contract.side_effect_class == "none":
            return True
        return (
            bool(contract["idempotency"]["supported"]) and self.request.idempotency_key is not None
        )

    def dispatch(self, backend: Backend, dispatch: DispatchRequest) -> tuple[Any, int]:
        assert self.contract is not None and self.holder is not None
        contract, g = self.contract, self.g
        policy = contract["retryPolicy"]
        taxonomy = {entry["code"]: entry for entry in contract["errorTaxonomy"]}
        retry_codes = {
            code
            for code in policy["retryableErrorCodes"]
            if code in taxonomy and taxonomy[code]["retryable"]
        }
        self.holder.dispatched = True
        attempt = 0
        while True:
            attempt += 1
            self.holder.enter()
            done = run_attempt(backend, replace(dispatch, attempt=attempt), self.holder.leave)
            last = attempt >= policy["maxAttempts"]
            if done.timed_out or done.error is not None:
                if not last and self.may_repeat_after_ambiguity():
                    g._sleep(policy["backoffMs"] * 2 ** (attempt - 1) / 1000.0)
                    continue
                code = "dispatch-timeout" if done.timed_out else "backend-failed"
                message = (
                    "no answer within timeoutMs"
                    if done.timed_out
                    else f"the backend raised {type(done.error).__name__}"
                )
                raise self.stop(
                    "dispatch",
                    code,
                    message,
                    status="ambiguous",
                    dispatched=None,
                    attempts=attempt,
                )
            if done.failure is not None:
                code = done.failure.code
                if code in retry_codes and not last:
                    g._sleep(policy["backoffMs"] * 2 ** (attempt - 1) / 1000.0)
                    continue
                if code not in taxonomy:
                    raise self.stop(
                        "dispatch",
                        "tool-error-undeclared",
                        "the tool failed with a code its errorTaxonomy does not declare",
                        status="failed",
                        dispatched=True,
                        attempts=attempt,
                    )
                description = taxonomy[code]["description"]
                text = f"The tool {json.dumps(self.tool)} failed ({code})"
                text += f": {description}" if description else "."
                raise self.stop(
                    "dispatch",
                    code,
                    description or code,
                    status="failed",
                    dispatched=True,
                    retryable=code in retry_codes,
                    attempts=attempt,
                    result={
                        "content": [{"type": "text", "text": text}],
                        "isError": True,
                        "_meta": {
                            GATEWAY_META_KEY: {
                                "step": "dispatch",
                                "code": code,
                                "dispatched": True,
                                "retryable": code in retry_codes,
                            }
                        },
                    },
                )
            problem = _result_problem(done.result)
            if problem is not None:
                raise self.stop(
                    "dispatch",
                    "result-invalid",
                    problem,
                    status="failed",
                    dispatched=True,
                    attempts=attempt,
                )
            if done.result.get("isError") is True:
                # The tool ran and reported an error in the MCP way: its own words.
                raise self.stop(
                    "dispatch",
                    "tool-reported-error",
                    "the tool answered with isError",
                    status="failed",
                    dispatched=True,
                    attempts=attempt,
                    result=done.result,
                )
            return done.result, attempt

    def check_output(self, result: Mapping[str, Any], attempts: int) -> None:
        assert self.admitted is not None
        output = self.admitted.output
        if output is None:
            return
        if "structuredContent" not in result:
            problems = ["structuredContent-missing"]
        else:
            try:
                issues = validate_property_value(result["structuredContent"], output)
                problems = [issue.code for issue in issues]
            except BoundaryError as exc:
                problems = [exc.code]
        if not problems:
            return
        self.output_issues = problems
        if self.g._output_mode == "enforce":
            raise self.stop(
                "output",
                "output-invalid",
                f"structuredContent does not match outputSchema ({len(problems)} issue(s))",
                status="output-invalid",
                dispatched=True,
                attempts=attempts,
            )

    def replay(self, intent: Intent) -> ToolOutcome:
        """The recorded outcome of an earlier call with the same key, or why not."""
        if intent.args_digest != self.args_digest:
            raise self.stop(
                "intent",
                "idempotency-key-conflict",
                "the idempotency key was used with other arguments",
            )
        if intent.outcome is None:
            raise self.stop(
                "intent",
                "intent-in-progress",
                "a call with this idempotency key has no outcome yet",
                retryable=True,
            )
        recorded = ToolOutcome.from_dict(intent.outcome)
        return replace(recorded, replayed=True)

    def release(self) -> None:
        """Give back what a call that was not dispatched reserved."""
        if self.holder is not None:
            self.holder.leave()
        if self.budget_taken and not (self.holder is not None and self.holder.dispatched):
            assert self.g._budget is not None and self.request is not None
            # A failing release is the host budget's own problem; the call is over.
            with contextlib.suppress(Exception):
                self.g._budget.release(self.request)

    def finish(self, outcome: ToolOutcome) -> ToolOutcome:
        """11. evidence: the minimised record of this outcome."""
        g, contract = self.g, self.contract
        record: dict[str, Any] = {
            "evidence": EVIDENCE_VERSION,
            "time": _iso(g._clock()),
            "intentId": outcome.intent_id,
            "tool": self.tool,
            "toolId": contract.tool_id if contract is not None else None,
            "version": contract.version if contract is not None else None,
            "caller": self.caller,
            "run": self.run,
            "status": outcome.status,
            "step": outcome.step,
            "code": outcome.code,
            "dispatched": outcome.dispatched,
            "attempts": outcome.attempts,
            "replayed": outcome.replayed,
            "durationMs": round((g._monotonic() - self.started) * 1000.0, 3),
            "argumentsDigest": self.args_digest,
            "idempotencyKeyDigest": self.key_digest,
            "compensates": self.compensates,
            "approval": self.approval,
            "egress": self.egress,
            "outputIssues": self.output_issues,
        }
        if self.journal_failed:
            record["journalFailed"] = True
        if contract is not None and self.request is not None:
            arguments = self.request.arguments
            record["audit"] = audit_values(contract, arguments)
            observability = contract["observability"]
            record["arguments"] = payload_view(
                observability["logArguments"], arguments, contract.envelope["inputSchema"]
            )
            if outcome.dispatched and not outcome.replayed:
                record["result"] = result_view(
                    observability["logResults"], outcome.result, contract.envelope["outputSchema"]
                )
        return g._emit(outcome, record)


def _check_host_inputs(caller: Any, run: Any, key: Any) -> None:
    for name, value in (("caller", caller), ("run", run)):
        if not isinstance(value, str) or not value:
            raise TypeError(f"{name} must be a non-empty string")
    if key is not None and (not isinstance(key, str) or not key or len(key) > _KEY_LIMIT):
        raise ValueError(f"idempotency_key must be a string of 1 to {_KEY_LIMIT} characters")


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat().replace("+00:00", "Z")
