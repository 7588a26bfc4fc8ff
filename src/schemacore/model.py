"""The data model of compiled schemas: what keyword compilers build and read.

A :class:`Node` is one compiled schema object; its :class:`Keyword` entries are the
compiled keywords; a :class:`SchemaContext` is what a keyword compiler sees of its
schema object while compiling. This module imports nothing above it: keyword
compilers, analyses and the compiler driver all import it, never the reverse.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cache
from typing import TYPE_CHECKING, Any, NamedTuple

from .dialect import Dialect
from .errors import ExecutionFailure, SchemaError, ValidationError
from .guard import non_json
from .jsonvalue import decimal_integral
from .limits import Limits
from .paths import Path, to_pointer
from .pointer import as_fragment, format_pointer
from .resources import Target, Unresolvable
from .uri import is_reference, join

if TYPE_CHECKING:
    from .compiler import Compiler
    from .spec import Spec

__all__ = [
    "DeferredReference",
    "Evaluated",
    "Keyword",
    "Node",
    "Options",
    "SchemaContext",
    "assertion",
    "canonical_type",
    "describe_types",
    "finite",
    "finite_decimal",
    "leftover_errors",
    "locate",
    "make_error",
    "type_matches",
]

ValidFn = Callable[[Any], bool]
ErrorsFn = Callable[[Any, Path, Path], Iterator[ValidationError]]


class Evaluated:
    """Evaluated properties and items of one instance location (for ``unevaluated*``)."""

    __slots__ = ("all_items", "all_props", "items", "prefix", "props")

    def __init__(self) -> None:
        self.props: set[str] = set()
        self.all_props = False
        self.items: set[int] = set()
        self.prefix = 0
        self.all_items = False

    def merge(self, other: Evaluated) -> None:
        if other.all_props:
            self.all_props = True
        elif other.props:
            self.props |= other.props
        if other.all_items:
            self.all_items = True
        else:
            if other.prefix > self.prefix:
                self.prefix = other.prefix
            if other.items:
                self.items |= other.items


TrackFn = Callable[[Any, Evaluated], bool]
GivenErrorsFn = Callable[[Any, Evaluated, Path, Path], Iterator[ValidationError]]


@dataclass(slots=True)
class Keyword:
    """One compiled keyword of a schema object.

    ``applies_to`` is the JSON type the keyword constrains ("object", "array",
    "string", "number"), or None when it applies to every instance. ``track`` is set
    for keywords that produce evaluation annotations when the node is tracking;
    ``errors_given`` only for ``unevaluated*``, which reads its siblings' results.
    """

    name: str
    applies_to: str | None
    valid: ValidFn
    errors: ErrorsFn
    track: TrackFn | None = None
    errors_given: GivenErrorsFn | None = None
    cost: int = 10
    # The spec it was compiled from (set by the node builder).
    spec: Spec | None = None


def make_error(
    message: str,
    keyword: str,
    instance: Any,
    instance_path: Path,
    keyword_path: Path,
    absolute: str,
    context: tuple[ValidationError, ...] = (),
    params: dict[str, Any] | None = None,
) -> ValidationError:
    """Build a ValidationError; it writes its JSON Pointers from the paths when read.
    ``params`` are its machine-readable facts (see ValidationError.params)."""
    return ValidationError._at(
        message, keyword, instance_path, keyword_path, absolute, instance, context, params or {}
    )


def leftover_errors(
    keyword: str,
    schema_value: Any,
    x: Any,
    members: list[Any],
    child_errors: ErrorsFn,
    ipath: Path,
    kpath: Path,
    ctx: SchemaContext,
) -> Iterator[ValidationError]:
    """Errors of the members (names or indexes) left to a catch-all subschema
    (additionalProperties, unevaluated*) of ``ctx``: one error naming them all when
    that subschema is ``false``, else the subschema's own errors for each of them."""
    here = (kpath, keyword)
    if schema_value is False:
        if members:
            noun = "properties" if keyword.endswith("Properties") else "items"
            listed = ", ".join(repr(m) for m in members)
            verb = "was" if len(members) == 1 else "were"
            adjective = "additional" if keyword == "additionalProperties" else "unevaluated"
            yield make_error(
                f"{adjective} {noun} are not allowed ({listed} {verb} unexpected)",
                keyword,
                x,
                ipath,
                here,
                ctx.location(keyword),
                params={keyword: False, "unexpected": list(members)},
            )
        return
    for member in members:
        yield from child_errors(x[member], (ipath, member), here)


def locate(
    failure: ExecutionFailure, child_errors: ErrorsFn, x: Any, ipath: Path, kpath: Path
) -> ExecutionFailure:
    """Locate a failure of the fast path on ``x`` (a member or item at ``ipath``):
    a value outside the JSON data model is met again, with its location, by the
    error path; anything else is located at ``x``."""
    if failure.limit == "json_data_model" and not failure.location:
        try:
            for _ in child_errors(x, ipath, kpath):
                pass
        except ExecutionFailure as exact:
            return exact
    failure.location = failure.location or to_pointer(ipath)
    return failure


class _Assertion:
    """The error path of a keyword that only asserts, derived from its check.

    A bound method of this object costs the garbage collector less than a closure
    over the same values. The message (``message(x, detail)``), the params (the
    keyword's schema value, and ``measure(x)``) and the keyword's absolute location
    are only worked out for an error."""

    __slots__ = ("ctx", "detail", "measure", "message", "name", "valid")

    def __init__(
        self,
        ctx: SchemaContext,
        name: str,
        valid: ValidFn,
        message: Callable[[Any, Any], str],
        detail: Any,
        measure: Callable[[Any], dict[str, Any]] | None,
    ) -> None:
        self.ctx = ctx
        self.name = name
        self.valid = valid
        self.message = message
        self.detail = detail
        self.measure = measure

    def errors(self, x: Any, ipath: Path, kpath: Path) -> Iterator[ValidationError]:
        try:
            ok = self.valid(x)
        except ExecutionFailure as exc:
            exc.location = exc.location or to_pointer(ipath)
            raise
        if not ok:
            name = self.name
            params = {name: self.ctx.schema.get(name)}
            if self.measure is not None:
                params.update(self.measure(x))
            yield make_error(
                self.message(x, self.detail),
                name,
                x,
                ipath,
                (kpath, name),
                self.ctx.location(name),
                params=params,
            )


def assertion(
    ctx: SchemaContext,
    name: str,
    applies_to: str | None,
    valid: ValidFn,
    message: Callable[[Any, Any], str],
    detail: Any = None,
    cost: int = 10,
    measure: Callable[[Any], dict[str, Any]] | None = None,
) -> Keyword:
    """A keyword of ``ctx`` that only asserts: its error path is derived from its
    check, its message is ``message(instance, detail)``, its error's params are its
    schema value and ``measure(instance)``."""
    errors = _Assertion(ctx, name, valid, message, detail, measure).errors
    return Keyword(name, applies_to, valid, errors, cost=cost)


class Node:
    """A compiled schema. Attributes are filled once compilation of it finishes."""

    __slots__ = (
        "_base",
        "_pointer",
        "_uri",
        "alias",
        "back",
        "boolean",
        "ceiling",
        "children",
        "closure_valid",
        "context",
        "errors",
        "generated",
        "inline_ok",
        "keywords",
        "lone",
        "loop",
        "memo",
        "only",
        "passes",
        "paths",
        "ready",
        "track",
        "trivial",
        "types",
        "valid",
    )

    def __init__(self, base: str, pointer: str) -> None:
        # The node's absolute location, written on first use (errors, evaluation).
        self._uri: str | None = None
        self._base = base
        self._pointer = pointer
        self.ready = False
        self.trivial = False
        # What the evaluation product (annotations, output formats) reads: the
        # schema object's context, its compiled keywords and its subschema nodes.
        self.boolean: bool | None = None
        self.context: SchemaContext | None = None
        self.keywords: dict[str, Keyword] = {}
        self.children: dict[tuple[str | int, ...], Node] = {}
        # The children that were still being compiled when this node bound them: the
        # edges that close a cycle. Every cycle has one, so counting the instance
        # depth on them (and nowhere else) bounds every recursion. Most nodes close
        # none: they share one empty frozenset until they do.
        self.back: set[tuple[str | int, ...]] | frozenset[tuple[str | int, ...]] = _NO_BACK
        # Whether calls through those edges into this node memoise is_valid results,
        # because the cycle can apply it to one value more than once (recursion.py).
        self.memo = False
        # Non-zero (the loop's number) when the node is on a reference loop that
        # applies schemas in place without consuming the instance: nothing at compile
        # time says whether an instance takes that path, so the call that does fails
        # closed when it comes back to the same node with the same value.
        self.loop = 0
        self.paths = 1
        # The relevance of the most relevant error ``errors`` can yield, relative to
        # the node's value; None until first asked for (see ceiling.py).
        self.ceiling: tuple[int, int] | None = None
        self.types: frozenset[str] | None = None
        # The closure-built fast path, kept beside generated code as its fallback;
        # inline_ok when generated code may copy this node's checks into a parent.
        self.closure_valid: ValidFn = _unfinished
        self.inline_ok = False
        # The Python types closure_valid accepts without any check (a leaf's "type"),
        # which a parent's closure may answer in line instead of calling it.
        self.passes: frozenset[type] = _NO_TYPES
        # Generated code replaces the closures once the validator has been called
        # often enough to repay writing it (see codegen.promote); alias is the
        # target of a node that is only a (non-recursive) reference.
        self.generated: ValidFn | None = None
        self.alias: Node | None = None
        # The name of the lone keyword that stands for the whole node, if any (no type
        # dispatch of its own: see keywords._passes_through), and the child tokens of
        # the one subschema it stands for, if it applies just one; alias is that
        # subschema when it was finished before this node.
        self.lone: str | None = None
        self.only: tuple[str | int, ...] | None = None
        self.valid: ValidFn = _unfinished
        self.errors: ErrorsFn = _unfinished_errors
        self.track: TrackFn = _unfinished_track

    @property
    def uri(self) -> str:
        """The absolute URI of the node's schema object (percent-encoded pointer)."""
        uri = self._uri
        if uri is None:
            uri = self._uri = f"{self._base}#{as_fragment(self._pointer)}"
        return uri

    def __repr__(self) -> str:
        return f"<Node {self.uri}>"


_NO_BACK: frozenset[tuple[str | int, ...]] = frozenset()
_NO_TYPES: frozenset[type] = frozenset()


def _unfinished(x: Any) -> bool:  # pragma: no cover - guarded by cycle detection
    raise ExecutionFailure("internal error: a schema was used before it was compiled")


def _unfinished_errors(x: Any, ip: Path, kp: Path) -> Iterator[ValidationError]:
    raise ExecutionFailure("internal error: a schema was used before it was compiled")


def _unfinished_track(x: Any, acc: Evaluated) -> bool:
    raise ExecutionFailure("internal error: a schema was used before it was compiled")


# -- type dispatch --------------------------------------------------------------

_NONE = type(None)
_JSON_OF: dict[type, str] = {
    dict: "object",
    list: "array",
    str: "string",
    int: "number",
    float: "number",
    bool: "boolean",
    _NONE: "null",
    # A JSON number (json.loads(text, parse_float=Decimal)); it takes a float's
    # checks, with its own finiteness and integer tests (keywords._decimal_checks).
    Decimal: "number",
}
_PY_TYPES = tuple(_JSON_OF)


def canonical_type(x: Any) -> type:
    """The exact JSON-model Python type ``x`` stands for (subclasses included)."""
    if isinstance(x, bool):
        return bool
    for kind in (dict, list, str, int, float):
        if isinstance(x, kind):
            return kind
    if x is None:
        return _NONE
    if isinstance(x, Decimal):
        return Decimal
    raise non_json(x)


def finite(x: float) -> bool:
    """A check on every float a schema looks at: NaN and infinities are not JSON."""
    if x - x == 0.0:
        return True
    raise non_json(x)


def finite_decimal(x: Decimal) -> bool:
    """``finite`` for a Decimal: NaN, sNaN and infinities are not JSON."""
    if Decimal.is_finite(x):
        return True
    raise non_json(x)


def type_matches(types: frozenset[str], x: Any, float_integers: bool = True) -> bool:
    """Whether ``x`` is of one of the JSON ``types`` (``float_integers``: whether 1.0
    is an integer, as in every draft but draft-04)."""
    kind = _JSON_OF.get(type(x)) or _JSON_OF[canonical_type(x)]
    if kind in types:
        return True
    if kind == "number" and "integer" in types:
        if isinstance(x, int):
            return True
        if isinstance(x, Decimal):
            # Draft-04: a Decimal is never an integer, as no float is (parse_float
            # makes one exactly where json.loads would make a float).
            return float_integers and decimal_integral(x)
        return float_integers and float(x).is_integer()
    return False


@cache
def describe_types(types: frozenset[str]) -> str:
    # Cached: a type error names the same few sets over and over.
    names = sorted(types)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


# -- compile context ------------------------------------------------------------


class DeferredReference(NamedTuple):
    """A reference a validator compiled with ``defer_unresolved=True`` could not
    resolve: the calls that reach it raise ExecutionFailure (reason
    ``unresolvable-reference``)."""

    uri: str
    """What it refers to, as an absolute URI (resolved against its base URI)."""
    schema_location: str
    """The absolute URI of the reference keyword, as in ``schema_location`` of the
    failure it raises."""


@dataclass(slots=True)
class Options:
    format_assertion: bool = False
    content_assertion: bool = False
    limits: Limits = field(default_factory=Limits)
    formats: Mapping[str, Callable[[str], bool]] = field(default_factory=dict)
    # A reference to nothing compiles to a node that fails the calls reaching it.
    defer_unresolved: bool = False


class SchemaContext:
    """What a keyword compiler sees: its schema object, its location, its compiler."""

    __slots__ = (
        "base",
        "children",
        "compiler",
        "dialect",
        "key",
        "leaves",
        "locations",
        "node",
        "pointer",
        "schema",
        "scope",
        "tracking",
    )

    def __init__(
        self,
        compiler: Compiler,
        schema: dict[str, Any],
        base: str,
        pointer: str,
        dialect: Dialect,
        scope: tuple[tuple[str, str], ...],
        tracking: bool,
        key: tuple[Any, ...],
        node: Node,
    ) -> None:
        self.compiler = compiler
        self.schema = schema
        self.base = base
        self.pointer = pointer
        self.dialect = dialect
        self.scope = scope
        self.tracking = tracking
        self.key = key
        # The node being built from this schema object, and its subschema nodes.
        self.node = node
        self.children = node.children
        # Absolute locations already written (errors ask for them again and again).
        self.locations: dict[tuple[str | int, ...], str] | None = None
        # How many leaf subschemas of this object wait to be compiled (see
        # Compiler.defer_leaf): they are children too, just not built yet.
        self.leaves = 0

    @property
    def options(self) -> Options:
        return self.compiler.options

    def location(self, *tokens: str | int) -> str:
        """The absolute URI of a keyword (or a place inside it) of this schema."""
        known = self.locations
        if known is None:
            known = self.locations = {}
        else:
            location = known.get(tokens)
            if location is not None:
                return location
        # The node's URI is this schema object's location, already percent-encoded
        # (encoding works character by character): the keyword's part is appended.
        location = known[tokens] = self.node.uri + as_fragment(format_pointer(tokens))
        return location

    def pointer_to(self, *tokens: str | int) -> str:
        return self.pointer + format_pointer(tokens)

    def active(self, keyword: str) -> bool:
        """Whether a sibling keyword is present and its vocabulary is active."""
        return keyword in self.schema and keyword in self.dialect.active

    def descend(self, value: Any, *tokens: str | int) -> Node:
        """Compile a subschema applied to a child of the instance (no tracking)."""
        pointer = self.pointer + format_pointer(tokens)
        node = self.compiler.node(value, self.base, pointer, self.dialect, self.scope, False, None)
        return self._child(tokens, node)

    def _child(self, tokens: tuple[str | int, ...], node: Node) -> Node:
        self.children[tokens] = node
        if not node.ready:
            # Still being compiled: an ancestor, so this edge closes a cycle.
            owner = self.node
            back = owner.back
            if not isinstance(back, set):
                back = owner.back = set()
                self.compiler.cycles = True
            back.add(tokens)
        return node

    def inplace(self, value: Any, *tokens: str | int, tracking: bool | None = None) -> Node:
        """Compile a subschema applied to the same instance location."""
        node = self.compiler.node(
            value,
            self.base,
            self.pointer + format_pointer(tokens),
            self.dialect,
            self.scope,
            self.tracking if tracking is None else tracking,
            self.key,
        )
        return self._child(tokens, node)

    def reference(self, target: Target, keyword: str) -> Node:
        """Compile the target of a reference keyword, in place."""
        shared = self.compiler.shared_root(target, self)
        if shared is not None:  # a published meta-schema's compile, made once
            return self._child((keyword,), shared)
        node = self.compiler.node(
            target.node,
            target.base,
            target.pointer,
            self.compiler.dialect_at(target, self.dialect),
            self.scope,
            self.tracking,
            self.key,
        )
        return self._child((keyword,), node)

    def resolve(self, reference: str, keyword: str) -> Target | Unresolvable:
        """The target of the reference keyword ``keyword`` (its value ``reference``):
        what it names, or with ``defer_unresolved`` why nothing is there; without
        it, a reference to nothing is a SchemaError."""
        if not is_reference(reference):
            raise self.schema_error(
                f"{keyword} {reference!r} is not a URI-reference (RFC 3986), as the "
                "specification requires",
                keyword,
                reason="invalid-reference",
            )
        uri = join(self.base, reference)
        location = self.pointer_to(keyword)
        found = self.compiler.index.find(uri, location, self.dialect)
        if type(found) is Unresolvable and not self.compiler.options.defer_unresolved:
            raise found.error(location)
        return found

    def schema_error(
        self, message: str, *tokens: str | int, reason: str = "bad-keyword-value"
    ) -> SchemaError:
        """A SchemaError at a keyword (or a place inside it) of this schema."""
        return SchemaError(message, location=self.pointer_to(*tokens), reason=reason)
