"""The runnable example: every call ends as the README says."""

from __future__ import annotations

import json
import runpy
from pathlib import Path
from typing import Any

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "runtime_pipeline.py"


def test_the_runtime_pipeline_example(capsys: pytest.CaptureFixture[str], monkeypatch: Any) -> None:
    monkeypatch.setattr("sys.argv", [str(EXAMPLE)])
    runpy.run_path(str(EXAMPLE), run_name="__main__")
    report = json.loads(capsys.readouterr().out)
    assert report["modelRoute"] == "private-eu"
    assert report["catalog"]["classification"] == "confidential"
    verdicts = [(c["status"], c["step"], c["code"], c["replayed"]) for c in report["calls"]]
    assert verdicts == [
        ("succeeded", None, None, False),
        ("refused", "arguments", "arguments-invalid", False),
        ("succeeded", None, None, False),
        ("succeeded", None, None, True),
        ("refused", "approval", "approval-denied", False),
    ]
    assert report["paymentsMade"] == ["INV-0001"]
    assert "token-from-the-vault" not in json.dumps(report)
