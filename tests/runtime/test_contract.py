"""Tool contracts: the envelope schema, every cross-field rule, order, upgrades."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

from schemacore.runtime import (
    CONTRACT_V1,
    ContractError,
    ToolContract,
    check_contract_upgrade,
    validate_contract,
)
from schemacore.runtime.contract import CONTRACT_FIELDS, contract_schema

from .contracts import seed_example, valid_contract

Edit = Callable[[dict[str, Any]], object]


def refused(envelope: Any) -> ContractError:
    with pytest.raises(ContractError) as info:
        validate_contract(envelope)
    return info.value


def refused_after(edit: Edit) -> ContractError:
    envelope = valid_contract()
    edit(envelope)
    return refused(envelope)


def test_valid_contract_is_admitted_unchanged() -> None:
    envelope = valid_contract()
    before = copy.deepcopy(envelope)
    contract = validate_contract(envelope)
    assert isinstance(contract, ToolContract)
    assert contract.envelope is envelope and envelope == before
    assert (contract.tool_id, contract.version, contract.permission_class) == (
        "payments.refund.v2",
        "2.3.1",
        "financial-high-impact",
    )
    assert contract.input_schema.schema is envelope["inputSchema"]
    assert contract.output_schema is not None
    assert contract["rateLimits"] == {"requests": 60, "perSeconds": 60, "scope": "tenant"}


def test_the_published_example_is_admitted_verbatim() -> None:
    example = seed_example()
    text = json.dumps(example, sort_keys=True)
    contract = validate_contract(example)
    assert json.dumps(example, sort_keys=True) == text  # nothing filled in or changed
    assert (contract.tool_id, contract.version, contract.data_classification) == (
        "customer.read.v3",
        "3.2.0",
        "confidential",
    )
    assert contract.output_schema is not None
    assert contract["retryPolicy"]["retryableErrors"] == ["timeout", "upstream-unavailable"]


def _seed_mutations() -> list[tuple[str, Edit, str, str]]:
    # Each breaks one rule of the published description; the pointer is where.
    return [
        (
            "a missing field is never filled in",
            lambda c: c.pop("auditFields"),
            "contract-field-missing",
            "/auditFields",
        ),
        (
            "a missing nested field too",
            lambda c: c["idempotency"].pop("keyLocation"),
            "contract-field-missing",
            "/idempotency/keyLocation",
        ),
        (
            "the version is the published one",
            lambda c: c.update(contractVersion="aruntime.tool-contract.v2"),
            "contract-version-unsupported",
            "/contractVersion",
        ),
        (
            "permissionClass is a closed set",
            lambda c: c.update(permissionClass="write"),
            "contract-validation-failed",
            "/permissionClass",
        ),
        (
            "timeoutMs is an integer",
            lambda c: c.update(timeoutMs="3s"),
            "contract-validation-failed",
            "/timeoutMs",
        ),
        (
            "authenticationRef is a reference, never a secret",
            lambda c: c.update(authenticationRef="sk-live-0123456789abcdef"),
            "contract-authentication-not-reference",
            "/authenticationRef",
        ),
        (
            "egress is explicit",
            lambda c: c["egressPolicy"].update(destinations=["*.internal"]),
            "contract-egress-not-explicit",
            "/egressPolicy/destinations/0",
        ),
        (
            "egress is default-deny",
            lambda c: c["egressPolicy"].update(destinations=[]),
            "contract-egress-inconsistent",
            "/egressPolicy/destinations",
        ),
        (
            "an irreversible tool without deduplication is never retried after a timeout",
            lambda c: (
                c.update(permissionClass="irreversible", sideEffectClass="irreversible"),
                c.update(
                    idempotency={
                        "supported": False,
                        "keyLocation": None,
                        "deduplicationWindowSeconds": None,
                    }
                ),
            ),
            "contract-retry-unsafe",
            "/retryPolicy/retryableErrors/0",
        ),
        (
            "a retryable error names a retryable taxonomy entry",
            lambda c: c["retryPolicy"]["retryableErrors"].append("not-found"),
            "contract-retry-code-not-retryable",
            "/retryPolicy/retryableErrors/2",
        ),
        (
            "a read is not a side effect",
            lambda c: c.update(sideEffectClass="reversible"),
            "contract-side-effect-inconsistent",
            "/sideEffectClass",
        ),
        (
            "a backoff outside the closed set",
            lambda c: c["retryPolicy"].update(backoff="fibonacci"),
            "contract-validation-failed",
            "/retryPolicy/backoff",
        ),
        (
            "a concurrency mode outside the closed set",
            lambda c: c["concurrency"].update(mode="burst"),
            "contract-validation-failed",
            "/concurrency/mode",
        ),
        (
            "a rate-limit scope outside the closed set",
            lambda c: c["rateLimits"].update(scope="region"),
            "contract-validation-failed",
            "/rateLimits/scope",
        ),
        (
            "confidential payloads are not logged",
            lambda c: c["observability"].update(logPayloads=True),
            "contract-logging-exposes-data",
            "/observability/logPayloads",
        ),
    ]


@pytest.mark.parametrize(
    ("edit", "code", "path"),
    [case[1:] for case in _seed_mutations()],
    ids=[case[0] for case in _seed_mutations()],
)
def test_mutations_of_the_published_example_are_refused_in_the_published_shape(
    edit: Edit, code: str, path: str
) -> None:
    example = seed_example()
    edit(example)
    error = refused(example)
    assert (error.code, error.path) == (code, path)
    body = error.to_dict()["error"]
    # The published error shape, plus the versions this runtime supports.
    assert {"code", "contractVersion", "path", "message", "retryable"} <= body.keys()
    assert (body["code"], body["path"], body["retryable"]) == (code, path, False)
    assert body["supportedVersions"] == [CONTRACT_V1]
    assert body["message"] and "sk-live" not in body["message"]


def test_the_envelope_schema_ships_with_the_package_and_lists_22_fields() -> None:
    schema = contract_schema().schema
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["required"] == list(CONTRACT_FIELDS)
    assert len(CONTRACT_FIELDS) == 22
    assert schema["additionalProperties"] is False


def test_every_nested_object_requires_all_its_fields() -> None:
    # "Missing fields are errors": no nested field is optional either.
    def walk(node: Any, where: str) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("properties"), dict) and node.get("type") == "object":
                assert sorted(node.get("required", [])) == sorted(node["properties"]), where
            for key, value in node.items():
                walk(value, f"{where}/{key}")
        elif isinstance(node, list):
            for index, value in enumerate(node):
                walk(value, f"{where}/{index}")

    walk(contract_schema().schema, "")


def test_error_shape() -> None:
    error = refused_after(lambda c: c["idempotency"].update(supported="no"))
    assert error.to_dict() == {
        "error": {
            "code": "contract-validation-failed",
            "errorClass": "validation",
            "contractVersion": CONTRACT_V1,
            "path": "/idempotency/supported",
            "message": error.message,
            "retryable": False,
            "supportedVersions": ["aruntime.tool-contract.v1"],
        }
    }
    assert "boolean" in error.message and "string" in error.message


@pytest.mark.parametrize("field", CONTRACT_FIELDS[1:])
def test_every_field_is_required_never_filled_in(field: str) -> None:
    envelope = valid_contract()
    del envelope[field]
    error = refused(envelope)
    assert (error.code, error.path, error.error_class) == (
        "contract-field-missing",
        f"/{field}",
        "validation",
    )
    assert field not in envelope


def test_missing_contract_version_is_a_missing_field() -> None:
    error = refused_after(lambda c: c.pop("contractVersion"))
    assert (error.code, error.path, error.contract_version) == (
        "contract-field-missing",
        "/contractVersion",
        None,
    )


@pytest.mark.parametrize(
    ("field", "name"),
    [
        ("retryPolicy", "backoff"),
        ("idempotency", "deduplicationWindowSeconds"),
        ("concurrency", "mode"),
        ("compensation", "deadlineSeconds"),
        ("rateLimits", "scope"),
        ("observability", "logPayloads"),
        ("deprecation", "sunsetUtc"),
    ],
)
def test_nested_fields_are_required_too(field: str, name: str) -> None:
    error = refused_after(lambda c: c[field].pop(name))
    assert (error.code, error.path) == ("contract-field-missing", f"/{field}/{name}")


@pytest.mark.parametrize("version", ["aruntime.tool-contract.v2", "v1", 1, None])
def test_unknown_contract_version_has_its_own_code(version: Any) -> None:
    error = refused_after(lambda c: c.update(contractVersion=version))
    assert (error.code, error.path, error.error_class) == (
        "contract-version-unsupported",
        "/contractVersion",
        "validation",
    )
    assert error.to_dict()["error"]["supportedVersions"] == [CONTRACT_V1]
    expected = version if version in ("aruntime.tool-contract.v2", "v1") else None
    assert error.contract_version == expected


@pytest.mark.parametrize(
    ("edit", "path"),
    [
        (lambda c: c.update(toolId="Payments Refund"), "/toolId"),
        (lambda c: c.update(toolId="payments/refund@v2"), "/toolId"),
        (lambda c: c.update(version="2.3"), "/version"),
        (lambda c: c.update(description=""), "/description"),
        (lambda c: c.update(inputSchema=True), "/inputSchema"),
        (lambda c: c.update(outputSchema="none"), "/outputSchema"),
        (lambda c: c.update(outputSchema=True), "/outputSchema"),
        (lambda c: c.update(authenticationRef=42), "/authenticationRef"),
        (lambda c: c.update(permissionClass="write"), "/permissionClass"),
        (lambda c: c.update(sideEffectClass="maybe"), "/sideEffectClass"),
        (lambda c: c.update(dataClassification="secret"), "/dataClassification"),
        (lambda c: c["egressPolicy"].update(allowed="yes"), "/egressPolicy/allowed"),
        (lambda c: c.update(timeoutMs=0), "/timeoutMs"),
        (lambda c: c.update(timeoutMs=1.5), "/timeoutMs"),
        (lambda c: c.update(timeoutMs=None), "/timeoutMs"),
        (lambda c: c["retryPolicy"].update(maxAttempts=0), "/retryPolicy/maxAttempts"),
        (lambda c: c["retryPolicy"].update(backoff="linear"), "/retryPolicy/backoff"),
        (
            lambda c: c["retryPolicy"].update(retryableErrors=["timeout", "timeout"]),
            "/retryPolicy/retryableErrors",
        ),
        (
            lambda c: c["idempotency"].update(keyLocation="query:key"),
            "/idempotency/keyLocation",
        ),
        (
            lambda c: c["idempotency"].update(keyLocation="header:Bad Name"),
            "/idempotency/keyLocation",
        ),
        (
            lambda c: c["idempotency"].update(deduplicationWindowSeconds=0),
            "/idempotency/deduplicationWindowSeconds",
        ),
        (lambda c: c["concurrency"].update(mode="queue"), "/concurrency/mode"),
        (lambda c: c["concurrency"].update(maxConcurrent=0), "/concurrency/maxConcurrent"),
        (lambda c: c["concurrency"].update(maxConcurrent=None), "/concurrency/maxConcurrent"),
        (lambda c: c.update(approvalTriggers="always"), "/approvalTriggers"),
        (lambda c: c["compensation"].update(supported="yes"), "/compensation/supported"),
        (lambda c: c["compensation"].update(toolRef="Other Tool"), "/compensation/toolRef"),
        (lambda c: c["errorTaxonomy"][0].update(retryable=1), "/errorTaxonomy/0/retryable"),
        (lambda c: c["errorTaxonomy"][0].update(meaning=7), "/errorTaxonomy/0/meaning"),
        (lambda c: c["rateLimits"].update(requests=0), "/rateLimits/requests"),
        (lambda c: c["rateLimits"].update(perSeconds=None), "/rateLimits/perSeconds"),
        (lambda c: c["rateLimits"].update(scope="user"), "/rateLimits/scope"),
        (
            lambda c: c["observability"].update(requiredSpans=["tool.everything"]),
            "/observability/requiredSpans/0",
        ),
        (
            lambda c: c["observability"].update(requiredMetrics=["tool.cost"]),
            "/observability/requiredMetrics/0",
        ),
        (lambda c: c["observability"].update(logPayloads="no"), "/observability/logPayloads"),
        (lambda c: c.update(auditFields=["outcome", "outcome"]), "/auditFields"),
        (lambda c: c.update(auditFields=["paymentId"]), "/auditFields/0"),
        (lambda c: c["deprecation"].update(status="sunset"), "/deprecation/status"),
        (lambda c: c["deprecation"].update(sunsetUtc="soon"), "/deprecation/sunsetUtc"),
        (
            lambda c: c["deprecation"].update(sunsetUtc="2027-01-01T00:00:00+01:00"),
            "/deprecation/sunsetUtc",
        ),
    ],
)
def test_types_and_enumerations(edit: Edit, path: str) -> None:
    error = refused_after(edit)
    assert (error.code, error.path, error.error_class) == (
        "contract-validation-failed",
        path,
        "validation",
    )


def test_unknown_fields_are_refused_without_their_names() -> None:
    error = refused_after(lambda c: c.update({"x-api-key-sk-live-123": 1}))
    assert (error.code, error.path) == ("contract-validation-failed", "")
    assert "sk-live" not in json.dumps(error.to_dict())
    error = refused_after(lambda c: c["egressPolicy"].update({"sk-live-456": []}))
    assert (error.code, error.path) == ("contract-validation-failed", "/egressPolicy")
    assert "sk-live" not in str(error)


def test_not_an_object() -> None:
    values: tuple[Any, ...] = (None, [], "contract")
    for value in values:
        error = refused(value)
        assert (error.code, error.path) == ("contract-not-object", "")


def test_every_problem_of_the_schema_step_is_kept_in_field_order() -> None:
    envelope = valid_contract()
    del envelope["deprecation"]
    envelope["timeoutMs"] = "30s"
    envelope["toolId"] = 7
    error = refused(envelope)
    assert [(e.code, e.path) for e in error.details] == [
        ("contract-validation-failed", "/toolId"),
        ("contract-validation-failed", "/timeoutMs"),
        ("contract-field-missing", "/deprecation"),
    ]
    assert error is error.details[0]


# -- cross-field rules ---------------------------------------------------------------------

NO_IDEMPOTENCY = {"supported": False, "keyLocation": None, "deduplicationWindowSeconds": None}
NO_COMPENSATION = {"supported": False, "toolRef": None, "deadlineSeconds": None}


def irreversible_without_dedup(c: dict[str, Any]) -> None:
    c.update(permissionClass="irreversible", sideEffectClass="irreversible")
    c["idempotency"] = dict(NO_IDEMPOTENCY)
    c["compensation"] = dict(NO_COMPENSATION)


@pytest.mark.parametrize(
    ("edit", "code", "path"),
    [
        (
            lambda c: c.update(permissionClass="read"),
            "contract-side-effect-inconsistent",
            "/sideEffectClass",
        ),
        (
            lambda c: c.update(permissionClass="irreversible"),
            "contract-side-effect-inconsistent",
            "/sideEffectClass",
        ),
        (
            irreversible_without_dedup,
            "contract-retry-unsafe",
            "/retryPolicy/retryableErrors/0",
        ),
        (
            lambda c: (
                c.update(sideEffectClass="irreversible", idempotency=dict(NO_IDEMPOTENCY)),
                c["retryPolicy"].update(retryableErrors=["rate-limited", "timeout"]),
            ),
            "contract-retry-unsafe",
            "/retryPolicy/retryableErrors/1",
        ),
        (
            lambda c: c["idempotency"].update(keyLocation="argument:nope"),
            "contract-idempotency-inconsistent",
            "/idempotency/keyLocation",
        ),
        (
            lambda c: c["idempotency"].update(keyLocation=None),
            "contract-idempotency-inconsistent",
            "/idempotency/keyLocation",
        ),
        (
            lambda c: c["idempotency"].update(deduplicationWindowSeconds=None),
            "contract-idempotency-inconsistent",
            "/idempotency/deduplicationWindowSeconds",
        ),
        (
            lambda c: c["idempotency"].update(supported=False),
            "contract-idempotency-inconsistent",
            "/idempotency/keyLocation",
        ),
        (
            lambda c: c["idempotency"].update(
                supported=False, keyLocation=None, deduplicationWindowSeconds=60
            ),
            "contract-idempotency-inconsistent",
            "/idempotency/deduplicationWindowSeconds",
        ),
        (
            lambda c: c["errorTaxonomy"].append(
                {"code": "rate-limited", "retryable": True, "meaning": ""}
            ),
            "contract-error-code-duplicate",
            "/errorTaxonomy/2/code",
        ),
        (
            lambda c: c["retryPolicy"]["retryableErrors"].append("insufficient-funds"),
            "contract-retry-code-not-retryable",
            "/retryPolicy/retryableErrors/2",
        ),
        (
            lambda c: c["retryPolicy"]["retryableErrors"].insert(0, "upstream-unavailable"),
            "contract-retry-code-unknown",
            "/retryPolicy/retryableErrors/0",
        ),
        (
            lambda c: c["errorTaxonomy"].append(
                {"code": "timeout", "retryable": False, "meaning": "Declared final."}
            ),
            "contract-retry-code-not-retryable",
            "/retryPolicy/retryableErrors/0",
        ),
        (
            lambda c: c["egressPolicy"].update(allowed=False),
            "contract-egress-inconsistent",
            "/egressPolicy/destinations",
        ),
        (
            lambda c: c["egressPolicy"].update(destinations=[]),
            "contract-egress-inconsistent",
            "/egressPolicy/destinations",
        ),
        (
            lambda c: c["egressPolicy"]["destinations"].append("*.example.com"),
            "contract-egress-not-explicit",
            "/egressPolicy/destinations/1",
        ),
        (
            lambda c: c.update(authenticationRef="sk-live-abcdef0123456789"),
            "contract-authentication-not-reference",
            "/authenticationRef",
        ),
        (
            lambda c: c.update(authenticationRef="secretref://"),
            "contract-authentication-not-reference",
            "/authenticationRef",
        ),
        (
            lambda c: c.update(concurrency={"mode": "serial", "maxConcurrent": 4}),
            "contract-concurrency-inconsistent",
            "/concurrency/maxConcurrent",
        ),
        (
            lambda c: c["compensation"].update(toolRef=None),
            "contract-compensation-inconsistent",
            "/compensation/toolRef",
        ),
        (
            lambda c: c["compensation"].update(deadlineSeconds=None),
            "contract-compensation-inconsistent",
            "/compensation/deadlineSeconds",
        ),
        (
            lambda c: c["compensation"].update(supported=False),
            "contract-compensation-inconsistent",
            "/compensation/toolRef",
        ),
        (
            lambda c: c["compensation"].update(supported=False, toolRef=None),
            "contract-compensation-inconsistent",
            "/compensation/deadlineSeconds",
        ),
        (
            lambda c: c.update(compensation=dict(NO_COMPENSATION)),
            "contract-compensation-inconsistent",
            "/compensation/supported",
        ),
        (
            lambda c: c.update(sideEffectClass="irreversible"),
            "contract-compensation-inconsistent",
            "/compensation/supported",
        ),
        (
            lambda c: c.update(permissionClass="reversible-write", sideEffectClass="none"),
            "contract-compensation-inconsistent",
            "/compensation/supported",
        ),
        (
            lambda c: c["compensation"].update(toolRef="payments.refund.v2"),
            "contract-compensation-inconsistent",
            "/compensation/toolRef",
        ),
        (
            lambda c: c["deprecation"].update(sunsetUtc="2027-01-01T00:00:00Z"),
            "contract-deprecation-inconsistent",
            "/deprecation/sunsetUtc",
        ),
        (
            lambda c: c["deprecation"].update(replacementRef="payments.refund.v3"),
            "contract-deprecation-inconsistent",
            "/deprecation/replacementRef",
        ),
        (
            lambda c: c["deprecation"].update(status="deprecated"),
            "contract-deprecation-inconsistent",
            "/deprecation/sunsetUtc",
        ),
        (
            lambda c: c["deprecation"].update(status="retired"),
            "contract-deprecation-inconsistent",
            "/deprecation/sunsetUtc",
        ),
        (
            lambda c: c.update(
                deprecation={
                    "status": "deprecated",
                    "sunsetUtc": "2027-01-01T00:00:00Z",
                    "replacementRef": "payments.refund.v2",
                }
            ),
            "contract-deprecation-inconsistent",
            "/deprecation/replacementRef",
        ),
        (lambda c: c.update(version="3.0.0"), "contract-version-mismatch", "/version"),
        (
            lambda c: c["observability"].update(logPayloads=True),
            "contract-logging-exposes-data",
            "/observability/logPayloads",
        ),
        (
            lambda c: (
                c.update(dataClassification="restricted"),
                c["observability"].update(logPayloads=True),
            ),
            "contract-logging-exposes-data",
            "/observability/logPayloads",
        ),
    ],
)
def test_cross_field_rules(edit: Edit, code: str, path: str) -> None:
    error = refused_after(edit)
    assert (error.code, error.path, error.error_class) == (code, path, "validation")
    assert error.retryable is False


def irreversible_not_retried(c: dict[str, Any]) -> None:
    irreversible_without_dedup(c)
    c["retryPolicy"]["retryableErrors"] = ["rate-limited"]


def test_variants_that_pass() -> None:
    variants: list[Edit] = [
        # Irreversible without dedup is fine when it is not retried after a timeout.
        irreversible_not_retried,
        # Irreversible *with* deduplication may retry after a timeout.
        lambda c: c.update(
            permissionClass="irreversible",
            sideEffectClass="irreversible",
            compensation=dict(NO_COMPENSATION),
        ),
        lambda c: c.update(egressPolicy={"allowed": False, "destinations": []}),
        lambda c: c.update(authenticationRef=None),
        lambda c: c.update(authenticationRef="spiffe://prod.example.org/ns/payments/sa/refund"),
        lambda c: c.update(outputSchema=None),
        lambda c: c["idempotency"].update(keyLocation="header:Idempotency-Key"),
        lambda c: c.update(concurrency={"mode": "serial", "maxConcurrent": 1}),
        lambda c: c["retryPolicy"].update(backoff="none", retryableErrors=[]),
        lambda c: c["rateLimits"].update(scope="global"),
        lambda c: c["rateLimits"].update(scope="actor"),
        lambda c: c.update(
            deprecation={
                "status": "deprecated",
                "sunsetUtc": "2027-01-01T00:00:00Z",
                "replacementRef": "payments.refund.v3",
            }
        ),
        lambda c: c.update(
            deprecation={
                "status": "retired",
                "sunsetUtc": "2026-01-01T00:00:00Z",
                "replacementRef": None,
            }
        ),
        # No ".vN" suffix: the toolId says nothing about the version.
        lambda c: c.update(toolId="payments/refund", version="7.0.0-beta.1"),
        lambda c: c.update(toolId="payments.refund.v0", version="0.9.0"),
        lambda c: c.update(permissionClass="code-execution"),
        lambda c: c.update(
            dataClassification="public",
            observability={"requiredSpans": [], "requiredMetrics": [], "logPayloads": True},
        ),
        lambda c: c.update(auditFields=[]),
    ]
    for edit in variants:
        envelope = valid_contract()
        edit(envelope)
        validate_contract(envelope)
    assert validate_contract(valid_contract()).output_schema is not None


def test_a_secret_in_authentication_ref_is_never_echoed() -> None:
    secret = "ghp_" + "A1b2C3d4" * 5
    error = refused_after(lambda c: c.update(authenticationRef=secret))
    assert secret[:12] not in json.dumps(error.to_dict())
    assert secret[:12] not in str(error)
    long_secret = "x" * 600  # fails the schema's maxLength first: still not echoed
    error = refused_after(lambda c: c.update(authenticationRef=long_secret))
    assert (error.code, error.path) == ("contract-validation-failed", "/authenticationRef")
    assert "xxxxxxxx" not in json.dumps(error.to_dict())


# -- embedded schemas ----------------------------------------------------------------------


def test_embedded_schemas_are_checked_with_their_own_class() -> None:
    error = refused_after(lambda c: c.update(inputSchema={"type": "array"}))
    assert (error.code, error.path, error.error_class) == (
        "contract-input-schema-rejected",
        "/inputSchema/type",
        "validation",
    )
    assert error.cause is not None and error.cause.code == "input-schema-root-not-object"
    error = refused_after(
        lambda c: c.update(outputSchema={"$schema": "http://json-schema.org/draft-07/schema#"})
    )
    assert (error.code, error.path, error.error_class) == (
        "contract-output-schema-rejected",
        "/outputSchema/$schema",
        "unsupported_capability",
    )
    error = refused_after(
        lambda c: c["inputSchema"]["properties"].update(x={"$ref": "https://example.com/x"})
    )
    assert (error.code, error.path) == (
        "contract-input-schema-rejected",
        "/inputSchema/properties/x/$ref",
    )


def test_schema_options_reach_embedded_schemas() -> None:
    envelope = valid_contract()
    envelope["inputSchema"]["properties"]["x"] = {"$ref": "https://example.com/x"}
    contract = validate_contract(envelope, registry={"https://example.com/x": {"type": "string"}})
    assert not contract.input_schema.validator.is_valid(
        {"paymentId": "p", "amountCents": 1, "requestId": "r", "x": 1}
    )


# -- order of checks ---------------------------------------------------------------------


def test_order_object_version_schema_embedded_schemas_rules() -> None:
    envelope = valid_contract()
    envelope["contractVersion"] = "aruntime.tool-contract.v9"
    del envelope["toolId"]
    envelope["inputSchema"] = {"type": "array"}
    envelope["outputSchema"] = {"$schema": "http://json-schema.org/draft-07/schema#"}
    envelope["egressPolicy"]["allowed"] = False
    assert refused(envelope).code == "contract-version-unsupported"
    envelope["contractVersion"] = CONTRACT_V1
    assert refused(envelope).code == "contract-field-missing"
    envelope["toolId"] = "payments.refund.v2"
    assert refused(envelope).code == "contract-input-schema-rejected"
    envelope["inputSchema"] = valid_contract()["inputSchema"]
    assert refused(envelope).code == "contract-output-schema-rejected"
    envelope["outputSchema"] = None
    assert refused(envelope).code == "contract-egress-inconsistent"
    envelope["egressPolicy"]["allowed"] = True
    validate_contract(envelope)


def test_cross_field_rules_run_in_the_documented_order() -> None:
    envelope = valid_contract()
    envelope.update(permissionClass="read", version="9.0.0")  # two rules broken
    assert refused(envelope).code == "contract-side-effect-inconsistent"
    envelope.update(permissionClass="financial-high-impact")
    assert refused(envelope).code == "contract-version-mismatch"


# -- upgrades -----------------------------------------------------------------------------


def upgrade_refused(edit: Edit, *, version: str = "2.4.0") -> ContractError:
    new = valid_contract()
    new["version"] = version
    edit(new)
    validate_contract(new)  # each new envelope is valid on its own
    with pytest.raises(ContractError) as info:
        check_contract_upgrade(valid_contract(), new)
    assert info.value.retryable is False and "major version" in info.value.message
    return info.value


@pytest.mark.parametrize(
    ("edit", "code", "path"),
    [
        (
            lambda c: c["inputSchema"]["required"].remove("requestId"),
            "contract-incompatible-change",
            "/inputSchema",
        ),
        (
            lambda c: c["inputSchema"]["properties"]["amountCents"].update(minimum=100),
            "contract-incompatible-change",
            "/inputSchema",
        ),
        (
            # A new property the caller must now send is not optional.
            lambda c: (
                c["inputSchema"]["properties"].update(note={"type": "string"}),
                c["inputSchema"]["required"].append("note"),
            ),
            "contract-incompatible-change",
            "/inputSchema",
        ),
        (lambda c: c.update(outputSchema=None), "contract-incompatible-change", "/outputSchema"),
        (
            lambda c: c["outputSchema"].update(required=["refundId"]),
            "contract-incompatible-change",
            "/outputSchema",
        ),
        (
            lambda c: c.update(authenticationRef="secretref://payments/other"),
            "contract-incompatible-change",
            "/authenticationRef",
        ),
        (
            lambda c: c.update(permissionClass="reversible-write"),
            "contract-incompatible-change",
            "/permissionClass",
        ),
        (
            lambda c: c.update(sideEffectClass="reversible", compensation=dict(NO_COMPENSATION)),
            "contract-incompatible-change",
            "/sideEffectClass",
        ),
        (
            lambda c: c.update(idempotency=dict(NO_IDEMPOTENCY)),
            "contract-incompatible-change",
            "/idempotency/supported",
        ),
        (
            lambda c: c["idempotency"].update(keyLocation="header:Idempotency-Key"),
            "contract-incompatible-change",
            "/idempotency/keyLocation",
        ),
        (
            lambda c: c.update(approvalTriggers=[]),
            "contract-approval-removed",
            "/approvalTriggers",
        ),
        (
            lambda c: c.update(approvalTriggers=["always"]),
            "contract-approval-removed",
            "/approvalTriggers",
        ),
        (
            lambda c: c["egressPolicy"]["destinations"].append("api.other.example.com"),
            "contract-egress-widened",
            "/egressPolicy/destinations/1",
        ),
        (
            lambda c: c.update(dataClassification="internal"),
            "contract-classification-lowered",
            "/dataClassification",
        ),
        (
            lambda c: c.update(dataClassification="public"),
            "contract-classification-lowered",
            "/dataClassification",
        ),
    ],
)
def test_changes_of_authority_or_risk_within_a_major_version_are_refused(
    edit: Edit, code: str, path: str
) -> None:
    error = upgrade_refused(edit)
    assert (error.code, error.path) == (code, path)


def test_dropping_compensation_is_an_incompatible_change() -> None:
    # A reversible tool may or may not offer compensation; dropping it is a change.
    old, new = valid_contract(), valid_contract()
    old["sideEffectClass"] = new["sideEffectClass"] = "reversible"
    new["compensation"] = dict(NO_COMPENSATION)
    with pytest.raises(ContractError) as info:
        check_contract_upgrade(old, new)
    assert (info.value.code, info.value.path) == (
        "contract-incompatible-change",
        "/compensation/supported",
    )
    check_contract_upgrade(new, old)  # offering compensation later is compatible


def test_egress_switched_on_is_widened_egress() -> None:
    old = valid_contract()
    old["egressPolicy"] = {"allowed": False, "destinations": []}
    new = valid_contract()
    with pytest.raises(ContractError) as info:
        check_contract_upgrade(old, new)
    assert (info.value.code, info.value.path) == (
        "contract-egress-widened",
        "/egressPolicy/allowed",
    )


@pytest.mark.parametrize("version", ["2.3.0", "2.3.1-rc.1", "2.2.10", "1.9.9"])
def test_the_version_never_moves_backwards(version: str) -> None:
    old, new = valid_contract(), valid_contract()
    # Without a .vN suffix, so that 1.9.9 is a valid version of the same toolId.
    old["toolId"] = new["toolId"] = "payments/refund"
    new["version"] = version
    with pytest.raises(ContractError) as info:
        check_contract_upgrade(old, new)
    assert (info.value.code, info.value.path) == ("contract-version-backwards", "/version")
    assert info.value.to_dict()["error"]["retryable"] is False


def test_compatible_edits_pass() -> None:
    old = validate_contract(valid_contract())
    edits: list[Edit] = [
        lambda c: c.update(description="Refund a captured payment, fully or partly."),
        lambda c: c.update(rateLimits={"requests": 120, "perSeconds": 60, "scope": "tenant"}),
        # An optional input property: the old schema refused every other property, so
        # no argument it accepted can be refused now.
        lambda c: c["inputSchema"]["properties"].update(note={"type": "string", "maxLength": 9}),
        # An optional output property: the old output schema allowed any other one.
        lambda c: c["outputSchema"]["properties"].update(currency={"type": "string"}),
        lambda c: c["approvalTriggers"].append("always"),
        lambda c: c["egressPolicy"].update(destinations=["API.payments.example.com"]),
        lambda c: c.update(dataClassification="restricted"),
    ]
    for edit in edits:
        new = valid_contract()
        new["version"] = "2.4.0"
        edit(new)
        assert check_contract_upgrade(old, new).envelope is new
    # The same version again, and 1 == 1.0 as JSON numbers: not a change.
    same = valid_contract()
    same["inputSchema"]["properties"]["amountCents"]["minimum"] = 1.0
    check_contract_upgrade(old, same)


def test_an_optional_property_is_compatible_only_where_no_accepted_value_can_break() -> None:
    # The old input schema allowed other properties: a typed new one may refuse a
    # value the old schema accepted, so it is not compatible; an open one is.
    old = valid_contract()
    del old["inputSchema"]["additionalProperties"]
    for schema, compatible in (({"type": "string"}, False), ({}, True), (True, True)):
        new = copy.deepcopy(old)
        new["inputSchema"]["properties"]["note"] = schema
        if compatible:
            check_contract_upgrade(old, new)
        else:
            with pytest.raises(ContractError) as info:
                check_contract_upgrade(old, new)
            assert (info.value.code, info.value.path) == (
                "contract-incompatible-change",
                "/inputSchema",
            )
    # patternProperties could already match the new name: not decided, so refused.
    old = valid_contract()
    old["inputSchema"]["patternProperties"] = {"^x-": {"type": "integer"}}
    new = copy.deepcopy(old)
    new["inputSchema"]["properties"]["x-note"] = {"type": "string"}
    with pytest.raises(ContractError):
        check_contract_upgrade(old, new)
    # A closed output schema gains a property: results the old one refused.
    old = valid_contract()
    old["outputSchema"]["additionalProperties"] = False
    new = copy.deepcopy(old)
    new["outputSchema"]["properties"]["currency"] = {"type": "string"}
    with pytest.raises(ContractError) as info:
        check_contract_upgrade(old, new)
    assert info.value.path == "/outputSchema"


def test_a_new_major_version_may_change_anything() -> None:
    # With a .vN toolId a new major is a new toolId: a different tool, not compared.
    new = valid_contract()
    new.update(toolId="payments.refund.v3", version="3.0.0", approvalTriggers=[])
    new["inputSchema"]["required"] = ["paymentId", "requestId"]
    assert check_contract_upgrade(valid_contract(), new).tool_id == "payments.refund.v3"
    # Without the suffix, the same toolId moves to a new major version.
    old = valid_contract()
    old["toolId"] = "payments/refund"
    new = copy.deepcopy(old)
    new.update(version="3.0.0", approvalTriggers=[], dataClassification="internal")
    new["egressPolicy"]["destinations"].append("api.other.example.com")
    assert check_contract_upgrade(old, new).version == "3.0.0"


def test_upgrade_validates_both_sides() -> None:
    broken = valid_contract()
    del broken["auditFields"]
    with pytest.raises(ContractError) as info:
        check_contract_upgrade(broken, valid_contract())
    assert info.value.code == "contract-field-missing"
    with pytest.raises(ContractError):
        check_contract_upgrade(valid_contract(), broken)


def test_envelope_bounds_fail_closed() -> None:
    envelope = valid_contract()
    deep: Any = {}
    for _ in range(600):
        deep = {"not": deep}
    envelope["outputSchema"] = deep
    error = refused(envelope)
    assert (error.code, error.error_class) == ("contract-limit-exceeded", "execution_failure")
