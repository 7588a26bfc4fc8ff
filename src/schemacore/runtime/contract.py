"""Tool contracts (``aruntime.tool-contract.v1``): the governance envelope of a tool.

The envelope is checked whole before any model call or credential resolution, in
this order, stopping at the first failing step:

1. it is a JSON object (``contract-not-object``);
2. ``contractVersion`` names a supported version (``contract-version-unsupported``);
3. the shipped Draft 2020-12 schema ``schemas/tool-contract.v1.json``, run by the
   engine: every one of the 22 fields present (``contract-field-missing``), with its
   type, enumeration and bounds, and no unknown field (``contract-validation-failed``);
4. ``inputSchema`` through ``validate_schema(role="input")`` and ``outputSchema``
   through ``validate_schema(role="output")`` (``contract-input-schema-rejected``,
   ``contract-output-schema-rejected``, with the schema error's class), so that the
   rules below may rely on an admitted input schema;
5. the cross-field rules, in the order of :data:`CROSS_FIELD_RULES`.

Nothing is filled in. Errors never echo a field's value (an ``authenticationRef``
that is not a reference may be a secret) nor an unknown field's name.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any, Final, Literal

from .argcheck import check_arguments
from .bounds import BoundaryLimits
from .errors import EXECUTION_FAILURE, VALIDATION, BoundaryError, Refusal, reduce_by_state
from .jsonvalues import json_equal
from .toolschema import ToolSchema, validate_schema

__all__ = [
    "CONTRACT_FIELDS",
    "CONTRACT_V1",
    "CROSS_FIELD_RULES",
    "INCOMPATIBLE_FIELDS",
    "SUPPORTED_CONTRACT_VERSIONS",
    "TIMEOUT_CODE",
    "ContractError",
    "ToolContract",
    "check_contract_upgrade",
    "contract_schema",
    "validate_contract",
]

CONTRACT_V1: Final = "aruntime.tool-contract.v1"
SUPPORTED_CONTRACT_VERSIONS: Final = (CONTRACT_V1,)

CONTRACT_FIELDS: Final = (
    "contractVersion",
    "toolId",
    "version",
    "description",
    "inputSchema",
    "outputSchema",
    "authenticationRef",
    "permissionClass",
    "sideEffectClass",
    "dataClassification",
    "egressPolicy",
    "timeoutMs",
    "retryPolicy",
    "idempotency",
    "concurrency",
    "approvalTriggers",
    "compensation",
    "errorTaxonomy",
    "rateLimits",
    "observability",
    "auditFields",
    "deprecation",
)

INCOMPATIBLE_FIELDS: Final = (
    "inputSchema",
    "outputSchema",
    "authenticationRef",
    "permissionClass",
    "sideEffectClass",
)
"""Fields whose incompatible change under one ``toolId`` needs a new major version
(see :func:`check_contract_upgrade`; an added optional input property is compatible)."""

# The envelope embeds two schemas, so it may nest as deeply as a schema does.
_ENVELOPE_LIMITS = BoundaryLimits(
    max_argument_depth=520, max_argument_nodes=250_000, max_string_length=1_000_000
)

_SECRET_REF = re.compile(r"secretref://[A-Za-z0-9][A-Za-z0-9._-]*(?:/[A-Za-z0-9][A-Za-z0-9._-]*)*")
_WORKLOAD_IDENTITY = re.compile(r"spiffe://[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?(?:/[A-Za-z0-9._~-]+)+")
_SAFE_VERSION = re.compile(r"[A-Za-z0-9._-]{1,64}")
# A toolId that ends in ".vN" (or "-vN", "_vN", "/vN") names its major version.
_TOOL_ID_MAJOR = re.compile(r"[._/-]v(0|[1-9][0-9]*)\Z")

TIMEOUT_CODE: Final = "timeout"
"""The retryable error of an attempt that ended without an answer (see docs/gateway.md)."""


class ContractError(Refusal):
    """A tool contract refused, with a stable ``code`` per rule.

    Attributes:
        code: e.g. ``contract-validation-failed``, ``contract-retry-unsafe``.
        error_class: ``"validation"`` for envelope problems; an embedded schema's
            own class (possibly ``"unsupported_capability"`` or
            ``"execution_failure"``) for ``contract-*-schema-rejected``.
        path: JSON Pointer into the envelope.
        message: safe to show; never quotes a field value.
        contract_version: the envelope's ``contractVersion`` when it is a short
            plain token, else None.
        retryable: always False: the same envelope fails the same way again.
        supported_versions: the contract versions this runtime accepts.
        details: every problem found at the failing step (this one first).
        cause: for a rejected embedded schema, the schema's BoundaryError.
    """

    supported_versions: Final = SUPPORTED_CONTRACT_VERSIONS

    def __init__(
        self,
        code: str,
        message: str,
        *,
        path: str = "",
        contract_version: str | None = None,
        error_class: str = VALIDATION,
        cause: BoundaryError | None = None,
    ) -> None:
        super().__init__(code, message, error_class=error_class, path=path)
        self.contract_version = contract_version
        self.cause = cause
        self.details: tuple[ContractError, ...] = (self,)

    def __reduce__(self) -> tuple[Any, ...]:
        return reduce_by_state(self)  # details holds self: pickle's memo keeps the cycle

    def to_dict(self) -> dict[str, Any]:
        """The wire shape: ``{"error": {"code", "contractVersion", "path", "message",
        "retryable", "supportedVersions"}}`` (plus ``errorClass``)."""
        return {
            "error": {
                "code": self.code,
                "errorClass": self.error_class,
                "contractVersion": self.contract_version,
                "path": self.path,
                "message": self.message,
                "retryable": self.retryable,
                "supportedVersions": list(self.supported_versions),
            }
        }


@dataclass(frozen=True, slots=True, eq=False)
class ToolContract:
    """A contract that passed every check.

    Attributes:
        envelope: the caller's envelope, unchanged.
        tool_id, version, permission_class, side_effect_class, data_classification:
            the fields the runtime consults most, as given.
        input_schema: the admitted input schema.
        output_schema: the admitted output schema, or None when ``outputSchema`` is null.
    """

    envelope: Mapping[str, Any] = field(repr=False)
    tool_id: str
    version: str
    permission_class: str
    side_effect_class: str
    data_classification: str
    input_schema: ToolSchema = field(repr=False)
    output_schema: ToolSchema | None = field(repr=False)

    def __getitem__(self, name: str) -> Any:
        """Any envelope field by its wire name."""
        return self.envelope[name]


@cache
def contract_schema() -> ToolSchema:
    """The shipped ``aruntime.tool-contract.v1`` envelope schema, compiled once."""
    text = resources.files(__package__).joinpath("schemas", "tool-contract.v1.json").read_bytes()
    return validate_schema(json.loads(text), boundary_limits=_ENVELOPE_LIMITS)


def _version_of(envelope: Mapping[str, Any]) -> str | None:
    version = envelope.get("contractVersion")
    if isinstance(version, str) and _SAFE_VERSION.fullmatch(version):
        return version
    return None


def _field_rank(path: str) -> tuple[int, str]:
    head = path[1:].split("/", 1)[0] if path else ""
    rank = CONTRACT_FIELDS.index(head) if head in CONTRACT_FIELDS else -1
    return (rank, path)


def _check_envelope_schema(envelope: Mapping[str, Any], version: str | None) -> None:
    try:
        issues, _ = check_arguments(contract_schema(), envelope)
    except BoundaryError as exc:
        code = (
            "contract-limit-exceeded"
            if exc.error_class == EXECUTION_FAILURE
            else "contract-validation-failed"
        )
        raise ContractError(
            code,
            exc.message,
            path=exc.path,
            contract_version=version,
            error_class=exc.error_class,
        ) from None
    if not issues:
        return
    errors = []
    for issue in issues:
        if issue.code == "property-missing":
            errors.append(
                ContractError(
                    "contract-field-missing",
                    f"the required field {issue.path} is missing (fields are never filled in)",
                    path=issue.pointer,
                    contract_version=version,
                )
            )
        elif issue.code == "property-not-allowed":
            where = issue.path or "the envelope"
            errors.append(
                ContractError(
                    "contract-validation-failed",
                    f"{where} has a field that {CONTRACT_V1} does not define",
                    path=issue.pointer,
                    contract_version=version,
                )
            )
        else:
            # The issue message names the path, what the schema expects and the
            # type that arrived; never the value (string excerpts are not used).
            errors.append(
                ContractError(
                    "contract-validation-failed",
                    issue.message,
                    path=issue.pointer,
                    contract_version=version,
                )
            )
    errors.sort(key=lambda e: _field_rank(e.path))
    first = errors[0]
    first.details = tuple(errors)
    raise first


# -- cross-field rules ------------------------------------------------------------------------

_Rule = Callable[[Mapping[str, Any]], "tuple[str, str, str] | None"]


def _is_irreversible(c: Mapping[str, Any]) -> bool:
    return "irreversible" in (c["sideEffectClass"], c["permissionClass"])


def _rule_side_effects(c: Mapping[str, Any]) -> tuple[str, str, str] | None:
    permission, effect = c["permissionClass"], c["sideEffectClass"]
    if permission == "read" and effect != "none":
        return (
            "contract-side-effect-inconsistent",
            "/sideEffectClass",
            'a "read" tool must declare sideEffectClass "none"',
        )
    if permission == "irreversible" and effect != "irreversible":
        return (
            "contract-side-effect-inconsistent",
            "/sideEffectClass",
            'an "irreversible" tool must declare sideEffectClass "irreversible"',
        )
    return None


def _rule_retry_after_timeout(c: Mapping[str, Any]) -> tuple[str, str, str] | None:
    if not _is_irreversible(c) or c["idempotency"]["supported"]:
        return None
    retryable = c["retryPolicy"]["retryableErrors"]
    if TIMEOUT_CODE in retryable:
        return (
            "contract-retry-unsafe",
            f"/retryPolicy/retryableErrors/{retryable.index(TIMEOUT_CODE)}",
            "an irreversible tool without deduplication (idempotency.supported false) "
            'must not be retried automatically after an ambiguous "timeout"',
        )
    return None


def _rule_idempotency(c: Mapping[str, Any]) -> tuple[str, str, str] | None:
    idempotency = c["idempotency"]
    location, window = idempotency["keyLocation"], idempotency["deduplicationWindowSeconds"]
    if not idempotency["supported"]:
        if location is not None:
            return (
                "contract-idempotency-inconsistent",
                "/idempotency/keyLocation",
                "keyLocation must be null when idempotency is not supported",
            )
        if window is not None:
            return (
                "contract-idempotency-inconsistent",
                "/idempotency/deduplicationWindowSeconds",
                "deduplicationWindowSeconds must be null when idempotency is not supported",
            )
        return None
    if location is None:
        return (
            "contract-idempotency-inconsistent",
            "/idempotency/keyLocation",
            "a tool that supports idempotency must say where its key travels "
            '("header:<Name>" or "argument:<name>")',
        )
    if window is None:
        return (
            "contract-idempotency-inconsistent",
            "/idempotency/deduplicationWindowSeconds",
            "a tool that supports idempotency must give its deduplicationWindowSeconds",
        )
    kind, _, name = location.partition(":")
    properties = c["inputSchema"].get("properties")
    if kind == "argument" and (not isinstance(properties, dict) or name not in properties):
        return (
            "contract-idempotency-inconsistent",
            "/idempotency/keyLocation",
            'an "argument:<name>" key location must name a top-level property of inputSchema',
        )
    return None


def _rule_taxonomy_unique(c: Mapping[str, Any]) -> tuple[str, str, str] | None:
    seen: set[str] = set()
    for index, entry in enumerate(c["errorTaxonomy"]):
        if entry["code"] in seen:
            return (
                "contract-error-code-duplicate",
                f"/errorTaxonomy/{index}/code",
                "error taxonomy codes must be unique",
            )
        seen.add(entry["code"])
    return None


def _rule_retryable_codes(c: Mapping[str, Any]) -> tuple[str, str, str] | None:
    retryable = {entry["code"]: entry["retryable"] for entry in c["errorTaxonomy"]}
    for index, code in enumerate(c["retryPolicy"]["retryableErrors"]):
        where = f"/retryPolicy/retryableErrors/{index}"
        if code not in retryable:
            if code == TIMEOUT_CODE:
                continue  # the gateway's own code for an attempt without an answer
            return (
                "contract-retry-code-unknown",
                where,
                'a retryable error must be defined in errorTaxonomy (or be "timeout")',
            )
        if not retryable[code]:
            return (
                "contract-retry-code-not-retryable",
                where,
                "a retryable error names a taxonomy code marked non-retryable",
            )
    return None


def _rule_egress(c: Mapping[str, Any]) -> tuple[str, str, str] | None:
    egress = c["egressPolicy"]
    destinations = egress["destinations"]
    if not egress["allowed"]:
        if destinations:
            return (
                "contract-egress-inconsistent",
                "/egressPolicy/destinations",
                "egress is default-deny: allowed false must list no destinations",
            )
        return None
    if not destinations:
        return (
            "contract-egress-inconsistent",
            "/egressPolicy/destinations",
            "allowed true must name explicit destinations",
        )
    for index, destination in enumerate(destinations):
        if "*" in destination or any(ch.isspace() for ch in destination):
            return (
                "contract-egress-not-explicit",
                f"/egressPolicy/destinations/{index}",
                "egress destinations must be explicit: no wildcards or whitespace",
            )
    return None


def _rule_authentication(c: Mapping[str, Any]) -> tuple[str, str, str] | None:
    ref = c["authenticationRef"]
    if ref is None or _SECRET_REF.fullmatch(ref) or _WORKLOAD_IDENTITY.fullmatch(ref):
        return None
    return (
        "contract-authentication-not-reference",
        "/authenticationRef",
        "authenticationRef must be a reference (secretref://NAME/... or a spiffe:// "
        "workload identity), never a secret value; the value is not shown",
    )


def _rule_concurrency(c: Mapping[str, Any]) -> tuple[str, str, str] | None:
    concurrency = c["concurrency"]
    if concurrency["mode"] == "serial" and concurrency["maxConcurrent"] != 1:
        return (
            "contract-concurrency-inconsistent",
            "/concurrency/maxConcurrent",
            'a "serial" tool runs one call at a time: maxConcurrent must be 1',
        )
    return None


def _rule_compensation(c: Mapping[str, Any]) -> tuple[str, str, str] | None:
    compensation = c["compensation"]
    supported, tool = compensation["supported"], compensation["toolRef"]
    deadline = compensation["deadlineSeconds"]
    effect = c["sideEffectClass"]
    problem = None
    if supported and tool is None:
        problem = ("/compensation/toolRef", "supported compensation names its toolRef")
    elif supported and deadline is None:
        problem = (
            "/compensation/deadlineSeconds",
            "supported compensation gives its deadlineSeconds",
        )
    elif not supported and tool is not None:
        problem = (
            "/compensation/toolRef",
            "toolRef must be null when compensation is not supported",
        )
    elif not supported and deadline is not None:
        problem = (
            "/compensation/deadlineSeconds",
            "deadlineSeconds must be null when compensation is not supported",
        )
    elif effect == "compensatable" and not supported:
        problem = (
            "/compensation/supported",
            'a "compensatable" tool must name its compensating tool',
        )
    elif effect == "none" and supported:
        problem = ("/compensation/supported", "a tool without side effects has no compensation")
    elif effect == "irreversible" and supported:
        problem = (
            "/compensation/supported",
            "an irreversible effect cannot be undone by a tool; declare the tool "
            '"compensatable" or leave compensation unsupported',
        )
    elif tool is not None and tool == c["toolId"]:
        problem = ("/compensation/toolRef", "a tool cannot compensate itself")
    if problem is None:
        return None
    return ("contract-compensation-inconsistent", *problem)


def _rule_deprecation(c: Mapping[str, Any]) -> tuple[str, str, str] | None:
    deprecation = c["deprecation"]
    status = deprecation["status"]
    sunset, replacement = deprecation["sunsetUtc"], deprecation["replacementRef"]
    problem = None
    if status == "active":
        if sunset is not None:
            problem = ("/deprecation/sunsetUtc", "an active tool has no sunsetUtc")
        elif replacement is not None:
            problem = ("/deprecation/replacementRef", "an active tool has no replacementRef")
    elif sunset is None:
        problem = (
            "/deprecation/sunsetUtc",
            "a deprecated or retired tool must announce its sunsetUtc",
        )
    elif replacement is not None and replacement == c["toolId"]:
        problem = ("/deprecation/replacementRef", "a tool cannot replace itself")
    if problem is None:
        return None
    return ("contract-deprecation-inconsistent", *problem)


def _rule_version_suffix(c: Mapping[str, Any]) -> tuple[str, str, str] | None:
    suffix = _TOOL_ID_MAJOR.search(c["toolId"])
    if suffix is not None and suffix.group(1) != c["version"].split(".", 1)[0]:
        return (
            "contract-version-mismatch",
            "/version",
            "a toolId ending in .vN names the major version: version must be N.x.y",
        )
    return None


def _rule_logging(c: Mapping[str, Any]) -> tuple[str, str, str] | None:
    if (
        c["dataClassification"] in ("confidential", "restricted")
        and c["observability"]["logPayloads"]
    ):
        return (
            "contract-logging-exposes-data",
            "/observability/logPayloads",
            "payloads of confidential or restricted data must not be logged",
        )
    return None


CROSS_FIELD_RULES: Final[tuple[_Rule, ...]] = (
    _rule_side_effects,
    _rule_retry_after_timeout,
    _rule_idempotency,
    _rule_taxonomy_unique,
    _rule_retryable_codes,
    _rule_egress,
    _rule_authentication,
    _rule_concurrency,
    _rule_compensation,
    _rule_deprecation,
    _rule_version_suffix,
    _rule_logging,
)
"""The cross-field rules in the order they are checked (see docs/runtime.md)."""


def _embedded_schema(
    envelope: Mapping[str, Any], key: str, version: str | None, **options: Any
) -> ToolSchema | None:
    value = envelope[key]
    if value is None:
        return None
    role: Literal["input", "output"] = "input" if key == "inputSchema" else "output"
    try:
        return validate_schema(value, role=role, **options)
    except BoundaryError as exc:
        code = (
            "contract-input-schema-rejected"
            if role == "input"
            else "contract-output-schema-rejected"
        )
        raise ContractError(
            code,
            f"{key} was refused ({exc.code}): {exc.message}",
            path=f"/{key}{exc.path}",
            contract_version=version,
            error_class=exc.error_class,
            cause=exc,
        ) from exc


def validate_contract(envelope: Any, **schema_options: Any) -> ToolContract:
    """Check a whole ``aruntime.tool-contract.v1`` envelope and return it admitted.

    ``schema_options`` (``registry``, ``loader``, ``format_assertion``,
    ``content_assertion``, ``limits``, ``boundary_limits``) are passed to
    ``validate_schema`` for the embedded input and output schemas.

    Raises:
        ContractError: the first failing check, with every problem of that step in
            ``details``.
    """
    if not isinstance(envelope, dict):
        raise ContractError("contract-not-object", "a tool contract must be a JSON object")
    version = _version_of(envelope)
    declared = envelope.get("contractVersion")
    if "contractVersion" in envelope and declared not in SUPPORTED_CONTRACT_VERSIONS:
        raise ContractError(
            "contract-version-unsupported",
            "contractVersion names a contract version this runtime does not support",
            path="/contractVersion",
            contract_version=version,
        )
    _check_envelope_schema(envelope, version)
    input_schema = _embedded_schema(envelope, "inputSchema", version, **schema_options)
    assert input_schema is not None  # inputSchema is an object by step 3
    output_schema = _embedded_schema(envelope, "outputSchema", version, **schema_options)
    for rule in CROSS_FIELD_RULES:
        failure = rule(envelope)
        if failure is not None:
            code, path, message = failure
            raise ContractError(code, message, path=path, contract_version=version)
    return ToolContract(
        envelope=envelope,
        tool_id=envelope["toolId"],
        version=envelope["version"],
        permission_class=envelope["permissionClass"],
        side_effect_class=envelope["sideEffectClass"],
        data_classification=envelope["dataClassification"],
        input_schema=input_schema,
        output_schema=output_schema,
    )


_CLASSIFICATION_RANK: Final = {"public": 0, "internal": 1, "confidential": 2, "restricted": 3}


def _precedence(version: str) -> tuple[tuple[int, int, int], tuple[tuple[int, int, str], ...]]:
    """A sort key of semantic-version precedence (build metadata ignored; a
    pre-release sorts before its release, numeric identifiers before others)."""
    main = version.partition("+")[0]
    core, _, pre = main.partition("-")  # the core has no "-" (the schema's pattern)
    major, minor, patch = (int(part) for part in core.split("."))
    # A release (no pre-release) sorts after every pre-release of the same core.
    identifiers: tuple[tuple[int, int, str], ...] = ((2, 0, ""),)
    if pre:
        identifiers = tuple(
            (0, int(part), "") if part.isdigit() else (1, 0, part) for part in pre.split(".")
        )
    return (major, minor, patch), identifiers


def _adds_optional_properties(old: Any, new: Any, *, widening: bool) -> bool:
    """``new`` is ``old`` with optional top-level properties added, in a way that
    keeps compatibility: for an input schema (``widening``) every argument the old
    schema accepted is still accepted, which holds when the old schema refused any
    other property (``additionalProperties: false``) or the added property accepts
    anything; for an output schema every result the new one accepts the old one
    accepted, which holds when the old one allowed any other property. Anything
    less certain (``patternProperties``, changed keywords) is not compatible."""
    if not (isinstance(old, dict) and isinstance(new, dict)):
        return False
    if set(old) - {"properties"} != set(new) - {"properties"}:
        return False
    if any(not json_equal(old[key], new[key]) for key in old if key != "properties"):
        return False
    before, after = old.get("properties", {}), new.get("properties", {})
    if not (isinstance(before, dict) and isinstance(after, dict)):
        return False
    if any(name not in after or not json_equal(before[name], after[name]) for name in before):
        return False
    added = [name for name in after if name not in before]
    required = new.get("required", [])
    if "patternProperties" in old or any(name in required for name in added):
        return False
    other = old.get("additionalProperties", True)
    for name in added:
        accepts_anything = after[name] is True or after[name] == {}
        if widening and not (other is False or accepts_anything):
            return False
        if not widening and not (other is True or other == {}):
            return False
    return True


def _upgrade_problem(before: ToolContract, after: ToolContract) -> tuple[str, str, str] | None:
    old, new = before.envelope, after.envelope
    if not json_equal(old["inputSchema"], new["inputSchema"]) and not (
        _adds_optional_properties(old["inputSchema"], new["inputSchema"], widening=True)
    ):
        return (
            "contract-incompatible-change",
            "/inputSchema",
            "inputSchema changed in a way that may refuse arguments the old one accepted",
        )
    if not json_equal(old["outputSchema"], new["outputSchema"]) and not (
        _adds_optional_properties(old["outputSchema"], new["outputSchema"], widening=False)
    ):
        return (
            "contract-incompatible-change",
            "/outputSchema",
            "outputSchema changed in a way that may produce results the old one refused",
        )
    for name in ("authenticationRef", "permissionClass", "sideEffectClass"):
        if not json_equal(old[name], new[name]):
            return (
                "contract-incompatible-change",
                f"/{name}",
                f"{name} changed: an authorisation or side-effect change",
            )
    # Where the key travels is part of the call's input; dropping deduplication or
    # compensation changes what a repeated or undone call does (side-effect semantics).
    before_key, after_key = old["idempotency"], new["idempotency"]
    if before_key["supported"] and not after_key["supported"]:
        return (
            "contract-incompatible-change",
            "/idempotency/supported",
            "idempotency support was dropped: repeated calls would no longer be deduplicated",
        )
    if before_key["supported"] and before_key["keyLocation"] != after_key["keyLocation"]:
        return (
            "contract-incompatible-change",
            "/idempotency/keyLocation",
            "the idempotency key moved: callers would send it where it is no longer read",
        )
    if old["compensation"]["supported"] and not new["compensation"]["supported"]:
        return (
            "contract-incompatible-change",
            "/compensation/supported",
            "compensation support was dropped: recorded calls could no longer be undone",
        )
    triggers = new["approvalTriggers"]
    for trigger in old["approvalTriggers"]:
        if trigger not in triggers:
            return (
                "contract-approval-removed",
                "/approvalTriggers",
                "an approval trigger was removed: calls would skip a human check",
            )
    before_egress, after_egress = old["egressPolicy"], new["egressPolicy"]
    if after_egress["allowed"] and not before_egress["allowed"]:
        return ("contract-egress-widened", "/egressPolicy/allowed", "egress was switched on")
    known = {d.lower() for d in before_egress["destinations"]}
    for index, destination in enumerate(after_egress["destinations"]):
        if destination.lower() not in known:
            return (
                "contract-egress-widened",
                f"/egressPolicy/destinations/{index}",
                "a new egress destination was added",
            )
    rank = _CLASSIFICATION_RANK
    if rank[new["dataClassification"]] < rank[old["dataClassification"]]:
        return (
            "contract-classification-lowered",
            "/dataClassification",
            "the data classification was lowered: data could reach less protected routes",
        )
    return None


def check_contract_upgrade(
    old: ToolContract | Mapping[str, Any], new: ToolContract | Mapping[str, Any]
) -> ToolContract:
    """Check that ``new`` may replace ``old``; return ``new`` admitted.

    Both are validated first. A different ``toolId`` is a different tool and is
    not compared. Under one ``toolId``:

    - ``version`` may not move backwards (``contract-version-backwards``);
    - a new major version may change anything (with a ``.vN`` toolId that means a
      new toolId anyway);
    - within one major version, each change of authority or risk is refused with
      its own code: an incompatible ``inputSchema``, ``outputSchema``,
      ``authenticationRef``, ``permissionClass`` or ``sideEffectClass``, dropped
      idempotency or compensation support, a moved idempotency key
      (``contract-incompatible-change``; an added optional input property is
      compatible), a removed approval trigger (``contract-approval-removed``),
      wider egress (``contract-egress-widened``), a lower data classification
      (``contract-classification-lowered``). Other edits (description, rate
      limits, added triggers, fewer destinations, ...) are compatible.
    """
    before = old if isinstance(old, ToolContract) else validate_contract(old)
    after = new if isinstance(new, ToolContract) else validate_contract(new)
    if before.tool_id != after.tool_id:
        return after
    version = _version_of(after.envelope)
    old_key, new_key = _precedence(before.version), _precedence(after.version)
    if new_key < old_key:
        raise ContractError(
            "contract-version-backwards",
            "version is lower than the version it replaces",
            path="/version",
            contract_version=version,
        )
    if new_key[0][0] > old_key[0][0]:
        return after
    problem = _upgrade_problem(before, after)
    if problem is not None:
        code, path, message = problem
        raise ContractError(
            code,
            message + "; such a change needs a new major version",
            path=path,
            contract_version=version,
        )
    return after
