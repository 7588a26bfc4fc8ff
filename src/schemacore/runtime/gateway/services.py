"""What the steps of a call use of their gateway: :class:`CallServices`.

The gateway builds one when it is made and hands it to every call, so the steps
(``steps.py``) see its collaborators and settings through this narrow, read-only
interface and never its private attributes. Everything here is fixed for the
gateway's life; the catalog, which ``replace_catalog`` swaps, travels separately.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from .backends import Backend
    from .journal import IntentJournal
    from .limiter import Limiter
    from .outcome import ToolOutcome
    from .policy import Approver, Authorizer, Budget, Trigger
    from .telemetry import Telemetry

__all__ = ["ArgumentMode", "CallServices", "OutputMode"]

OutputMode = Literal["enforce", "report"]
ArgumentMode = Literal["enforce", "warn", "off"]


@dataclass(frozen=True, slots=True)
class CallServices:
    """A gateway's collaborators and settings, as its calls' steps use them."""

    owner: str
    journal: IntentJournal
    limiter: Limiter
    backends: Mapping[str, Backend]
    authorizer: Authorizer
    approver: Approver | None
    triggers: Mapping[str, Trigger]
    budget: Budget | None
    credentials: Callable[[str], Any] | None
    output_mode: OutputMode
    argument_mode: ArgumentMode
    argument_modes: Mapping[str, ArgumentMode]
    telemetry: Telemetry | None
    # The deduplication window of contracts that give none, and the backoff curve's
    # base and cap, in seconds.
    window: float
    backoff: tuple[float, float]
    clock: Callable[[], float]
    monotonic: Callable[[], float]
    sleep: Callable[[float], None]
    jitter: Callable[[], float]
    ids: Callable[[], str]
    # Writes a finished call's evidence record and returns its outcome.
    emit: Callable[[ToolOutcome, dict[str, Any]], ToolOutcome]

    def argument_mode_of(self, tool: str) -> ArgumentMode:
        """How the arguments of ``tool`` are checked."""
        return self.argument_modes.get(tool, self.argument_mode)
