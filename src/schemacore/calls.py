"""Calling a compiled node from a keyword: directly when it is finished, through a
counting cell when the edge closes a cycle.

Shared by the keyword closures (``schemacore.keywords``), the code generator and the
evaluation walk, so every tier counts recursion, memoises and fails closed on a
reference loop the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from .errors import ExecutionFailure, ValidationError
from .guard import CallState, too_deep
from .model import Evaluated, Node, SchemaContext
from .paths import Path, to_pointer

if TYPE_CHECKING:
    from .compiler import Compiler

__all__ = [
    "call_errors",
    "call_track",
    "call_valid",
    "count_repeat",
    "enter_loop",
    "entered",
    "expired",
    "foreign",
    "leave_loop",
    "loop_failure",
    "memoised",
    "recursion",
]


# A node may still be under construction when a keyword binds it: it is then an
# ancestor, and the edge closes a cycle (every cycle of the schema has such an edge).
# These bind a finished node's closure directly, and call an unfinished one through
# the node (a reference cell) with the instance depth counted: only recursion can
# descend without bound, so this is the one place that needs to count it.


def call_valid(node: Node) -> Callable[[Any], bool]:
    if node.ready:
        return node.valid
    return recursion(node)[0]


_NO_TYPES: frozenset[type] = frozenset()


def passing(node: Node) -> frozenset[type]:
    """The Python types whose values the fast path of ``node`` accepts without any
    check (``Node.passes``), for a parent that answers those in line and calls
    ``call_valid(node)`` for the rest; none for a node still being compiled (a
    cycle) or whose fast path is wrapped (a deadline to check)."""
    if not node.ready or node.valid is not node.closure_valid:
        return _NO_TYPES
    return node.passes


def call_track(node: Node) -> Callable[[Any, Evaluated], bool]:
    if node.ready:
        return node.track
    return recursion(node)[2]


def call_errors(node: Node) -> Callable[[Any, Path, Path], Iterator[ValidationError]]:
    if node.ready:
        return node.errors
    return recursion(node)[1]


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
    states = compiler.states
    limit = ctx.options.limits.max_instance_depth
    location = where or node.uri

    def valid(x: Any) -> bool:
        state = states.now
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
        state = states.now
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
        state = states.now
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
            state = states.now  # the thread reading on
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


def foreign(node: Node, compiler: Compiler) -> bool:
    """Whether ``node`` was compiled by another compiler than ``compiler``: the root
    of a shared meta-schema compile (Compiler.shared_root)."""
    ctx = node.context
    return ctx is not None and ctx.compiler is not compiler


def entered(
    node: Node, ctx: SchemaContext
) -> tuple[
    Callable[[Any], bool],
    Callable[[Any, Path, Path], Iterator[ValidationError]],
    Callable[[Any, Evaluated], bool],
]:
    """The three products of a node of another compile (see :func:`foreign`), called
    from ``ctx``'s with this call's instance depth carried into the other compile's
    own count: recursion through both counts against max_instance_depth as one.
    Each reads the node's products when called (its compile may write code later)."""
    target = node.context
    assert target is not None
    outer_states = ctx.compiler.states
    inner_states = target.compiler.states

    def valid(x: Any) -> bool:
        inner = inner_states.now
        saved = inner.depth
        inner.depth = outer_states.now.depth
        try:
            return node.valid(x)
        finally:
            inner.depth = saved

    def track(x: Any, acc: Evaluated) -> bool:
        inner = inner_states.now
        saved = inner.depth
        inner.depth = outer_states.now.depth
        try:
            return node.track(x, acc)
        finally:
            inner.depth = saved

    def errors(x: Any, ipath: Path, kpath: Path) -> Iterator[ValidationError]:
        # Set while the other compile's errors run, put back whenever one is yielded
        # (generators interleave with their consumer), as recursion() does.
        depth = outer_states.now.depth
        inner = inner_states.now
        saved = inner.depth
        inner.depth = depth
        try:
            found = iter(node.errors(x, ipath, kpath))
            error = next(found, None)
        finally:
            inner.depth = saved
        while error is not None:
            yield error
            inner = inner_states.now
            saved = inner.depth
            inner.depth = depth
            try:
                error = next(found, None)
            finally:
                inner.depth = saved

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


def expired(ctx: SchemaContext) -> ExecutionFailure:
    """The failure for a validation call that ran out of its time budget at ``ctx``."""
    budget = ctx.options.limits.time_budget
    return ExecutionFailure(
        f"validation took longer than time_budget={budget} s",
        schema_location=ctx.location(),
        limit="time_budget",
        value=budget,
    )
