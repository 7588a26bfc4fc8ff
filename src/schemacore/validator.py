"""The compiled :class:`Validator` and the one-off helpers."""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator, Mapping
from time import monotonic, perf_counter
from typing import Any, NoReturn

from .ceiling import error_ceiling
from .codegen import WORTH_WRITING, WRITE_SLICE
from .compiler import Compiler
from .errors import ExecutionFailure, ValidationError
from .evaluation import Keep, Unit, evaluate_node
from .guard import CallState, scan_instance
from .limits import Limits
from .model import DeferredReference, Node, Options
from .output import Evaluation
from .pipeline import build, resolve_default
from .relevance import most_relevant

__all__ = ["Validator", "compile", "is_valid", "validate"]

# Limits are frozen: one default instance spares every compile its field checks;
# compiles with every option at its default share one Options too.
_DEFAULT_LIMITS = Limits()
_DEFAULT_OPTIONS = Options(limits=_DEFAULT_LIMITS)


# A Validator before Validator._setup, for compile() and unpickling.
_new = object.__new__


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

    # Few slots: each costs a compile one object.__setattr__ call (about a
    # microsecond), so what only pickling and repr read shares one tuple.
    __slots__ = ("_calls", "_compiler", "_memoises", "_node", "_plain", "_source")

    _node: Node
    _compiler: Compiler
    _calls: list[Any]
    _memoises: bool
    _plain: bool
    # What the validator was compiled from: (schema, registry, loader, default_dialect).
    _source: tuple[Any, Mapping[str, Any] | None, Callable[[str], Any] | None, str | None]

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
        default_dialect: str | None = None,
        defer_unresolved: bool = False,
        _check_schema: bool = True,
    ) -> None:
        self._setup(
            schema,
            registry,
            loader,
            format_assertion,
            content_assertion,
            limits,
            formats,
            default_dialect,
            defer_unresolved,
            _check_schema,
        )

    def _setup(
        self,
        schema: Any,
        registry: Mapping[str, Any] | None,
        loader: Callable[[str], Any] | None,
        format_assertion: bool,
        content_assertion: bool,
        limits: Limits | None,
        formats: Mapping[str, Callable[[str], bool]] | None,
        default_dialect: str | None,
        defer_unresolved: bool,
        check_schema: bool,
    ) -> None:
        """Compile: what ``__init__`` does, with the options in order (see
        :func:`compile`, which calls it without the keyword call of a class)."""
        if limits is not None and not isinstance(limits, Limits):
            raise TypeError("limits must be a schemacore.Limits")
        if not (format_assertion or content_assertion or formats or defer_unresolved) and (
            limits is None or limits is _DEFAULT_LIMITS
        ):
            options = _DEFAULT_OPTIONS  # never mutated: shared by default compiles
        else:
            options = Options(
                format_assertion=bool(format_assertion),
                content_assertion=bool(content_assertion),
                limits=limits if limits is not None else _DEFAULT_LIMITS,
                formats=dict(formats or {}),
                defer_unresolved=bool(defer_unresolved),
            )
        default = resolve_default(default_dialect)
        started = perf_counter()
        node, compiler = build(schema, registry, loader, options, check_schema, default)
        compiled_in = perf_counter() - started
        set_attr = object.__setattr__
        set_attr(self, "_node", node)
        set_attr(self, "_compiler", compiler)
        # Whether generated code is all written, the seconds is_valid has spent on
        # closures, how many justify writing it, and how long one call may write
        # (mutable: the validator itself is frozen). See codegen's tiering.
        set_attr(
            self,
            "_calls",
            [False, 0.0, WORTH_WRITING * compiled_in, min(WRITE_SLICE, compiled_in / 2)],
        )
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
        set_attr(self, "_source", (schema, registry, loader, default_dialect))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Validator objects are immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("Validator objects are immutable")

    @property
    def schema(self) -> Any:
        """The schema this validator was compiled from, as the caller gave it."""
        return self._source[0]

    @property
    def deferred_references(self) -> tuple[DeferredReference, ...]:
        """The references compiled with ``defer_unresolved=True`` that name nothing
        (no such document, anchor or location), in the order met: each a
        ``(uri, schema_location)`` named tuple, the absolute URI it refers to and
        the absolute URI of its keyword. A call that reaches one raises
        ExecutionFailure (reason ``unresolvable-reference``). Empty otherwise."""
        return self._compiler.deferred_references

    def is_valid(self, instance: Any) -> bool:
        """Whether ``instance`` is valid. Builds no error objects.

        Raises ExecutionFailure (never returns False) when evaluation cannot finish:
        a limit was exceeded, or a value outside the JSON data model was reached.
        """
        if self._plain:
            # Nothing to reset or arm (see __init__): the common case.
            calls = self._calls
            try:
                if calls[0]:
                    return self._node.valid(instance)
                # Closures, timed (see _warm_is_valid), in line: without a cycle
                # the call leaves no depth or memo behind to reset.
                started = perf_counter()
                result = self._node.valid(instance)
            except RecursionError:
                _too_deep("the instance")
            calls[1] += perf_counter() - started
            if calls[1] >= calls[2]:
                self._write_some()
            return result
        state = self._start(instance)
        if not self._calls[0]:
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
        compiler = self._compiler
        compiler.complete()  # the error path reads every node (Compiler.defer_leaf)
        if not self._plain:
            self._start(instance)
        try:
            yield from self._node.errors(instance, None, None)
        except RecursionError:
            _too_deep("the instance")
        finally:
            if self._memoises:
                compiler.state.forget()

    def _promote(self) -> None:
        """Replace closures with generated code now (tests use it to check both)."""
        self._compiler.promote()
        self._calls[0] = True

    def _warm_is_valid(self, instance: Any, state: CallState) -> bool:
        """is_valid before generated code is all written: count the time spent on
        closures, and once it exceeds what writing the code costs, write some of it
        after each call, for at most WRITE_SLICE seconds and half the compile time a
        call (one node more at worst), so no call stalls however large the schema."""
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
        calls[1] += perf_counter() - started
        # Written already when deep recursion had it written at once (calls.recursion).
        if calls[1] >= calls[2] or self._compiler.promoted:
            self._write_some()
        return result

    def _write_some(self) -> None:
        """Write generated code for one slice (see _warm_is_valid); once all of it is
        written, is_valid takes it from the next call on."""
        calls = self._calls
        if self._compiler.promote_for(calls[3]):
            calls[0] = True

    def _start(self, instance: Any) -> CallState:
        """Reset this thread's bookkeeping and run the optional instance walk."""
        limits = self._compiler.options.limits
        state = self._compiler.state
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
        came closest to passing is followed (see ``schemacore.best_match``). Errors
        are read only until one is as relevant as any of the schema's can be (as
        deep as they go, not weak): then no later one can change the answer, and an
        array of many wrong items costs about what its first does. Like
        ``is_valid``, it may then answer without reaching a part of the instance
        that would raise ExecutionFailure.
        """
        if self.is_valid(instance):
            return
        errors = self.iter_errors(instance)
        try:
            error = most_relevant(errors, error_ceiling(self._node))
        finally:
            if isinstance(errors, Generator):
                errors.close()  # iter_errors' cleanup now, not when it is collected
        if error is not None:
            raise error

    def evaluate(self, instance: Any) -> Evaluation:
        """Validate with annotations, for the standard output formats.

        ``valid`` agrees with ``is_valid`` and ``errors`` with ``iter_errors``. Only
        ``valid`` is worked out here (one ``is_valid`` call); the errors, annotations
        and outputs are worked out from ``instance`` when first asked for (see
        :class:`Evaluation` for what each costs), so leave it unchanged meanwhile.
        """
        valid = self.is_valid(instance)
        return Evaluation._deferred(
            valid, lambda: self.iter_errors(instance), lambda keep: self._walk(instance, keep)
        )

    def _walk(self, instance: Any, keep: Keep) -> Unit:
        """One evaluation walk of ``instance`` (for ``Evaluation``), from a fresh
        call state like any other call."""
        state = self._start(instance)
        try:
            return evaluate_node(
                self._node, instance, state, self._compiler.options.limits.max_instance_depth, keep
            )
        except RecursionError:
            _too_deep("the instance")
        finally:
            state.depth = 0
            if self._memoises:
                state.forget()  # the memo holds parts of the instance

    def __reduce__(self) -> tuple[Any, ...]:
        options = self._compiler.options
        schema, registry, loader, default_dialect = self._source
        return (
            _restore,
            (
                schema,
                registry,
                loader,
                options.format_assertion,
                options.content_assertion,
                options.limits,
                dict(options.formats) or None,
                default_dialect,
                options.defer_unresolved,
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
    default_dialect: str | None = None,
    defer_unresolved: bool = False,
) -> Validator:
    validator: Validator = _new(Validator)
    validator._setup(
        schema,
        registry,
        loader,
        format_assertion,
        content_assertion,
        limits,
        formats,
        default_dialect,
        defer_unresolved,
        True,
    )
    return validator


def compile(
    schema: Any,
    *,
    registry: Mapping[str, Any] | None = None,
    loader: Callable[[str], Any] | None = None,
    format_assertion: bool = False,
    content_assertion: bool = False,
    limits: Limits | None = None,
    formats: Mapping[str, Callable[[str], bool]] | None = None,
    default_dialect: str | None = None,
    defer_unresolved: bool = False,
) -> Validator:
    """Compile ``schema`` into a :class:`Validator`, under the dialect its ``$schema``
    names (Draft 2020-12, 2019-09, 7, 6 or 4), each resource under its own.

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
        default_dialect: the meta-schema URI (or short name: "2020-12", "2019-09",
            "draft-07", "draft-06", "draft-04") of the dialect of resources that
            declare no ``$schema``; Draft 2020-12 by default.
        defer_unresolved: compile a reference that names nothing (no document in
            the registry, from the loader or bundled; no such anchor or location in
            one) to fail the calls that reach it, with ExecutionFailure (reason
            ``unresolvable-reference``), instead of failing the compile; they are
            listed in ``Validator.deferred_references``. A loader that raises
            still fails the compile (reason ``loader-failed``), as does every other
            fault of a reference or of the schema.

    Raises:
        SchemaError: the schema is invalid or a reference cannot be resolved (and
            ``defer_unresolved`` is off).
        UnsupportedCapability: draft 3, an unknown dialect, or a required vocabulary
            schemacore does not implement.
        ExecutionFailure: a limit was exceeded while compiling.
    """
    # Not Validator(...): a class called with keywords passes them through a dict
    # twice, which costs a small schema's compile a measurable share.
    validator: Validator = _new(Validator)
    validator._setup(
        schema,
        registry,
        loader,
        format_assertion,
        content_assertion,
        limits,
        formats,
        default_dialect,
        defer_unresolved,
        True,
    )
    return validator


def is_valid(instance: Any, schema: Any, **options: Any) -> bool:
    """Compile ``schema`` and tell whether ``instance`` is valid (for one-off use)."""
    return compile(schema, **options).is_valid(instance)


def validate(instance: Any, schema: Any, **options: Any) -> None:
    """Compile ``schema`` and raise the first ValidationError of ``instance``, if any."""
    compile(schema, **options).validate(instance)
