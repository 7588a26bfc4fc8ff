"""Termination: every attempt has a deadline its backend must honour, and the
subprocess backend kills its child there, so nothing runs on after a timeout."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from schemacore.runtime.gateway import DispatchRequest, FunctionBackend, SubprocessBackend
from tests.runtime.gateway_support import Recorder, admit, gateway, search_contract

pytestmark = pytest.mark.skipif(os.name != "posix", reason="process groups are POSIX")

ONE_ATTEMPT = {"maxAttempts": 1, "backoff": "none", "retryableErrors": []}


def _code_tool(**changes: Any) -> dict[str, Any]:
    return search_contract(
        permissionClass="code-execution", retryPolicy=dict(ONE_ATTEMPT), **changes
    )


def _child(code: str, *extra: str) -> list[str]:
    return [sys.executable, "-c", textwrap.dedent(code), *extra]


def test_a_cooperative_backend_is_told_to_stop_at_the_deadline() -> None:
    effects: list[int] = []
    stopped = threading.Event()

    def handler(request: DispatchRequest) -> Any:
        try:
            for step in range(10_000):
                if request.cancellation.wait(0.005):
                    raise TimeoutError("cancelled")  # stops, as a backend must
                effects.append(step)
            return {"content": []}
        finally:
            stopped.set()

    recorder = Recorder()
    gw = gateway(
        admit({"run": _code_tool(timeoutMs=100)}),
        recorder,
        backends={"local": FunctionBackend(handler)},
    )
    outcome = gw.call("run", {"query": "x"}, caller="alice", run="r")
    assert (outcome.status, outcome.code) == ("ambiguous", "dispatch-timeout")
    assert stopped.wait(2), "the backend did not stop after its cancellation"
    done = len(effects)
    time.sleep(0.2)
    assert len(effects) == done  # nothing ran on after it stopped


def test_a_subprocess_is_killed_at_the_deadline_with_its_process_group(tmp_path: Path) -> None:
    marker, grandchild_marker = tmp_path / "child", tmp_path / "grandchild"
    code = """
        import pathlib, subprocess, sys, time
        subprocess.Popen([sys.executable, "-c",
            "import pathlib, sys, time; time.sleep(1.0); pathlib.Path(sys.argv[1]).write_text('x')",
            sys.argv[2]])
        time.sleep(1.0)
        pathlib.Path(sys.argv[1]).write_text("ran on")
    """
    backend = SubprocessBackend(_child(code, str(marker), str(grandchild_marker)))
    gw = gateway(admit({"run": _code_tool(timeoutMs=300)}), Recorder(), backends={"local": backend})
    started = time.monotonic()
    outcome = gw.call("run", {"query": "x"}, caller="alice", run="r")
    assert (outcome.status, outcome.code, outcome.dispatched) == (
        "ambiguous",
        "dispatch-timeout",
        None,
    )
    assert time.monotonic() - started < 1.0
    for _ in range(100):  # the backend's own kill follows the deadline at once
        if backend.killed:
            break
        time.sleep(0.01)
    assert backend.killed == 1
    time.sleep(1.5)  # past the moment either process would have written
    assert not marker.exists() and not grandchild_marker.exists()


def test_what_a_subprocess_leaves_running_in_its_group_is_killed_when_it_ends(
    tmp_path: Path,
) -> None:
    marker = tmp_path / "left-behind"
    code = """
        import json, subprocess, sys
        subprocess.Popen([sys.executable, "-c",
            "import pathlib, sys, time; time.sleep(1.0); pathlib.Path(sys.argv[1]).write_text('x')",
            sys.argv[1]], stdout=subprocess.DEVNULL)
        print(json.dumps({"content": [], "structuredContent": {"hits": []}}))
    """
    backend = SubprocessBackend(_child(code, str(marker)))
    gw = gateway(
        admit({"run": _code_tool(timeoutMs=5000)}), Recorder(), backends={"local": backend}
    )
    assert gw.call("run", {"query": "x"}, caller="alice", run="r").ok
    time.sleep(1.5)
    assert not marker.exists()


def test_a_subprocess_that_writes_too_much_is_killed() -> None:
    code = """
        import sys
        while True:
            sys.stdout.write("x" * 65536)
    """
    backend = SubprocessBackend(_child(code), max_output_bytes=100_000)
    gw = gateway(
        admit({"run": _code_tool(timeoutMs=10_000)}), Recorder(), backends={"local": backend}
    )
    started = time.monotonic()
    outcome = gw.call("run", {"query": "x"}, caller="alice", run="r")
    assert (outcome.status, outcome.code) == ("ambiguous", "backend-failed")
    assert backend.killed == 1 and time.monotonic() - started < 5


def test_a_subprocess_gets_its_arguments_and_a_clean_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("RUNTIME_SECRET", "sk-live-RUNTIME-ENV")
    code = """
        import json, os, sys
        request = json.load(sys.stdin)
        hits = [request["arguments"]["query"], request["toolId"], *sorted(os.environ)]
        if "TOOL_TOKEN" in os.environ:
            hits.append("token:" + os.environ["TOOL_TOKEN"])
        print(json.dumps({"content": [], "structuredContent": {"hits": hits}}))
    """
    backend = SubprocessBackend(_child(code), credential_env="TOOL_TOKEN")
    for reference, expect_token in ((None, False), ("secretref://tools/runner", True)):
        recorder = Recorder()
        gw = gateway(
            admit({"run": _code_tool(authenticationRef=reference)}),
            recorder,
            backends={"local": backend},
        )
        outcome = gw.call("run", {"query": "q-1"}, caller="alice", run="r")
        assert outcome.ok, outcome.message
        hits = outcome.result["structuredContent"]["hits"]
        assert hits[:2] == ["q-1", "docs.search.v1"]
        assert "RUNTIME_SECRET" not in hits  # nothing of the runtime's environment
        assert ("token:sk-live-SENTINEL-CREDENTIAL" in hits) is expect_token


def test_resource_limits_apply_to_the_child() -> None:
    code = """
        import json, resource
        cpu = resource.getrlimit(resource.RLIMIT_CPU)
        memory = resource.getrlimit(resource.RLIMIT_AS)
        core = resource.getrlimit(resource.RLIMIT_CORE)
        hits = [str(cpu), str(memory), str(core)]
        print(json.dumps({"content": [], "structuredContent": {"hits": hits}}))
    """
    backend = SubprocessBackend(_child(code), cpu_seconds=5, memory_bytes=2_000_000_000)
    gw = gateway(admit({"run": _code_tool()}), Recorder(), backends={"local": backend})
    outcome = gw.call("run", {"query": "x"}, caller="alice", run="r")
    assert outcome.ok, outcome.message
    assert outcome.result["structuredContent"]["hits"] == [
        "(5, 5)",
        "(2000000000, 2000000000)",
        "(0, 0)",
    ]


def test_a_subprocess_declares_a_failure_or_crashes() -> None:
    declared = SubprocessBackend(
        _child(
            "import json, sys;"
            'print(json.dumps({"toolFailure": {"code": "bad_query"}})); sys.exit(3)'
        )
    )
    gw = gateway(admit({"run": _code_tool()}), Recorder(), backends={"local": declared})
    outcome = gw.call("run", {"query": "x"}, caller="alice", run="r")
    assert (outcome.status, outcome.code) == ("failed", "bad_query")
    crashed = SubprocessBackend(_child("raise SystemExit(9)"))
    gw = gateway(admit({"run": _code_tool()}), Recorder(), backends={"local": crashed})
    outcome = gw.call("run", {"query": "x"}, caller="alice", run="r")
    assert (outcome.status, outcome.code) == ("ambiguous", "backend-failed")


def test_the_network_sandbox_wraps_a_tool_whose_contract_allows_no_egress() -> None:
    code = """
        import json, os
        hits = [os.environ.get("SANDBOXED", "no")]
        print(json.dumps({"content": [], "structuredContent": {"hits": hits}}))
    """
    # /usr/bin/env stands in for a sandbox: it shows that the prefix ran.
    backend = SubprocessBackend(
        _child(code), network_sandbox=["/usr/bin/env", "SANDBOXED=yes"], egress=["api.example.com"]
    )
    egress = {"allowed": True, "destinations": ["api.example.com"]}
    for policy, expected in (({"allowed": False, "destinations": []}, "yes"), (egress, "no")):
        recorder = Recorder()
        recorder.destinations = {}
        gw = gateway(
            admit({"run": _code_tool(egressPolicy=policy)}), recorder, backends={"local": backend}
        )
        if not policy["allowed"]:
            # The backend names a destination; a contract without egress refuses it.
            outcome = gw.call("run", {"query": "x"}, caller="alice", run="r")
            assert (outcome.step, outcome.code) == ("egress", "egress-denied")
            quiet = SubprocessBackend(
                _child(code), network_sandbox=["/usr/bin/env", "SANDBOXED=yes"]
            )
            gw = gateway(
                admit({"run": _code_tool(egressPolicy=policy)}), recorder, backends={"local": quiet}
            )
        outcome = gw.call("run", {"query": "x"}, caller="alice", run="r")
        assert outcome.ok and outcome.result["structuredContent"]["hits"] == [expected]


@pytest.mark.skipif(shutil.which("unshare") is None, reason="no unshare(1) here")
def test_unshare_as_the_network_sandbox_cuts_the_network() -> None:
    probe = subprocess.run(["unshare", "--net", "--map-root-user", "true"], check=False)
    if probe.returncode != 0:
        pytest.skip("unprivileged network namespaces are not available here")
    code = """
        import json, socket
        try:
            socket.create_connection(("127.0.0.1", 9), timeout=2)
            answer = "connected"
        except OSError as exc:
            answer = type(exc).__name__
        print(json.dumps({"content": [], "structuredContent": {"hits": [answer]}}))
    """
    backend = SubprocessBackend(
        _child(code), network_sandbox=["unshare", "--net", "--map-root-user"]
    )
    gw = gateway(admit({"run": _code_tool()}), Recorder(), backends={"local": backend})
    outcome = gw.call("run", {"query": "x"}, caller="alice", run="r")
    assert outcome.ok, outcome.message
    # In a fresh network namespace even the loopback is down: unreachable, not refused.
    assert outcome.result["structuredContent"]["hits"] != ["ConnectionRefusedError"]
    assert json.dumps(outcome.result).count("connected") == 0
