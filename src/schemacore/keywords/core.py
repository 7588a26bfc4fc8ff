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

from ..compiler import Evaluated, Keyword, Node, SchemaContext, make_error
from ..errors import ValidationError
from ..guard import too_deep
from ..paths import Path, to_pointer
from ..resources import Target

__all__ = ["call_errors", "call_track", "call_valid", "compile_boolean", "compile_ref"]


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


# A node may still be under construction when a recursive reference reaches it;
# these bind its finished closure directly when they can, and call through the node
# (a reference cell) when they cannot.


def call_valid(node: Node) -> Callable[[Any], bool]:
    if node.ready:
        return node.valid

    def valid(x: Any) -> bool:
        return node.valid(x)

    return valid


def call_track(node: Node) -> Callable[[Any, Evaluated], bool]:
    if node.ready:
        return node.track

    def track(x: Any, acc: Evaluated) -> bool:
        return node.track(x, acc)

    return track


def call_errors(node: Node) -> Callable[[Any, Path, Path], Iterator[ValidationError]]:
    if node.ready:
        return node.errors

    def errors(x: Any, ipath: Path, kpath: Path) -> Iterator[ValidationError]:
        return node.errors(x, ipath, kpath)

    return errors


def _reference(ctx: SchemaContext, name: str, target: Target) -> Keyword:
    ctx.compiler.count_reference(ctx.pointer_to(name))
    node = ctx.reference(target, name)
    if node.ready:
        valid = node.valid
        node_errors = node.errors
        track = node.track
    else:
        # The target is still being compiled: this reference closes a cycle, the only
        # way validation can recurse without bound, so it counts the depth here.
        valid, node_errors, track = _recursive(ctx, name, node)

    def errors(x: Any, ipath: Path, kpath: Path) -> Iterator[ValidationError]:
        return node_errors(x, ipath, (kpath, name))

    return Keyword(name, None, valid, errors, track=track if ctx.tracking else None, cost=50)


# Recursion this deep in one call is reason enough to write generated code.
_DEEP_ENOUGH = 32


def _recursive(
    ctx: SchemaContext, name: str, node: Node
) -> tuple[
    Callable[[Any], bool],
    Callable[[Any, Path, Path], Iterator[ValidationError]],
    Callable[[Any, Evaluated], bool],
]:
    state = ctx.compiler.state
    limit = ctx.options.limits.max_instance_depth
    where = ctx.location(name)

    compiler = ctx.compiler

    def valid(x: Any) -> bool:
        depth = state.depth + 1
        if depth > limit:
            raise too_deep(limit, where)
        if depth == _DEEP_ENOUGH and not compiler.promoted:
            # Generated code takes fewer Python frames per level: switch to it now,
            # so deep instances reach max_instance_depth before Python's own limit.
            compiler.promote()
        state.depth = depth
        try:
            return node.valid(x)
        finally:
            state.depth = depth - 1

    def track(x: Any, acc: Evaluated) -> bool:
        depth = state.depth + 1
        if depth > limit:
            raise too_deep(limit, where)
        state.depth = depth
        try:
            return node.track(x, acc)
        finally:
            state.depth = depth - 1

    def errors(x: Any, ipath: Path, kpath: Path) -> Iterator[ValidationError]:
        # Generators interleave with their consumer, so the error path measures
        # the depth of its own instance path instead of the shared counter.
        depth, link = 0, ipath
        while link is not None:
            depth += 1
            if depth > limit:
                raise too_deep(limit, where, to_pointer(ipath))
            link = link[0]
        return node.errors(x, ipath, kpath)

    return valid, errors, track


def compile_ref(ctx: SchemaContext, value: Any) -> Keyword:
    if not isinstance(value, str):
        raise ctx.schema_error("$ref must be a string", "$ref")
    return _reference(ctx, "$ref", ctx.resolve(value, "$ref"))


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
    return _reference(ctx, "$dynamicRef", target)
