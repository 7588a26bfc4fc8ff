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
- a session of its own, led by a small supervisor (:mod:`.supervisor`, this
  interpreter in isolated mode) that starts the command: at the deadline, or when
  the gateway cancels the attempt, the whole process group is killed, and so is
  whatever the child left running in its group when it ends by itself; and when
  the gateway process dies mid-call (``SIGTERM``, ``SIGKILL``, a crash), the
  supervisor sees its lifeline close and kills the group. So nothing of the call
  runs on after it (a grandchild that starts its own session escapes the group; a
  sandbox that owns every descendant, such as a container or a cgroup, is the
  host's to add);
- stdout read up to ``max_output_bytes``: a child that writes more is killed.

POSIX only (process groups).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import select
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..jsonvalues import json_text
from .backends import DispatchRequest, ToolFailure
from .supervisor import encode_call

__all__ = ["ProcessTimeout", "SubprocessBackend"]

_POLL_SECONDS = 0.02
_SUPERVISOR = str(Path(__file__).resolve().with_name("supervisor.py"))


class ProcessTimeout(TimeoutError):
    """The child was killed at its deadline (the gateway reads it as ambiguous)."""


def _exited(pid: int) -> bool:
    """Whether the supervisor has ended (only a kill from outside or a crash ends it
    before the gateway does), without reaping it: its group id stays reserved."""
    return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None


def _feed(
    child: subprocess.Popen[bytes], payload: bytes, lifeline: socket.socket, call: bytes
) -> None:
    """Send the supervisor its call, then write the request to the child's stdin (in
    a thread: a child that does not read must not block the deadline)."""
    with contextlib.suppress(OSError):  # a supervisor that ended: the caller sees it
        lifeline.sendall(call)
    assert child.stdin is not None
    with contextlib.suppress(OSError):  # a child that ended or closed its stdin
        child.stdin.write(payload)
    with contextlib.suppress(OSError):
        child.stdin.close()


class _Lifeline:
    """The gateway's end of the socket pair it shares with the call's supervisor.

    While it is open the supervisor lets the call run; when the gateway process
    ends, however it ends, the kernel closes it and the supervisor kills the call's
    process group. The supervisor answers on it once the command has ended.
    """

    def __init__(self, end: socket.socket) -> None:
        self.end = end
        self._data = b""
        self.hung_up = False  # the supervisor's end closed (it ended) without answering

    def wait(self, seconds: float) -> str | None:
        """The supervisor's answer line, if it comes within ``seconds``."""
        if not self.hung_up and select.select([self.end], [], [], seconds)[0]:
            try:
                chunk = self.end.recv(4096)
            except OSError:
                chunk = b""
            self._data += chunk
            self.hung_up = not chunk
        line, newline, _ = self._data.partition(b"\n")
        return line.decode("ascii", "replace") if newline else None


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
        supervisor_python: the Python (3.9 or later) that runs each call's
            supervisor (default ``sys.executable``; set it where that is not a
            Python interpreter, as in an embedding).
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
        supervisor_python: str | None = None,
    ) -> None:
        if os.name != "posix":
            raise RuntimeError("SubprocessBackend needs a POSIX system")
        python = supervisor_python if supervisor_python is not None else sys.executable
        if not python:
            raise RuntimeError("SubprocessBackend needs a Python to run each call's supervisor")
        self._command = command
        self._env = dict(env) if env is not None else {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
        self._cwd = cwd
        self._cpu = cpu_seconds
        self._memory = memory_bytes
        self._python = python
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
        argv = self._argv(request)
        call = encode_call(argv, env, self._cpu, self._memory)
        lifeline, far_end = socket.socketpair()
        try:
            # The supervisor leads the session and starts the command in its group;
            # its end of the lifeline is the only descriptor it inherits.
            child = subprocess.Popen(
                [self._python, "-I", "-S", _SUPERVISOR, str(far_end.fileno()), str(os.getpid())],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env=env,
                cwd=self._cwd,
                start_new_session=True,
                pass_fds=(far_end.fileno(),),
                close_fds=True,
            )
        except BaseException:
            lifeline.close()
            raise
        finally:
            far_end.close()
        supervisor = _Lifeline(lifeline)
        reader = _Reader(child, self._max_output)
        writer = threading.Thread(target=_feed, args=(child, payload, lifeline, call), daemon=True)
        writer.start()
        cancellation = request.cancellation
        answer: str | None = None
        try:
            while answer is None and not supervisor.hung_up:
                if cancellation.cancelled or reader.overflow.is_set():
                    self.killed += 1
                    if reader.overflow.is_set():
                        raise RuntimeError("the child wrote more than max_output_bytes")
                    raise ProcessTimeout("the child was killed at its deadline")
                remaining = cancellation.remaining()
                wait = _POLL_SECONDS if remaining is None else min(_POLL_SECONDS, remaining)
                answer = supervisor.wait(wait)
                if answer is None and _exited(child.pid):
                    answer = supervisor.wait(0)  # an answer sent just before it ended
                    break
        finally:
            # The supervisor waits to be killed: its group id is still its own, so
            # whatever else runs in the group is killed with it, and nothing of the
            # call runs on after it.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child.pid, signal.SIGKILL)
            child.wait()
            reader.join(_POLL_SECONDS * 50)
            writer.join(_POLL_SECONDS * 50)
            if not reader.is_alive() and child.stdout is not None:
                child.stdout.close()  # a reader still blocked (an escaped holder) keeps it
            lifeline.close()
        if reader.overflow.is_set():
            raise RuntimeError("the child wrote more than max_output_bytes")
        kind, _, number = (answer or "").partition(" ")
        code = int(number) if re.fullmatch(r"-?[0-9]{1,9}", number) else None
        if kind == "exec-error" and code is not None:
            raise OSError(code, os.strerror(code), argv[0])  # what Popen would raise
        if kind != "exit" or code is None:
            raise RuntimeError("the call's supervisor ended without the command's status")
        return self._answer(code, b"".join(reader.chunks))

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
