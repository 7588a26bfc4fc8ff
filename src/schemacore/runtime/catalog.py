"""Catalog admission: a batch of tools becomes one bundle, or is refused whole.

For each tool, in input order, the checks are: the MCP metadata (an object, a
valid ``name``, string ``description``/``title``, an ``annotations`` object, a
non-null ``inputSchema``); a duplicate ``name``; the backend; the input schema;
the output schema; the governance contract, when one is attached (through
``ToolDescriptor.contract`` or ``admit_batch(contracts=...)``): the whole envelope
(``validate_contract``), its agreement with the tool's schemas, and a ``toolId``
no earlier tool has. Every diagnostic is kept, in that order. A
:class:`ToolDescriptor` given directly gets the same metadata checks on its
fields (and on its MCP entry, which must agree with them), reported as the same
diagnostics: building one by hand skips nothing.

``mode="strict"`` (the default) refuses the batch on any diagnostic.
``mode="quarantine"`` omits the tools whose only problems are
``unsupported_capability`` schema errors (another draft, an unknown dialect) and
admits the rest; any other diagnostic (metadata, duplicate name, backend,
authority, schema validation, unresolved reference, limit) still refuses the
batch. ``mode="isolate"`` (opt in) leaves out every tool with any problem, each
with its own diagnostic, and the tools whose compensation tool was left out; only
batch-level problems (the listing, the authority, duplicate names or ``toolId``s,
contracts for absent tools) refuse the batch (see :mod:`.omission`). ``dialects``
lists the dialects admitted besides Draft 2020-12 (see :mod:`.dialects`).
A refused batch raises :class:`AdmissionRejected` with every diagnostic;
nothing is ever dropped silently and a schema that cannot be checked is never
admitted as "validate what we can".

Diagnostics are trusted-host data. What goes to a model (:attr:`AdmittedBundle.tools`),
to subscribers (:class:`CatalogEvent`) or into checkpoints (:class:`CatalogCheckpoint`)
is built from admitted tools only and has no field that could carry one.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Final

import schemacore

from .bounds import BoundaryLimits
from .contract import ContractError, ToolContract, validate_contract
from .dialects import DEFAULT_DIALECTS, parse_dialects
from .errors import VALIDATION, BoundaryError, reduce_by_state
from .jsonvalues import json_equal
from .listing import plain_entry, tools_from_listing
from .omission import MODES, AdmissionMode, dependency_errors, omittable
from .toolschema import ToolSchema, validate_schema

__all__ = [
    "AdmissionRejected",
    "AdmittedBundle",
    "AdmittedTool",
    "Authority",
    "CatalogCheckpoint",
    "CatalogEvent",
    "Diagnostic",
    "ToolCatalog",
    "ToolDescriptor",
    "tools_from_listing",
]

# MCP 2025-11-25: 1-128 characters from A-Z a-z 0-9 _ - .
TOOL_NAME: Final = re.compile(r"[A-Za-z0-9_.-]{1,128}")
_HINTS: Final = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


def _revision_of(tool: Any) -> str:
    """A content hash of a tool definition: which revision a diagnostic is about."""
    try:
        text = json.dumps(tool, sort_keys=True, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return "sha256:unavailable"
    return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _metadata_error(code: str, message: str, path: str = "") -> BoundaryError:
    return BoundaryError(code, message, path=path)


def _valid_name(name: Any) -> bool:
    return isinstance(name, str) and TOOL_NAME.fullmatch(name) is not None


_NAME_RULE: Final = "a tool name must be 1 to 128 characters from A-Z, a-z, 0-9, '_', '-' and '.'"


def _entry_problem(tool: Any) -> BoundaryError | None:
    """The first metadata problem of an MCP ``tools/list`` entry, or None."""
    if not isinstance(tool, dict):
        return _metadata_error("tool-not-object", "a tool definition must be a JSON object")
    if not _valid_name(tool.get("name")):
        return _metadata_error("tool-name-invalid", _NAME_RULE, "/name")
    for key in ("description", "title"):
        if key in tool and not isinstance(tool[key], str):
            return _metadata_error(
                "tool-metadata-invalid", f"the tool's {key} must be a string", f"/{key}"
            )
    if "annotations" in tool:
        # A JSON object here; a descriptor's annotations may be any mapping.
        annotations = tool["annotations"]
        problem = _annotations_problem(annotations if isinstance(annotations, dict) else None)
        if problem is not None:
            return problem
    if tool.get("inputSchema") is None:
        return _metadata_error(
            "tool-input-schema-missing",
            "a tool must have an inputSchema, and it must not be null",
            "/inputSchema",
        )
    if "outputSchema" in tool and tool["outputSchema"] is None:
        return _metadata_error(
            "tool-metadata-invalid",
            "outputSchema, when present, must be a schema, not null",
            "/outputSchema",
        )
    return None


def _annotations_problem(annotations: Any) -> BoundaryError | None:
    if not isinstance(annotations, Mapping):
        return _metadata_error(
            "tool-metadata-invalid", "annotations must be an object", "/annotations"
        )
    for hint in _HINTS:
        if hint in annotations and not isinstance(annotations[hint], bool):
            return _metadata_error(
                "tool-metadata-invalid",
                f"annotations.{hint} must be a boolean",
                f"/annotations/{hint}",
            )
    if "title" in annotations and not isinstance(annotations["title"], str):
        return _metadata_error(
            "tool-metadata-invalid", "annotations.title must be a string", "/annotations/title"
        )
    return None


def _descriptor_problem(descriptor: ToolDescriptor) -> BoundaryError | None:
    """The first metadata problem of a descriptor given to ``admit_batch`` directly:
    the checks of :meth:`ToolDescriptor.from_mcp` on its fields, then the fields a
    descriptor adds (backend, revision) and, when it carries an MCP entry (what the
    model is shown), that entry's own checks and its agreement with the fields."""
    if not _valid_name(descriptor.name):
        return _metadata_error("tool-name-invalid", _NAME_RULE, "/name")
    for key in ("description", "title"):
        if not isinstance(getattr(descriptor, key), (str, type(None))):
            return _metadata_error(
                "tool-metadata-invalid", f"the tool's {key} must be a string", f"/{key}"
            )
    if descriptor.annotations is not None:
        problem = _annotations_problem(descriptor.annotations)
        if problem is not None:
            return problem
    if descriptor.input_schema is None:
        return _metadata_error(
            "tool-input-schema-missing",
            "a tool must have an inputSchema, and it must not be null",
            "/inputSchema",
        )
    # A dataclass does not check its field types: read them as what they may be.
    backend: Any = descriptor.backend
    revision: Any = descriptor.revision
    entry: Any = descriptor.mcp
    if not isinstance(backend, (str, type(None))):
        return _metadata_error("tool-metadata-invalid", "the tool's backend must be a string")
    if not isinstance(revision, str) or not revision:
        return _metadata_error(
            "tool-metadata-invalid", "the tool's revision must be a non-empty string"
        )
    if entry is None or (isinstance(entry, Mapping) and not entry):
        return None  # the MCP entry is built from the fields checked above
    problem = _entry_problem(entry)
    if problem is not None:
        return problem
    for key, value, path in (
        ("name", descriptor.name, "/name"),
        ("inputSchema", descriptor.input_schema, "/inputSchema"),
        ("outputSchema", descriptor.output_schema, "/outputSchema"),
    ):
        listed = entry.get(key)
        if listed is not value and not (key == "name" and listed == value):
            return _metadata_error(
                "tool-metadata-invalid",
                f"the descriptor's {key} is not the one in its MCP entry (the entry is "
                "what the model is shown)",
                path,
            )
    return None


@dataclass(frozen=True, slots=True, eq=False)
class ToolDescriptor:
    """A tool as a provider lists it, with where it runs and which revision it is.

    Attributes:
        name: the MCP tool name.
        input_schema: the ``inputSchema``, unchanged (not yet checked).
        output_schema: the ``outputSchema``, or None when absent.
        description, title: as listed, or None.
        annotations: the MCP annotations object, or None.
        backend: the backend (server) that executes the tool, if known.
        revision: identifies this definition (a content hash unless given).
        mcp: the MCP ``tools/list`` entry, unchanged: what the model is shown.
        contract: the tool's ``aruntime.tool-contract.v1`` envelope (or an already
            validated :class:`ToolContract`), or None for an ungoverned tool. It is
            checked at admission; the execution gateway serves governed tools only.
    """

    name: str
    input_schema: Any
    output_schema: Any = None
    description: str | None = None
    title: str | None = None
    annotations: Mapping[str, Any] | None = None
    backend: str | None = None
    revision: str = ""
    mcp: Mapping[str, Any] = field(default_factory=dict, repr=False)
    contract: Any = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if not self.revision:
            object.__setattr__(self, "revision", _revision_of(self.to_mcp()))

    @classmethod
    def from_mcp(
        cls,
        tool: Any,
        *,
        backend: str | None = None,
        revision: str | None = None,
        contract: Any = None,
    ) -> ToolDescriptor:
        """Build a descriptor from one MCP ``tools/list`` entry, checking its metadata.

        Raises:
            BoundaryError: ``tool-not-object``, ``tool-name-invalid``,
                ``tool-metadata-invalid`` or ``tool-input-schema-missing``
                (all ``validation``). The schemas themselves are checked at admission.
        """
        problem = _entry_problem(tool)
        if problem is not None:
            raise problem
        if backend is not None and not isinstance(backend, str):
            raise TypeError("backend must be a string or None")
        return cls(
            name=tool["name"],
            input_schema=tool["inputSchema"],
            output_schema=tool.get("outputSchema"),
            description=tool.get("description"),
            title=tool.get("title"),
            annotations=tool.get("annotations"),
            backend=backend,
            revision=revision if revision is not None else _revision_of(tool),
            mcp=tool,
            contract=contract,
        )

    def to_mcp(self) -> Mapping[str, Any]:
        """The MCP entry: the one given to :meth:`from_mcp`, or one built from fields."""
        if self.mcp:
            return self.mcp
        entry: dict[str, Any] = {"name": self.name}
        if self.title is not None:
            entry["title"] = self.title
        if self.description is not None:
            entry["description"] = self.description
        entry["inputSchema"] = self.input_schema
        if self.output_schema is not None:
            entry["outputSchema"] = self.output_schema
        if self.annotations is not None:
            entry["annotations"] = self.annotations
        return entry


@dataclass(frozen=True, slots=True)
class Authority:
    """Who is calling, in which run, and which tools they were granted.

    ``grants`` maps a tool name to its grant (opaque to the catalog). Admission
    narrows it to the admitted tools; ``caller``, ``run`` and ``attributes`` (every
    other authority field) are kept as they are.
    """

    caller: str
    run: str
    grants: Mapping[str, Any] = field(default_factory=dict)
    attributes: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """Why one tool (or the batch, when ``tool`` is None) was not admitted.

    Trusted-host data: it may name the provider's tool and quote schema locations;
    it never goes to a model, a subscriber or a checkpoint.

    Attributes:
        index: position of the tool in the batch (None for batch-level problems).
        tool: the tool's name when it has a usable one.
        revision: the descriptor revision the diagnostic is about.
        field: ``""`` (metadata), ``"inputSchema"``, ``"outputSchema"``, ``"name"``,
            ``"backend"`` or ``"authority"``.
        error: the original structured error.
    """

    index: int | None
    tool: str | None
    revision: str | None
    field: str
    error: BoundaryError

    @property
    def code(self) -> str:
        return self.error.code

    @property
    def error_class(self) -> str:
        return self.error.error_class

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "tool": self.tool,
            "revision": self.revision,
            "field": self.field,
            "error": self.error.to_dict(),
        }


class AdmissionRejected(Exception):
    """The batch was refused: ``rejected`` holds every diagnostic, in order."""

    def __init__(self, mode: AdmissionMode, rejected: Sequence[Diagnostic]) -> None:
        self.mode = mode
        self.rejected: tuple[Diagnostic, ...] = tuple(rejected)
        tools = {d.index for d in self.rejected}
        codes = ", ".join(dict.fromkeys(d.code for d in self.rejected))
        super().__init__(
            f"the tool batch was refused ({mode} mode): {len(self.rejected)} diagnostic(s) "
            f"for {len(tools)} tool(s): {codes}"
        )

    def __reduce__(self) -> tuple[Any, ...]:
        return reduce_by_state(self)


@dataclass(frozen=True, slots=True, eq=False)
class AdmittedTool:
    """A tool that passed admission: its descriptor, its compiled schemas and its
    validated contract (None for an ungoverned tool)."""

    descriptor: ToolDescriptor
    input: ToolSchema
    output: ToolSchema | None
    contract: ToolContract | None = None

    @property
    def name(self) -> str:
        return self.descriptor.name


def _only_strings(what: str, values: Iterable[Any]) -> tuple[str, ...]:
    values = tuple(values)
    for value in values:
        if not isinstance(value, str):
            raise TypeError(f"{what} holds only names and revisions (strings)")
    return values


@dataclass(frozen=True, slots=True)
class CatalogEvent:
    """What subscribers are told about a catalog change: admitted tools only."""

    accepted: tuple[str, ...]
    revisions: tuple[str, ...]

    def __post_init__(self) -> None:
        _only_strings("CatalogEvent", (*self.accepted, *self.revisions))


@dataclass(frozen=True, slots=True)
class CatalogCheckpoint:
    """What a checkpoint stores to restore the catalog: admitted tools and grants."""

    accepted: tuple[str, ...]
    revisions: tuple[str, ...]
    granted: tuple[str, ...]

    def __post_init__(self) -> None:
        _only_strings("CatalogCheckpoint", (*self.accepted, *self.revisions, *self.granted))


@dataclass(frozen=True, slots=True, eq=False)
class AdmittedBundle:
    """The result of admitting one batch.

    Attributes:
        registry: name -> :class:`AdmittedTool`, read-only, in input order.
        tools: the provider tool list for the model: the MCP entries of the
            admitted tools, unchanged, in input order.
        authority: the caller's authority with grants narrowed to admitted tools
            (None when none was given).
        accepted: admitted names, in input order.
        rejected: diagnostics of the tools left out (quarantined or isolated), in
            order (empty in strict mode).
        mode: the admission mode.
    """

    registry: Mapping[str, AdmittedTool]
    tools: tuple[Mapping[str, Any], ...]
    authority: Authority | None
    accepted: tuple[str, ...]
    rejected: tuple[Diagnostic, ...]
    mode: AdmissionMode

    def event(self) -> CatalogEvent:
        """The subscriber view (admitted names and revisions only)."""
        return CatalogEvent(
            self.accepted, tuple(self.registry[n].descriptor.revision for n in self.accepted)
        )

    def checkpoint(self) -> CatalogCheckpoint:
        """The checkpoint view (admitted names, revisions and granted names only)."""
        granted = tuple(self.authority.grants) if self.authority is not None else ()
        return CatalogCheckpoint(
            self.accepted,
            tuple(self.registry[n].descriptor.revision for n in self.accepted),
            granted,
        )


class ToolCatalog:
    """Admits batches of tools with one set of schema options.

    Args:
        registry, loader, format_assertion, content_assertion, limits, boundary_limits:
            passed to ``validate_schema`` for every schema.
        backends: when given, every tool must name one of these backends.
        dialects: the dialects admitted besides Draft 2020-12, which always is (see
            ``schemacore.runtime.dialects``); the default is Draft 2020-12 only.
            ``admit_batch(dialects=...)`` overrides it.
    """

    def __init__(
        self,
        *,
        registry: Mapping[str, Any] | None = None,
        loader: Callable[[str], Any] | None = None,
        format_assertion: bool = False,
        content_assertion: bool = False,
        limits: schemacore.Limits | None = None,
        boundary_limits: BoundaryLimits | None = None,
        backends: Collection[str] | None = None,
        dialects: Iterable[str] = DEFAULT_DIALECTS,
    ) -> None:
        self._dialects = parse_dialects(dialects)
        self._schema_options: dict[str, Any] = {
            "registry": registry,
            "loader": loader,
            "format_assertion": format_assertion,
            "content_assertion": content_assertion,
            "limits": limits,
            "boundary_limits": boundary_limits,
        }
        self._backends = frozenset(backends) if backends is not None else None

    def admit_batch(
        self,
        tools: Any,
        *,
        mode: AdmissionMode = "strict",
        authority: Authority | None = None,
        contracts: Mapping[str, Any] | None = None,
        dialects: Iterable[str] | None = None,
    ) -> AdmittedBundle:
        """Admit a batch of tools as one bundle.

        ``tools`` is a list of MCP entries or :class:`ToolDescriptor` objects, an MCP
        ``tools/list`` result, or the MCP SDK's own objects (``Tool``,
        ``ListToolsResult``: anything with ``model_dump``); optional fields that are
        ``None``, as pydantic dumps them, count as absent.

        ``mode``: ``"strict"`` (the default) refuses the batch on any diagnostic;
        ``"quarantine"`` leaves out tools whose only problems are
        ``unsupported_capability`` schema errors; ``"isolate"`` leaves out every
        tool with any problem, and every tool whose contract's compensation tool
        was left out (see ``schemacore.runtime.omission``). Batch-level problems refuse the batch
        in every mode.

        ``dialects`` overrides the catalog's dialects for this batch.

        ``contracts`` maps a tool name to its contract envelope; it overrides a
        descriptor's own ``contract``. A name that is not in the batch is a
        batch-level ``contract-tool-unknown`` diagnostic.

        Raises:
            AdmissionRejected: a diagnostic the mode does not leave out; it carries
                every diagnostic.
            ValueError, TypeError: an unknown mode, or ``dialects`` that are not
                a list of known dialects.
        """
        if mode not in MODES:
            raise ValueError(f"mode must be 'strict', 'quarantine' or 'isolate', not {mode!r}")
        allowed = self._dialects if dialects is None else parse_dialects(dialects)
        batch: list[Diagnostic] = []
        try:
            entries = tools_from_listing(tools)
        except BoundaryError as exc:
            raise AdmissionRejected(mode, [Diagnostic(None, None, None, "", exc)]) from None
        authority_error = _authority_error(authority)
        if authority_error is not None:
            batch.append(Diagnostic(None, None, None, "authority", authority_error))
        contracts = dict(contracts) if contracts is not None else {}
        entries = [plain_entry(entry) for entry in entries]
        named = {name for name in map(_entry_name, entries) if isinstance(name, str)}
        for name in contracts:
            if name not in named:
                batch.append(
                    Diagnostic(
                        None,
                        name if _valid_name(name) else None,
                        None,
                        "contract",
                        BoundaryError(
                            "contract-tool-unknown",
                            "a contract was given for a tool that is not in the batch",
                        ),
                    )
                )

        per_tool: list[tuple[ToolDescriptor | None, list[Diagnostic], AdmittedTool | None]] = []
        seen: set[str] = set()
        tool_ids: set[str] = set()
        for index, entry in enumerate(entries):
            per_tool.append(self._check_one(index, entry, seen, contracts, tool_ids, allowed))
        if mode == "isolate":
            self._leave_out_dependents(per_tool, contracts)

        fatal = list(batch)
        omitted: list[Diagnostic] = []
        for _, diagnostics, _ in per_tool:
            if not diagnostics:
                continue
            problems = ((d.field, d.error_class, d.code) for d in diagnostics)
            (omitted if omittable(mode, problems) else fatal).extend(diagnostics)
        if fatal:
            everything = [*batch]
            for _, diagnostics, _ in per_tool:
                everything.extend(diagnostics)
            raise AdmissionRejected(mode, everything)

        admitted = [
            tool for _, diagnostics, tool in per_tool if tool is not None and not diagnostics
        ]
        registry = MappingProxyType({tool.name: tool for tool in admitted})
        accepted = tuple(registry)
        narrowed = None
        if authority is not None:
            grants = MappingProxyType(
                {name: grant for name, grant in authority.grants.items() if name in registry}
            )
            narrowed = replace(authority, grants=grants)
        return AdmittedBundle(
            registry=registry,
            tools=tuple(tool.descriptor.to_mcp() for tool in admitted),
            authority=narrowed,
            accepted=accepted,
            rejected=tuple(omitted),
            mode=mode,
        )

    @staticmethod
    def _leave_out_dependents(
        per_tool: list[tuple[ToolDescriptor | None, list[Diagnostic], AdmittedTool | None]],
        contracts: Mapping[str, Any],
    ) -> None:
        """Add a diagnostic to every tool whose compensation tool is left out."""
        tool_ids: list[str | None] = []
        refs: list[str | None] = []
        for descriptor, _, tool in per_tool:
            envelope = contracts.get(descriptor.name, descriptor.contract) if descriptor else None
            tool_ids.append(_declared_tool_id(envelope))
            contract = tool.contract if tool is not None else None
            ref = contract.envelope["compensation"]["toolRef"] if contract else None
            refs.append(ref if isinstance(ref, str) else None)
        left_out = [i for i, (_, diagnostics, _) in enumerate(per_tool) if diagnostics]
        for index, error in dependency_errors(tool_ids, refs, left_out).items():
            descriptor, diagnostics, _ = per_tool[index]
            assert descriptor is not None  # an admissible tool has a descriptor
            diagnostics.append(
                Diagnostic(index, descriptor.name, descriptor.revision, "contract", error)
            )

    def _check_one(
        self,
        index: int,
        entry: Any,
        seen: set[str],
        contracts: Mapping[str, Any],
        tool_ids: set[str],
        dialects: frozenset[str],
    ) -> tuple[ToolDescriptor | None, list[Diagnostic], AdmittedTool | None]:
        diagnostics: list[Diagnostic] = []
        if isinstance(entry, ToolDescriptor):
            # A descriptor built by hand skipped from_mcp: the same metadata checks.
            problem = _descriptor_problem(entry)
            if problem is not None:
                name = entry.name if _valid_name(entry.name) else None
                revision = entry.revision if isinstance(entry.revision, str) else None
                diagnostics.append(Diagnostic(index, name, revision, "", problem))
                return None, diagnostics, None
            descriptor = entry
        else:
            try:
                descriptor = ToolDescriptor.from_mcp(entry)
            except BoundaryError as exc:
                name = entry.get("name") if isinstance(entry, dict) else None
                usable = name if _valid_name(name) else None
                diagnostics.append(Diagnostic(index, usable, _revision_of(entry), "", exc))
                return None, diagnostics, None

        def add(field_name: str, error: BoundaryError) -> None:
            diagnostics.append(
                Diagnostic(index, descriptor.name, descriptor.revision, field_name, error)
            )

        if descriptor.name in seen:
            add(
                "name",
                BoundaryError(
                    "tool-name-duplicate",
                    "another tool earlier in the batch has the same name",
                    path="/name",
                ),
            )
        seen.add(descriptor.name)
        if self._backends is not None and descriptor.backend not in self._backends:
            add(
                "backend",
                BoundaryError(
                    "tool-backend-unknown",
                    "the tool's backend is not one this catalog serves",
                ),
            )
        input_schema = output_schema = None
        try:
            input_schema = validate_schema(
                descriptor.input_schema, role="input", dialects=dialects, **self._schema_options
            )
        except BoundaryError as exc:
            add("inputSchema", exc)
        if descriptor.output_schema is not None:
            try:
                output_schema = validate_schema(
                    descriptor.output_schema,
                    role="output",
                    dialects=dialects,
                    **self._schema_options,
                )
            except BoundaryError as exc:
                add("outputSchema", exc)
        envelope = contracts.get(descriptor.name, descriptor.contract)
        contract = None
        if envelope is not None:
            try:
                contract = self._admit_contract(descriptor, envelope, tool_ids)
            except BoundaryError as exc:
                add("contract", exc)
        if diagnostics or input_schema is None:
            return descriptor, diagnostics, None
        return (
            descriptor,
            diagnostics,
            AdmittedTool(descriptor, input_schema, output_schema, contract),
        )

    def _admit_contract(
        self, descriptor: ToolDescriptor, envelope: Any, tool_ids: set[str]
    ) -> ToolContract:
        """The tool's contract, validated, agreeing with the tool's own schemas (the
        model is shown the MCP entry; the contract governs the same tool), with a
        ``toolId`` that no earlier tool of the batch has."""
        try:
            contract = (
                envelope
                if isinstance(envelope, ToolContract)
                else validate_contract(envelope, **self._schema_options)
            )
        except ContractError as exc:
            raise BoundaryError(
                exc.code, exc.message, error_class=exc.error_class, path=exc.path
            ) from None
        if not json_equal(contract.envelope["inputSchema"], descriptor.input_schema):
            raise BoundaryError(
                "contract-schema-mismatch",
                "the contract's inputSchema is not the tool's inputSchema",
                path="/inputSchema",
            )
        if not json_equal(contract.envelope["outputSchema"], descriptor.output_schema):
            raise BoundaryError(
                "contract-schema-mismatch",
                "the contract's outputSchema is not the tool's outputSchema",
                path="/outputSchema",
            )
        if contract.tool_id in tool_ids:
            raise BoundaryError(
                "contract-tool-id-duplicate",
                "another tool earlier in the batch has a contract with the same toolId",
                path="/toolId",
            )
        tool_ids.add(contract.tool_id)
        return contract


def _declared_tool_id(envelope: Any) -> str | None:
    """The ``toolId`` a contract declares, validated or not (a left-out tool's
    contract may be invalid, and its dependents still name it)."""
    if isinstance(envelope, ToolContract):
        return envelope.tool_id
    tool_id = envelope.get("toolId") if isinstance(envelope, Mapping) else None
    return tool_id if isinstance(tool_id, str) else None


def _entry_name(entry: Any) -> Any:
    if isinstance(entry, ToolDescriptor):
        return entry.name
    return entry.get("name") if isinstance(entry, dict) else None


def _authority_error(authority: Any) -> BoundaryError | None:
    if authority is None:
        return None
    problem = None
    # Dataclass fields are not checked at construction, so check them here.
    caller, run, grants, attributes = (
        getattr(authority, name, None) for name in ("caller", "run", "grants", "attributes")
    )
    if not isinstance(authority, Authority):
        problem = "authority must be an Authority"
    elif not isinstance(caller, str) or not isinstance(run, str):
        problem = "authority caller and run must be strings"
    elif not isinstance(grants, Mapping) or not all(isinstance(name, str) for name in grants):
        problem = "authority grants must map tool names (strings) to grants"
    elif not isinstance(attributes, Mapping):
        problem = "authority attributes must be a mapping"
    if problem is None:
        return None
    return BoundaryError("authority-invalid", problem, error_class=VALIDATION)
