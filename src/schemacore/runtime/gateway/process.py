"""A backend that runs each call in a child process, killed at the attempt's deadline.

Meant for code-execution tools. The child gets:

- its arguments on stdin, as one JSON object ``{"tool", "toolId", "attempt",
  "arguments", "idempotencyKey", "headers"}``, and answers an MCP
  ``CallToolResult`` as JSON on stdout (exit status 0); a declared failure is
  ``{"toolFailure": {"code": ...}}`` with a non-zero status;
- an environment of exactly ``env`` (nothing is inherited from the runtime, so no
  secret of the runtime's environment reaches it); the call's credential only when
  ``credential_env`` names a variable for it and the contract has an
  ``authenticationRef`` (the gateway resolves none otherwise);
- resource limits set before it runs, when asked for (CPU seconds, address space;
  then no core files either);
- ``network_sandbox`` (e.g. ``["unshare", "--net", "--map-root-user"]``) in front
  of its command when the contract allows no egress: a host-provided sandbox,
  since cutting a process's network needs the operating system's help;
- a session of its own: at the deadline, or when the gateway cancels the attempt,
  the whole process group is killed, and so is whatever the child left running in
  its group when it ends by itself, so nothing of the call runs on after it (a
  grandchild that starts its own session escapes the group; a sandbox that owns
  every descendant, such as a container or a cgroup, is the host's to add);
- stdout read up to ``max_output_bytes``: a child that writes more is killed.

POSIX only (process groups and ``resource``).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import threading
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

try:
    import resource
except ImportError:  # not POSIX: SubprocessBackend refuses to start
    resource = None  # type: ignore[assignment]

from ..jsonvalues import json_text
from .backends import DispatchRequest, ToolFailure

__all__ = ["ProcessTimeout", "SubprocessBackend"]

_POLL_SECONDS = 0.02


class ProcessTimeout(TimeoutError):
    """The child was killed at its deadline (the gateway reads it as ambiguous)."""


def _exited(pid: int) -> bool:
    """Whether the child has ended, without reaping it (its group id stays reserved)."""
    return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None


def _feed(child: subprocess.Popen[bytes], payload: bytes) -> None:
    """Write the request to the child's stdin (in a thread: a child that does not
    read must not block the deadline)."""
    assert child.stdin is not None
    with contextlib.suppress(OSError):  # a child that ended or closed its stdin
        child.stdin.write(payload)
    with contextlib.suppress(OSError):
        child.stdin.close()


class _Reader(threading.Thread):
    """Reads the child's stdout up to a cap, so that output cannot exhaust memory."""

    def __init__(self, child: subprocess.Popen[bytes], cap: int) -> None:
        super().__init__(daemon=True)
        self._stream = child.stdout
        self._cap = cap
        self.chunks: list[bytes] = []
        self.overflow = threading.Event()
        self.start()

    def run(self) -> None:
        assert self._stream is not None
        size = 0
        fd = self._stream.fileno()
        with contextlib.suppress(OSError, ValueError):
            while data := os.read(fd, 65536):
                size += len(data)
                if size > self._cap:
                    self.overflow.set()  # the caller kills the child
                    return
                self.chunks.append(data)


def _limits(cpu_seconds: int | None, memory_bytes: int | None) -> Callable[[], None] | None:
    if cpu_seconds is None and memory_bytes is None:
        return None  # no preexec_fn at all (core files stay as the host has them)

    # Runs in the child between fork and exec, where Python warns that a threaded
    # parent can deadlock: plain setrlimit calls only (no imports, no locks), the
    # least that can go wrong there; and only when the host asked for limits.
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if cpu_seconds is not None:
            resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds))
        if memory_bytes is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))

    return apply


class SubprocessBackend:
    """A :class:`~schemacore.runtime.gateway.Backend` that runs ``command`` per call.

    Args:
        command: the argv, or a function of the request that builds it.
        env: the child's whole environment (default: a bare ``PATH`` and ``LANG``).
        cwd: the child's working directory.
        cpu_seconds, memory_bytes: ``RLIMIT_CPU`` / ``RLIMIT_AS`` of the child.
        credential_env: the variable that carries the call's credential, or None
            (the default) to never pass one.
        network_sandbox: argv prefix that runs the command without network, used
            when the contract's egress policy allows nothing.
        egress: the destinations the child may contact (checked by the gateway).
        max_output_bytes: a larger stdout is not read as a result.
    """

    def __init__(
        self,
        command: Sequence[str] | Callable[[DispatchRequest], Sequence[str]],
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        cpu_seconds: int | None = None,
        memory_bytes: int | None = None,
        credential_env: str | None = None,
        network_sandbox: Sequence[str] | None = None,
        egress: Collection[str] = (),
        max_output_bytes: int = 1_000_000,
    ) -> None:
        if os.name != "posix" or resource is None:
            raise RuntimeError("SubprocessBackend needs a POSIX system")
        self._command = command
        self._env = dict(env) if env is not None else {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
        self._cwd = cwd
        self._limits = _limits(cpu_seconds, memory_bytes)
        self._credential_env = credential_env
        self._sandbox = tuple(network_sandbox) if network_sandbox is not None else None
        self._egress = tuple(egress)
        self._max_output = max_output_bytes
        self.killed = 0  # children killed at their deadline, on cancellation or for output

    def destinations(self, request: DispatchRequest) -> Collection[str]:
        return self._egress

    def _argv(self, request: DispatchRequest) -> list[str]:
        command = self._command(request) if callable(self._command) else self._command
        argv = [str(part) for part in command]
        if self._sandbox is not None and not request.egress_allowed:
            argv = [*self._sandbox, *argv]
        return argv

    def call(self, request: DispatchRequest) -> Mapping[str, Any]:
        env = dict(self._env)
        if self._credential_env is not None and request.credential is not None:
            env[self._credential_env] = str(request.credential.reveal())
        payload = json_text(
            {
                "tool": request.tool,
                "toolId": request.tool_id,
                "attempt": request.attempt,
                "arguments": request.arguments,
                "idempotencyKey": request.idempotency_key,
                "headers": dict(request.headers),
            }
        ).encode("utf-8")
        child = subprocess.Popen(
            self._argv(request),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            cwd=self._cwd,
            start_new_session=True,
            preexec_fn=self._limits,
            close_fds=True,
        )
        reader = _Reader(child, self._max_output)
        writer = threading.Thread(target=_feed, args=(child, payload), daemon=True)
        writer.start()
        cancellation = request.cancellation
        try:
            while not _exited(child.pid):
                if cancellation.cancelled or reader.overflow.is_set():
                    self.killed += 1
                    if reader.overflow.is_set():
                        raise RuntimeError("the child wrote more than max_output_bytes")
                    raise ProcessTimeout("the child was killed at its deadline")
                cancellation.wait(_POLL_SECONDS)
        finally:
            # The leader has ended or is to be stopped; it is not reaped yet, so the
            # group id is still its own: whatever else runs in the group is killed
            # too, and nothing of the call runs on after it.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child.pid, signal.SIGKILL)
            child.wait()
            reader.join(_POLL_SECONDS * 50)
            writer.join(_POLL_SECONDS * 50)
            if not reader.is_alive() and child.stdout is not None:
                child.stdout.close()  # a reader still blocked (an escaped holder) keeps it
        if reader.overflow.is_set():
            raise RuntimeError("the child wrote more than max_output_bytes")
        return self._answer(child.returncode, b"".join(reader.chunks))

    def _answer(self, status: int, out: bytes) -> Mapping[str, Any]:
        try:
            answer = json.loads(out.decode("utf-8")) if out.strip() else None
        except (UnicodeDecodeError, ValueError):
            answer = None
        if status == 0 and isinstance(answer, dict):
            return answer
        failure = answer.get("toolFailure") if isinstance(answer, dict) else None
        if status != 0 and isinstance(failure, dict) and isinstance(failure.get("code"), str):
            raise ToolFailure(failure["code"])
        # A crash or an unreadable answer: whether the effect happened is unknown.
        raise RuntimeError(f"the child ended with status {status} and no readable result")
