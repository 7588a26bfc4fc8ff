"""Backends, credentials and one dispatch attempt under the contract's deadline.

A backend executes tools of one server. It declares where a call will go
(:meth:`Backend.destinations`, checked against the contract's default-deny
``egressPolicy`` before dispatch) and runs the call (:meth:`Backend.call`),
answering an MCP ``CallToolResult`` or raising :class:`ToolFailure` with a code of
the contract's ``errorTaxonomy``. Any other exception is read as *ambiguous*: the
gateway cannot tell whether the effect happened.

Every attempt carries a :class:`Cancellation`: its deadline (``timeoutMs`` from the
start of the attempt) and a flag the gateway sets when it stops waiting. A backend
must honour it: stop work and side effects once ``cancelled`` is true (a thread
cannot be killed from outside). :class:`SubprocessBackend` runs each call in a
child process that is killed at the deadline, or when the gateway process dies.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

__all__ = [
    "Attempt",
    "Backend",
    "Cancellation",
    "DispatchRequest",
    "FunctionBackend",
    "Secret",
    "ToolFailure",
    "run_attempt",
]


class Cancellation:
    """One attempt's deadline and cancellation, as the backend sees them.

    ``cancelled`` is true once the gateway gave up on the attempt or the deadline
    (on :func:`time.monotonic`) passed; ``wait`` sleeps until then or for at most
    ``seconds``, so a backend that waits or polls wakes up when it must stop.
    """

    __slots__ = ("_event", "deadline")

    def __init__(self, deadline: float | None = None) -> None:
        self.deadline = deadline
        self._event = threading.Event()

    @classmethod
    def after(cls, seconds: float | None) -> Cancellation:
        """A cancellation whose deadline is ``seconds`` from now (None: none)."""
        return cls(None if seconds is None else time.monotonic() + seconds)

    def cancel(self) -> None:
        """Tell the backend to stop (the gateway does so when it stops waiting)."""
        self._event.set()

    @property
    def cancelled(self) -> bool:
        if self._event.is_set():
            return True
        return self.deadline is not None and time.monotonic() >= self.deadline

    def remaining(self) -> float | None:
        """Seconds until the deadline (0 once passed or cancelled), None without one."""
        if self._event.is_set():
            return 0.0
        if self.deadline is None:
            return None
        return max(0.0, self.deadline - time.monotonic())

    def wait(self, seconds: float | None = None) -> bool:
        """Sleep until cancelled or for ``seconds``; answer ``cancelled``."""
        remaining = self.remaining()
        if remaining is not None:
            seconds = remaining if seconds is None else min(seconds, remaining)
        self._event.wait(seconds)
        return self.cancelled


class Secret:
    """A resolved credential. Its value is read only through :meth:`reveal`; it
    prints, formats and pickles as nothing, so it cannot slip into a log."""

    __slots__ = ("_value",)

    def __init__(self, value: Any) -> None:
        self._value = value

    def reveal(self) -> Any:
        """The credential itself, for the backend's own use."""
        return self._value

    def __repr__(self) -> str:
        return "Secret(<redacted>)"

    __str__ = __repr__

    def __reduce__(self) -> Any:
        raise TypeError("a Secret is not serialisable")


@dataclass(frozen=True, slots=True)
class DispatchRequest:
    """What a backend receives.

    Attributes:
        tool, tool_id: the MCP name and the contract's ``toolId``.
        arguments: the validated arguments.
        credential: the resolved credential (None for a tool without
            ``authenticationRef``).
        timeout: seconds the gateway waits for this attempt (None: no deadline).
        attempt: 1 for the first attempt.
        intent_id: the journal intent; a backend may pass it downstream as a
            deduplication key.
        idempotency_key: the call's key, or None.
        headers: headers the backend must send with the call: the idempotency key
            under its name when the contract's ``keyLocation`` is ``header:<Name>``.
        tenant: the tenant the call is made for, or None.
        egress_allowed: whether the contract's ``egressPolicy`` allows any egress
            (a sandboxing backend cuts the network when it does not).
        cancellation: this attempt's deadline and cancellation; honour it.
    """

    tool: str
    tool_id: str
    arguments: Mapping[str, Any] = field(repr=False)
    credential: Secret | None = field(default=None, repr=False)
    timeout: float | None = None
    attempt: int = 1
    intent_id: str | None = None
    idempotency_key: str | None = field(default=None, repr=False)
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    tenant: str | None = None
    egress_allowed: bool = False
    cancellation: Cancellation = field(default_factory=Cancellation, repr=False, compare=False)


class ToolFailure(Exception):
    """A failure the tool declares: ``code`` should be one of the contract's
    ``errorTaxonomy`` codes (whether it is retryable is read from the contract)."""

    def __init__(self, code: str, message: str = "") -> None:
        super().__init__(message or code)
        self.code = code
        self.message = message


class Backend(Protocol):
    """A server that executes tools."""

    def destinations(self, request: DispatchRequest) -> Collection[str]:
        """Where this call will send data (host names, in the vocabulary of the
        contracts' ``egressPolicy.destinations``); empty for a local tool."""
        ...

    def call(self, request: DispatchRequest) -> Mapping[str, Any]:
        """Run the tool; an MCP ``CallToolResult``, or raise :class:`ToolFailure`."""
        ...


class FunctionBackend:
    """A :class:`Backend` from a function, with fixed egress destinations (or a
    function of the request for tools whose destination depends on it)."""

    def __init__(
        self,
        handler: Callable[[DispatchRequest], Mapping[str, Any]],
        *,
        egress: Collection[str] | Callable[[DispatchRequest], Collection[str]] = (),
    ) -> None:
        self._handler = handler
        self._egress = egress

    def destinations(self, request: DispatchRequest) -> Collection[str]:
        if callable(self._egress):
            return self._egress(request)
        return self._egress

    def call(self, request: DispatchRequest) -> Mapping[str, Any]:
        return self._handler(request)


@dataclass(slots=True)
class Attempt:
    """How one attempt ended: ``result``, ``failure`` (a declared ToolFailure),
    ``error`` (any other exception: ambiguous), or ``timed_out``."""

    result: Any = None
    failure: ToolFailure | None = None
    error: BaseException | None = None
    timed_out: bool = False


def run_attempt(
    backend: Backend, request: DispatchRequest, on_finish: Callable[[], None]
) -> Attempt:
    """Run one attempt, waiting at most ``request.timeout`` seconds.

    With a deadline the call runs in a daemon thread; when it overruns, the
    gateway stops waiting and cancels ``request.cancellation`` (a backend that
    honours it stops; a thread cannot be stopped from outside): the attempt counts
    as ambiguous, and ``on_finish`` (which frees the in-flight place) runs only
    when the thread really ends. Without a deadline the call runs in this thread.
    """
    outcome = Attempt()

    def work() -> None:
        try:
            outcome.result = backend.call(request)
        except ToolFailure as exc:
            outcome.failure = exc
        except Exception as exc:  # any other failure: the effect is unknown
            outcome.error = exc
        finally:
            on_finish()

    if request.timeout is None:
        work()
        return outcome
    done = threading.Event()

    def guarded() -> None:
        try:
            work()
        except BaseException as exc:  # SystemExit and the like, in a worker thread
            outcome.error = exc
        finally:
            done.set()

    thread = threading.Thread(target=guarded, name=f"schemacore-dispatch-{request.tool}")
    thread.daemon = True
    thread.start()
    if not done.wait(request.timeout):
        request.cancellation.cancel()
        return Attempt(timed_out=True)
    if outcome.error is not None and (
        isinstance(outcome.error, TimeoutError) or request.cancellation.cancelled
    ):
        # The backend gave up at its deadline (as it must): that is a timeout.
        return Attempt(timed_out=True)
    return outcome
