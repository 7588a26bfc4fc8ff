"""Redaction: credentials, keys and payloads stay out of outcomes, evidence and the
journal, except what ``observability`` and ``auditFields`` allow."""

from __future__ import annotations

import json
import pickle
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from schemacore.runtime.gateway import Secret, SQLiteJournal
from tests.runtime.gateway_support import (
    Recorder,
    admit,
    gateway,
    pay_contract,
    search_contract,
)

SECRET = "sk-live-SENTINEL-CREDENTIAL"
ARG_SENTINEL = "ARGSENTINEL-7f3a"
KEY_SENTINEL = "KEYSENTINEL-91bc"


def _dump_journal(path: str) -> str:
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT * FROM intents").fetchall()
        rows += db.execute("SELECT * FROM idempotency_keys").fetchall()
    return json.dumps(rows)


def test_the_credential_reaches_the_backend_only(tmp_path: Path) -> None:
    recorder = Recorder()
    recorder.destinations = {"send_payment": ["api.payments.example.com"]}
    journal = str(tmp_path / "j.sqlite")
    gw = gateway(admit({"send_payment": pay_contract()}), recorder, journal=SQLiteJournal(journal))
    outcome = gw.call(
        "send_payment",
        {"recipient": "acct-1", "amountCents": 5},
        caller="alice",
        run="r",
        idempotency_key=KEY_SENTINEL,
    )
    assert outcome.ok and recorder.requests[0].credential is not None
    assert recorder.requests[0].credential.reveal() == SECRET
    seen = json.dumps(outcome.to_dict()) + repr(outcome) + repr(recorder.requests[0])
    seen += json.dumps([dict(e) for e in recorder.evidence]) + _dump_journal(journal)
    assert SECRET not in seen
    assert KEY_SENTINEL not in seen
    credential = recorder.requests[0].credential
    assert SECRET not in f"{credential} {credential!r} {credential!s}"
    with pytest.raises(TypeError):
        pickle.dumps(Secret(SECRET))


@pytest.mark.parametrize("level", ["none", "redacted", "full"])
def test_payloads_follow_the_contracts_observability(level: str, tmp_path: Path) -> None:
    recorder = Recorder()
    recorder.answers = [
        {
            "content": [{"type": "text", "text": "RESULTSENTINEL"}],
            "structuredContent": {"hits": ["RESULTSENTINEL"], "extraKey": 1},
        }
    ]
    contract = search_contract(
        observability={"logArguments": level, "logResults": level}, auditFields=[]
    )
    journal = str(tmp_path / "j.sqlite")
    gw = gateway(admit({"search": contract}), recorder, journal=SQLiteJournal(journal))
    outcome = gw.call("search", {"query": ARG_SENTINEL, "limit": 3}, caller="alice", run="r")
    assert outcome.ok
    evidence = dict(outcome.evidence)
    text = json.dumps(evidence)
    assert (ARG_SENTINEL in text) is (level == "full")
    assert ("RESULTSENTINEL" in text) is (level == "full")
    if level == "none":
        assert "arguments" not in evidence and "result" not in evidence
    if level == "redacted":
        assert evidence["arguments"] == {"query": "string", "limit": "integer"}
        assert evidence["result"] == {
            "isError": False,
            "content": ["text"],
            "structuredContent": {"hits": "array", "*": "integer"},
        }
    # The journal never holds the arguments, whatever the level.
    assert ARG_SENTINEL not in _dump_journal(journal)


def test_audit_fields_are_recorded_minimised_and_only_after_validation() -> None:
    recorder = Recorder()
    recorder.destinations = {"send_payment": ["api.payments.example.com"]}
    contract = pay_contract(auditFields=["recipient", "amountCents", "memo"])
    gw = gateway(admit({"send_payment": contract}), recorder)
    outcome = gw.call(
        "send_payment", {"recipient": "r" * 300, "amountCents": 5}, caller="alice", run="r"
    )
    assert outcome.ok
    assert outcome.evidence["audit"] == {"recipient": "r" * 256, "amountCents": 5}
    refused = gw.call(
        "send_payment", {"recipient": ARG_SENTINEL, "amountCents": -1}, caller="alice", run="r"
    )
    assert refused.step == "arguments"
    assert "audit" not in refused.evidence
    assert ARG_SENTINEL not in json.dumps(dict(refused.evidence))


def test_a_failing_evidence_sink_does_not_change_the_outcome() -> None:
    recorder = Recorder()

    def sink(record: Any) -> None:
        raise OSError("audit log full")

    gw = gateway(admit({"search": search_contract()}), recorder, evidence_sink=sink)
    outcome = gw.call("search", {"query": "x"}, caller="alice", run="r")
    assert outcome.ok and outcome.evidence["sinkFailed"] is True
