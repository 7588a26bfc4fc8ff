"""Redaction: credentials, keys and payloads stay out of outcomes, evidence and the
journal, except what ``observability`` and ``auditFields`` allow."""

from __future__ import annotations

import json
import pickle
from typing import Any

import pytest

from schemacore.runtime.gateway import Secret
from tests.runtime.gateway_support import (
    Recorder,
    admit,
    gateway,
    pay_contract,
    search_contract,
)
from tests.runtime.journal_backends import JournalBackend

SECRET = "sk-live-SENTINEL-CREDENTIAL"
ARG_SENTINEL = "ARGSENTINEL-7f3a"
KEY_SENTINEL = "KEYSENTINEL-91bc"


def test_the_credential_reaches_the_backend_only(journal_backend: JournalBackend) -> None:
    recorder = Recorder()
    recorder.destinations = {"send_payment": ["api.payments.example.com"]}
    journal = journal_backend.new()
    gw = gateway(admit({"send_payment": pay_contract()}), recorder, journal=journal)
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
    seen += json.dumps([dict(e) for e in recorder.evidence]) + journal_backend.dump()
    assert SECRET not in seen
    assert KEY_SENTINEL not in seen
    credential = recorder.requests[0].credential
    assert SECRET not in f"{credential} {credential!r} {credential!s}"
    with pytest.raises(TypeError):
        pickle.dumps(Secret(SECRET))


@pytest.mark.parametrize("log_payloads", [False, True])
def test_payloads_are_logged_only_when_log_payloads_is_true(
    log_payloads: bool, journal_backend: JournalBackend
) -> None:
    recorder = Recorder()
    recorder.answers = [
        {
            "content": [{"type": "text", "text": "RESULTSENTINEL"}],
            "structuredContent": {"hits": ["RESULTSENTINEL"], "extraKey": 1},
        }
    ]
    observability = {"requiredSpans": [], "requiredMetrics": [], "logPayloads": log_payloads}
    contract = search_contract(observability=observability, auditFields=[])
    gw = gateway(admit({"search": contract}), recorder, journal=journal_backend.new())
    outcome = gw.call("search", {"query": ARG_SENTINEL, "limit": 3}, caller="alice", run="r")
    assert outcome.ok
    evidence = dict(outcome.evidence)
    text = json.dumps(evidence)
    assert (ARG_SENTINEL in text) is log_payloads
    assert ("RESULTSENTINEL" in text) is log_payloads
    if not log_payloads:
        # The shape only: declared names, other names as "*", JSON types.
        assert evidence["arguments"] == {"query": "string", "limit": "integer"}
        assert evidence["result"] == {
            "isError": False,
            "content": ["text"],
            "structuredContent": {"hits": "array", "*": "integer"},
        }
    # The journal never holds the arguments, whatever the contract says.
    assert ARG_SENTINEL not in journal_backend.dump()


def test_evidence_carries_the_audit_fields_the_contract_names_from_the_calls_context() -> None:
    recorder = Recorder()
    recorder.destinations = {"send_payment": ["api.payments.example.com"]}
    names = [
        "requestId", "actorRef", "tenantRef", "runRef", "toolId", "toolVersion", "outcome",
        "step", "code", "intentId", "argumentsDigest", "approvedBy", "timestamp",
    ]  # fmt: skip
    gw = gateway(admit({"send_payment": pay_contract(auditFields=names)}), recorder)
    outcome = gw.call(
        "send_payment",
        {"recipient": ARG_SENTINEL, "amountCents": 5},
        caller="alice",
        run="r",
        tenant="acme",
        request_id="req-1",
    )
    assert outcome.ok
    audit = outcome.evidence["audit"]
    assert list(audit) == names  # the contract's order
    assert audit == {
        "requestId": "req-1",
        "actorRef": "alice",
        "tenantRef": "acme",
        "runRef": "r",
        "toolId": "payments.send.v1",
        "toolVersion": "1.2.0",
        "outcome": "succeeded",
        "step": None,
        "code": None,
        "intentId": outcome.intent_id,
        "argumentsDigest": outcome.evidence["argumentsDigest"],
        "approvedBy": "reviewer-7",
        "timestamp": outcome.evidence["time"],
    }
    # A refusal has its audit record too, and still no argument value in it.
    refused = gw.call(
        "send_payment", {"recipient": ARG_SENTINEL, "amountCents": -1}, caller="alice", run="r"
    )
    assert refused.step == "arguments"
    assert refused.evidence["audit"]["outcome"] == "refused"
    assert refused.evidence["audit"]["code"] == "arguments-invalid"
    assert refused.evidence["audit"]["tenantRef"] is None
    assert refused.evidence["audit"]["requestId"]  # a fresh id when the host gives none
    assert ARG_SENTINEL not in json.dumps(dict(refused.evidence))
    # Only the named fields: a contract that names none gets an empty record.
    other = gateway(admit({"search": search_contract(auditFields=[])}), Recorder())
    assert other.call("search", {"query": "x"}, caller="alice", run="r").evidence["audit"] == {}


def test_a_failing_evidence_sink_does_not_change_the_outcome() -> None:
    recorder = Recorder()

    def sink(record: Any) -> None:
        raise OSError("audit log full")

    gw = gateway(admit({"search": search_contract()}), recorder, evidence_sink=sink)
    outcome = gw.call("search", {"query": "x"}, caller="alice", run="r")
    assert outcome.ok and outcome.evidence["sinkFailed"] is True
