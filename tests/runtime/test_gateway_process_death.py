"""A gateway process that dies mid-call takes its SubprocessBackend call with it.

The call's child and the child's own child run long past the moment a real gateway
process is ended by a signal; within a bounded time after that, both must be gone
(issue #29, item 7): the supervisor that leads the call's process group sees its
lifeline close (any POSIX, SIGKILL included) or, on Linux, gets the parent-death
signal when a forked copy of the gateway keeps the lifeline open. The supervisor
itself changes nothing else a call sees: the command's status, environment and
arguments, and the errors of a command that cannot start.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from schemacore.runtime.gateway import Cancellation, DispatchRequest, SubprocessBackend

pytestmark = pytest.mark.skipif(os.name != "posix", reason="process groups are POSIX")

ROOT = Path(__file__).resolve().parents[2]

# The tool: starts a grandchild, records both process ids, then runs for a minute.
CHILD = """
import os, subprocess, sys, time
grandchild = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
target = sys.argv[1]
with open(target + ".tmp", "w") as out:
    out.write(f"{os.getpid()} {grandchild.pid}")
os.replace(target + ".tmp", target)
time.sleep(60)
"""

# A gateway process making one call of that tool, with a deadline far away. With
# "fork", a thread forks a copy of the gateway once the call runs: the copy holds
# the gateway's end of the lifeline, so only the parent-death signal is left.
GATEWAY = """
import os, sys, threading, time
sys.path.insert(0, sys.argv[1])
from schemacore.runtime.gateway import SubprocessBackend
from tests.runtime.gateway_support import Recorder, admit, gateway, search_contract

pids, mode, child = sys.argv[2], sys.argv[3], sys.argv[4]
contract = search_contract(
    permissionClass="code-execution",
    timeoutMs=60_000,
    retryPolicy={"maxAttempts": 1, "backoff": "none", "retryableErrors": []},
)
backend = SubprocessBackend([sys.executable, "-c", child, pids])
gw = gateway(admit({"run": contract}), Recorder(), backends={"local": backend})

def fork_a_copy() -> None:
    while not os.path.exists(pids):
        time.sleep(0.01)
    copy = os.fork()
    if copy == 0:
        time.sleep(30)
        os._exit(0)
    with open(pids + ".copy", "w") as out:
        out.write(str(copy))

if mode == "fork":
    threading.Thread(target=fork_a_copy, daemon=True).start()
gw.call("run", {"query": "x"}, caller="alice", run="r")
"""

STARTUP_SECONDS = 20.0  # interpreters starting on a loaded machine
GONE_SECONDS = 3.0


def _gone(pid: int) -> bool:
    """Whether ``pid`` has ended (a zombie waiting for its reaper has)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    with contextlib.suppress(OSError):
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat.rsplit(")", 1)[1].split()[0] == "Z"
    return False


def _wait_for(path: Path, seconds: float) -> str:
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert time.monotonic() < deadline, f"{path.name} was not written in time"
        time.sleep(0.02)
    return path.read_text()


@contextlib.contextmanager
def _gateway_process(tmp_path: Path, mode: str) -> Iterator[tuple[subprocess.Popen[bytes], Path]]:
    pids = tmp_path / "pids"
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(GATEWAY),
            str(ROOT),
            str(pids),
            mode,
            textwrap.dedent(CHILD),
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        yield process, pids
    finally:
        # Whatever the test found, nothing it started is left running.
        leftovers = [process.pid]
        for path in (pids, pids.with_name("pids.copy")):
            with contextlib.suppress(OSError, ValueError):
                leftovers.extend(int(pid) for pid in path.read_text().split())
        for pid in leftovers:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        process.wait()


@pytest.mark.parametrize(
    ("signum", "mode"),
    [
        (signal.SIGTERM, "plain"),
        (signal.SIGKILL, "plain"),
        pytest.param(
            signal.SIGKILL,
            "fork",
            marks=pytest.mark.skipif(
                not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's"
            ),
        ),
    ],
    ids=["sigterm", "sigkill", "sigkill-with-a-forked-copy"],
)
def test_the_call_of_a_gateway_process_killed_mid_call_does_not_outlive_it(
    tmp_path: Path, signum: int, mode: str
) -> None:
    with _gateway_process(tmp_path, mode) as (process, pids):
        child, grandchild = (int(pid) for pid in _wait_for(pids, STARTUP_SECONDS).split())
        if mode == "fork":
            _wait_for(pids.with_name("pids.copy"), STARTUP_SECONDS)
        assert not _gone(child) and not _gone(grandchild)
        process.send_signal(signum)
        assert process.wait(GONE_SECONDS) == -signum
        deadline = time.monotonic() + GONE_SECONDS
        while not (_gone(child) and _gone(grandchild)):
            assert time.monotonic() < deadline, (
                f"still running {GONE_SECONDS}s after the gateway: "
                f"child {not _gone(child)}, grandchild {not _gone(grandchild)}"
            )
            time.sleep(0.02)


# -- the supervisor between the gateway and the command ---------------------------------------


def _request(seconds: float = 10.0) -> DispatchRequest:
    return DispatchRequest(
        tool="run",
        tool_id="code.run.v1",
        arguments={"query": "x"},
        timeout=seconds,
        cancellation=Cancellation.after(seconds),
    )


def test_a_command_that_cannot_start_raises_what_popen_would(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        SubprocessBackend([str(tmp_path / "missing")]).call(_request())
    with pytest.raises(FileNotFoundError):
        SubprocessBackend(["no-such-command-here"], env={"PATH": str(tmp_path)}).call(_request())
    script = tmp_path / "not-executable"
    script.write_text("#!/bin/sh\n")
    with pytest.raises(PermissionError):
        SubprocessBackend([str(script)]).call(_request())
    for env in ({"A\0": "x"}, {"A=B": "x"}, {"": "x"}, {"A": "x\0"}):
        with pytest.raises(ValueError):  # as Popen refuses them, before anything starts
            SubprocessBackend(["true"], env=env).call(_request())


def test_the_commands_own_status_and_environment_come_through_the_supervisor() -> None:
    code = """
        import json, os, sys
        json.load(sys.stdin)
        hits = [os.environ.get("X"), os.environ.get("EMPTY"), *sys.argv[1:]]
        print(json.dumps({"content": [], "structuredContent": {"hits": hits}}))
    """
    env = {"PATH": "/usr/bin:/bin", "X": "a=b", "EMPTY": ""}
    answer = SubprocessBackend(
        [sys.executable, "-c", textwrap.dedent(code), "two words", "é"], env=env
    ).call(_request())
    assert answer["structuredContent"]["hits"] == ["a=b", "", "two words", "é"]
    # Killed by a signal: the status the gateway reads is the command's, not the
    # supervisor's.
    crash = f"import os, signal; os.kill(os.getpid(), {int(signal.SIGSEGV)})"
    with pytest.raises(RuntimeError, match=f"status -{int(signal.SIGSEGV)} "):
        SubprocessBackend([sys.executable, "-c", crash]).call(_request())


def test_a_supervisor_killed_from_outside_ends_the_call_and_its_group(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    code = """
        import os, sys, time
        with open(sys.argv[1] + ".tmp", "w") as out:
            out.write(f"{os.getppid()} {os.getpid()}")
        os.replace(sys.argv[1] + ".tmp", sys.argv[1])
        time.sleep(60)
    """
    backend = SubprocessBackend([sys.executable, "-c", textwrap.dedent(code), str(pids)])
    failures: list[BaseException] = []

    def call() -> None:
        try:
            backend.call(_request(30.0))
        except BaseException as exc:
            failures.append(exc)

    caller = threading.Thread(target=call)
    caller.start()
    supervisor, child = (int(pid) for pid in _wait_for(pids, STARTUP_SECONDS).split())
    os.kill(supervisor, signal.SIGKILL)
    caller.join(GONE_SECONDS)
    assert not caller.is_alive(), "the call did not end with its supervisor"
    assert [type(exc) for exc in failures] == [RuntimeError]  # ambiguous for the gateway
    deadline = time.monotonic() + GONE_SECONDS
    while not _gone(child):
        assert time.monotonic() < deadline, "the command outlived its supervisor"
        time.sleep(0.02)
