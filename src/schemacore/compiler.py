"""Schema -> tree of closures.

Each schema object compiles to one :class:`Node` holding three products of the same
keyword closures:

* ``valid(x) -> bool``: the fast path. One dictionary lookup on ``type(x)`` picks
  the tuple of checks that can apply to that JSON type (so ``type`` itself costs
  nothing more, and string keywords are never called on numbers); no error objects,
  no paths.
* ``errors(x, instance_path, keyword_path)``: the error path, located and complete.
* ``track(x, evaluated) -> bool``: only for schemas an ``unevaluated*`` keyword can
  see, it also records which properties and items were evaluated.

Nodes are cached by (base URI, pointer, dialect, dynamic scope, tracking), so a
recursive ``$ref`` finds the node that is still being built and calls it through
its attributes once it is filled in (a reference cell). ``$dynamicRef`` is resolved
at compile time: the dynamic scope that matters is reduced to the bindings of each
dynamic anchor name to the outermost resource defining it, which is finite, so every
dynamic reference becomes a static call on a node specialised for that scope.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from .dialect import DEFAULT_DIALECT, OTHER_DRAFTS, VOCAB, Dialect, is_2020_12, normalise
from .errors import ExecutionFailure, SchemaError, UnsupportedCapability, ValidationError
from .guard import CallState, non_json
from .limits import Limits
from .paths import Path, to_pointer
from .pointer import as_fragment, format_pointer
from .resources import Index, Target
from .uri import join

__all__ = [
    "Compiler",
    "Evaluated",
    "Keyword",
    "Node",
    "SchemaContext",
]

ValidFn = Callable[[Any], bool]
ErrorsFn = Callable[[Any, Path, Path], Iterator[ValidationError]]


# Where Node.paths stops counting (far beyond any Limits value that makes sense).
_MANY_PATHS = 1 << 62


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


def make_error(
    message: str,
    keyword: str,
    instance: Any,
    instance_path: Path,
    keyword_path: Path,
    absolute: str,
    context: tuple[ValidationError, ...] = (),
) -> ValidationError:
    """Build a ValidationError; it writes its JSON Pointers from the paths when read."""
    return ValidationError._at(
        message, keyword, instance_path, keyword_path, absolute, instance, context
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
    over the same values. The message (``message(x, detail)``) and the keyword's
    absolute location are only worked out for an error."""

    __slots__ = ("ctx", "detail", "message", "name", "valid")

    def __init__(
        self,
        ctx: SchemaContext,
        name: str,
        valid: ValidFn,
        message: Callable[[Any, Any], str],
        detail: Any,
    ) -> None:
        self.ctx = ctx
        self.name = name
        self.valid = valid
        self.message = message
        self.detail = detail

    def errors(self, x: Any, ipath: Path, kpath: Path) -> Iterator[ValidationError]:
        try:
            ok = self.valid(x)
        except ExecutionFailure as exc:
            exc.location = exc.location or to_pointer(ipath)
            raise
        if not ok:
            name = self.name
            yield make_error(
                self.message(x, self.detail),
                name,
                x,
                ipath,
                (kpath, name),
                self.ctx.location(name),
            )


def assertion(
    ctx: SchemaContext,
    name: str,
    applies_to: str | None,
    valid: ValidFn,
    message: Callable[[Any, Any], str],
    detail: Any = None,
    cost: int = 10,
) -> Keyword:
    """A keyword of ``ctx`` that only asserts: its error path is derived from its
    check, its message is ``message(instance, detail)``."""
    errors = _Assertion(ctx, name, valid, message, detail).errors
    return Keyword(name, applies_to, valid, errors, cost=cost)


class Node:
    """A compiled schema. Attributes are filled once compilation of it finishes."""

    __slots__ = (
        "alias",
        "back",
        "boolean",
        "children",
        "closure_valid",
        "context",
        "errors",
        "generated",
        "inline_ok",
        "keywords",
        "lone",
        "memo",
        "only",
        "paths",
        "ready",
        "track",
        "trivial",
        "types",
        "uri",
        "valid",
    )

    def __init__(self, uri: str) -> None:
        self.uri = uri
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
        self.paths = 1
        self.types: frozenset[str] | None = None
        # The closure-built fast path, kept beside generated code as its fallback;
        # inline_ok when generated code may copy this node's checks into a parent.
        self.closure_valid: ValidFn = _unfinished
        self.inline_ok = False
        # Generated code replaces the closures once the validator has been called
        # often enough to repay writing it (see codegen.promote); alias is the
        # target of a node that is only a (non-recursive) reference.
        self.generated: ValidFn | None = None
        self.alias: Node | None = None
        # The name of the lone keyword that stands for the whole node, if any (no type
        # dispatch of its own: see keywords._PASS_THROUGH), and the child tokens of
        # the one subschema it stands for, if it applies just one; alias is that
        # subschema when it was finished before this node.
        self.lone: str | None = None
        self.only: tuple[str | int, ...] | None = None
        self.valid: ValidFn = _unfinished
        self.errors: ErrorsFn = _unfinished_errors
        self.track: TrackFn = _unfinished_track

    def __repr__(self) -> str:
        return f"<Node {self.uri}>"


_NO_BACK: frozenset[tuple[str | int, ...]] = frozenset()


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
    raise non_json(x)


def finite(x: float) -> bool:
    """A check on every float a schema looks at: NaN and infinities are not JSON."""
    if x - x == 0.0:
        return True
    raise non_json(x)


def type_matches(types: frozenset[str], x: Any) -> bool:
    kind = _JSON_OF.get(type(x)) or _JSON_OF[canonical_type(x)]
    if kind in types:
        return True
    if kind == "number" and "integer" in types:
        return isinstance(x, int) or float(x).is_integer()
    return False


@cache
def describe_types(types: frozenset[str]) -> str:
    # Cached: a type error names the same few sets over and over.
    names = sorted(types)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


# -- compile context ------------------------------------------------------------


@dataclass(slots=True)
class Options:
    format_assertion: bool = False
    content_assertion: bool = False
    limits: Limits = field(default_factory=Limits)
    formats: Mapping[str, Callable[[str], bool]] = field(default_factory=dict)


class SchemaContext:
    """What a keyword compiler sees: its schema object, its location, its compiler."""

    __slots__ = (
        "base",
        "children",
        "compiler",
        "dialect",
        "key",
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
        if keyword not in self.schema:
            return False
        vocab = self.compiler.vocabulary_of.get(keyword)
        return vocab is None or self.dialect.has(vocab)

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
        node = self.compiler.node(
            target.node,
            target.base,
            target.pointer,
            self.compiler.dialect_at(target),
            self.scope,
            self.tracking,
            self.key,
        )
        return self._child((keyword,), node)

    def resolve(self, reference: str, keyword: str) -> Target:
        uri = join(self.base, reference)
        return self.compiler.index.resolve(uri, self.pointer_to(keyword))

    def schema_error(self, message: str, *tokens: str | int) -> SchemaError:
        return SchemaError(message, location=self.pointer_to(*tokens))


_ENTRY_POINTS: (
    tuple[
        Callable[[Node, SchemaContext], None],
        Callable[[Node, bool], None],
        Mapping[str, str],
    ]
    | None
) = None


def _keyword_entry_points() -> tuple[
    Callable[[Node, SchemaContext], None], Callable[[Node, bool], None], Mapping[str, str]
]:
    """build_node, compile_boolean and VOCABULARY_OF of the keywords package, which
    imports this module: imported on first use, then kept (an import statement
    costs microseconds on every call)."""
    global _ENTRY_POINTS
    if _ENTRY_POINTS is None:
        from .keywords import VOCABULARY_OF, build_node
        from .keywords.core import compile_boolean

        _ENTRY_POINTS = (build_node, compile_boolean, VOCABULARY_OF)
    return _ENTRY_POINTS


class Compiler:
    """Compiles the schemas of one validator, sharing one index and node cache."""

    def __init__(self, index: Index, options: Options) -> None:
        self._build_node, self._compile_boolean, self.vocabulary_of = _keyword_entry_points()
        self.index = index
        # Both mutated in place as documents are indexed, never replaced.
        self._dynamic_names = index.dynamic_names
        self.options = options
        self._cache: dict[tuple[Any, ...], Node] = {}
        # Whether some edge closes a cycle (a node's ``back`` is not empty).
        self.cycles = False
        # In-place edges between nodes, to find reference loops that never consume
        # the instance (they would recurse forever at validation time).
        self._edges: dict[tuple[Any, ...], list[tuple[Any, ...]]] = {}
        self._where: dict[tuple[Any, ...], str] = {}
        self._dialects: dict[str, Dialect] = {}
        self.references = 0
        self.promoted = False
        # Whether some node memoises is_valid answers (see recursion.mark_fan_out).
        self.memoises = False
        # How many schema objects are being compiled, one inside the other.
        self._depth = 0
        # Shared by every closure of this validator; see guard.CallState.
        self.state = CallState()

    # -- dialects -----------------------------------------------------------

    def dialect_for(self, schema_uri: Any, location: str) -> Dialect:
        """The dialect a ``$schema`` value names, or UnsupportedCapability."""
        if not isinstance(schema_uri, str):
            raise SchemaError("$schema must be a URI string", location=location)
        if is_2020_12(schema_uri):
            return DEFAULT_DIALECT
        key = normalise(schema_uri)
        if key in OTHER_DRAFTS:
            raise UnsupportedCapability(
                f"$schema names {OTHER_DRAFTS[key]} ({schema_uri}); schemacore implements "
                "JSON Schema Draft 2020-12 only",
                location=location,
            )
        cached = self._dialects.get(key)
        if cached is not None:
            return cached
        try:
            meta = self.index.resource(key)
        except LookupError:
            raise UnsupportedCapability(
                f"$schema names an unknown dialect {schema_uri!r}: it is not Draft 2020-12 "
                "and no meta-schema for it was given in the registry",
                location=location,
            ) from None
        if not isinstance(meta, dict):
            raise UnsupportedCapability(
                f"the meta-schema {schema_uri!r} is not a schema object", location=location
            )
        if "$schema" in meta and normalise(str(meta["$schema"])) != key:
            # The meta-schema's own dialect must be one schemacore understands.
            self.dialect_for(meta["$schema"], location)
        dialect = self._vocabularies_of(meta, schema_uri, location)
        self._dialects[key] = dialect
        return dialect

    def _vocabularies_of(self, meta: dict[str, Any], uri: str, location: str) -> Dialect:
        declared = meta.get("$vocabulary")
        if declared is None:
            return DEFAULT_DIALECT
        if not isinstance(declared, dict):
            raise SchemaError(f"$vocabulary of {uri!r} must be an object", location=location)
        known = set(VOCAB.values())
        active = set()
        for vocabulary, required in declared.items():
            if vocabulary in known:
                active.add(vocabulary)
            elif required is True:
                raise UnsupportedCapability(
                    f"the meta-schema {uri!r} requires the vocabulary {vocabulary!r}, "
                    "which schemacore does not implement",
                    location=location,
                )
        return Dialect(frozenset(active))

    def dialect_at(self, target: Target) -> Dialect:
        """The dialect in force at a reference target."""
        declared = self.index.declared_schema.get(target.base)
        if declared is None:
            return DEFAULT_DIALECT
        return self.dialect_for(declared, target.pointer)

    # -- nodes --------------------------------------------------------------

    def node(
        self,
        value: Any,
        base: str,
        pointer: str,
        dialect: Dialect,
        scope: tuple[tuple[str, str], ...],
        tracking: bool,
        parent: tuple[Any, ...] | None,
    ) -> Node:
        """Compile (or find) the node for ``value``.

        ``parent`` is the key of the node applying ``value`` in place, if any: it
        records the in-place edge used to detect loops without progress.
        """
        if isinstance(value, dict):
            if "$id" in value:
                # The root of an embedded resource: its own base URI, as indexed at
                # this position (never looked up by the dict's identity).
                base, pointer = self.index.locate(base, pointer)
            if "$schema" in value:
                dialect = self.dialect_for(value["$schema"], pointer + "/$schema")
            # Always: a document loaded later may bring the $dynamicRef that needs it.
            if base in self._dynamic_names:
                scope = self._enter(scope, base)
            if (
                not tracking
                and ("unevaluatedProperties" in value or "unevaluatedItems" in value)
                and dialect.has("unevaluated")
            ):
                # Its own unevaluated* keyword needs its in-place subschemas to track.
                tracking = True
        elif not isinstance(value, bool):
            raise SchemaError(
                f"a schema must be an object or a boolean, not {type(value).__name__}",
                location=pointer,
            )
        # A node is keyed by where its schema is (one value may be at several places,
        # and False always is), never by the value's identity. Dialects are equal
        # when their vocabularies are: the frozenset stands for the dialect in the
        # key, as its hash is cached (the dataclass's is not).
        key = (base, pointer, dialect.vocabularies, scope, tracking)
        if parent is not None:
            self._edges.setdefault(parent, []).append(key)
        node = self._cache.get(key)
        if node is not None:
            return node
        limits = self.options.limits
        if len(self._cache) >= limits.max_subschemas:
            raise ExecutionFailure(
                f"the schema needs more than max_subschemas={limits.max_subschemas} "
                "compiled subschemas",
                location=pointer,
                limit="max_subschemas",
                value=limits.max_subschemas,
            )
        node = Node(f"{base}#{as_fragment(pointer)}")
        self._cache[key] = node
        self._where[key] = pointer
        if isinstance(value, bool):
            self._compile_boolean(node, value)
        else:
            context = SchemaContext(self, value, base, pointer, dialect, scope, tracking, key, node)
            node.context = context
            limit = limits.max_reference_depth
            self._depth += 1
            if self._depth > limit:
                raise ExecutionFailure(
                    f"subschemas and the references between them nest deeper than "
                    f"max_reference_depth={limit}",
                    location=pointer,
                    limit="max_reference_depth",
                    value=limit,
                )
            self._build_node(node, context)
            self._depth -= 1
            # Evaluation paths through the subschemas, cycles cut at their closing
            # edges: what one value can be checked against is at most this many,
            # which spares recursion.check_child_fan_out its work when it is small.
            back = node.back
            if back:
                paths = 1 + sum(
                    child.paths for tokens, child in node.children.items() if tokens not in back
                )
            else:
                paths = 1 + sum([child.paths for child in node.children.values()])
            node.paths = paths if paths < _MANY_PATHS else _MANY_PATHS
        node.ready = True
        return node

    @property
    def nodes(self) -> list[Node]:
        """Every node compiled, in the order compilation started them."""
        return list(self._cache.values())

    def promote(self) -> None:
        """Replace the closures' is_valid with generated code, once (see codegen)."""
        if not self.promoted:
            self.promoted = True
            from .codegen import promote

            promote(self.nodes)

    def count_reference(self, location: str) -> None:
        limit = self.options.limits.max_references
        self.references += 1
        if self.references > limit:
            raise ExecutionFailure(
                f"the schema needs more than max_references={limit} compiled references",
                location=location,
                limit="max_references",
                value=limit,
            )

    def _enter(
        self, scope: tuple[tuple[str, str], ...], resource: str
    ) -> tuple[tuple[str, str], ...]:
        """Enter a resource: bind its dynamic anchor names not bound further out."""
        names = self.index.dynamic_names.get(resource)
        if not names:
            return scope
        bound = {name for name, _ in scope}
        new = [(name, resource) for name in names if name not in bound]
        if not new:
            return scope
        return tuple(sorted((*scope, *new)))

    def check_progress(self) -> None:
        """Raise SchemaError if some in-place reference chain loops back on itself,
        ExecutionFailure if one value could be checked against too many subschemas
        in place."""
        if not self.cycles and self._cache:
            # Without a closing edge no chain can loop, and every in-place edge is a
            # child edge counted in Node.paths, so no value is checked in place
            # against more subschemas than the root's paths: when those are few
            # enough, neither walk below can find anything.
            root = next(iter(self._cache.values()))
            if root.paths <= self.options.limits.max_inplace_applications:
                return
        white, grey, black = 0, 1, 2
        colour: dict[tuple[Any, ...], int] = {}
        for start in self._edges:
            if colour.get(start, white) != white:
                continue
            colour[start] = grey
            stack = [(start, iter(self._edges.get(start, ())))]
            while stack:
                current, children = stack[-1]
                for child in children:
                    state = colour.get(child, white)
                    if state == grey:
                        raise SchemaError(
                            "reference loop without progress: the schema at "
                            f"{self._where.get(child, '')!r} applies itself to the same "
                            "instance location forever",
                            location=self._where.get(current, ""),
                        )
                    if state == white:
                        colour[child] = grey
                        stack.append((child, iter(self._edges.get(child, ()))))
                        break
                else:
                    colour[current] = black
                    stack.pop()
        self._check_fan_out()

    def _check_fan_out(self) -> None:
        """Bound how many subschemas one value can be applied to in place.

        References can share subschemas, so a handful of definitions that each apply
        the next one twice make an exponential number of applications to the same
        value; count them through the (now known to be acyclic) in-place edges.
        """
        limit = self.options.limits.max_inplace_applications
        count: dict[tuple[Any, ...], int] = {}
        for start in self._edges:
            if start in count:
                continue
            stack = [start]
            while stack:
                current = stack[-1]
                pending = [c for c in self._edges.get(current, ()) if c not in count]
                if pending:
                    stack.extend(pending)
                    continue
                stack.pop()
                if current in count:
                    continue
                total = 1 + sum(count[c] for c in self._edges.get(current, ()))
                count[current] = total
                if total > limit:
                    raise ExecutionFailure(
                        f"a value could be checked against more than "
                        f"max_inplace_applications={limit} subschemas in place (references "
                        "that apply shared subschemas several times multiply)",
                        location=self._where.get(current, ""),
                        limit="max_inplace_applications",
                        value=limit,
                    )
