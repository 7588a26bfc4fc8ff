"""The benchmark harness runs (quick mode, in process). It never asserts times."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from benchmarks import run, validate_errors


def test_quick_mode_prints_a_table_per_workload(tmp_path: Path) -> None:
    out = io.StringIO()
    raw = tmp_path / "raw.json"
    assert run.main(["--quick", "--rounds", "1", "--json", str(raw)], out=out) == 0
    text = out.getvalue()
    for workload in (
        "tool-args",
        "records",
        "tree",
        "unevaluated",
        "dynamic-ref",
        "meta-schema",
        "growth",
        "agent",
        "first-calls",
        "many-errors",
        "runtime",
        "output-formats",
        "memory",
        "import",
    ):
        # The corpus workloads print "SKIPPED: <why>" without ../shared/mcp-tools.
        assert f"== {workload}:" in text
    assert "is_valid, " in text and "linearity" in text
    assert "== goals from issue 16" in text
    # Disagreements are the one thing the harness must never hide.
    assert "!! schemacore disagrees" not in text
    document = json.loads(raw.read_text(encoding="utf-8"))
    samples = document["workloads"]["tool-args"]["rows"]["is_valid_valid"]["samples_ns"]
    assert samples["schemacore"]


def test_the_hand_written_checker_agrees_with_schemacore() -> None:
    import schemacore
    from benchmarks import workloads
    from benchmarks.handwritten import check_tool_call

    workload = workloads.build("tool-args", quick=True)
    assert isinstance(workload, workloads.Workload)
    validator = schemacore.compile(workload.schema)
    for instance in [*workload.valid, *workload.invalid]:
        assert check_tool_call(instance) is validator.is_valid(instance)


def test_the_validate_errors_script_runs(capsys: pytest.CaptureFixture[str]) -> None:
    # It also checks that validate() and the drained best_match agree on each workload.
    validate_errors.main(["--quick"])
    text = capsys.readouterr().out
    assert all(name in text for name in ("many", "last", "nested", "shallow"))
