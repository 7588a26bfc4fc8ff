"""Keyword compilers, one module per vocabulary, and the node builder that fuses them.

Each keyword compiler takes the :class:`~schemacore.compiler.SchemaContext` of its
schema object and the keyword's value, and returns a
:class:`~schemacore.compiler.Keyword` (or None when the keyword needs no run-time
work, such as annotations or a ``then`` without ``if``). :func:`build_node` then
groups the keywords by the JSON type they apply to, orders them cheapest first,
and builds the node's three closures.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from decimal import Decimal
from operator import attrgetter, itemgetter
from time import monotonic
from typing import Any

from ..calls import call_valid, expired, foreign
from ..display import show
from ..errors import ExecutionFailure, ValidationError
from ..guard import non_json
from ..jsonvalue import decimal_integral, type_name
from ..model import (
    _JSON_OF,
    _PY_TYPES,
    Evaluated,
    Keyword,
    Node,
    SchemaContext,
    canonical_type,
    describe_types,
    finite,
    finite_decimal,
    make_error,
)
from ..paths import Path, to_pointer
from . import applicator, unevaluated, validation

__all__ = ["build_node", "expired", "shared_leaf"]

# Keywords that may stand for their whole schema object when they are its only one:
# their subschemas check every value themselves (floats included). Not "not": a
# subschema that rejects a NaN would make "not" accept it.
_BRANCHES = (applicator.ALL_OF, applicator.ANY_OF, applicator.ONE_OF)


def _passes_through(keyword: Keyword) -> bool:
    spec = keyword.spec
    return spec is not None and (spec.reference or spec in _BRANCHES)


def _always_true(x: Any) -> bool:
    return True


def _no_errors(x: Any, ipath: Path, kpath: Path) -> Iterator[ValidationError]:
    return iter(())


def _track_nothing(x: Any, acc: Evaluated) -> bool:
    return True


def _is_integral(x: Any) -> bool:
    return bool(x.is_integer())


def _no_float(x: Any) -> bool:
    """Draft-04's "integer": a float is never one, whatever its fraction."""
    return False


def build_node(node: Node, ctx: SchemaContext) -> None:
    """Compile every active keyword of ``ctx.schema`` and fuse them into ``node``."""
    dialect = ctx.dialect
    compilers = dialect.compilers
    if compilers.keys().isdisjoint(ctx.schema):
        # No keyword to compile but perhaps "type" (annotations are read from the
        # schema object): most subschemas of real schemas are such leaves.
        _build_leaf(node, ctx)
        return
    keywords: list[Keyword] = []
    types: frozenset[str] | None = None
    members: Any = ctx.schema.items()
    if dialect.ref_alone and "$ref" in ctx.schema:
        # Before 2019-09, "$ref" stands alone: its siblings are ignored.
        members = (("$ref", ctx.schema["$ref"]),)
    for name, value in members:
        entry = compilers.get(name)
        if entry is None:
            if name == "type" and dialect.active.get(name) is validation.TYPE:
                types = validation.parse_types(ctx, value)
            continue
        spec, compile = entry
        keyword = compile(ctx, value)
        if keyword is not None:
            keyword.spec = spec
            keywords.append(keyword)
    if not _UNEVALUATED.isdisjoint(ctx.schema):
        # Only unevaluated* keywords take what their siblings evaluated.
        for index, keyword in enumerate(keywords):
            if keyword.errors_given is not None:
                folded = unevaluated.fold(node, ctx, keyword)
                if folded is not None:
                    folded.spec = keyword.spec
                    keywords[index] = folded
    keywords.sort(key=_COST)
    node.types = types
    # Before the checks of no keyword of their own (finiteness, "integer") join them.
    node.keywords = {k.name: k for k in keywords}
    if types is not None and "integer" in types and "number" not in types:
        keywords.insert(0, _integer_check(ctx, types))
    if keywords or types is not None:
        keywords.insert(0, _FINITE)
    _fuse(node, ctx, keywords, types)
    if ctx.compiler.options.limits.time_budget is not None:
        _add_deadline(node, ctx)


_COST = attrgetter("cost")
# The keywords whose errors take what their siblings evaluated (Keyword.errors_given).
_UNEVALUATED = frozenset({"unevaluatedProperties", "unevaluatedItems"})

# The fast path and type table of a leaf, by its type names and whether the dialect
# counts 1.0 as an integer: shared by every leaf of that kind (at most 2 x 2**7).
_Leaf = tuple[
    Callable[[Any], bool], dict[type, Any], Callable[[Any, Evaluated], bool], frozenset[type]
]
_LEAVES: dict[tuple[frozenset[str], bool], _Leaf] = {}


def shared_leaf(types: frozenset[str], float_integers: bool) -> _Leaf:
    """The fast path, type table, ``track`` and passing types every leaf whose only
    keyword is ``"type": types`` shares (made on first use)."""
    shared = _LEAVES.get((types, float_integers))
    if shared is None:
        keywords = _FINITE_ONLY
        if "integer" in types and "number" not in types:
            check = _integral_check(float_integers)
            keywords = [_FINITE, Keyword("type", "float", check, _no_errors, cost=0)]
        valid_table = _valid_table(keywords, types)
        valid = _table_valid(valid_table)
        passes = frozenset([kind for kind, checks in valid_table.items() if checks == ()])
        # Nothing to record: tracking or not, track is the check.
        shared = _LEAVES[(types, float_integers)] = (valid, valid_table, _AsTrack(valid), passes)
    return shared


def _build_leaf(node: Node, ctx: SchemaContext) -> None:
    """:func:`build_node` for a schema object whose only keyword is ``type``, if any:
    what the general path builds, with the fast path shared between such leaves."""
    schema = ctx.schema
    dialect = ctx.dialect
    types = None
    if "type" in schema and dialect.active.get("type") is validation.TYPE:
        types = validation.parse_types(ctx, schema["type"])
    if types is None:
        _fuse(node, ctx, [], None)
    else:
        keywords = _FINITE_ONLY
        if "integer" in types and "number" not in types:
            keywords = [_FINITE, _integer_check(ctx, types)]
        valid, valid_table, node.track, node.passes = shared_leaf(types, dialect.float_integers)
        node.types = types
        node.errors = _Fused(node, ctx, keywords, types, (), valid, valid_table)
        node.closure_valid = node.valid = valid
        node.inline_ok = True
    if ctx.compiler.options.limits.time_budget is not None:
        _add_deadline(node, ctx)


def _finite_errors(x: Any, ipath: Path, kpath: Path) -> Iterator[ValidationError]:
    if (not Decimal.is_finite(x)) if isinstance(x, Decimal) else x - x != 0.0:
        raise non_json(x, ipath)
    return iter(())


def _finite_then_false(x: Any) -> bool:
    """A float the type keyword rejects is still refused first if it is not JSON."""
    finite(x)
    return False


def _finite_decimal_then_false(x: Any) -> bool:
    finite_decimal(x)
    return False


# Every float a schema constrains is checked first: NaN and infinities are not JSON
# and would otherwise slip through comparisons that are all False.
_FINITE = Keyword("finite", "float", finite, _finite_errors, cost=0)
# The keywords of a leaf whose type needs no integer check (shared, never mutated).
_FINITE_ONLY: list[Keyword] = [_FINITE]


def _add_deadline(node: Node, ctx: SchemaContext) -> None:
    """Wrap the node so that each entry checks the call's deadline."""
    states = ctx.compiler.states
    inner_valid, inner_errors, inner_track = node.valid, node.errors, node.track

    def valid(x: Any) -> bool:
        if monotonic() > states.now.deadline:
            raise expired(ctx)
        return inner_valid(x)

    def errors(x: Any, ipath: Path, kpath: Path) -> Iterator[ValidationError]:
        if monotonic() > states.now.deadline:
            raise expired(ctx)
        return inner_errors(x, ipath, kpath)

    def track(x: Any, acc: Evaluated) -> bool:
        if monotonic() > states.now.deadline:
            raise expired(ctx)
        return inner_track(x, acc)

    node.valid, node.errors, node.track = valid, errors, track


def _integral_check(float_integers: bool) -> Callable[[Any], bool]:
    """The float check of "integer": 1.0 is one in every draft but draft-04."""
    return _is_integral if float_integers else _no_float


def _integer_check(ctx: SchemaContext, types: frozenset[str]) -> Keyword:
    """Checks only floats, and only when "integer" is allowed but "number" is not."""
    check = _integral_check(ctx.dialect.float_integers)
    decimal_check = decimal_integral if check is _is_integral else check

    def errors(x: Any, ipath: Path, kpath: Path) -> Iterator[ValidationError]:
        if not (decimal_check if isinstance(x, Decimal) else check)(x):
            # The location and the message are only worked out for an error.
            yield make_error(
                f"{show(x)} is not of type {describe_types(types)}",
                "type",
                x,
                ipath,
                (kpath, "type"),
                ctx.location("type"),
                params={"type": sorted(types), "actual": "number"},
            )

    return Keyword("type", "float", check, errors, cost=0)


# The ``applies_to`` values of the keywords that apply to each Python type (a
# Decimal takes the float-only checks, see _decimal_checks).
_ACCEPTS: dict[type, frozenset[str | None]] = {
    py_type: frozenset(
        {None, _JSON_OF[py_type], *(("float",) if py_type in (float, Decimal) else ())}
    )
    for py_type in _PY_TYPES
}

# Table entries shared by every node: they hold no closures of their own.
_REJECT_FLOAT: tuple[Callable[[Any], bool], ...] = (_finite_then_false,)
_ONLY_FINITE: tuple[Callable[[Any], bool], ...] = (finite,)
_REJECT_FLOAT_TRACK: tuple[tuple[Any, ...], tuple[Any, ...]] = (_REJECT_FLOAT, ())
_REJECT_DECIMAL: tuple[Callable[[Any], bool], ...] = (_finite_decimal_then_false,)
_ONLY_FINITE_DECIMAL: tuple[Callable[[Any], bool], ...] = (finite_decimal,)
_REJECT_DECIMAL_TRACK: tuple[tuple[Any, ...], tuple[Any, ...]] = (_REJECT_DECIMAL, ())
_REJECTED = {float: _REJECT_FLOAT, Decimal: _REJECT_DECIMAL}
_REJECTED_TRACK = {float: _REJECT_FLOAT_TRACK, Decimal: _REJECT_DECIMAL_TRACK}


_FOR_DECIMAL: dict[int, Callable[[Any], bool]] = {
    id(finite): finite_decimal,
    id(_is_integral): decimal_integral,
}


def _decimal_checks(checks: tuple[Callable[[Any], bool], ...]) -> tuple[Any, ...]:
    """A float's checks as a Decimal runs them: its own finiteness and integer tests
    (a float's would do Decimal arithmetic, which the thread's context may trap)."""
    if checks == _ONLY_FINITE:
        return _ONLY_FINITE_DECIMAL
    return tuple([_FOR_DECIMAL.get(id(check), check) for check in checks])


def _type_ok(py_type: type, types: frozenset[str] | None) -> bool:
    """Whether the type keyword (``types``, None when absent) allows ``py_type``."""
    if types is None:
        return True
    json_type = _JSON_OF[py_type]
    return json_type in types or (json_type == "number" and "integer" in types)


# A valid table's layout, by the type keyword's types and the ``applies_to`` of the
# node's keywords in order: its entries that hold no checks of the node (None, (),
# _REJECT_FLOAT), and for each distinct set of keyword positions the Python types
# whose entry holds those keywords' checks. Few shapes exist; the cache is bounded
# anyway, as its keys come from the schemas compiled.
_Pick = Callable[[list[Any]], tuple[Any, ...]]
_Layout = tuple[dict[type, Any], tuple[tuple[_Pick, tuple[type, ...], bool], ...]]
_LAYOUTS: dict[tuple[frozenset[str] | None, tuple[str | None, ...]], _Layout] = {}
_MAX_LAYOUTS = 4096


def _layout(types: frozenset[str] | None, shape: tuple[str | None, ...]) -> _Layout:
    fixed: dict[type, Any] = {}
    groups: dict[tuple[int, ...], list[type]] = {}
    for py_type in _PY_TYPES:
        if not _type_ok(py_type, types):
            fixed[py_type] = _REJECTED.get(py_type)
            continue
        accepts = _ACCEPTS[py_type]
        positions = tuple([i for i, applies_to in enumerate(shape) if applies_to in accepts])
        if positions:
            groups.setdefault(positions, []).append(py_type)
        else:
            fixed[py_type] = ()
    layout = (
        fixed,
        tuple(
            (
                _picker(positions),
                tuple([kind for kind in kinds if kind is not Decimal]),
                Decimal in kinds,
            )
            for positions, kinds in groups.items()
        ),
    )
    if len(_LAYOUTS) >= _MAX_LAYOUTS:
        _LAYOUTS.clear()
    _LAYOUTS[(types, shape)] = layout
    return layout


def _valid_table(plain: list[Keyword], types: frozenset[str] | None) -> dict[type, Any]:
    """Per Python type: the tuple of checks that apply, in cost order, or None where
    the type keyword rejects that type. Types with the same checks share one tuple,
    and a type with none gets the empty tuple: fewer objects for the garbage
    collector to visit."""
    shape = tuple([k.applies_to for k in plain])
    layout = _LAYOUTS.get((types, shape)) or _layout(types, shape)
    fixed, groups = layout
    table = fixed.copy()
    valids = [k.valid for k in plain]
    for pick, kinds, decimal in groups:
        checks = pick(valids)
        if checks == _ONLY_FINITE:
            checks = _ONLY_FINITE
        for py_type in kinds:
            table[py_type] = checks
        if decimal:
            table[Decimal] = _decimal_checks(checks)
    return table


def _picker(positions: tuple[int, ...]) -> _Pick:
    """The checks at ``positions`` of a node's list of checks, as a tuple."""
    if len(positions) == 1:
        (only,) = positions
        return lambda valids: (valids[only],)
    return itemgetter(*positions)


class _Fused:
    """The error path of a node that dispatches on the type of its value: the node's
    ``errors`` is this object itself (called, it is :meth:`errors`), not one more
    bound method per node for the garbage collector to visit.

    Errors are rare next to compiles, so their per-type table is built on first use.
    Validators are shared between threads: two threads may both build it, which is
    harmless, as both build the same table and one assignment publishes it whole.
    """

    __slots__ = (
        "_errors_table",
        "ctx",
        "given",
        "keywords",
        "node",
        "types",
        "valid",
        "valid_table",
    )

    def __init__(
        self,
        node: Node,
        ctx: SchemaContext,
        keywords: list[Keyword],
        types: frozenset[str] | None,
        given: tuple[Keyword, ...],
        valid: Callable[[Any], bool],
        valid_table: dict[type, Any],
    ) -> None:
        self.node = node
        self.ctx = ctx
        self.keywords = keywords
        self.types = types
        self.given = given
        self.valid = valid
        self.valid_table = valid_table
        self._errors_table: dict[type, tuple[bool, tuple[Keyword, ...]]] | None = None

    def __call__(self, x: Any, ipath: Path, kpath: Path) -> Iterator[ValidationError]:
        return self.errors(x, ipath, kpath)

    def _build_errors_table(self) -> dict[type, tuple[bool, tuple[Keyword, ...]]]:
        plain = [k for k in self.keywords if k.errors_given is None]
        only_untyped = tuple([k for k in plain if k.applies_to is None])
        table: dict[type, tuple[bool, tuple[Keyword, ...]]] = {}
        for py_type in _PY_TYPES:
            if _type_ok(py_type, self.types):
                accepts = _ACCEPTS[py_type]
                table[py_type] = (True, tuple([k for k in plain if k.applies_to in accepts]))
            else:
                table[py_type] = (False, only_untyped)
        self._errors_table = table
        return table

    def errors(self, x: Any, ipath: Path, kpath: Path) -> Iterator[ValidationError]:
        # The fast path first: a valid subtree has no errors to look for, so the
        # error walk only goes down where something failed.
        unresolved = None
        try:
            if self.node.valid(x):
                return iter(())
        except ExecutionFailure as exc:
            # A value outside the JSON data model, or a reference compiled to fail
            # (defer_unresolved): the walk below meets it again and knows where it
            # is. Anything else is raised as it is.
            if exc.limit != "json_data_model":
                if exc.reason != "unresolvable-reference":
                    raise
                unresolved = exc
        try:
            walk = self._walk(x, ipath, kpath)
        except ExecutionFailure as exc:
            exc.location = exc.location or to_pointer(ipath)
            raise
        return walk if unresolved is None else _failing_after(walk, unresolved)

    def _walk(self, x: Any, ipath: Path, kpath: Path) -> Iterator[ValidationError]:
        try:
            kind = type(x)
            if kind not in self.valid_table:
                kind = canonical_type(x)
        except ExecutionFailure as exc:
            exc.location = exc.location or to_pointer(ipath)
            raise
        if (kind is float and x - x != 0.0) or (kind is Decimal and not Decimal.is_finite(x)):
            raise non_json(x, ipath)
        table = self._errors_table or self._build_errors_table()
        type_ok, applicable = table[kind]
        if type_ok and not self.given:
            # No generator of its own when one keyword applies: a frame less per
            # level of a recursive schema's error path.
            if not applicable:
                return iter(())
            if len(applicable) == 1:
                return applicable[0].errors(x, ipath, kpath)
        return self._all_errors(x, ipath, kpath, kind, type_ok, applicable)

    def _all_errors(
        self,
        x: Any,
        ipath: Path,
        kpath: Path,
        kind: type,
        type_ok: bool,
        applicable: tuple[Keyword, ...],
    ) -> Iterator[ValidationError]:
        if not type_ok:
            assert self.types is not None  # only the type keyword rejects a type
            yield make_error(
                f"{type_name(x)} is not of type {describe_types(self.types)}",
                "type",
                x,
                ipath,
                (kpath, "type"),
                self.ctx.location("type"),
                params={"type": sorted(self.types), "actual": _JSON_OF[kind]},
            )
        for keyword in applicable:
            yield from keyword.errors(x, ipath, kpath)
        given = self.given
        if given and type_ok:
            acc = Evaluated()
            for keyword in applicable:
                if keyword.track is not None:
                    keyword.track(x, acc)
            for keyword in given:
                if keyword.applies_to == _JSON_OF[kind] and keyword.errors_given is not None:
                    yield from keyword.errors_given(x, acc, ipath, kpath)


def _failing_after(
    walk: Iterator[ValidationError], failure: ExecutionFailure
) -> Iterator[ValidationError]:
    """``walk``, then ``failure`` if the walk did not raise it again: the fast path
    met it, so the errors can never be complete."""
    yield from walk
    raise failure


def _table_track(
    track_table: dict[type, Any], valid_table: dict[type, Any]
) -> Callable[[Any, Evaluated], bool]:
    """``track`` of a fused node: its checks, then the keywords that record what
    they evaluated into ``acc``."""

    def track(x: Any, acc: Evaluated) -> bool:
        kind = type(x)
        entry = track_table[kind if kind in valid_table else canonical_type(x)]
        if entry is None:
            return False
        checks, trackers = entry
        for check in checks:
            if not check(x):
                return False
        for tracker in trackers:
            if not tracker(x, acc):
                return False
        return True

    return track


class _AsTrack:
    """``track`` for a node that records nothing: its check alone (one object costs
    the garbage collector less than a closure)."""

    __slots__ = ("valid",)

    def __init__(self, valid: Callable[[Any], bool]) -> None:
        self.valid = valid

    def __call__(self, x: Any, acc: Evaluated) -> bool:
        return self.valid(x)


def _fuse(
    node: Node, ctx: SchemaContext, keywords: list[Keyword], types: frozenset[str] | None
) -> None:
    given = tuple([k for k in keywords if k.errors_given is not None])
    tracking = ctx.tracking or bool(given)
    # Without a type keyword, _FINITE is there only with other keywords.
    if types is None and not keywords:
        node.trivial = True
        node.valid = _always_true
        node.errors = _no_errors
        node.track = _track_nothing
        return
    if types is None and not given:
        rest = [k for k in keywords if k is not _FINITE]
        if len(rest) == 1 and _passes_through(rest[0]):
            _pass_through(node, ctx, rest[0], tracking)
            return

    plain = [k for k in keywords if k.errors_given is None] if given else keywords
    valid_table = _valid_table(plain, types)
    track: Callable[[Any, Evaluated], bool]
    valid: Callable[[Any], bool]

    if given:
        track_table = _track_table(plain, given, types)

        def lookup(x: Any) -> type:
            kind = type(x)
            return kind if kind in valid_table else canonical_type(x)

        shared_track = _table_track(track_table, valid_table)

        def fresh_track(x: Any, acc: Evaluated) -> bool:
            # unevaluated* sees only what this schema evaluated, not its parent's
            # siblings: evaluate into a fresh record, then report it upwards.
            own = Evaluated()
            if not shared_track(x, own):
                return False
            acc.merge(own)
            return True

        track = fresh_track

        def valid(x: Any) -> bool:
            # The body of track() again, so recursion costs one frame less a level.
            entry = track_table[lookup(x)]
            if entry is None:
                return False
            checks, trackers = entry
            for check in checks:
                if not check(x):
                    return False
            acc = Evaluated()
            for tracker in trackers:
                if not tracker(x, acc):
                    return False
            return True

    else:
        valid = _table_valid(valid_table)
        if tracking:
            track = _table_track(_track_table(plain, given, types), valid_table)

    node.errors = _Fused(node, ctx, keywords, types, given, valid, valid_table)
    node.track = track if tracking else _AsTrack(valid)
    node.closure_valid = valid
    node.valid = valid
    node.inline_ok = not given


_MISSING: Any = object()


def _table_valid(valid_table: dict[type, Any]) -> Callable[[Any], bool]:
    """The fast path of a node that records nothing: its checks for the value's type."""

    def valid(x: Any) -> bool:
        checks = valid_table.get(type(x), _MISSING)
        if checks is _MISSING:
            checks = valid_table[canonical_type(x)]
        if checks is None:
            return False
        for check in checks:
            if not check(x):
                return False
        return True

    return valid


def _track_table(
    plain: list[Keyword], given: tuple[Keyword, ...], types: frozenset[str] | None
) -> dict[type, tuple[tuple[Any, ...], tuple[Any, ...]] | None]:
    """Per Python type: the checks that record nothing and the trackers (its own,
    then unevaluated*) of a tracking node, or None where the type is rejected."""
    table: dict[type, tuple[tuple[Any, ...], tuple[Any, ...]] | None] = {}
    for py_type in _PY_TYPES:
        if not _type_ok(py_type, types):
            table[py_type] = _REJECTED_TRACK.get(py_type)
            continue
        accepts = _ACCEPTS[py_type]
        json_type = _JSON_OF[py_type]
        applicable = [k for k in plain if k.applies_to in accepts]
        trackers = tuple(k.track for k in applicable if k.track is not None)
        checks = tuple(k.valid for k in applicable if k.track is None)
        if py_type is Decimal:
            checks = _decimal_checks(checks)
        uneval = tuple(k.track for k in given if k.applies_to == json_type and k.track)
        table[py_type] = (checks, trackers + uneval)
    return table


def _pass_through(node: Node, ctx: SchemaContext, only: Keyword, tracking: bool) -> None:
    """A lone keyword that applies to every type (typically {"$ref": ...}) is the
    node: no dispatch, and one Python frame less per level of recursion. Its target
    checks floats itself."""
    node.lone = only.name
    valid = only.valid
    tokens: tuple[str | int, ...] = (only.name,)
    if only.spec is not None and not only.spec.reference and len(ctx.schema[only.name]) == 1:
        # One branch of allOf, anyOf or oneOf answers for them (not so their errors).
        tokens = (only.name, 0)
    target = ctx.children.get(tokens)
    if target is not None and not foreign(target, ctx.compiler):
        # (A shared meta-schema is called through its keyword, which carries the
        # instance depth into its compile: see calls.entered.)
        node.only = tokens
        if target.ready:
            node.alias = target
            valid = target.valid
        elif len(tokens) == 2:
            valid = call_valid(target)
    node.valid = node.closure_valid = valid
    node.errors = only.errors
    node.track = only.track if tracking and only.track is not None else _AsTrack(only.valid)
    # Generated code writes the keyword alone, without a type dispatch.
    node.inline_ok = True
