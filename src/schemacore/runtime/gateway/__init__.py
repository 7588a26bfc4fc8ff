"""The execution gateway: validation first, then authority, approval, budget, a
durable intent journal and dispatch. See :class:`Gateway` and ``docs/gateway.md``."""

from __future__ import annotations

from .backends import (
    Backend,
    Cancellation,
    DispatchRequest,
    FunctionBackend,
    Secret,
    ToolFailure,
)
from .evidence import EVIDENCE_VERSION
from .gateway import Gateway, GatewayConfigError
from .journal import Intent, IntentJournal, SQLiteJournal
from .leases import LeasedJournal, LeaseHeld
from .limiter import Limiter, Reservation
from .outcome import GATEWAY_META_KEY, STEPS, ToolOutcome
from .pg_schema import SchemaTooNew
from .policy import (
    Approver,
    Authorizer,
    Budget,
    CallRequest,
    Decision,
    RunBudget,
    Trigger,
    fired_triggers,
    grants_authorizer,
)
from .postgres import PostgresJournal
from .process import ProcessTimeout, SubprocessBackend
from .shared_catalog import SharedCatalog
from .shared_limits import PostgresLimiter
from .telemetry import CallTrace, OpenTelemetry, Telemetry

__all__ = [
    "EVIDENCE_VERSION",
    "GATEWAY_META_KEY",
    "STEPS",
    "Approver",
    "Authorizer",
    "Backend",
    "Budget",
    "CallRequest",
    "CallTrace",
    "Cancellation",
    "Decision",
    "DispatchRequest",
    "FunctionBackend",
    "Gateway",
    "GatewayConfigError",
    "Intent",
    "IntentJournal",
    "LeaseHeld",
    "LeasedJournal",
    "Limiter",
    "OpenTelemetry",
    "PostgresJournal",
    "PostgresLimiter",
    "ProcessTimeout",
    "Reservation",
    "RunBudget",
    "SQLiteJournal",
    "SchemaTooNew",
    "Secret",
    "SharedCatalog",
    "SubprocessBackend",
    "Telemetry",
    "ToolFailure",
    "ToolOutcome",
    "Trigger",
    "fired_triggers",
    "grants_authorizer",
]
