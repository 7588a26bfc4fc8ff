"""The supervisor of one :class:`~schemacore.runtime.gateway.SubprocessBackend` call.

The backend runs it per call, as the leader of a session of its own, in the
interpreter's isolated mode (``python -I -S supervisor.py FD PARENT``). ``FD`` is
its end of a socket pair whose other end the gateway process holds for as long as
the call runs (the lifeline); ``PARENT`` is the gateway's process id. The
supervisor:

1. reads the call from the lifeline (:func:`encode_call`): the command, its
   environment (here, not in the supervisor's own, which the interpreter may change
   at start-up, nor in its argv, which ``ps`` shows) and its limits;
2. starts the command in its process group, with the limits set between fork and
   exec (safe here: the supervisor has no other thread that could hold a lock),
   and, once it ends, answers one line: ``exit CODE`` (negative: killed by that
   signal) or ``exec-error ERRNO``;
3. never ends by itself: the gateway kills the whole group once it has the answer,
   or at the deadline. When the gateway dies first, by any signal (``SIGKILL``
   included), the kernel closes its end of the lifeline and the supervisor kills
   the group, itself with it. On Linux the parent-death signal does the same when
   a copy of the gateway made by ``fork()`` keeps the lifeline open.

It starts once per call, so it imports as little as it can: ``os``, ``select``,
``signal``, ``sys`` (``ctypes`` on Linux, ``resource`` when there are limits).
"""

from __future__ import annotations

import os
import select
import signal
import sys

TYPE_CHECKING = False  # typing is not imported at run time (see above); mypy reads this
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from typing import Any, NoReturn

__all__ = ["encode_call", "main"]

_PR_SET_PDEATHSIG = 1
_EXEC_FAILED = 127
# A backstop only: SIGCHLD and the lifeline wake the supervisor at once.
_IDLE_SECONDS = 1.0


def encode_call(
    command: Sequence[str], env: Mapping[str, str], cpu: int | None, memory: int | None
) -> bytes:
    """The call as the supervisor reads it: a length line, then NUL-separated fields
    (``cpu``, ``memory``, the argument count, the arguments, ``NAME=value`` entries),
    each encoded as ``execve`` would take it (NUL is the one byte it cannot carry).

    Raises:
        ValueError: an embedded NUL, or an environment variable name that is empty
            or holds ``=`` (as ``subprocess.Popen`` refuses them).
    """
    fields = [
        b"" if cpu is None else b"%d" % cpu,
        b"" if memory is None else b"%d" % memory,
        b"%d" % len(command),
        *(os.fsencode(part) for part in command),
    ]
    for name, value in env.items():
        key = os.fsencode(name)
        if not key or b"=" in key:
            raise ValueError("illegal environment variable name")
        fields.append(key + b"=" + os.fsencode(value))
    if any(b"\0" in field for field in fields):
        raise ValueError("embedded null byte")
    body = b"\0".join(fields)
    return b"%d\n" % len(body) + body


def _decode_call(body: bytes) -> tuple[list[bytes], dict[bytes, bytes], int | None, int | None]:
    fields = body.split(b"\0")
    cpu = int(fields[0]) if fields[0] else None
    memory = int(fields[1]) if fields[1] else None
    count = int(fields[2])
    command = fields[3 : 3 + count]
    env: dict[bytes, bytes] = {}
    for entry in fields[3 + count :]:
        name, _, value = entry.partition(b"=")
        env[name] = value
    return command, env, cpu, memory


def _kill_group(*_: Any) -> NoReturn:
    """Kill the call's whole process group, this process with it."""
    try:
        os.killpg(0, signal.SIGKILL)
    finally:
        os._exit(_EXEC_FAILED)  # not reached: the group holds this process too


def _parent_death_signal() -> Callable[[int], None]:
    """Linux: a function that has the kernel send a signal to the calling process
    when the thread that started it ends; elsewhere one that does nothing."""
    if not sys.platform.startswith("linux"):
        return lambda signum: None
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return lambda signum: None

    def arm(signum: int) -> None:
        prctl(
            ctypes.c_int(_PR_SET_PDEATHSIG),
            ctypes.c_ulong(signum),
            ctypes.c_ulong(0),
            ctypes.c_ulong(0),
            ctypes.c_ulong(0),
        )

    return arm


def _read_call(lifeline: int) -> bytes:
    """The call's fields; the group is killed if the gateway hangs up first."""
    data = b""
    while b"\n" not in data:
        chunk = os.read(lifeline, 65536)
        if not chunk:
            _kill_group()
        data += chunk
    header, _, body = data.partition(b"\n")
    size = int(header)
    while len(body) < size:
        chunk = os.read(lifeline, 65536)
        if not chunk:
            _kill_group()
        body += chunk
    return body


def _start(body: bytes, report: int, arm: Callable[[int], None]) -> NoReturn:
    """In the forked child: limits, then exec the command; ``report`` gets the
    errno when exec fails (it closes on exec otherwise)."""
    try:
        command, env, cpu, memory = _decode_call(body)
        # What Python ignores at start-up, the command gets back (as Popen does).
        for name in ("SIGPIPE", "SIGXFSZ", "SIGTERM", "SIGCHLD"):
            if hasattr(signal, name):
                signal.signal(getattr(signal, name), signal.SIG_DFL)
        if cpu is not None or memory is not None:
            import resource

            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            if cpu is not None:
                resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
            if memory is not None:
                resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        arm(signal.SIGKILL)  # the command does not outlive its supervisor
        os.execvpe(command[0], command, env)
    except OSError as exc:
        _write(report, b"%d" % (exc.errno or 0))
    finally:
        os._exit(_EXEC_FAILED)


def _write(fd: int, data: bytes) -> None:
    """Write ``data`` if the reader is still there; a gateway that is gone is seen
    by the wait for its hang-up. (contextlib.suppress would cost an import.)"""
    try:  # noqa: SIM105 - see the docstring
        os.write(fd, data)
    except OSError:
        pass


def _hangs_up(lifeline: int) -> bool:
    """Whether the gateway closed the lifeline (it sends nothing after the call)."""
    try:
        return not os.read(lifeline, 65536)
    except OSError:
        return True


def main(argv: Sequence[str]) -> NoReturn:
    """Supervise one call (see the module docstring); never returns."""
    lifeline, parent = int(argv[0]), int(argv[1])
    os.set_inheritable(lifeline, False)  # the command must not hold it
    signal.signal(signal.SIGTERM, _kill_group)
    arm = _parent_death_signal()
    arm(signal.SIGTERM)
    if os.getppid() != parent:  # the gateway ended before the signal was armed
        _kill_group()
    body = _read_call(lifeline)
    # SIGCHLD wakes the select below through this pipe.
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    report_read, report_write = os.pipe()
    pid = os.fork()
    if pid == 0:
        _start(body, report_write, arm)
    os.close(report_write)
    failure = b""
    while chunk := os.read(report_read, 64):
        failure += chunk
    os.close(report_read)
    # The call's stdin and stdout are the command's alone from here on.
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    status: int | None = None
    while status is None:
        ready, _, _ = select.select([lifeline, wake_read], [], [], _IDLE_SECONDS)
        if lifeline in ready and _hangs_up(lifeline):
            _kill_group()
        if wake_read in ready:
            os.read(wake_read, 4096)
        done, raw = os.waitpid(pid, os.WNOHANG)
        if done:
            status = os.waitstatus_to_exitcode(raw)
    _write(lifeline, (b"exec-error " + failure if failure else b"exit %d" % status) + b"\n")
    while True:  # until the gateway kills the group, or hangs up
        ready, _, _ = select.select([lifeline], [], [], _IDLE_SECONDS)
        if ready and _hangs_up(lifeline):
            _kill_group()


if __name__ == "__main__":
    main(sys.argv[1:])
