"""The runtime admission layer: what an LLM agent runtime puts in front of its tools.

* :func:`validate_schema` / :func:`validate_arguments` / :class:`BoundaryError`:
  the tool input-schema boundary. :class:`Refusal` is the base of every refusal
  (``BoundaryError``, ``ContractError``): a code, a class, a path, ``retryable``.
* :func:`parse_tool_args`: strict parsing of the JSON text models send.
* :func:`validate_contract` / :func:`check_contract_upgrade`: tool contracts
  (``aruntime.tool-contract.v1``).
* :class:`ToolCatalog` / :class:`ToolDescriptor` / :class:`AdmittedBundle`: catalog
  admission, strict or quarantine.
* :func:`validate_tool_args` / :func:`format_tool_arg_issues` /
  :func:`tool_error_result`: value-safe issues a model can act on.
* :class:`Gateway` (``schemacore.runtime.gateway``): the execution gateway that
  enforces the contracts at call time (see ``docs/gateway.md``).

The runtime uses the engine only through ``schemacore``'s public API; the engine
knows nothing of it. See ``docs/runtime.md`` for the codes and the order of checks.
"""

from __future__ import annotations

from .boundary import validate_arguments
from .bounds import BoundaryLimits
from .catalog import (
    AdmissionRejected,
    AdmittedBundle,
    AdmittedTool,
    Authority,
    CatalogCheckpoint,
    CatalogEvent,
    Diagnostic,
    ToolCatalog,
    ToolDescriptor,
    tools_from_listing,
)
from .contract import (
    CONTRACT_V1,
    SUPPORTED_CONTRACT_VERSIONS,
    ContractError,
    ToolContract,
    check_contract_upgrade,
    validate_contract,
)
from .errors import EXECUTION_FAILURE, UNSUPPORTED_CAPABILITY, VALIDATION, BoundaryError, Refusal
from .gateway import (
    Decision,
    FunctionBackend,
    Gateway,
    GatewayConfigError,
    IntentJournal,
    SQLiteJournal,
    ToolFailure,
    ToolOutcome,
)
from .issues import (
    ToolArgIssue,
    ToolArgValidationResult,
    format_tool_arg_issues,
    tool_error_result,
    validate_property_value,
    validate_tool_args,
)
from .jsontext import parse_tool_args
from .toolschema import ToolSchema, validate_schema

__all__ = [
    "CONTRACT_V1",
    "EXECUTION_FAILURE",
    "SUPPORTED_CONTRACT_VERSIONS",
    "UNSUPPORTED_CAPABILITY",
    "VALIDATION",
    "AdmissionRejected",
    "AdmittedBundle",
    "AdmittedTool",
    "Authority",
    "BoundaryError",
    "BoundaryLimits",
    "CatalogCheckpoint",
    "CatalogEvent",
    "ContractError",
    "Decision",
    "Diagnostic",
    "FunctionBackend",
    "Gateway",
    "GatewayConfigError",
    "IntentJournal",
    "Refusal",
    "SQLiteJournal",
    "ToolArgIssue",
    "ToolArgValidationResult",
    "ToolCatalog",
    "ToolContract",
    "ToolDescriptor",
    "ToolFailure",
    "ToolOutcome",
    "ToolSchema",
    "check_contract_upgrade",
    "format_tool_arg_issues",
    "parse_tool_args",
    "tool_error_result",
    "tools_from_listing",
    "validate_arguments",
    "validate_contract",
    "validate_property_value",
    "validate_schema",
    "validate_tool_args",
]
