"""schemacore for the MCP Python SDK (``pip install 'schemacore[mcp]'``, mcp >= 2).

The SDK's client checks tool outputs with python-jsonschema and has no hook for
another validator, and its servers answer bad arguments with messages that quote
the values. This module puts schemacore's admission layer in both places, through
the SDK's public API only:

* :class:`AdmittingClientSession`, a ``ClientSession``: ``list_tools`` admits the
  server's listing through a :class:`~schemacore.runtime.ToolCatalog` (``mode``
  and ``dialects`` as options) and returns the admitted tools only;
  ``call_tool`` checks the arguments first, so a refused call never reaches the
  server and the model gets a value-safe ``isError`` result; a result's
  ``structuredContent`` is checked against the tool's ``outputSchema``.
* :class:`ArgumentGuard`, for a server: a middleware for ``Server.middleware`` or
  ``MCPServer(middleware=[...])``, and a wrapper for a low-level ``on_call_tool``
  handler (:meth:`ArgumentGuard.wrap`). Arguments are checked before the SDK or
  the tool sees them; a refusal is the value-safe ``isError`` result.
* :class:`ToolGuard`, the SDK-free core both use (plain MCP dicts in and out).

Value safety: every result built here comes from
:func:`~schemacore.runtime.tool_error_result` or is worded from codes and schema
locations. No argument value is shown, except the capped excerpt that
string-shape issues (``pattern``, ``minLength``, ``maxLength``) carry by design.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any, Final, Literal

try:
    from mcp import ClientSession, types
except ImportError as exc:  # pragma: no cover - CI installs the extra
    raise ImportError(
        "schemacore.mcp needs the MCP Python SDK: pip install 'schemacore[mcp]'"
    ) from exc

from .runtime import (
    AdmissionRejected,
    AdmittedBundle,
    BoundaryError,
    ToolCatalog,
    tool_error_result,
    validate_property_value,
    validate_tool_args,
)
from .runtime.catalog import TOOL_NAME
from .runtime.dialects import DEFAULT_DIALECTS
from .runtime.omission import AdmissionMode
from .runtime.toolresult import error_result

__all__ = [
    "CALL_META_KEY",
    "AdmittingClientSession",
    "ArgumentGuard",
    "OutputMode",
    "ToolGuard",
]

CALL_META_KEY: Final = "schemacore/tool-call"
"""The ``_meta`` key of the ``isError`` results built here for a tool that is not
admitted or an answer that does not match its output schema."""

OutputMode = Literal["enforce", "report"]

Listing = Any
"""A tool listing in any form ``ToolCatalog.admit_batch`` reads."""


def _shown_name(name: Any) -> str:
    # The name the model asked for is its own text: shown only when it is a tool name.
    if isinstance(name, str) and TOOL_NAME.fullmatch(name):
        return json.dumps(name)
    return "requested"


class ToolGuard:
    """One admitted catalog and the checks made against it, on plain MCP data.

    Args:
        mode: the admission mode (``"strict"``, the default, refuses a listing
            with any problem; ``"quarantine"``; ``"isolate"``).
        dialects: the dialects admitted (default Draft 2020-12 only).
        catalog: the catalog to admit with (its schema options and limits).
    """

    def __init__(
        self,
        *,
        mode: AdmissionMode = "strict",
        dialects: Iterable[str] = DEFAULT_DIALECTS,
        catalog: ToolCatalog | None = None,
    ) -> None:
        self.mode: AdmissionMode = mode
        self.dialects = tuple(dialects)
        self.catalog = catalog if catalog is not None else ToolCatalog(dialects=self.dialects)
        self.bundle: AdmittedBundle | None = None

    def admit(self, listing: Listing) -> AdmittedBundle:
        """Admit ``listing`` as the catalog from now on.

        Raises:
            AdmissionRejected: the mode refuses the listing (the catalog admitted
                before stays).
        """
        self.bundle = self.catalog.admit_batch(listing, mode=self.mode, dialects=self.dialects)
        return self.bundle

    def listed(self, name: Any) -> bool:
        """Whether ``name`` was in the admitted listing, admitted or left out. Any value
        is asked about: only a string can name a tool (a list or an object, which
        a raw ``tools/call`` may carry, is not even hashable)."""
        bundle = self.bundle
        if bundle is None or not isinstance(name, str):
            return False
        return name in bundle.registry or any(d.tool == name for d in bundle.rejected)

    def refuse_call(self, name: Any, arguments: Any) -> dict[str, Any] | None:
        """None when the call may go ahead, else the ``isError`` result for the model:
        the tool is not admitted (any ``name`` that is not an admitted tool's, a
        non-string included), or its arguments (any value) are refused."""
        bundle = self.bundle
        tool = bundle.registry.get(name) if bundle is not None and isinstance(name, str) else None
        if tool is None:
            return error_result(
                f"The tool {_shown_name(name)} was not called: it is not among the admitted tools.",
                CALL_META_KEY,
                {"code": "tool-not-admitted", "dispatched": False},
            )
        verdict = validate_tool_args(arguments, tool)
        return None if verdict.ok else tool_error_result(name, verdict)

    def check_output(self, name: Any, result: Any) -> dict[str, Any] | None:
        """None when a tool's answer (an MCP ``CallToolResult`` as JSON) may go to
        the model, else the ``isError`` result that replaces it: a successful
        answer of a tool with an ``outputSchema`` whose ``structuredContent`` is
        absent or does not match it (an answer that is not an object has none).
        Error answers are not checked; a ``name`` that is not an admitted tool's
        (a non-string included) has nothing to check against."""
        bundle = self.bundle
        tool = bundle.registry.get(name) if bundle is not None and isinstance(name, str) else None
        if tool is None or tool.output is None:
            return None
        if not isinstance(result, Mapping):
            return self._bad_output(name, "structured-content-missing", [], 0)
        if result.get("isError") is True:
            return None
        if "structuredContent" not in result:
            return self._bad_output(name, "structured-content-missing", [], 0)
        try:
            verdict = validate_property_value(result["structuredContent"], tool.output)
        except BoundaryError as exc:
            return self._bad_output(name, exc.code, [], 0)
        if verdict.ok:
            return None
        # Without the excerpts string-shape issues carry: this is the tool's answer.
        issues = [
            {k: v for k, v in issue.to_dict().items() if k != "value"} for issue in verdict.issues
        ]
        messages = [issue.message for issue in verdict.issues]
        return self._bad_output(name, "structured-content-invalid", issues, verdict.total, messages)

    @staticmethod
    def _bad_output(
        name: str,
        code: str,
        issues: list[dict[str, Any]],
        total: int,
        messages: Iterable[str] = (),
    ) -> dict[str, Any]:
        lines = [
            f"The tool {json.dumps(name)} answered, but its structured content does not "
            "match the tool's output schema, so the answer was withheld."
        ]
        lines.extend(f"- {message}" for message in messages)
        meta = {"code": code, "dispatched": True, "total": total, "issues": issues}
        return error_result("\n".join(lines), CALL_META_KEY, meta)


def _as_result(payload: Mapping[str, Any]) -> types.CallToolResult:
    return types.CallToolResult.model_validate(payload)


class AdmittingClientSession(ClientSession):
    """A ``ClientSession`` that serves only admitted tools and checks every call.

    Takes the ``ClientSession`` arguments, and:

    Args:
        mode, dialects, catalog: how ``list_tools`` admits the server's listing
            (see :class:`ToolGuard`); in strict mode a listing with a problem
            raises :class:`~schemacore.runtime.AdmissionRejected`.
        output_mode: ``"enforce"`` (the default) replaces an answer whose
            ``structuredContent`` misses the ``outputSchema`` with an ``isError``
            result; ``"report"`` keeps the answer and calls ``on_output_mismatch``.
        on_output_mismatch: called with the tool name and the ``isError`` result
            that enforce mode would have returned.

    The SDK's own output check (python-jsonschema) is replaced by schemacore's:
    :meth:`validate_tool_result` does nothing and :meth:`call_tool` checks.
    """

    def __init__(
        self,
        *args: Any,
        mode: AdmissionMode = "strict",
        dialects: Iterable[str] = DEFAULT_DIALECTS,
        catalog: ToolCatalog | None = None,
        output_mode: OutputMode = "enforce",
        on_output_mismatch: Callable[[str, dict[str, Any]], None] | None = None,
        **kwargs: Any,
    ) -> None:
        if output_mode not in ("enforce", "report"):
            raise ValueError(f"output_mode must be 'enforce' or 'report', not {output_mode!r}")
        self.guard = ToolGuard(mode=mode, dialects=dialects, catalog=catalog)
        self.output_mode: OutputMode = output_mode
        self.on_output_mismatch = on_output_mismatch
        self._pages: list[types.Tool] = []
        super().__init__(*args, **kwargs)

    @property
    def bundle(self) -> AdmittedBundle | None:
        """The admitted catalog (None before the first ``list_tools``)."""
        return self.guard.bundle

    async def list_tools(
        self, *, params: types.PaginatedRequestParams | None = None
    ) -> types.ListToolsResult:
        """``tools/list``, admitted: the result holds the admitted tools only. A page
        asked for with a cursor is admitted together with the pages before it."""
        result = await super().list_tools(params=params)
        continued = params is not None and params.cursor is not None
        pages = [*self._pages, *result.tools] if continued else list(result.tools)
        bundle = self.guard.admit(pages)
        self._pages = pages
        admitted = set(bundle.accepted)
        return result.model_copy(update={"tools": [t for t in result.tools if t.name in admitted]})

    async def call_tool(
        self, name: str, arguments: dict[str, Any] | None = None, *args: Any, **kwargs: Any
    ) -> Any:
        """``tools/call`` for an admitted tool whose arguments match its input schema;
        otherwise the value-safe ``isError`` result, and nothing is sent."""
        if self.guard.bundle is None:
            await self.list_tools()
        refusal = self.guard.refuse_call(name, {} if arguments is None else arguments)
        if refusal is not None:
            return _as_result(refusal)
        result = await super().call_tool(name, arguments, *args, **kwargs)
        if not isinstance(result, types.CallToolResult):
            return result
        plain = result.model_dump(by_alias=True, mode="json", exclude_unset=True)
        problem = self.guard.check_output(name, plain)
        if problem is None:
            return result
        if self.output_mode == "report":
            if self.on_output_mismatch is not None:
                self.on_output_mismatch(name, problem)
            return result
        return _as_result(problem)

    async def validate_tool_result(self, name: str, result: types.CallToolResult) -> None:
        """Does nothing: :meth:`call_tool` checks outputs with schemacore instead."""
        return None


ToolSource = Listing | Callable[[], Listing | Awaitable[Listing]]
"""A listing, or a function returning one (or an awaitable of one), such as
``MCPServer.list_tools``."""

CallToolHandler = Callable[[Any, types.CallToolRequestParams], Awaitable[Any]]


class ArgumentGuard:
    """Server-side argument checks with schemacore, before the SDK or the tool.

    ``tools`` is the server's own listing or a function that returns it (for an
    ``MCPServer``: ``server.list_tools``). A listing is admitted at once; a
    function's is admitted on the first call and again when a call names a tool
    it did not list. A tool the listing has but admission left out is refused
    (fail closed); a name that is not listed at all is left to the server.

    Use as middleware (``MCPServer(middleware=[guard])`` or
    ``server.middleware.append(guard)``, the SDK's middleware hook) or wrap a
    low-level ``on_call_tool`` handler with :meth:`wrap`.

    Raises:
        AdmissionRejected: at construction, a listing the mode refuses.
    """

    def __init__(
        self,
        tools: ToolSource,
        *,
        mode: AdmissionMode = "strict",
        dialects: Iterable[str] = DEFAULT_DIALECTS,
        catalog: ToolCatalog | None = None,
    ) -> None:
        self.guard = ToolGuard(mode=mode, dialects=dialects, catalog=catalog)
        self._source: Callable[[], Any] | None = None
        self._refused: AdmissionRejected | None = None
        if callable(tools) and not hasattr(tools, "model_dump"):
            self._source = tools
        else:
            self.guard.admit(tools)

    async def _admitted(self, name: str) -> None:
        if self._source is None or (self.guard.bundle is not None and self.guard.listed(name)):
            return
        listing = self._source()
        if inspect.isawaitable(listing):
            listing = await listing
        try:
            self.guard.admit(listing)
            self._refused = None
        except AdmissionRejected as exc:
            # Fail closed: no call is checked against a listing that was replaced.
            self.guard.bundle = None
            self._refused = exc

    async def refusal(self, name: Any, arguments: Any) -> dict[str, Any] | None:
        """None when the call may go on to the server's handler, else the value-safe
        ``isError`` result to answer with. Total on any value of ``name`` and
        ``arguments``: a ``name`` that is not a string names no tool, so the call
        goes on to the SDK, whose params validation refuses it (``INVALID_PARAMS``);
        arguments of any other shape are refused like any bad arguments."""
        if not isinstance(name, str):
            # Not a tool of any listing; asking the source again would let every
            # malformed request cost a listing.
            return None
        await self._admitted(name)
        if self._refused is None and not self.guard.listed(name):
            return None  # not a tool of this listing: the server answers for itself
        return self.guard.refuse_call(name, {} if arguments is None else arguments)

    async def __call__(self, ctx: Any, call_next: Callable[[Any], Awaitable[Any]]) -> Any:
        """The middleware: checks ``tools/call`` requests, passes everything else on."""
        if getattr(ctx, "method", None) != "tools/call":
            return await call_next(ctx)
        # Raw wire params (the SDK validates them after the middleware chain): any
        # JSON value, or None.
        params = ctx.params if isinstance(ctx.params, Mapping) else {}
        refusal = await self.refusal(params.get("name"), params.get("arguments"))
        if refusal is not None:
            # A model, not a dict: the SDK completes it for the protocol version.
            return _as_result(refusal)
        return await call_next(ctx)

    def wrap(self, handler: CallToolHandler) -> CallToolHandler:
        """A low-level ``on_call_tool`` handler that checks the arguments first."""

        async def checked(ctx: Any, params: types.CallToolRequestParams) -> Any:
            refusal = await self.refusal(params.name, params.arguments)
            if refusal is not None:
                return _as_result(refusal)
            return await handler(ctx, params)

        return checked
