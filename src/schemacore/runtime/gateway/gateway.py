"""The execution gateway: every governed tool call passes through :meth:`Gateway.call`.

The steps, in order (a failure at one stops every later one; see ``docs/gateway.md``):

1. ``lookup``: the tool is in the admitted bundle, governed, not retired or past its
   sunset, and the call carries the tenant a ``tenant``-scoped rate limit needs;
2. ``arguments``: strict JSON text (when text is given) and the input schema, the
   same boundary as admission; a refusal is an MCP ``isError`` result the model reads;
   then the idempotency key a tool that supports idempotency requires;
3. ``authorization``: the authoriser, against the bundle's grants;
4. ``approval``: when one of the contract's ``approvalTriggers`` fires, the approver;
5. ``budget``: the contract's rate and concurrency limits, then the host budget;
6. ``intent``: the intent is published in the journal (a repeated idempotency key
   gets the recorded outcome instead, without any later step);
7. ``egress``: the backend's destinations against the default-deny ``egressPolicy``;
8. ``credentials``: the ``authenticationRef`` is resolved, only once egress passed,
   never logged;
9. ``dispatch``: the backend, under ``timeoutMs``, retried per ``retryPolicy`` only
   where that is safe;
10. ``output``: ``structuredContent`` against ``outputSchema`` (enforce or report);
11. ``evidence``: the minimised record, for every outcome.
"""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from ..catalog import AdmittedBundle
from ..contract import ToolContract
from ..errors import reduce_by_state
from .backends import Backend
from .evidence import EVIDENCE_VERSION
from .frozen import freeze
from .journal import Intent, IntentJournal, SQLiteJournal
from .leases import LeasedJournal
from .limiter import ContractLimiter, Limiter
from .outcome import ToolOutcome
from .policy import Approver, Authorizer, Budget, Trigger, grants_authorizer
from .services import ArgumentMode, CallServices, OutputMode
from .steps import CallRun, CatalogView, Stop, check_host_inputs, iso_time
from .telemetry import Telemetry

__all__ = ["Gateway", "GatewayConfigError"]

_ALWAYS_RECORDED = frozenset({"toolId", "status", "step", "code", "dispatched"})


class _Context:
    """Who makes a call and for whom, as the host said; checked when made."""

    __slots__ = ("caller", "idempotency_key", "request_id", "run", "tenant")

    def __init__(
        self,
        caller: Any,
        run: Any,
        idempotency_key: Any,
        tenant: Any,
        request_id: Any,
    ) -> None:
        check_host_inputs(caller, run, idempotency_key, tenant=tenant, request_id=request_id)
        self.caller: str = caller
        self.run: str = run
        self.idempotency_key: str | None = idempotency_key
        self.tenant: str | None = tenant
        self.request_id: str | None = request_id


class GatewayConfigError(ValueError):
    """A bundle the gateway cannot serve (an ungoverned tool, an unknown backend).
    ``problems`` lists them, one sentence each; the previous bundle stays in force."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = tuple(problems)

    def __reduce__(self) -> tuple[Any, ...]:
        return reduce_by_state(self)


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
        argument_mode: ``"enforce"`` (default) refuses arguments that break the input
            schema; ``"warn"`` runs such a call and reports the issues (evidence
            ``argumentIssues``, telemetry ``tool.arguments.warned``); ``"off"`` drops
            the schema's verdict. Arguments that are not JSON, not an object, or
            over a limit are refused in every mode.
        argument_modes: tool name -> argument mode, overriding ``argument_mode``.
        evidence_sink: called with each evidence record (e.g. an audit log writer).
        telemetry: told about each finished call (:class:`~.telemetry.OpenTelemetry`
            emits the spans and metrics the contract's ``observability`` names);
            None (the default) records nothing and imports nothing.
        owner: this runtime process's stable name in the journal; a restarted
            process must use the same name to recover its own open intents. With a
            journal shared by processes (a :class:`~.leases.LeasedJournal` such as
            :class:`~.postgres.PostgresJournal`) the gateway holds this owner's
            lease, shares the contract limits through the journal, and recovers
            the intents of owners whose lease expired (at construction, then at
            each heartbeat).
        dedup_window_seconds: how long a repeated host idempotency key is answered
            from the journal for a tool whose contract does not support idempotency
            (one that does gives its own ``deduplicationWindowSeconds``).
        backoff_seconds: the base delay of ``retryPolicy.backoff`` (the contract
            names the curve only): ``fixed`` waits this long, ``exponential`` this
            times ``2**(attempt-1)``, ``exponential-jitter`` a uniform random part
            of that; every delay is capped at ``backoff_max_seconds``.
        recover: recover this owner's open intents now (see :meth:`recover`).
        clock, monotonic, sleep: time sources, injectable for tests.
        jitter: a source of uniform numbers in [0, 1) for ``exponential-jitter``.
        ids: makes intent ids and default request ids (random hex by default).
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
        argument_mode: ArgumentMode = "enforce",
        argument_modes: Mapping[str, ArgumentMode] | None = None,
        evidence_sink: Callable[[Mapping[str, Any]], None] | None = None,
        telemetry: Telemetry | None = None,
        owner: str = "gateway",
        dedup_window_seconds: float = 86400.0,
        backoff_seconds: float = 0.2,
        backoff_max_seconds: float = 30.0,
        recover: bool = True,
        clock: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        jitter: Callable[[], float] = random.random,
        ids: Callable[[], str] = lambda: uuid.uuid4().hex,
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
        modes = dict(argument_modes or {})
        for mode in (argument_mode, *modes.values()):
            if mode not in ("enforce", "warn", "off"):
                raise ValueError(f"an argument mode is 'enforce', 'warn' or 'off', not {mode!r}")
        self._argument_mode: ArgumentMode = argument_mode
        self._argument_modes: Mapping[str, ArgumentMode] = MappingProxyType(modes)
        self._evidence_sink = evidence_sink
        self._telemetry = telemetry
        self.owner = owner
        self._window = float(dedup_window_seconds)
        if not 0 <= backoff_seconds <= backoff_max_seconds:
            raise ValueError("backoff_seconds must be between 0 and backoff_max_seconds")
        self._backoff = (float(backoff_seconds), float(backoff_max_seconds))
        self._jitter = jitter
        self._ids = ids
        self._clock = clock
        self._monotonic = monotonic
        self._sleep = sleep
        self._catalog = self._prepare(bundle)
        self._closed = False
        self._limiter: Limiter
        if isinstance(self._journal, LeasedJournal):
            self._journal.hold_lease(owner)  # raises LeaseHeld while another holds it
            self._limiter = self._journal.limiter(owner)
        else:
            self._limiter = ContractLimiter(monotonic)
        # What each call's steps see of this gateway (never its private attributes).
        self._services = CallServices(
            owner=self.owner,
            journal=self._journal,
            limiter=self._limiter,
            backends=self._backends,
            authorizer=self._authorizer,
            approver=self._approver,
            triggers=self._triggers,
            budget=self._budget,
            credentials=self._credentials,
            output_mode=self._output_mode,
            argument_mode=self._argument_mode,
            argument_modes=self._argument_modes,
            telemetry=self._telemetry,
            window=self._window,
            backoff=self._backoff,
            clock=self._clock,
            monotonic=self._monotonic,
            sleep=self._sleep,
            jitter=self._jitter,
            ids=self._ids,
            emit=self._emit,
        )
        self.recovered: tuple[ToolOutcome, ...] = tuple(self.recover()) if recover else ()
        if isinstance(self._journal, LeasedJournal):
            self._journal.on_beat(self._on_beat)

    def _on_beat(self) -> None:
        if not self._closed:
            self.recover_expired()

    def close(self) -> None:
        """Stop serving from a shared journal: give this owner's lease up (it
        expires now) and stop recovering other owners. Nothing for a journal
        without leases. Calls already running finish."""
        self._closed = True
        if isinstance(self._journal, LeasedJournal):
            self._journal.release_lease(self.owner)

    # -- catalog ----------------------------------------------------------------------------

    def _prepare(self, bundle: AdmittedBundle) -> CatalogView:
        if not isinstance(bundle, AdmittedBundle):
            raise TypeError("the gateway serves an AdmittedBundle (from ToolCatalog.admit_batch)")
        problems: list[str] = []
        by_tool_id: dict[str, str] = {}
        contracts: dict[str, ToolContract] = {}
        for name, tool in bundle.registry.items():
            if tool.contract is None:
                problems.append(f"tool {name!r} has no contract")
            else:
                by_tool_id[tool.contract.tool_id] = name
                # A snapshot: changing the caller's envelope later changes nothing here.
                contracts[name] = replace(tool.contract, envelope=freeze(tool.contract.envelope))
            if tool.descriptor.backend not in self._backends:
                problems.append(f"tool {name!r} names a backend this gateway does not have")
        if problems:
            raise GatewayConfigError(problems)
        return CatalogView(bundle, MappingProxyType(by_tool_id), MappingProxyType(contracts))

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
        tenant: str | None = None,
        request_id: str | None = None,
    ) -> ToolOutcome:
        """Make one governed tool call; see the module docstring for the steps.

        ``arguments`` is the parsed arguments object or the JSON text the model sent.
        ``idempotency_key`` is the call's stable key (required for a tool whose
        contract supports idempotency with a ``header:`` key location); ``tenant``
        the tenant the call is made for (required by a ``tenant``-scoped rate
        limit); ``request_id`` the ``requestId`` of the audit record (a fresh id
        when None). Never raises for anything the model sent or a hook or backend
        did; raises ``TypeError``/``ValueError`` only for the host's own mistakes
        (a caller, run, tenant or request id that is not a non-empty string of at
        most 256 characters, an idempotency key that is not one).
        """
        context = _Context(caller, run, idempotency_key, tenant, request_id)
        return self._call(tool_name, arguments, context, None)

    def compensate(
        self,
        intent_id: str,
        arguments: Any,
        *,
        caller: str,
        run: str,
        idempotency_key: str | None = None,
        tenant: str | None = None,
        request_id: str | None = None,
    ) -> ToolOutcome:
        """Undo a recorded call with the contract's ``compensation.toolRef``: a new
        governed call through every step (validated, authorised, journaled with a
        link to ``intent_id``). The original outcome is never changed. A tool whose
        compensation is not supported, or a call that was never dispatched, is
        refused (step ``lookup``, ``compensation-unavailable``); so is one asked for
        more than ``compensation.deadlineSeconds`` after the original call
        (``compensation-deadline-passed``).
        """
        context = _Context(caller, run, idempotency_key, tenant, request_id)
        try:
            original = self._journal.get(intent_id) if isinstance(intent_id, str) else None
        except Exception as exc:
            return self._refusal(
                None,
                None,
                "lookup",
                "journal-unavailable",
                f"the journal could not be read ({type(exc).__name__})",
                retryable=True,
                caller=caller,
                run=run,
            )
        if original is None:
            return self._refusal(
                None, None, "lookup", "intent-unknown", "no such intent", caller=caller, run=run
            )
        catalog = self._catalog  # read once: the compensating call uses the same view
        name = catalog.by_tool_id.get(original.tool_id)
        contract = catalog.contracts.get(name) if name is not None else None
        if contract is None:
            return self._refusal(
                original.tool,
                None,
                "lookup",
                "compensation-unavailable",
                "the original tool is no longer in the catalog",
                caller=caller,
                run=run,
            )
        compensation = contract["compensation"]
        target = catalog.by_tool_id.get(compensation["toolRef"] or "")
        dispatched = original.outcome is None or original.outcome.get("dispatched") is not False
        reason = None
        code = "compensation-unavailable"
        if not compensation["supported"]:
            reason = "the tool's contract does not support compensation"
        elif target is None:
            reason = "the compensating tool is not in the catalog"
        elif not dispatched:
            reason = "the original call was never dispatched"
        elif self._clock() > original.created_at + compensation["deadlineSeconds"]:
            code = "compensation-deadline-passed"
            reason = "compensation.deadlineSeconds has passed since the original call"
        if reason is not None or target is None:
            return self._refusal(
                original.tool,
                contract.tool_id,
                "lookup",
                code,
                reason or "",
                caller=caller,
                run=run,
            )
        return self._call(target, arguments, context, intent_id, catalog)

    def recover(self) -> list[ToolOutcome]:
        """Close this owner's intents left open by a previous process: one that had
        started dispatch is *ambiguous* (never re-run: the effect may have
        happened), one that had not is *interrupted before dispatch* (safe to call
        again). With a shared journal, also those of owners whose lease expired
        (:meth:`recover_expired`). Returns their outcomes; each also gets an
        evidence record."""
        return self._recover(self._journal.open_intents(self.owner)) + self.recover_expired()

    def recover_expired(self) -> list[ToolOutcome]:
        """Recover, as :meth:`recover` does, the open intents of every other owner
        whose lease expired (a shared journal only; each such owner is claimed, so
        exactly one gateway recovers it)."""
        journal = self._journal
        if not isinstance(journal, LeasedJournal):
            return []
        recovered: list[ToolOutcome] = []
        for owner in journal.claim_expired(self.owner):
            try:
                recovered += self._recover(journal.open_intents(owner))
            finally:
                journal.finish_recovery(owner, self.owner)
        return recovered

    def _recover(self, intents: list[Intent]) -> list[ToolOutcome]:
        recovered: list[ToolOutcome] = []
        for intent in intents:
            # Both verdicts are offered; the journal picks one on the row as it is
            # when written (dispatch may have started since the read above).
            verdicts = (_interrupted(intent, before=True), _interrupted(intent, before=False))
            before = self._journal.close_interrupted(
                intent.intent_id,
                (verdicts[0].to_dict(evidence=False), verdicts[1].to_dict(evidence=False)),
                self._clock(),
                recoverer=self.owner,
            )
            if before is None:
                continue  # closed meanwhile, or no longer this gateway's to decide
            outcome = verdicts[0] if before else verdicts[1]
            record = {
                "evidence": EVIDENCE_VERSION,
                "time": iso_time(self._clock()),
                "intentId": intent.intent_id,
                "tool": intent.tool,
                "toolId": intent.tool_id,
                "caller": intent.caller,
                "run": intent.run,
                "status": outcome.status,
                "step": outcome.step,
                "code": outcome.code,
                "dispatched": outcome.dispatched,
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
        caller: str | None = None,
        run: str | None = None,
    ) -> ToolOutcome:
        name = tool if isinstance(tool, str) else ""
        outcome = ToolOutcome.stopped(name, tool_id, step, code, message, retryable=retryable)
        record = {
            "evidence": EVIDENCE_VERSION,
            "time": iso_time(self._clock()),
            "tool": name,
            "toolId": tool_id,
            "caller": caller,
            "run": run,
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
        context: _Context,
        compensates: str | None,
        catalog: CatalogView | None = None,
    ) -> ToolOutcome:
        # Read once: the whole call sees one bundle, whatever replace_catalog does.
        view = catalog if catalog is not None else self._catalog
        call = CallRun(
            self._services,
            view,
            tool_name,
            context.caller,
            context.run,
            compensates,
            tenant=context.tenant,
            request_id=context.request_id or self._ids(),
        )
        try:
            outcome = call.steps(arguments, context.idempotency_key)
        except Stop as stop:
            outcome = stop.outcome
        except Exception as exc:
            # A defect here or in a hook that slipped past its guard: the call still
            # ends with an outcome, its intent closed and its evidence written.
            outcome = call.unexpected(exc)
        finally:
            call.release()
        return call.finish(outcome)


def _interrupted(intent: Intent, *, before: bool) -> ToolOutcome:
    """The outcome of an intent a stopped runtime left open: before dispatch it is
    refused and safe to call again; after, ambiguous (the effect may have happened)."""
    return ToolOutcome.stopped(
        intent.tool,
        intent.tool_id,
        "intent" if before else "dispatch",
        "interrupted-before-dispatch" if before else "interrupted",
        "the runtime stopped while this intent was open",
        status="refused" if before else "ambiguous",
        dispatched=False if before else None,
        retryable=before,
        intent_id=intent.intent_id,
    )
