"""Core vocabulary: boolean schemas, ``$ref`` and ``$dynamicRef``.

Both references are resolved while compiling. ``$ref`` is always static, even when
its fragment names a ``$dynamicAnchor``. ``$dynamicRef`` is dynamic only when its
initial target carries a ``$dynamicAnchor`` of the same name (the "bookend"); it then
jumps to the outermost resource of the dynamic scope that defines that anchor, which
the compiler knows because nodes are specialised per dynamic scope.

A reference to nothing (no such document, anchor or location) is a SchemaError, or
with ``defer_unresolved`` a node that raises ExecutionFailure in every call that
reaches it (:class:`Unresolved`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from ..calls import entered, foreign, recursion
from ..ceiling import UNBOUNDED
from ..ecma262 import PatternError, compile_pattern
from ..emit import Writer, emit_child
from ..errors import ExecutionFailure, ValidationError
from ..model import DeferredReference, Evaluated, Keyword, Node, SchemaContext, make_error
from ..paths import Path, to_pointer
from ..resources import Target, Unresolvable
from ..spec import Reach, Role, Shape, Spec
from ..units import Steps, Unit, Walker

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
    "Unresolved",
    "compile_boolean",
    "compile_dynamic_ref",
    "compile_ref",
    "emit_reference",
    "pattern_search",
    "reference",
    "walk_reference",
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


class Unresolved(Node):
    """The target of a reference to nothing, compiled with ``defer_unresolved``: a
    leaf whose every product raises ExecutionFailure (reason
    ``unresolvable-reference``), so no call that reaches it answers, and no
    ``anyOf``, ``oneOf`` or ``not`` turns it into a failed branch. Generated code
    calls its ``valid`` (it writes none: ``inline_ok`` stays false), and the
    evaluation walk stops at it (:func:`walk_reference`)."""

    __slots__ = ("reference", "why")

    def __init__(self, ctx: SchemaContext, name: str, missing: Unresolvable) -> None:
        # Located at its keyword: no schema is there to name.
        super().__init__(ctx.base, ctx.pointer_to(name))
        self.reference = missing.uri
        self.why = missing.why
        self.ready = True
        # Nothing bounds what it would report if it resolved: validate reads on
        # past the errors it has, to the failure, as iter_errors does.
        self.ceiling = (UNBOUNDED, 1)
        self.valid = self.closure_valid = self._valid
        self.errors = self._errors
        self.track = self._track

    def failure(self, where: str = "") -> ExecutionFailure:
        """The failure of a call that reached it at instance location ``where``."""
        return ExecutionFailure(
            f"the reference {self.reference!r} at {self.uri} was left unresolved when "
            f"compiling (defer_unresolved=True): {self.why}",
            location=where,
            schema_location=self.uri,
            reason="unresolvable-reference",
        )

    def _valid(self, x: Any) -> bool:
        raise self.failure()

    def _errors(self, x: Any, ipath: Path, kpath: Path) -> Iterator[ValidationError]:
        raise self.failure(to_pointer(ipath))

    def _track(self, x: Any, acc: Evaluated) -> bool:
        raise self.failure()


def reference(ctx: SchemaContext, name: str, target: Target | Unresolvable) -> Keyword:
    """The compiled reference keyword ``name`` of ``ctx``, to its resolved ``target``
    (to an :class:`Unresolved` node when it names nothing)."""
    ctx.compiler.count_reference(ctx.pointer_to(name))
    if isinstance(target, Unresolvable):
        node: Node = Unresolved(ctx, name, target)
        ctx.children[(name,)] = node
        ctx.compiler.defer_reference(DeferredReference(target.uri, node.uri))
    else:
        node = ctx.reference(target, name)
    if foreign(node, ctx.compiler):
        valid, node_errors, track = entered(node, ctx)
    elif node.ready:
        valid = node.valid
        node_errors = node.errors
        track = node.track
    else:
        valid, node_errors, track = recursion(node, ctx.location(name))

    def errors(x: Any, ipath: Path, kpath: Path) -> Iterator[ValidationError]:
        return node_errors(x, ipath, (kpath, name))

    return Keyword(name, None, valid, errors, track=track if ctx.tracking else None, cost=50)


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
    # An initial target that is not there is no bookend: the reference names nothing,
    # as a $ref would (deferred with defer_unresolved, whatever the scope binds).
    if (
        is_anchor
        and type(initial) is Target
        and isinstance(initial.node, dict)
        and initial.node.get("$dynamicAnchor") == fragment
    ):
        # The scope binds each anchor name once, to the outermost resource defining it.
        for name, resource in ctx.scope:
            if name == fragment:
                target = ctx.compiler.index.dynamic_anchors[(resource, name)]
                break
    return reference(ctx, "$dynamicRef", target)


# -- generated code -------------------------------------------------------------------


def emit_reference(
    w: Writer, i: int, node: Node, ctx: SchemaContext, k: Keyword, x: str, t: str, d: int
) -> bool:
    if foreign(node.children[(k.name,)], ctx.compiler):
        # A shared meta-schema: through the call that carries the depth (entered).
        w.add(i, f"if not {w.const(k.valid)}({x}): return False")
        return True
    emit_child(w, i, node, (k.name,), x, d)
    return True


# -- evaluation (annotations and output units) -------------------------------------


def walk_reference(
    ev: Walker, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit
) -> Steps:
    assert u.keyword is not None
    target = node.children[(u.keyword,)]
    if type(target) is Unresolved:
        # A leaf to the walk, which would pass it: the call fails here instead.
        raise target.failure(u.instance_location)
    result = yield ev.child(node, (u.keyword,), x, u.instance_location, u)
    u.valid = result.valid


REF = Spec(
    "$ref",
    compile_ref,
    Role.APPLICATOR,
    reach=Reach.ALWAYS,
    reference=True,
    emit=emit_reference,
    evaluate=walk_reference,
)
DYNAMIC_REF = Spec(
    "$dynamicRef",
    compile_dynamic_ref,
    Role.APPLICATOR,
    reach=Reach.ALWAYS,
    reference=True,
    emit=emit_reference,
    evaluate=walk_reference,
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
