"""The gateway's order of steps, checked with recording fakes: every step in its
place, and a failure at any step stops every later one."""

from __future__ import annotations

import json
from typing import Any

import pytest

from schemacore.runtime.gateway import STEPS, Decision, Secret
from tests.runtime.gateway_support import (
    Clock,
    Recorder,
    RecordingJournal,
    admit,
    failure,
    gateway,
    pay_contract,
    search_contract,
)

PAY_ARGS = {"recipient": "acct-1", "amountCents": 500}
FULL_PATH = [
    "authorization",
    "approval",
    "budget",
    "intent",
    "egress",
    "credentials",
    "intent-dispatched",
    "dispatch",
    "intent-closed",
    "evidence",
]


def _pay_gateway(recorder: Recorder, **options: Any) -> Any:
    recorder.destinations = {"send_payment": ["api.payments.example.com"]}
    return gateway(admit({"send_payment": pay_contract()}), recorder, **options)


def test_a_call_goes_through_every_step_in_the_contract_order() -> None:
    recorder = Recorder()
    outcome = _pay_gateway(recorder).call("send_payment", PAY_ARGS, caller="alice", run="run-1")
    assert outcome.status == "succeeded" and outcome.step is None and outcome.dispatched
    assert recorder.events == FULL_PATH
    assert outcome.approval == {
        "triggers": ["side-effect-irreversible"],
        "approved": True,
        "by": "reviewer-7",
    }
    (request,) = recorder.requests
    assert isinstance(request.credential, Secret)
    assert request.credential.reveal() == "sk-live-SENTINEL-CREDENTIAL"
    assert request.intent_id == outcome.intent_id and request.attempt == 1
    assert STEPS.index("intent") < STEPS.index("egress") < STEPS.index("credentials")


class _BrokenJournal(RecordingJournal):
    def begin(self, intent: Any, *, window: float) -> Any:
        self.events.append("intent")
        raise OSError("disk full")


@pytest.mark.parametrize(
    ("arrange", "step", "code", "events"),
    [
        ("unknown tool", "lookup", "tool-unknown", ["evidence"]),
        ("bad arguments", "arguments", "arguments-invalid", ["evidence"]),
        ("bad argument text", "arguments", "arguments-json-duplicate-key", ["evidence"]),
        ("not authorised", "authorization", "not-authorized", ["authorization", "evidence"]),
        ("authoriser raises", "authorization", "authorizer-failed", ["evidence"]),
        ("not approved", "approval", "approval-denied", [*FULL_PATH[:2], "evidence"]),
        ("approver raises", "approval", "approval-failed", ["authorization", "evidence"]),
        ("no budget", "budget", "budget-exhausted", [*FULL_PATH[:3], "evidence"]),
        ("journal down", "intent", "journal-unavailable", [*FULL_PATH[:4], "evidence"]),
        (
            # The credential is never fetched for a call egress refuses.
            "egress denied",
            "egress",
            "egress-denied",
            [*FULL_PATH[:5], "intent-closed", "evidence"],
        ),
        (
            "no credential",
            "credentials",
            "credential-unavailable",
            [*FULL_PATH[:6], "intent-closed", "evidence"],
        ),
        ("declined", "dispatch", "declined", FULL_PATH),
    ],
)
def test_a_failure_at_a_step_stops_every_later_step(
    arrange: str, step: str, code: str, events: list[str]
) -> None:
    recorder = Recorder()
    options: dict[str, Any] = {}
    tool = "send_payment"
    arguments_value: Any = dict(PAY_ARGS)
    if arrange == "unknown tool":
        tool = "no_such_tool"
    elif arrange == "bad arguments":
        arguments_value = {"recipient": "acct-1", "amountCents": "500"}
    elif arrange == "bad argument text":
        arguments_value = '{"recipient": "a", "recipient": "b", "amountCents": 5}'
    elif arrange == "not authorised":
        recorder.authorize = Decision(False, "policy 12 forbids it")
    elif arrange == "authoriser raises":
        options["authorizer"] = lambda request, authority: 1 / 0
    elif arrange == "not approved":
        recorder.approve = Decision(False, "too much", by="reviewer-7")
    elif arrange == "approver raises":

        def approver(request: Any, triggers: Any) -> bool:
            raise RuntimeError("approval service down")

        options["approver"] = approver
    elif arrange == "no budget":
        recorder.allow_budget = False
    elif arrange == "journal down":
        options["journal"] = _BrokenJournal(recorder.events)
    elif arrange == "no credential":

        def resolver(reference: str) -> str:
            recorder.events.append("credentials")
            raise KeyError(reference)

        options["credentials"] = resolver
    elif arrange == "egress denied":
        pass  # destinations set below
    elif arrange == "declined":
        recorder.answers = [failure("declined")]
    gw = _pay_gateway(recorder, **options)
    if arrange == "egress denied":
        recorder.destinations = {"send_payment": ["api.payments.example.com", "exfil.example.net"]}
    outcome = gw.call(tool, arguments_value, caller="alice", run="run-1")
    assert (outcome.step, outcome.code) == (step, code)
    assert recorder.events == events
    assert outcome.result["isError"] is True
    assert outcome.dispatched is (step == "dispatch")
    assert outcome.status == ("failed" if step == "dispatch" else "refused")
    assert outcome.evidence["step"] == step and outcome.evidence["code"] == code
    if step != "dispatch":
        assert recorder.requests == []
    # Budget taken by a call that never reached its backend is given back.
    expected_release = (
        ["send_payment"]
        if "budget" in events
        and step
        not in (
            "budget",
            "dispatch",
        )
        else []
    )
    assert recorder.released == expected_release


def test_a_rejected_argument_is_an_mcp_error_result_the_model_can_read() -> None:
    recorder = Recorder()
    outcome = _pay_gateway(recorder).call(
        "send_payment",
        {"recipient": "acct-1", "amountCents": 0, "extra": 1},
        caller="alice",
        run="run-1",
    )
    assert outcome.step == "arguments" and outcome.retryable is False
    text = outcome.result["content"][0]["text"]
    assert "was not called" in text and "amountCents" in text
    issues = outcome.result["_meta"]["schemacore/tool-arg-issues"]["issues"]
    assert {issue["code"] for issue in issues} == {"number-too-small", "property-not-allowed"}


def test_hook_reasons_stay_with_the_host_and_out_of_the_model_result() -> None:
    recorder = Recorder()
    recorder.authorize = Decision(False, "internal policy ID-4471 (ask security@corp)")
    outcome = _pay_gateway(recorder).call("send_payment", PAY_ARGS, caller="alice", run="run-1")
    assert "ID-4471" in outcome.message
    assert "ID-4471" not in json.dumps(outcome.result)
    assert outcome.result["content"][0]["text"] == (
        'The tool "send_payment" was not called: the caller is not authorised to use this tool.'
    )


def test_output_is_checked_against_the_output_schema_enforce_and_report() -> None:
    for mode, status in (("enforce", "output-invalid"), ("report", "succeeded")):
        recorder = Recorder()
        recorder.answers = [{"content": [], "structuredContent": {"hits": [1, 2]}}]
        gw = gateway(admit({"search": search_contract()}), recorder, output_mode=mode)
        outcome = gw.call("search", {"query": "x"}, caller="alice", run="run-1")
        assert outcome.status == status and outcome.dispatched is True
        assert outcome.evidence["outputIssues"] == ["type-mismatch", "type-mismatch"]
        if mode == "enforce":
            assert outcome.step == "output" and outcome.code == "output-invalid"
            assert "structuredContent" not in outcome.result
        else:
            assert outcome.result["structuredContent"] == {"hits": [1, 2]}


def test_a_missing_structured_content_breaks_a_declared_output_schema() -> None:
    recorder = Recorder()
    recorder.answers = [{"content": [{"type": "text", "text": "3 hits"}]}]
    gw = gateway(admit({"search": search_contract()}), recorder)
    outcome = gw.call("search", {"query": "x"}, caller="alice", run="run-1")
    assert (outcome.status, outcome.code) == ("output-invalid", "output-invalid")
    assert outcome.evidence["outputIssues"] == ["structuredContent-missing"]


def test_a_tool_reported_error_is_passed_to_the_model_unchanged_and_not_checked() -> None:
    recorder = Recorder()
    answer = {"content": [{"type": "text", "text": "index offline"}], "isError": True}
    recorder.answers = [answer]
    gw = gateway(admit({"search": search_contract()}), recorder)
    outcome = gw.call("search", {"query": "x"}, caller="alice", run="run-1")
    assert (outcome.status, outcome.code, outcome.result) == (
        "failed",
        "tool-reported-error",
        answer,
    )


@pytest.mark.parametrize(
    "answer",
    [["not", "an", "object"], {"content": "text"}, {"isError": "yes"}, {"content": [float("nan")]}],
)
def test_a_malformed_backend_result_is_a_failed_call_not_a_crash(answer: Any) -> None:
    recorder = Recorder()
    recorder.answers = [answer]
    gw = gateway(admit({"search": search_contract(outputSchema=None)}), recorder)
    outcome = gw.call("search", {"query": "x"}, caller="alice", run="run-1")
    assert (outcome.status, outcome.code, outcome.dispatched) == ("failed", "result-invalid", True)


@pytest.mark.parametrize(
    ("triggers", "host", "fires"),
    [
        (["permission-irreversible"], {}, ["permission-irreversible"]),
        (["side-effect-irreversible"], {}, ["side-effect-irreversible"]),
        (["permission-financial-high-impact"], {}, []),  # another permission class
        (["side-effect-compensatable"], {}, []),  # another side-effect class
        (["data-confidential", "always"], {}, ["data-confidential", "always"]),
        (
            ["amount-over-limit"],
            {"amount-over-limit": lambda r: r.arguments["amountCents"] > 100},
            ["amount-over-limit"],
        ),
        (
            ["amount-over-limit"],
            {"amount-over-limit": lambda r: r.arguments["amountCents"] > 1000},
            [],
        ),
        (["unknown-rule"], {}, ["unknown-rule"]),  # cannot be evaluated: asks a human
        (["broken-rule"], {"broken-rule": lambda r: 1 / 0}, ["broken-rule"]),
    ],
)
def test_approval_triggers_permission_and_side_effect_are_separate(
    triggers: list[str], host: dict[str, Any], fires: list[str]
) -> None:
    recorder = Recorder()
    recorder.destinations = {"send_payment": ["api.payments.example.com"]}
    bundle = admit({"send_payment": pay_contract(approvalTriggers=triggers)})
    outcome = gateway(bundle, recorder, triggers=host).call(
        "send_payment", PAY_ARGS, caller="alice", run="run-1"
    )
    assert outcome.ok
    assert ("approval" in recorder.events) is bool(fires)
    assert (outcome.approval or {}).get("triggers", []) == fires


def test_approval_needed_without_an_approver_is_refused() -> None:
    recorder = Recorder()
    outcome = _pay_gateway(recorder, approver=None).call(
        "send_payment", PAY_ARGS, caller="alice", run="run-1"
    )
    assert (outcome.step, outcome.code) == ("approval", "approval-unavailable")
    assert "dispatch" not in recorder.events


def test_the_default_authoriser_reads_the_bundles_grants() -> None:
    bundle = admit(
        {"send_payment": pay_contract(approvalTriggers=[]), "search": search_contract()},
        grants={"search": True, "send_payment": {"permissionClasses": ["read"]}},
    )
    recorder = Recorder()
    recorder.destinations = {"send_payment": ["api.payments.example.com"]}
    from schemacore.runtime.gateway import grants_authorizer

    gw = gateway(bundle, recorder, authorizer=grants_authorizer)
    assert gw.call("search", {"query": "x"}, caller="alice", run="run-1").ok
    for tool, args, caller, run in (
        ("search", {"query": "x"}, "mallory", "run-1"),
        ("search", {"query": "x"}, "alice", "run-2"),
        ("send_payment", PAY_ARGS, "alice", "run-1"),  # grant does not cover the class
    ):
        outcome = gw.call(tool, args, caller=caller, run=run)
        assert (outcome.step, outcome.code) == ("authorization", "not-authorized")


def test_a_tool_past_its_sunset_is_refused_at_lookup() -> None:
    deprecation = {
        "status": "deprecated",
        "sunsetUtc": "2027-01-01T00:00:00Z",
        "replacementRef": None,
    }
    bundle = admit({"search": search_contract(deprecation=deprecation)})
    recorder = Recorder()
    before = gateway(bundle, recorder, clock=Clock(1_790_000_000.0))  # 2026-09
    assert before.call("search", {"query": "x"}, caller="alice", run="run-1").ok
    after = gateway(bundle, recorder, clock=Clock(1_800_000_000.0))  # 2027-01-15
    recorder.events.clear()
    outcome = after.call("search", {"query": "x"}, caller="alice", run="run-1")
    assert (outcome.step, outcome.code) == ("lookup", "tool-sunset")
    assert recorder.events == ["evidence"]


def test_a_retired_tool_is_refused_at_lookup_whatever_its_date() -> None:
    deprecation = {"status": "retired", "sunsetUtc": "2099-01-01T00:00:00Z", "replacementRef": None}
    recorder = Recorder()
    gw = gateway(admit({"search": search_contract(deprecation=deprecation)}), recorder)
    outcome = gw.call("search", {"query": "x"}, caller="alice", run="run-1")
    assert (outcome.step, outcome.code, outcome.dispatched) == ("lookup", "tool-retired", False)
    assert recorder.events == ["evidence"]


def test_host_mistakes_raise_and_model_input_never_does() -> None:
    recorder = Recorder()
    gw = gateway(admit({"search": search_contract()}), recorder)
    with pytest.raises(TypeError):
        gw.call("search", {"query": "x"}, caller="", run="run-1")
    with pytest.raises(ValueError):
        gw.call("search", {"query": "x"}, caller="alice", run="run-1", idempotency_key="k" * 300)
    for bad in ({"tenant": ""}, {"tenant": 7}, {"request_id": "r" * 300}):
        with pytest.raises(ValueError):
            gw.call("search", {"query": "x"}, caller="alice", run="run-1", **bad)
    for arguments in (None, [1], {"query": float("nan")}, {1: "x"}, b"\xff", "[" * 100_000):
        outcome = gw.call("search", arguments, caller="alice", run="run-1")
        assert outcome.step == "arguments" and outcome.result["isError"] is True
    for name in (None, 3, "", "x" * 10_000):
        outcome = gw.call(name, {"query": "x"}, caller="alice", run="run-1")  # type: ignore[arg-type]
        assert (outcome.step, outcome.code) == ("lookup", "tool-unknown")


def test_the_callers_arguments_are_not_mutated() -> None:
    recorder = Recorder()
    recorder.destinations = {"send_payment": ["api.payments.example.com"]}
    arguments = {"recipient": "acct-1", "amountCents": 500, "memo": "rent"}
    snapshot = json.dumps(arguments)
    _pay_gateway(recorder).call("send_payment", arguments, caller="alice", run="run-1")
    assert json.dumps(arguments) == snapshot
