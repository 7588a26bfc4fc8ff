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

import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import Any, Literal

from ..catalog import AdmittedBundle
from ..contract import ToolContract
from ..errors import reduce_by_state
from .backends import Backend
from .evidence import EVIDENCE_VERSION
from .frozen import freeze
from .journal import IntentJournal, SQLiteJournal
from .limiter import ContractLimiter
from .outcome import Status, ToolOutcome
from .policy import Approver, Authorizer, Budget, Trigger, grants_authorizer
from .steps import CallRun, CatalogView, Stop, check_host_inputs, iso_time

__all__ = ["Gateway", "GatewayConfigError"]

OutputMode = Literal["enforce", "report"]
_ALWAYS_RECORDED = frozenset({"toolId", "status", "step", "code", "dispatched"})


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
        check_host_inputs(caller, run, idempotency_key)
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
        target = catalog.by_tool_id.get(compensation["toolId"] or "")
        dispatched = original.outcome is None or original.outcome.get("dispatched") is not False
        reason = None
        if compensation["strategy"] != "compensating-tool":
            reason = f"the compensation strategy is {compensation['strategy']!r}"
        elif target is None:
            reason = "the compensating tool is not in the catalog"
        elif not dispatched:
            reason = "the original call was never dispatched"
        if reason is not None or target is None:
            return self._refusal(
                original.tool,
                contract.tool_id,
                "lookup",
                "compensation-unavailable",
                reason or "",
                caller=caller,
                run=run,
            )
        return self._call(target, arguments, caller, run, idempotency_key, intent_id, catalog)

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
            outcome = ToolOutcome.stopped(
                intent.tool,
                intent.tool_id,
                "intent" if before else "dispatch",
                code,
                "the runtime stopped while this intent was open",
                status=status,
                dispatched=dispatched,
                retryable=before,
                intent_id=intent.intent_id,
            )
            self._journal.close(intent.intent_id, outcome.to_dict(evidence=False), self._clock())
            record = {
                "evidence": EVIDENCE_VERSION,
                "time": iso_time(self._clock()),
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
        caller: str,
        run: str,
        idempotency_key: str | None,
        compensates: str | None,
        catalog: CatalogView | None = None,
    ) -> ToolOutcome:
        check_host_inputs(caller, run, idempotency_key)
        # Read once: the whole call sees one bundle, whatever replace_catalog does.
        view = catalog if catalog is not None else self._catalog
        call = CallRun(self, view, tool_name, caller, run, compensates)
        try:
            outcome = call.steps(arguments, idempotency_key)
        except Stop as stop:
            outcome = stop.outcome
        except Exception as exc:
            # A defect here or in a hook that slipped past its guard: the call still
            # ends with an outcome, its intent closed and its evidence written.
            outcome = call.unexpected(exc)
        finally:
            call.release()
        return call.finish(outcome)
