"""The compiled :class:`Validator` and the one-off helpers."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from time import monotonic, perf_counter
from typing import Any, NoReturn

from .codegen import HOT, WORTH_WRITING
from .compiler import Compiler, Node, Options
from .dialect import DEFAULT_DIALECT, Dialect, is_2020_12
from .errors import ExecutionFailure, SchemaError, ValidationError
from .evaluation import evaluate_node
from .guard import CallState, scan_instance
from .limits import Limits
from .output import Evaluation
from .recursion import check_child_fan_out, mark_fan_out
from .relevance import best_match
from .resources import Index, bundled_metaschemas
from .uri import join, split_fragment

__all__ = ["Validator", "compile", "is_valid", "validate"]

# Limits are frozen: one default instance spares every compile its field checks.
_DEFAULT_LIMITS = Limits()

_METASCHEMA_URI = "https://json-schema.org/draft/2020-12/schema"


def _too_deep(where: str) -> NoReturn:
    raise ExecutionFailure(
        f"{where} is nested too deeply to evaluate within Python's recursion limit",
        limit="recursion",
    ) from None


class Validator:
    """A schema compiled once, to validate many instances.

    Validators are immutable and safe to share between threads; pickling one
    carries the schema and options and compiles it again on load.
    """

    __slots__ = (
        "_calls",
        "_compiler",
        "_loader",
        "_memoises",
        "_node",
        "_options",
        "_plain",
        "_registry",
        "_schema",
        "_state",
    )

    _node: Node
    _compiler: Compiler
    _calls: list[Any]
    _state: CallState
    _options: Options
    _registry: Mapping[str, Any] | None
    _loader: Callable[[str], Any] | None
    _memoises: bool
    _plain: bool
    _schema: Any

    def __init__(
        self,
        schema: Any,
        *,
        registry: Mapping[str, Any] | None = None,
        loader: Callable[[str], Any] | None = None,
        format_assertion: bool = False,
        content_assertion: bool = False,
        limits: Limits | None = None,
        formats: Mapping[str, Callable[[str], bool]] | None = None,
        _check_schema: bool = True,
    ) -> None:
        if limits is not None and not isinstance(limits, Limits):
            raise TypeError("limits must be a schemacore.Limits")
        options = Options(
            format_assertion=bool(format_assertion),
            content_assertion=bool(content_assertion),
            limits=limits if limits is not None else _DEFAULT_LIMITS,
            formats=dict(formats or {}),
        )
        node, compiler = _build(schema, registry, loader, options, _check_schema)
        set_attr = object.__setattr__
        set_attr(self, "_node", node)
        set_attr(self, "_compiler", compiler)
        # is_valid calls and seconds so far (mutable: the validator itself is frozen).
        set_attr(self, "_calls", [0, 0.0])
        set_attr(self, "_state", compiler.state)
        set_attr(self, "_memoises", compiler.memoises)
        # Whether is_valid may skip _start: no deadline to arm, no instance walk, and no
        # cycle in the schema (the instance depth is counted on the edges closing
        # cycles only, so without one it stays 0; nor is there a memo to forget).
        set_attr(
            self,
            "_plain",
            options.limits.time_budget is None
            and options.limits.max_instance_nodes is None
            and not compiler.cycles,
        )
        set_attr(self, "_options", options)
        set_attr(self, "_registry", registry)
        set_attr(self, "_loader", loader)
        set_attr(self, "_schema", schema)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Validator objects are immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("Validator objects are immutable")

    @property
    def schema(self) -> Any:
        """The schema this validator was compiled from, as the caller gave it."""
        return self._schema

    def is_valid(self, instance: Any) -> bool:
        """Whether ``instance`` is valid. Builds no error objects.

        Raises ExecutionFailure (never returns False) when evaluation cannot finish:
        a limit was exceeded, or a value outside the JSON data model was reached.
        """
        if self._plain:
            # Nothing to reset or arm (see __init__): the common case.
            if self._calls[0] >= HOT:
                try:
                    return self._node.valid(instance)
                except RecursionError:
                    _too_deep("the instance")
            return self._warm_is_valid(instance, self._state)
        state = self._start(instance)
        if self._calls[0] < HOT:
            return self._warm_is_valid(instance, state)
        try:
            return self._node.valid(instance)
        except RecursionError:
            _too_deep("the instance")
        finally:
            state.depth = 0
            if self._memoises:
                state.forget()  # the memo holds parts of the instance

    def iter_errors(self, instance: Any) -> Iterator[ValidationError]:
        """Yield every way in which ``instance`` fails the schema (none if valid).

        Raises ExecutionFailure, like ``is_valid``, when evaluation cannot finish.
        """
        state = self._state if self._plain else self._start(instance)
        try:
            yield from self._node.errors(instance, None, None)
        except RecursionError:
            _too_deep("the instance")
        finally:
            if self._memoises:
                state.forget()

    def _promote(self) -> None:
        """Replace closures with generated code now (tests use it to check both)."""
        self._compiler.promote()

    def _warm_is_valid(self, instance: Any, state: CallState) -> bool:
        """is_valid before generated code: count calls and time spent, and write the
        code at the HOT-th call or once the closures have taken longer than writing
        it would (one large instance is reason enough)."""
        calls = self._calls
        started = perf_counter()
        try:
            result = self._node.valid(instance)
        except RecursionError:
            _too_deep("the instance")
        finally:
            state.depth = 0
            if self._memoises:
                state.forget()
        calls[0] += 1
        calls[1] += perf_counter() - started
        if calls[0] >= HOT or calls[1] > WORTH_WRITING:
            calls[0] = HOT
            self._promote()
        return result

    def _start(self, instance: Any) -> CallState:
        """Reset this thread's bookkeeping and run the optional instance walk."""
        limits = self._options.limits
        state = self._state
        state.depth = 0
        if self._memoises:
            # Answers of an earlier call may not hold: the caller can change values.
            state.forget()
        # The contexts this call's errors write later share a budget of their own
        # (the earlier call's errors keep theirs).
        state.reads = None
        if limits.time_budget is not None:
            state.deadline = monotonic() + limits.time_budget
        if limits.max_instance_nodes is not None:
            scan_instance(instance, limits)
        return state

    def validate(self, instance: Any) -> None:
        """Raise the most relevant :class:`ValidationError` of ``instance``, if any.

        The deepest error wins; inside a failed ``anyOf``/``oneOf`` the branch that
        came closest to passing is followed (see ``schemacore.best_match``).
        """
        if self.is_valid(instance):
            return
        error = best_match(self.iter_errors(instance))
        if error is not None:
            raise error

    def evaluate(self, instance: Any) -> Evaluation:
        """Validate with annotations, for the standard output formats.

        ``valid`` agrees with ``is_valid`` and ``errors`` with ``iter_errors``.
        """
        valid = self.is_valid(instance)
        errors = [] if valid else list(self.iter_errors(instance))
        state = self._start(instance)
        try:
            tree = evaluate_node(
                self._node, instance, state, self._options.limits.max_instance_depth
            )
        except RecursionError:
            _too_deep("the instance")
        finally:
            if self._memoises:
                state.forget()
        return Evaluation(valid, errors, tree)

    def __reduce__(self) -> tuple[Any, ...]:
        options = self._options
        return (
            _restore,
            (
                self._schema,
                self._registry,
                self._loader,
                options.format_assertion,
                options.content_assertion,
                options.limits,
                dict(options.formats) or None,
            ),
        )

    def __repr__(self) -> str:
        return f"<schemacore.Validator for {self._node.uri or '#'}>"


def _restore(
    schema: Any,
    registry: Mapping[str, Any] | None,
    loader: Callable[[str], Any] | None,
    format_assertion: bool,
    content_assertion: bool,
    limits: Limits,
    formats: Mapping[str, Callable[[str], bool]] | None = None,
) -> Validator:
    return Validator(
        schema,
        registry=registry,
        loader=loader,
        format_assertion=format_assertion,
        content_assertion=content_assertion,
        limits=limits,
        formats=formats,
    )


_META: Validator | None = None


def _default_metaschema() -> Validator:
    global _META
    if _META is None:
        _META = Validator(bundled_metaschemas()[_METASCHEMA_URI], _check_schema=False)
    return _META


def _check_against(meta: Validator, schema: Any, what: str) -> None:
    # An ExecutionFailure here (a schema nested too deeply to check, say) stays one:
    # a limit is never reported as an invalid schema. A value outside the JSON data
    # model is no limit: the schema is not JSON, so it is not a schema.
    try:
        if meta.is_valid(schema):
            return
    except ExecutionFailure as exc:
        if exc.limit != "json_data_model":
            raise
        if not exc.location:
            # The fast path does not locate; the error path meets the value again.
            try:
                for _ in meta.iter_errors(schema):
                    pass
            except ExecutionFailure as located:
                exc = located
        message = exc.message.removeprefix("the instance ")
        raise SchemaError(f"{what} {message}", location=exc.location) from None
    error = best_match(meta.iter_errors(schema))
    if error is None:  # pragma: no cover - both paths agree by construction
        raise SchemaError(f"{what} is not a valid schema")
    raise SchemaError(
        f"{what} is not a valid Draft 2020-12 schema: {error.message}",
        location=error.instance_location,
    )


def _build(
    schema: Any,
    registry: Mapping[str, Any] | None,
    loader: Callable[[str], Any] | None,
    options: Options,
    check_schema: bool,
) -> tuple[Node, Compiler]:
    try:
        return _compile_document(schema, registry, loader, options, check_schema)
    except RecursionError:
        raise ExecutionFailure(
            "the schema is nested or chained too deeply to compile within Python's "
            "recursion limit (lower Limits.max_schema_depth, or simplify its references)",
            limit="recursion",
        ) from None


def _compile_document(
    schema: Any,
    registry: Mapping[str, Any] | None,
    loader: Callable[[str], Any] | None,
    options: Options,
    check_schema: bool,
) -> tuple[Node, Compiler]:
    if not isinstance(schema, (dict, bool)):
        raise SchemaError(f"a schema must be an object or a boolean, not {type(schema).__name__}")
    index = Index(registry, loader, options.limits)
    compiler = Compiler(index, options)
    dialect: Dialect = DEFAULT_DIALECT
    if isinstance(schema, dict) and "$schema" in schema:
        dialect = compiler.dialect_for(schema["$schema"], "/$schema")
    base = ""
    if isinstance(schema, dict) and isinstance(schema.get("$id"), str):
        base = split_fragment(join("", schema["$id"]))[0]
    # Indexing first: it enforces max_schema_depth before the meta-schema walks it.
    index.add_document(base, schema)
    if check_schema:
        _check_schema_document(schema, registry, loader, "the schema")
    node = compiler.node(schema, base, "", dialect, (), False, None)
    compiler.check_progress()
    limit = options.limits.max_inplace_applications
    # Both walks have nothing to do, and return at once, when the root's evaluation
    # paths are within the limit and when no edge closes a cycle: spare them the list.
    if node.paths > limit:
        check_child_fan_out(node, compiler.nodes, limit)
    compiler.memoises = mark_fan_out(compiler.nodes) if compiler.cycles else False
    if check_schema:
        # Documents pulled in through references are schemas too.
        for uri, document in index.loaded:
            _check_schema_document(document, registry, loader, f"the schema at {uri!r}")
    return node, compiler


def _check_schema_document(
    schema: Any,
    registry: Mapping[str, Any] | None,
    loader: Callable[[str], Any] | None,
    what: str,
) -> None:
    """Validate one schema document against the meta-schema its $schema names."""
    meta_uri = _METASCHEMA_URI
    if isinstance(schema, dict) and isinstance(schema.get("$schema"), str):
        meta_uri = split_fragment(schema["$schema"])[0]
    if is_2020_12(meta_uri):
        meta = _default_metaschema()
    else:
        meta = Validator({"$ref": meta_uri}, registry=registry, loader=loader, _check_schema=False)
    _check_against(meta, schema, what)


def compile(
    schema: Any,
    *,
    registry: Mapping[str, Any] | None = None,
    loader: Callable[[str], Any] | None = None,
    format_assertion: bool = False,
    content_assertion: bool = False,
    limits: Limits | None = None,
    formats: Mapping[str, Callable[[str], bool]] | None = None,
) -> Validator:
    """Compile a Draft 2020-12 ``schema`` into a :class:`Validator`.

    Args:
        schema: the schema, as parsed JSON (a dict or a bool). It is never mutated.
        registry: absolute URI -> schema, for references to other documents.
        loader: called with an absolute URI for references the registry lacks.
            Nothing is ever fetched from a network by schemacore itself.
        format_assertion: check ``format`` instead of treating it as an annotation.
        content_assertion: check ``contentEncoding``/``contentMediaType``/``contentSchema``.
        limits: resource limits; the defaults are safe for untrusted input.
        formats: format name -> checker (called with a string, returns bool), adding
            to or overriding the built-in checkers when formats are asserted.

    Raises:
        SchemaError: the schema is invalid or a reference cannot be resolved.
        UnsupportedCapability: another draft, an unknown dialect or vocabulary.
        ExecutionFailure: a limit was exceeded while compiling.
    """
    return Validator(
        schema,
        registry=registry,
        loader=loader,
        format_assertion=format_assertion,
        content_assertion=content_assertion,
        limits=limits,
        formats=formats,
    )


def is_valid(instance: Any, schema: Any, **options: Any) -> bool:
    """Compile ``schema`` and tell whether ``instance`` is valid (for one-off use)."""
    return compile(schema, **options).is_valid(instance)


def validate(instance: Any, schema: Any, **options: Any) -> None:
    """Compile ``schema`` and raise the first ValidationError of ``instance``, if any."""
    compile(schema, **options).validate(instance)
