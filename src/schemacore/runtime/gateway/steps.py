"""One call's way through the gateway's steps (the :class:`Gateway` runs a
:class:`CallRun` per call); the order is documented in :mod:`.gateway`."""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ..catalog import TOOL_NAME, AdmittedBundle, AdmittedTool
from ..contract import TIMEOUT_CODE, ToolContract
from ..errors import BoundaryError
from ..issues import ISSUE_META_KEY, tool_error_result, validate_property_value, validate_tool_args
from ..jsontext import parse_tool_args
from ..toolresult import error_result
from .backends import Backend, Cancellation, DispatchRequest, Secret, run_attempt
from .evidence import EVIDENCE_VERSION, audit_record, digest, payload_view, result_view
from .frozen import freeze, thaw
from .journal import Intent
from .limiter import Reservation, rate_key
from .outcome import GATEWAY_META_KEY, Status, ToolOutcome
from .policy import CallRequest, Decision, fired_triggers
from .telemetry import CallTrace

if TYPE_CHECKING:
    from .services import CallServices

__all__ = ["CallRun", "CatalogView", "Stop", "check_host_inputs", "iso_time"]

_KEY_LIMIT = 256
_TEXT_LIMIT = 256


@dataclass(frozen=True, slots=True)
class CatalogView:
    """One bundle and what the gateway derives from it, swapped as one reference."""

    bundle: AdmittedBundle
    by_tool_id: Mapping[str, str]
    contracts: Mapping[str, ToolContract]  # frozen snapshots, by tool name


class Stop(Exception):
    """Raised inside a call to end it at a step (caught in :meth:`Gateway.call`)."""

    def __init__(self, outcome: ToolOutcome) -> None:
        super().__init__(outcome.code)
        self.outcome = outcome


class _Holder:
    """Frees a call's in-flight place when the call and every attempt thread ended."""

    def __init__(self, slot: Reservation) -> None:
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


def _text(value: Any) -> str | None:
    """A hook's free text for the host's records: a string, capped, or nothing."""
    return value[:_TEXT_LIMIT] if isinstance(value, str) else None


def _decided(answer: Any) -> Decision:
    """A hook's answer as a Decision; only ``True`` (or ``allowed=True``) allows."""
    if isinstance(answer, Decision):
        return Decision(answer.allowed is True, _text(answer.reason), _text(answer.by))
    return Decision(answer is True)


def _sunset_passed(contract: ToolContract, now: float) -> bool:
    sunset = contract["deprecation"]["sunsetUtc"]
    if not isinstance(sunset, str):
        return False
    text = sunset.replace("Z", "+00:00")
    if text[17:19] == "60":  # a leap second: the instant is the next second's start
        text = text[:17] + "59" + text[19:]
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return True  # the contract check admitted it; if it cannot be read, fail closed
    return moment.astimezone(UTC).timestamp() <= now


def _plain_result(result: Any) -> tuple[dict[str, Any] | None, str]:
    """A backend's answer as a private plain-JSON copy (the backend keeps no handle
    on what is recorded), or why it is not an MCP CallToolResult to pass on."""
    if not isinstance(result, Mapping):
        return None, "the backend answered something other than an object"
    if "content" in result and not isinstance(result["content"], list):
        return None, "content is not an array"
    if "isError" in result and not isinstance(result["isError"], bool):
        return None, "isError is not a boolean"
    try:
        return json.loads(json.dumps(result, allow_nan=False)), ""
    except (TypeError, ValueError, RecursionError):
        return None, "the result is not JSON"


class CallRun:
    """The state of one call while it goes through the steps."""

    def __init__(
        self,
        services: CallServices,
        catalog: CatalogView,
        tool_name: Any,
        caller: str,
        run: str,
        compensates: str | None,
        *,
        tenant: str | None = None,
        request_id: str | None = None,
    ) -> None:
        self.g = services
        self.catalog = catalog
        self.tool = tool_name if isinstance(tool_name, str) else ""
        self.caller = caller
        self.run = run
        self.compensates = compensates
        self.tenant = tenant
        self.request_id = request_id
        self.started = services.monotonic()
        self.wall_started = services.clock()
        # Span name -> [start, end] wall-clock seconds of the part of the call it covers.
        self.phases: dict[str, list[float]] = {}
        self.arg_issues: tuple[tuple[str, str, str], ...] = ()
        self.arg_warned: list[str] | None = None  # issue codes a "warn" call ran with
        self.admitted: AdmittedTool | None = None
        self.contract: ToolContract | None = None
        self.request: CallRequest | None = None
        self.args_digest: str | None = None
        self.key_digest: str | None = None
        self.approval: dict[str, Any] | None = None
        self.egress: list[str] | None = None
        self.intent_id: str | None = None
        self.holder: _Holder | None = None
        self.headers: dict[str, str] = {}
        self.budget_taken = False
        self.output_issues: list[str] | None = None
        self.at = "lookup"  # the step being run, for an unexpected failure
        self.journal_failed = False

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
        path: str | None = None,
    ) -> Stop:
        outcome = ToolOutcome.stopped(
            self.tool,
            self.contract.tool_id if self.contract is not None else None,
            step,
            code,
            message,
            status=status,
            dispatched=dispatched,
            retryable=retryable,
            result=result,
            attempts=attempts,
            intent_id=self.intent_id,
            approval=self.approval,
            path=path,
        )
        return Stop(self.record(outcome))

    def record(self, outcome: ToolOutcome) -> ToolOutcome:
        """Close the open intent with ``outcome`` (the journal keeps it for replays)."""
        if self.intent_id is not None:
            try:
                self.g.journal.close(
                    self.intent_id, outcome.to_dict(evidence=False), self.g.clock()
                )
            except Exception:
                # The intent stays open: a restart reports it as ambiguous, never re-runs it.
                self.journal_failed = True
        return outcome

    def begin(self, phase: str) -> None:
        """A telemetry span's part of the call starts (see :mod:`.telemetry`)."""
        self.phases[phase] = [self.g.clock()]

    def end(self, phase: str) -> None:
        if len(self.phases.get(phase, ())) == 1:
            self.phases[phase].append(self.g.clock())

    def steps(self, arguments: Any, idempotency_key: str | None) -> ToolOutcome:
        """Steps 1 to 10, in order; each one raises :class:`Stop` to end the call."""
        self.begin("tool.validate")
        contract = self.look_up()
        self.at = "arguments"
        request = self.check_arguments(contract, arguments, idempotency_key)
        self.end("tool.validate")
        self.at = "authorization"
        self.begin("tool.authorize")
        self.authorize(request)
        self.at = "intent"
        # A repeated idempotency key is answered from the journal here, before any
        # approval or budget is spent on a call that will not run again.
        idempotency = contract["idempotency"]
        window = float(
            idempotency["deduplicationWindowSeconds"] if idempotency["supported"] else self.g.window
        )
        seen = self.recorded(contract, window)
        if seen is not None:
            return self.replay(seen)
        self.at = "approval"
        self.approve(request)
        self.end("tool.authorize")
        self.at = "budget"
        self.reserve(request)
        self.at = "intent"
        existing = self.publish_intent(contract, window)
        if existing is not None:  # another call with this key got there first
            return self.replay(existing)
        self.at = "egress"
        backend, dispatch = self.check_egress(request)
        self.at = "credentials"
        # Only now: a call that egress refuses never has its secret fetched.
        dispatch = replace(dispatch, credential=self.resolve_credentials(contract))
        self.at = "dispatch"
        try:
            marked = self.g.journal.mark_dispatched(dispatch.intent_id or "", self.g.clock())
        except Exception as exc:
            raise self.stop(
                "dispatch",
                "journal-unavailable",
                f"the dispatch could not be recorded ({type(exc).__name__})",
                retryable=True,
            ) from None
        if not marked:
            # Another gateway recovered (closed) the intent, or this gateway's owner
            # lease lapsed (a shared journal): either way it must not run now.
            raise self.stop(
                "intent",
                "intent-closed",
                "the intent was closed by another gateway, or this gateway's lease "
                "lapsed, before dispatch",
                retryable=True,
            )
        self.begin("tool.invoke")
        result, attempts = self.dispatch(backend, dispatch)
        self.end("tool.invoke")
        self.at = "output"
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

    def look_up(self) -> ToolContract:
        """1. The tool is admitted, governed, not retired or past its sunset, and
        the call carries what its rate-limit scope needs."""
        self.admitted = self.catalog.bundle.registry.get(self.tool) if self.tool else None
        if self.admitted is None:
            if not TOOL_NAME.fullmatch(self.tool):
                self.tool = ""  # not even a tool name: nothing of it is echoed
            raise self.stop("lookup", "tool-unknown", "the tool is not in the admitted bundle")
        self.contract = self.catalog.contracts.get(self.tool)
        if self.contract is None:
            raise self.stop("lookup", "tool-not-governed", "the tool has no contract")
        if self.contract["deprecation"]["status"] == "retired":
            raise self.stop("lookup", "tool-retired", "the tool's contract says it is retired")
        if _sunset_passed(self.contract, self.g.clock()):
            raise self.stop("lookup", "tool-sunset", "the tool's deprecation sunset has passed")
        if rate_key(self.contract, self.caller, self.tenant) is None:
            raise self.stop(
                "lookup",
                "tenant-missing",
                "the tool's rate limit is per tenant and the call names no tenant",
            )
        return self.contract

    def check_arguments(
        self, contract: ToolContract, arguments: Any, idempotency_key: str | None
    ) -> CallRequest:
        """2. The admission layer's boundary; nothing is done before it passes."""
        assert self.admitted is not None
        if isinstance(arguments, (str, bytes, bytearray)):
            try:
                arguments = parse_tool_args(
                    bytes(arguments) if isinstance(arguments, bytearray) else arguments
                )
            except BoundaryError as exc:
                raise self.stop(
                    "arguments", exc.code, exc.message, result=tool_error_result(self.tool, exc)
                ) from None
        mode = self.g.argument_mode_of(self.tool)
        # "off" still checks the JSON data model and the limits (the gateway digests,
        # journals and copies the arguments); only the schema's verdict is dropped.
        checked = validate_tool_args(
            arguments, self.admitted.input, mode="warn" if mode == "off" else mode
        )
        if checked.ok and checked.issues and mode == "warn":
            # The call runs; telemetry and the evidence say what did not match.
            self.arg_issues = tuple((i.path, i.expected, i.got) for i in checked.issues)
            self.arg_warned = [issue.code for issue in checked.issues]
        if not checked.ok:
            # For telemetry: where, what was expected, what type came; never a value.
            self.arg_issues = tuple((i.path, i.expected, i.got) for i in checked.issues)
            result = tool_error_result(self.tool, checked)
            raise self.stop(
                "arguments",
                result["_meta"][ISSUE_META_KEY]["code"],
                f"the arguments were refused ({checked.total} issue(s))",
                result=result,
            )
        self.args_digest = digest(arguments)
        # From here on, everyone works on a snapshot of what was validated.
        arguments = freeze(arguments)
        key, headers = self.idempotency_key(contract, arguments, idempotency_key)
        if key is not None:
            self.key_digest = digest(key)
        self.headers = headers
        authority = self.catalog.bundle.authority
        self.request = CallRequest(
            tool=self.tool,
            contract=contract,
            arguments=arguments,
            caller=self.caller,
            run=self.run,
            grant=authority.grants.get(self.tool) if authority is not None else None,
            idempotency_key=key,
            compensates=self.compensates,
            tenant=self.tenant,
            request_id=self.request_id,
        )
        return self.request

    def idempotency_key(
        self, contract: ToolContract, arguments: Mapping[str, Any], given: str | None
    ) -> tuple[str | None, dict[str, str]]:
        """The call's key and the headers that carry it. A tool that supports
        idempotency is never called without one: ``header:<Name>`` takes the host's
        key, ``argument:<name>`` the argument's value (a host key must agree)."""
        idempotency = contract["idempotency"]
        if not idempotency["supported"]:
            return given, {}  # the gateway's own deduplication, nothing the tool sees
        kind, _, name = idempotency["keyLocation"].partition(":")
        key = given
        if kind == "argument":
            value = arguments.get(name)
            key = None
            if isinstance(value, str) and value:
                key = value
            elif isinstance(value, int) and not isinstance(value, bool):
                key = str(value)
            if key is not None and given is not None and given != key:
                raise self.stop(
                    "arguments",
                    "idempotency-key-mismatch",
                    "the idempotency_key given is not the value of the key argument",
                )
        if key is None:
            # The published contract's own example of a refused call.
            raise self.stop(
                "arguments",
                "contract-validation-failed",
                "A stable idempotency key is required.",
                path="/idempotencyKey",
            )
        return key, ({name: key} if kind == "header" else {})

    def authorize(self, request: CallRequest) -> None:
        """3. The authoriser, against the bundle's authority."""
        try:
            decision = _decided(self.g.authorizer(request, self.catalog.bundle.authority))
        except Exception as exc:
            raise self.stop(
                "authorization", "authorizer-failed", f"the authoriser raised {type(exc).__name__}"
            ) from None
        if not decision.allowed:
            raise self.stop(
                "authorization", "not-authorized", decision.reason or "the authoriser refused"
            )

    def recorded(self, contract: ToolContract, window: float) -> Intent | None:
        """The journal's intent for this call's idempotency key, if any (read only)."""
        if self.key_digest is None:
            return None
        try:
            return self.g.journal.find(
                contract.tool_id, self.caller, self.key_digest, since=self.g.clock() - window
            )
        except Exception as exc:
            raise self.stop(
                "intent",
                "journal-unavailable",
                f"the journal could not be read ({type(exc).__name__})",
                retryable=True,
            ) from None

    def approve(self, request: CallRequest) -> None:
        """4. A human approves when one of the contract's triggers fires."""
        fired, unknown = fired_triggers(request, self.g.triggers)
        if not fired:
            return
        self.approval = {"triggers": list(fired)}
        if unknown:
            self.approval["unknownTriggers"] = list(unknown)
        if self.g.approver is None:
            raise self.stop(
                "approval", "approval-unavailable", "approval is needed and no approver is set"
            )
        try:
            verdict = _decided(self.g.approver(request, fired))
        except Exception as exc:
            raise self.stop(
                "approval", "approval-failed", f"the approver raised {type(exc).__name__}"
            ) from None
        self.approval["approved"] = verdict.allowed
        if verdict.by is not None:
            self.approval["by"] = verdict.by
        if not verdict.allowed:
            raise self.stop("approval", "approval-denied", verdict.reason or "not approved")

    def reserve(self, request: CallRequest) -> None:
        """5. The contract's rate and concurrency limits, then the host's budget."""
        key = rate_key(request.contract, self.caller, self.tenant)
        assert key is not None  # the lookup step refused a call without its tenant
        slot = self.g.limiter.reserve(request.contract, key)
        if isinstance(slot, tuple):
            raise self.stop("budget", slot[0], slot[1], retryable=True)
        self.holder = _Holder(slot)
        budget = self.g.budget
        if budget is None:
            return
        try:
            verdict = _decided(budget.reserve(request))
        except Exception as exc:
            verdict = Decision(False, f"the budget raised {type(exc).__name__}")
        if not verdict.allowed:
            raise self.stop("budget", "budget-exhausted", verdict.reason or "no budget")
        self.budget_taken = True

    def publish_intent(self, contract: ToolContract, window: float) -> Intent | None:
        """6. The intent, before anything can act; or the intent that has the key."""
        assert self.args_digest is not None
        intent = Intent(
            intent_id=self.g.ids(),
            tool=self.tool,
            tool_id=contract.tool_id,
            caller=self.caller,
            run=self.run,
            key_digest=self.key_digest,
            args_digest=self.args_digest,
            owner=self.g.owner,
            created_at=self.g.clock(),
            compensates=self.compensates,
        )
        try:
            existing = self.g.journal.begin(intent, window=window)
        except Exception as exc:
            raise self.stop(
                "intent",
                "journal-unavailable",
                f"the intent could not be published ({type(exc).__name__})",
                retryable=True,
            ) from None
        if existing is None:
            self.intent_id = intent.intent_id
        return existing

    def resolve_credentials(self, contract: ToolContract) -> Secret | None:
        """8. The ``authenticationRef``, resolved only now, for the backend only."""
        reference = contract["authenticationRef"]
        if reference is None:
            return None
        if self.g.credentials is None:
            raise self.stop(
                "credentials",
                "credential-unavailable",
                "no credential resolver is set",
                retryable=True,
            )
        try:
            value = self.g.credentials(reference)
        except Exception as exc:
            raise self.stop(
                "credentials",
                "credential-unavailable",
                f"the resolver raised {type(exc).__name__}",
                retryable=True,
            ) from None
        return value if isinstance(value, Secret) else Secret(value)

    def check_egress(self, request: CallRequest) -> tuple[Backend, DispatchRequest]:
        """7. The backend's destinations against the default-deny ``egressPolicy``
        (asked with a request that has no credential yet)."""
        assert self.admitted is not None
        contract = request.contract
        policy = contract["egressPolicy"]
        backend = self.g.backends.get(self.admitted.descriptor.backend or "")
        if backend is None:
            raise self.stop("egress", "backend-unavailable", "the tool's backend is not configured")
        dispatch = DispatchRequest(
            tool=self.tool,
            tool_id=contract.tool_id,
            arguments=request.arguments,  # read-only here; each attempt gets a copy
            timeout=contract["timeoutMs"] / 1000.0,
            intent_id=self.intent_id,
            idempotency_key=request.idempotency_key,
            headers=dict(self.headers),
            tenant=self.tenant,
            egress_allowed=bool(policy["allowed"]),
        )
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
        return backend, dispatch

    def may_repeat_after_ambiguity(self) -> bool:
        """After a timeout or a lost backend the effect may have happened: repeat
        only when ``retryableErrors`` lists ``timeout`` and a repeat cannot apply
        it twice: no side effect, or the tool deduplicates (its contract supports
        idempotency, so the call carries the key where the tool reads it)."""
        assert self.contract is not None
        contract = self.contract
        if TIMEOUT_CODE not in contract["retryPolicy"]["retryableErrors"]:
            return False
        return contract.side_effect_class == "none" or bool(contract["idempotency"]["supported"])

    def backoff(self, attempt: int) -> None:
        """Wait before attempt ``attempt + 1`` as ``retryPolicy.backoff`` says."""
        assert self.contract is not None
        curve = self.contract["retryPolicy"]["backoff"]
        base, cap = self.g.backoff
        if curve == "none":
            return
        delay = base if curve == "fixed" else min(cap, base * 2 ** (attempt - 1))
        if curve == "exponential-jitter":
            delay *= min(max(float(self.g.jitter()), 0.0), 1.0)
        self.g.sleep(min(cap, delay))

    def dispatch(self, backend: Backend, dispatch: DispatchRequest) -> tuple[Any, int]:
        assert self.contract is not None and self.holder is not None
        contract = self.contract
        policy = contract["retryPolicy"]
        taxonomy = {entry["code"]: entry for entry in contract["errorTaxonomy"]}
        retry_codes = {
            code
            for code in policy["retryableErrors"]
            if code in taxonomy and taxonomy[code]["retryable"]
        }
        self.holder.dispatched = True
        attempt = 0
        while True:
            attempt += 1
            self.holder.enter()
            # Each attempt gets its own copy: what one attempt changes, the next never sees.
            attempt_request = replace(
                dispatch,
                attempt=attempt,
                arguments=thaw(dispatch.arguments),
                cancellation=Cancellation.after(dispatch.timeout),
            )
            done = run_attempt(backend, attempt_request, self.holder.leave)
            last = attempt >= policy["maxAttempts"]
            if done.timed_out or done.error is not None:
                if not last and self.may_repeat_after_ambiguity():
                    self.backoff(attempt)
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
                code = done.failure.code if isinstance(done.failure.code, str) else ""
                if code in retry_codes and not last:
                    self.backoff(attempt)
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
                description = taxonomy[code]["meaning"]
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
                    result=error_result(
                        text,
                        GATEWAY_META_KEY,
                        {
                            "step": "dispatch",
                            "code": code,
                            "dispatched": True,
                            "retryable": code in retry_codes,
                        },
                    ),
                )
            result, problem = _plain_result(done.result)
            if result is None:
                raise self.stop(
                    "dispatch",
                    "result-invalid",
                    problem,
                    status="failed",
                    dispatched=True,
                    attempts=attempt,
                )
            if result.get("isError") is True:
                # The tool ran and reported an error in the MCP way: its own words.
                raise self.stop(
                    "dispatch",
                    "tool-reported-error",
                    "the tool answered with isError",
                    status="failed",
                    dispatched=True,
                    attempts=attempt,
                    result=result,
                )
            return result, attempt

    def unexpected(self, exc: Exception) -> ToolOutcome:
        """The outcome when something raised past every guard (a defect): ambiguous
        once dispatch may have started, else a refusal; the intent is closed."""
        dispatched = self.holder is not None and self.holder.dispatched
        try:
            raise self.stop(
                self.at,
                "internal-error",
                f"the gateway failed unexpectedly ({type(exc).__name__})",
                status="ambiguous" if dispatched else "refused",
                dispatched=None if dispatched else False,
            )
        except Stop as stop:
            return stop.outcome

    def check_output(self, result: Mapping[str, Any], attempts: int) -> None:
        assert self.admitted is not None
        output = self.admitted.output
        if output is None:
            return
        if "structuredContent" not in result:
            problems = ["structuredContent-missing"]
        else:
            try:
                checked = validate_property_value(result["structuredContent"], output)
                problems = [issue.code for issue in checked.issues]
            except BoundaryError as exc:
                problems = [exc.code]
        if not problems:
            return
        self.output_issues = problems
        if self.g.output_mode == "enforce":
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
                status="in-progress",
                retryable=True,
            )
        recorded = ToolOutcome.from_dict(intent.outcome)
        return replace(recorded, replayed=True)

    def release(self) -> None:
        """Give back what a call that was not dispatched reserved."""
        if self.holder is not None:
            self.holder.leave()
        if self.budget_taken and not (self.holder is not None and self.holder.dispatched):
            assert self.g.budget is not None and self.request is not None
            # A failing release is the host budget's own problem; the call is over.
            with contextlib.suppress(Exception):
                self.g.budget.release(self.request)

    def finish(self, outcome: ToolOutcome) -> ToolOutcome:
        """11. evidence: the minimised record of this outcome."""
        g, contract = self.g, self.contract
        record: dict[str, Any] = {
            "evidence": EVIDENCE_VERSION,
            "time": iso_time(g.clock()),
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
            "durationMs": round((g.monotonic() - self.started) * 1000.0, 3),
            "requestId": self.request_id,
            "tenant": self.tenant,
            "argumentsDigest": self.args_digest,
            "idempotencyKeyDigest": self.key_digest,
            "compensates": self.compensates,
            "approval": self.approval,
            "egress": self.egress,
            "outputIssues": self.output_issues,
            "argumentIssues": self.arg_warned,
        }
        if self.journal_failed:
            record["journalFailed"] = True
        if contract is not None:
            record["audit"] = audit_record(contract, record)
        if contract is not None and g.telemetry is not None:
            self.report(outcome, contract)
        if contract is not None and self.request is not None:
            log_payloads = contract["observability"]["logPayloads"]
            record["arguments"] = payload_view(
                log_payloads, thaw(self.request.arguments), contract.envelope["inputSchema"]
            )
            if outcome.dispatched and not outcome.replayed:
                record["result"] = result_view(
                    log_payloads, outcome.result, contract.envelope["outputSchema"]
                )
        return g.emit(outcome, record)

    def report(self, outcome: ToolOutcome, contract: ToolContract) -> None:
        """Hand the finished call to the gateway's telemetry; a failure there is
        the telemetry's own problem, never the call's."""
        assert self.g.telemetry is not None
        now = self.g.clock()
        observability = contract["observability"]
        arguments = None
        if observability["logPayloads"] and self.request is not None:
            arguments = thaw(self.request.arguments)
        trace = CallTrace(
            tool=self.tool,
            tool_id=contract.tool_id,
            version=contract.version,
            status=outcome.status,
            step=outcome.step,
            code=outcome.code,
            started=self.wall_started,
            ended=now,
            phases={
                name: (times[0], times[1] if len(times) > 1 else now)
                for name, times in self.phases.items()
            },
            required_spans=tuple(observability["requiredSpans"]),
            required_metrics=tuple(observability["requiredMetrics"]),
            arguments=arguments,
            issues=self.arg_issues,
            warned=self.arg_warned is not None,
        )
        with contextlib.suppress(Exception):
            self.g.telemetry.record(trace)


def check_host_inputs(
    caller: Any, run: Any, key: Any, *, tenant: Any = None, request_id: Any = None
) -> None:
    for name, value in (("caller", caller), ("run", run)):
        if not isinstance(value, str) or not value:
            raise TypeError(f"{name} must be a non-empty string")
    for name, value in (("tenant", tenant), ("request_id", request_id)):
        if value is not None and (
            not isinstance(value, str) or not value or len(value) > _TEXT_LIMIT
        ):
            raise ValueError(f"{name} must be a string of 1 to {_TEXT_LIMIT} characters")
    if key is not None and (not isinstance(key, str) or not key or len(key) > _KEY_LIMIT):
        raise ValueError(f"idempotency_key must be a string of 1 to {_KEY_LIMIT} characters")


def iso_time(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat().replace("+00:00", "Z")
