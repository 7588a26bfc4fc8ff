"""The runnable example: seed 002's pipeline, byte-stable against its golden file."""

from __future__ import annotations

import json
import runpy
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "runtime_pipeline.py"
GOLDEN = Path(__file__).resolve().parent / "golden" / "runtime_pipeline.json"


def _run(capsys: pytest.CaptureFixture[str], monkeypatch: Any) -> str:
    monkeypatch.setattr("sys.argv", [str(EXAMPLE)])
    runpy.run_path(str(EXAMPLE), run_name="__main__")
    return capsys.readouterr().out


def test_the_pipeline_output_is_byte_stable_and_matches_the_golden_file(
    capsys: pytest.CaptureFixture[str], monkeypatch: Any
) -> None:
    first = _run(capsys, monkeypatch)
    assert _run(capsys, monkeypatch) == first  # a fixed clock and fixed ids
    # After an intended change, regenerate: see the example's docstring.
    assert first == GOLDEN.read_text(encoding="utf-8")


def test_every_call_ends_as_the_pipeline_says(
    capsys: pytest.CaptureFixture[str], monkeypatch: Any
) -> None:
    report = json.loads(_run(capsys, monkeypatch))
    refused = report["refusedContract"]["error"]
    assert (refused["code"], refused["path"], refused["retryable"]) == (
        "contract-retry-unsafe",
        "/retryPolicy/retryableErrors/0",
        False,
    )
    assert refused["contractVersion"] == "aruntime.tool-contract.v1"
    assert refused["supportedVersions"] == ["aruntime.tool-contract.v1"]
    assert report["catalog"]["accepted"][0] == "read_customer"  # the published example
    assert report["modelRoute"] == "private-eu"
    assert report["catalog"]["classification"] == "confidential"
    verdicts = [(c["status"], c["step"], c["code"], c["replayed"]) for c in report["calls"]]
    assert verdicts == [
        ("succeeded", None, None, False),
        ("succeeded", None, None, True),
        ("refused", "arguments", "contract-validation-failed", False),
        ("refused", "arguments", "arguments-invalid", False),
        ("refused", "authorization", "not-authorized", False),
        ("succeeded", None, None, False),
        ("refused", "approval", "approval-denied", False),
        ("refused", "egress", "egress-denied", False),
    ]
    missing_key = report["calls"][2]
    assert missing_key["path"] == "/idempotencyKey"
    assert missing_key["message"] == "A stable idempotency key is required."
    assert report["paymentsMade"] == ["INV-0001"] and report["mailsSent"] == []
    text = json.dumps(report)
    assert "token-for-" not in text  # no credential anywhere in the output
    # Minimised evidence: the read's payload is recorded as its shape only.
    evidence = report["calls"][0]["evidence"]
    assert evidence["arguments"] == {"customerRef": "string"}
    assert evidence["audit"] == {
        "requestId": "req-1",
        "actorRef": "agent-42",
        "tenantRef": "acme",
        "toolVersion": "3.2.0",
        "outcome": "succeeded",
    }
