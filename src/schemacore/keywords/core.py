"""Core vocabulary: boolean schemas, ``$ref`` and ``$dynamicRef``.

Both references are resolved while compiling. ``$ref`` is always static, even when
its fragment names a ``$dynamicAnchor``. ``$dynamicRef`` is dynamic only when its
initial target carries a ``$dynamicAnchor`` of the same name (the "bookend"); it then
jumps to the outermost resource of the dynamic scope that defines that anchor, which
the compiler knows because nodes are specialised per dynamic scope.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from ..ecma262 import PatternError, compile_pattern
from ..errors import ExecutionFailure, ValidationError
from ..guard import CallState, too_deep
from ..model import Evaluated, Keyword, Node, SchemaContext, make_error
from ..paths import Path, to_pointer
from ..resources import Target
from ..spec import Reach, Role, Shape, Spec

__all__ = [
    "ANCHOR",
    "COMMENT",
    "DEFINITIONS",
    "DEFS",
    "DYNAMIC_ANCHOR",
    "DYNAMIC_REF",
    "ID",
    "ID_04",
    "REF",
    "SCHEMA",
    "VOCABULARY",
    "call_errors",
    "call_track",
    "call_valid",
    "compile_boolean",
    "compile_ref",
    "count_repeat",
    "enter_loop",
    "leave_loop",
    "loop_failure",
    "memoised",
    "pattern_search",
    "recursion",
    "reference",
]


def _true(x: Any) -> bool:
    return True


def _false(x: Any) -> bool:
    return False


def _track_true(x: Any, acc: Evaluated) -> bool:
    return True


def _track_false(x: Any, acc: Evaluated) -> bool:
    return False


def _no_errors(x: Any, ipath: Path, kpath: Path) -> Iterator[ValidationError]:
    return iter(())


def pattern_search(ctx: SchemaContext, pattern: str, *tokens: str) -> Callable[[str], Any]:
    """The search function of a schema's ``pattern`` at ``tokens`` (its keyword, and
    for patternProperties the pattern), under the validator's limits: an invalid
    pattern is a SchemaError there."""
    limits = ctx.options.limits
    try:
        return compile_pattern(
            pattern,
            limits.regex_timeout,
            limits.max_pattern_input,
            ctx.location(*tokens),
            max_length=limits.max_pattern_length,
            pointer=ctx.pointer_to(*tokens),
        )
    except PatternError as exc:
        raise ctx.schema_error(str(exc), *tokens, reason="bad-regex") from None


def compile_boolean(node: Node, value: bool) -> None:
    """``true`` accepts everything; ``false`` rejects everything."""
    node.boolean = value
    if value:
        node.trivial = True
        node.valid, node.errors, node.track = _true, _no_errors, _track_true
        return
    node.boolean = value
    absolute = node.uri

    def errors(x: Any, ipath: Path, kpath: Path) -> Iterator[ValidationError]:
        yield make_error("false schema does not allow anything", "false", x, ipath, kpath, absolute)

    node.valid, node.errors, node.track = _false, errors, _track_false


# A node may still be under construction when a keyword binds it: it is then an
# ancestor, and the edge closes a cycle (every cycle of the schema has such an edge).
# These bind a finished node's closure directly, and call an unfinished one through
# the node (a reference cell) with the instance depth counted: only recursion can
# descend without bound, so this is the one place that needs to count it.


def call_valid(node: Node) -> Callable[[Any], bool]:
    if node.ready:
        return node.valid
    return recursion(node)[0]


def call_track(node: Node) -> Callable[[Any, Evaluated], bool]:
    if node.ready:
        return node.track
    return recursion(node)[2]


def call_errors(node: Node) -> Callable[[Any, Path, Path], Iterator[ValidationError]]:
    if node.ready:
        return node.errors
    return recursion(node)[1]


def reference(ctx: SchemaContext, name: str, target: Target) -> Keyword:
    """The compiled reference keyword ``name`` of ``ctx``, to its resolved ``target``."""
    ctx.compiler.count_reference(ctx.pointer_to(name))
    node = ctx.reference(target, name)
    if node.ready:
        valid = node.valid
        node_errors = node.errors
        track = node.track
    else:
        valid, node_errors, track = recursion(node, ctx.location(name))

    def errors(x: Any, ipath: Path, kpath: Path) -> Iterator[ValidationError]:
        return node_errors(x, ipath, (kpath, name))

    return Keyword(name, None, valid, errors, track=track if ctx.tracking else None, cost=50)


# Recursion this deep in one call is reason enough to write generated code.
_DEEP_ENOUGH = 32


def recursion(
    node: Node, where: str | None = None
) -> tuple[
    Callable[[Any], bool],
    Callable[[Any, Path, Path], Iterator[ValidationError]],
    Callable[[Any, Evaluated], bool],
]:
    """The three products of ``node`` called through an edge that closes a cycle:
    each level of recursion counts against max_instance_depth. ``where`` names the
    edge (a reference keyword) in a failure; the target's location by default."""
    ctx = node.context
    assert ctx is not None, "only schema objects can be unfinished"
    compiler = ctx.compiler
    state = compiler.state
    limit = ctx.options.limits.max_instance_depth
    location = where or node.uri

    def valid(x: Any) -> bool:
        depth = state.depth + 1
        if depth > limit:
            raise too_deep(limit, location)
        if depth == _DEEP_ENOUGH and not compiler.promoted:
            # Generated code takes fewer Python frames per level: switch to it now,
            # so deep instances reach max_instance_depth before Python's own limit.
            compiler.promote()
        state.depth = depth
        if node.loop:
            enter_loop(state, node, x, location)
        try:
            if node.memo:
                return memoised(state, node, x)
            return node.valid(x)
        finally:
            state.depth = depth - 1
            if node.loop:
                leave_loop(state, node, x)

    def track(x: Any, acc: Evaluated) -> bool:
        depth = state.depth + 1
        if depth > limit:
            raise too_deep(limit, location)
        state.depth = depth
        if node.loop:
            enter_loop(state, node, x, location)
        try:
            return node.track(x, acc)
        finally:
            state.depth = depth - 1
            if node.loop:
                leave_loop(state, node, x)

    def errors(x: Any, ipath: Path, kpath: Path) -> Iterator[ValidationError]:
        # The depth is the same count as valid()'s: edges closing a cycle, from
        # state.depth. Generators interleave with their consumer, so the count is
        # set while this level runs and put back whenever it yields, never left set
        # by a generator someone stopped reading.
        depth = state.depth + 1
        if depth > limit:
            raise too_deep(limit, location, to_pointer(ipath))
        if node.memo:
            count_repeat(node, x, ipath)
        # The same for the applications in progress of a node on a loop.
        saved = state.depth
        state.depth = depth
        if node.loop:
            enter_loop(state, node, x, location, ipath)
        try:
            inner = iter(node.errors(x, ipath, kpath))
            error = next(inner, None)
        finally:
            state.depth = saved
            if node.loop:
                leave_loop(state, node, x)
        while error is not None:
            yield error
            saved = state.depth
            state.depth = depth
            if node.loop:
                enter_loop(state, node, x, location, ipath)
            try:
                error = next(inner, None)
            finally:
                state.depth = saved
                if node.loop:
                    leave_loop(state, node, x)

    return valid, errors, track


def loop_failure(node: Node, location: str, ipath: Path | str = None) -> ExecutionFailure:
    """The failure of a call that runs a reference loop without progress."""
    return ExecutionFailure(
        f"reference loop without progress: the schema at {node.uri!r} applies itself "
        "to the same instance location again, and would forever",
        location=ipath if isinstance(ipath, str) else to_pointer(ipath),
        schema_location=location,
        limit="reference_loop",
        reason="reference-loop",
    )


def enter_loop(state: CallState, node: Node, x: Any, location: str, ipath: Path = None) -> None:
    """Record an application of a node on a loop without progress (Node.loop) to
    ``x``; meeting one in progress again means the loop is running: validation is
    deterministic, so the same node on the same value would loop forever."""
    running = state.running
    if running is None:
        running = state.running = set()
    key = (id(node), id(x))
    if key in running:
        raise loop_failure(node, location, ipath)
    running.add(key)


def leave_loop(state: CallState, node: Node, x: Any) -> None:
    if state.running is not None:
        state.running.discard((id(node), id(x)))


def count_repeat(node: Node, x: Any, ipath: Path | str) -> None:
    """Count an application of a memoising node on the error or evaluation path.

    Those paths cannot share results (each report has its own locations), and what
    they report doubles with each level where the schema applies itself to a child
    twice: repeated applications count against max_inplace_applications.
    """
    ctx = node.context
    assert ctx is not None
    state = ctx.compiler.state
    applied = state.applied
    if applied is None:
        applied = state.applied = {}
    key = (id(node), id(x))
    if key not in applied:
        applied[key] = x  # kept alive: its id stays its own during the call
        return
    state.repeats += 1
    limit = ctx.options.limits.max_inplace_applications
    if state.repeats > limit:
        raise ExecutionFailure(
            f"validation applied recursive subschemas to values they had already been "
            f"applied to more than max_inplace_applications={limit} times (a schema that "
            f"applies itself to a child more than once reports exponentially many errors)",
            location=ipath if isinstance(ipath, str) else to_pointer(ipath),
            schema_location=node.uri,
            limit="max_inplace_applications",
            value=limit,
        )


def memoised(state: CallState, node: Node, x: Any) -> bool:
    """``node.valid(x)``, computed once per value in one validation call.

    For the targets of cycles that can apply them to one value more than once
    (``{"items": {"$ref": "#"}, "contains": {"$ref": "#"}}``), which would otherwise
    take time exponential in the depth of the instance. A node's answer depends only
    on the value: dynamic scope is resolved at compile time. The entry keeps ``x``
    alive, so its id cannot be reused by another value during the call.
    """
    memo = state.memo
    if memo is None:
        memo = state.memo = {}
    key = (id(node), id(x))
    hit = memo.get(key)
    if hit is not None:
        return hit[1]
    result = node.valid(x)
    memo[key] = (x, result)
    return result


def compile_ref(ctx: SchemaContext, value: Any) -> Keyword:
    if not isinstance(value, str):
        raise ctx.schema_error("$ref must be a string", "$ref")
    return reference(ctx, "$ref", ctx.resolve(value, "$ref"))


def compile_dynamic_ref(ctx: SchemaContext, value: Any) -> Keyword:
    if not isinstance(value, str):
        raise ctx.schema_error("$dynamicRef must be a string", "$dynamicRef")
    initial = ctx.resolve(value, "$dynamicRef")
    _, _, fragment = value.partition("#")
    target = initial
    is_anchor = fragment != "" and not fragment.startswith("/")
    if (
        is_anchor
        and isinstance(initial.node, dict)
        and initial.node.get("$dynamicAnchor") == fragment
    ):
        # The scope binds each anchor name once, to the outermost resource defining it.
        for name, resource in ctx.scope:
            if name == fragment:
                target = ctx.compiler.index.dynamic_anchors[(resource, name)]
                break
    return reference(ctx, "$dynamicRef", target)


REF = Spec("$ref", compile_ref, Role.APPLICATOR, reach=Reach.ALWAYS, reference=True)
DYNAMIC_REF = Spec(
    "$dynamicRef", compile_dynamic_ref, Role.APPLICATOR, reach=Reach.ALWAYS, reference=True
)


def _silent(name: str) -> Spec:
    """A keyword the resource index (or the compiler) reads: no run-time work."""
    return Spec(name, None, Role.SILENT)


ID = _silent("$id")
ID_04 = _silent("id")
SCHEMA = _silent("$schema")
ANCHOR = _silent("$anchor")
DYNAMIC_ANCHOR = _silent("$dynamicAnchor")
VOCABULARY = _silent("$vocabulary")
COMMENT = _silent("$comment")
DEFS = Spec("$defs", None, Role.SILENT, None, Shape.MAP, Reach.UNAPPLIED)
# The drafts before 2019-09 keep their subschemas for references here; later drafts'
# meta-schemas still reserve it, and real schemas keep using it.
DEFINITIONS = Spec("definitions", None, Role.SILENT, None, Shape.MAP, Reach.UNAPPLIED)
