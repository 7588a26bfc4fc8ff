"""The evaluation product: a tree of output units with annotations.

``is_valid`` and ``iter_errors`` never build this; the parts of an ``Evaluation``
that report annotations or units do. It walks the compiled nodes the way the
specification describes evaluation: every keyword of every schema object applied
produces an output unit, annotations are kept only where every enclosing unit
passed, and ``unevaluatedProperties``/``unevaluatedItems`` read the annotations of
their schema object and of its passing in-place subschemas. Assertions reuse the
compiled keyword closures, so a keyword's verdict is the same here as on the fast
path.

A walk keeps what its reader needs (``Keep``): ``"every"`` unit (the verbose
format), the units that report something (``"results"``: failed keywords,
annotations and the units leading to them, for the list, detailed and hierarchical
formats), or only what leads to an annotation of a passing unit
(``"annotations"``). A passing assertion is then never made a unit at all, so the
tree grows with what the output holds, not with the instance times the schema.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from . import dialects
from .calls import count_repeat, loop_failure
from .guard import CallState, too_deep
from .jsonvalue import json_type, type_name
from .keywords import validation as va
from .model import Node, SchemaContext, type_matches
from .spec import Marks, Reach, Role, Spec
from .units import Handler, Request, Steps, Unit, Walk, first_message, iter_annotations, join

__all__ = ["HANDLERS", "Keep", "Unit", "evaluate_node", "iter_annotations"]

# What a walk keeps of the units it makes (see the module docstring).
Keep: TypeAlias = Literal["every", "results", "annotations"]

# The walk of every keyword that applies subschemas (Role.APPLICATOR), by spec: each
# spec's own (Spec.evaluate, beside its compiler); tests/engine/test_specs.py checks
# that every dialect's applicators have one.
HANDLERS: dict[Spec, Handler] = {
    spec: spec.evaluate
    for dialect in dialects.DIALECTS
    for spec, _ in dialect.keywords.values()
    if spec.evaluate is not None
}


# The keywords whose annotations unevaluatedProperties / unevaluatedItems read, in
# any draft: those that mark members or items as evaluated.
_MEMBER_MARKS = frozenset({Marks.NAMES, Marks.PATTERNS, Marks.ALL_MEMBERS})
_ITEM_MARKS = frozenset({Marks.PREFIX, Marks.ALL_ITEMS, Marks.SOME_ITEMS})
_EVALUATED_PROPS = frozenset(
    name
    for dialect in dialects.DIALECTS
    for name, (spec, _) in dialect.keywords.items()
    if spec.marks in _MEMBER_MARKS
)
_EVALUATED_ITEMS = frozenset(
    name
    for dialect in dialects.DIALECTS
    for name, (spec, _) in dialect.keywords.items()
    if spec.marks in _ITEM_MARKS or spec.marks_one in _ITEM_MARKS
)
_UNEVALUATED = frozenset({Reach.UNEVALUATED_MEMBERS, Reach.UNEVALUATED_ITEMS})


# A keyword a schema object applies: its spec (None for an unknown keyword, an
# annotation), name, value, absolute location, and whether it is an assertion.
_Step: TypeAlias = "tuple[Spec | None, str, Any, str, bool]"


@dataclass(frozen=True, slots=True)
class _Plan:
    """What a schema object applies, in order; ``last`` the keywords that read the
    others' annotations (unevaluated*); ``leaf`` when none applies a subschema."""

    first: tuple[_Step, ...]
    last: tuple[_Step, ...]
    leaf: bool


def _plan(node: Node) -> _Plan:
    ctx = node.context
    if node.boolean is not None or ctx is None:
        return _Plan((), (), True)  # a boolean schema
    dialect = ctx.dialect
    members: Any = ctx.schema.items()
    if dialect.ref_alone and "$ref" in ctx.schema:
        members = (("$ref", ctx.schema["$ref"]),)  # its siblings are ignored
    first: list[_Step] = []
    last: list[_Step] = []
    for name, value in members:
        spec = dialect.active.get(name)
        if spec is None:
            if name not in dialect.keywords:  # else: of a vocabulary that is not active
                first.append((None, name, value, ctx.location(name), False))
            continue
        if spec.role is Role.SILENT or spec.role is Role.PART:
            continue
        asserts = spec.role is not Role.APPLICATOR and spec.role is not Role.ANNOTATION
        step = (spec, name, value, ctx.location(spec.name), asserts)
        (last if spec.reach in _UNEVALUATED else first).append(step)
    leaf = not last and all(s is None or s.role is not Role.APPLICATOR for s, *_ in first)
    return _Plan(tuple(first), tuple(last), leaf)


def _annotation(kpath: str, name: str, location: str, ipath: str, value: Any) -> Unit:
    return Unit(join(kpath, name), location, ipath, name, annotation=value)


class _Evaluation:
    """One call of ``evaluate``: the walk and its helpers."""

    member_keywords = _EVALUATED_PROPS
    item_keywords = _EVALUATED_ITEMS

    def __init__(self, state: CallState, limit: int, keep: Keep) -> None:
        self.current: list[Unit] | None = None
        self.state = state
        self.limit = limit
        self.keep = keep
        self.plans: dict[int, _Plan] = {}

    def run(self, root: Node, instance: Any) -> Unit:
        state = self.state
        # Each pending walk with its depth, and for a node on a loop without
        # progress (Node.loop) its application in progress; state.depth is that
        # depth while it runs, so the compiled closures it calls count on from there.
        running: set[tuple[int, int]] = set()
        stack: list[tuple[Walk, int, Unit | None, tuple[int, int] | None]] = [
            (
                self.node(root, instance, "", ""),
                state.depth,
                None,
                self._enter(running, root, instance, ""),
            )
        ]
        sent: Any = None
        while True:
            walk, depth, parent, key = stack[-1]
            saved = state.depth
            state.depth = depth
            try:
                request = walk.send(sent)
            except StopIteration as done:
                stack.pop()
                if key is not None:
                    running.discard(key)
                result: Unit = done.value
                if parent is None:
                    return result
                parent.children.append(result)
                sent = result
                continue
            finally:
                state.depth = saved
            target, x, ipath, kpath, closing, owner = request
            if closing:
                depth += 1
                if depth > self.limit:
                    raise too_deep(self.limit, target.uri, ipath)
            plan = self.plan(target)
            if plan.leaf and not target.loop:
                # Nothing to wait for: no generator, no trip through the stack.
                state.depth = depth
                try:
                    sent = self.leaf(target, plan, x, ipath, kpath)
                finally:
                    state.depth = saved
                owner.children.append(sent)
                continue
            key = self._enter(running, target, x, ipath)
            stack.append((self.node(target, x, ipath, kpath), depth, owner, key))
            sent = None

    @staticmethod
    def _enter(
        running: set[tuple[int, int]], node: Node, x: Any, ipath: str
    ) -> tuple[int, int] | None:
        """Record the application of a node on a loop; fail closed on a repeat."""
        if not node.loop:
            return None
        key = (id(node), id(x))
        if key in running:
            raise loop_failure(node, node.uri, ipath)
        running.add(key)
        return key

    def plan(self, node: Node) -> _Plan:
        """The keywords ``node`` applies, worked out once per walk."""
        plan = self.plans.get(id(node))  # the compiled nodes outlive the walk
        if plan is None:
            plan = self.plans[id(node)] = _plan(node)
        return plan

    def open(self, node: Node, x: Any, ipath: str, kpath: str) -> Unit:
        """The unit of a schema object about to be applied (complete for a boolean)."""
        if node.memo:
            count_repeat(node, x, ipath)
        unit = Unit(kpath, node.uri, ipath)
        if node.boolean is False:
            unit.valid = False
            unit.error = "false schema does not allow anything"
        return unit

    def node(self, node: Node, x: Any, ipath: str, kpath: str) -> Walk:
        plan = self.plan(node)
        if plan.leaf:
            return self.leaf(node, plan, x, ipath, kpath)
        unit = self.open(node, x, ipath, kpath)
        ctx = node.context
        assert ctx is not None
        keep = self.keep
        valid = True
        for spec, name, value, location, asserts in plan.first:
            if spec is None:  # an unknown keyword: an annotation
                unit.children.append(_annotation(kpath, name, location, ipath, value))
                continue
            if asserts and keep != "every" and self.passes(node, ctx, spec, x):
                continue  # most keywords: a passing assertion, not kept, has no unit
            child, steps = self.keyword(node, ctx, spec, value, x, ipath, kpath, location)
            if steps is not None:
                yield from steps
            valid = valid and child.valid
            if keep == "every" or self.kept(child):
                unit.children.append(child)
        for spec, _, value, location, _ in plan.last:
            assert spec is not None
            # unevaluated* read the units of their siblings, built just above (what
            # a walk drops holds no annotation of a passing unit, all they read).
            self.current = unit.children
            child, steps = self.keyword(node, ctx, spec, value, x, ipath, kpath, location)
            if steps is not None:
                yield from steps
            valid = valid and child.valid
            if keep == "every" or self.kept(child):
                unit.children.append(child)
        # The verdict of every keyword, whether its unit was kept or not.
        unit.valid = valid
        return unit

    def leaf(self, node: Node, plan: _Plan, x: Any, ipath: str, kpath: str) -> Unit:
        """``node`` for a schema object that applies no subschema (or a boolean)."""
        unit = self.open(node, x, ipath, kpath)
        ctx = node.context
        if node.boolean is not None or ctx is None:
            return unit
        keep = self.keep
        valid = True
        for spec, name, value, location, asserts in plan.first:
            if spec is None:
                unit.children.append(_annotation(kpath, name, location, ipath, value))
                continue
            if asserts and keep != "every" and self.passes(node, ctx, spec, x):
                continue
            child, _ = self.keyword(node, ctx, spec, value, x, ipath, kpath, location)
            valid = valid and child.valid
            if keep == "every" or self.kept(child):
                unit.children.append(child)
        unit.valid = valid
        return unit

    def kept(self, unit: Unit) -> bool:
        """Whether a finished keyword's unit is kept, for a walk that keeps less than
        every unit. Called once its walk is done: no keyword reads its units after."""
        if self.keep == "results":
            # A passing keyword with no annotation and no subschema unit reports
            # nothing in list, detailed or hierarchical.
            return not unit.valid or unit.has_annotation or bool(unit.children)
        # Annotations are read only from passing units (iter_annotations).
        if not unit.valid:
            return False
        if unit.children:
            unit.children = [c for c in unit.children if c.valid and c.children]
        return unit.has_annotation or bool(unit.children)

    def keyword(
        self,
        node: Node,
        ctx: SchemaContext,
        spec: Spec,
        value: Any,
        x: Any,
        ipath: str,
        kpath: str,
        location: str,
    ) -> tuple[Unit, Steps | None]:
        """The keyword's unit (``location``: its absolute one), and the steps that
        fill it in when it applies subschemas (None when it is already complete)."""
        name = spec.name
        unit = Unit(join(kpath, name), location, ipath, keyword=name)
        if spec.role is Role.APPLICATOR:
            walk = spec.evaluate
            assert walk is not None, f"{name} has no evaluation walk"  # tests/engine/test_specs.py
            return unit, walk(self, node, ctx, value, x, unit)
        if spec.role is Role.ANNOTATION:
            self.annotation(node, name, value, x, unit)
        elif spec is va.TYPE:
            self.type(node, ctx, x, unit)
        else:
            self.assertion(node, name, x, unit)
        return unit, None

    @staticmethod
    def passes(node: Node, ctx: SchemaContext, spec: Spec, x: Any) -> bool:
        """The verdict of an assertion (``type`` included), as ``assertion`` and
        ``type`` reach it, without a unit or a message."""
        if spec is va.TYPE:
            types = node.types
            return types is None or type_matches(types, x, ctx.dialect.float_integers)
        compiled = node.keywords.get(spec.name)
        return compiled is None or not _applies(compiled.applies_to, x) or compiled.valid(x)

    # -- assertions and annotations ---------------------------------------------

    def assertion(self, node: Node, name: str, x: Any, unit: Unit) -> None:
        compiled = node.keywords.get(name)
        if compiled is None or not _applies(compiled.applies_to, x):
            return
        if not compiled.valid(x):
            unit.valid = False
            unit.error = first_message(compiled.errors(x, None, None), f"{name} failed")

    def annotation(self, node: Node, name: str, value: Any, x: Any, unit: Unit) -> None:
        if name in ("format", "contentEncoding", "contentMediaType", "contentSchema"):
            if json_type(x) != "string":
                return
            schema = node.context.schema if node.context is not None else {}
            if name == "contentSchema" and "contentMediaType" not in schema:
                return  # contentSchema means nothing without a media type
            owner = node.keywords.get(name)
            if owner is not None:
                self.assertion(node, name, x, unit)
        unit.annotation = value

    def type(self, node: Node, ctx: SchemaContext, x: Any, unit: Unit) -> None:
        types = node.types
        if types is not None and not type_matches(types, x, ctx.dialect.float_integers):
            unit.valid = False
            expected = " or ".join(sorted(types))
            unit.error = f"{type_name(x)} is not of type {expected}"

    # -- subschemas -------------------------------------------------------------

    def child(
        self, node: Node, tokens: tuple[str | int, ...], x: Any, ipath: str, unit: Unit
    ) -> Request:
        """The request to apply the subschema at ``tokens`` to ``x``; run() appends
        its unit to ``unit`` and sends it back."""
        target = node.children[tokens]
        location = unit.keyword_location
        for token in tokens[1:]:
            location = join(location, token)
        return target, x, ipath, location, tokens in node.back, unit


def _applies(applies_to: str | None, x: Any) -> bool:
    if applies_to is None:
        return True
    kind = json_type(x)
    if applies_to == "float":
        return type(x) is float
    return kind == applies_to


# -- keyword handlers -----------------------------------------------------------


def evaluate_node(
    node: Node, instance: Any, state: CallState, limit: int, keep: Keep = "every"
) -> Unit:
    """Evaluate ``instance`` against the compiled root ``node``, counting recursion
    in ``state`` against ``limit`` (max_instance_depth), as is_valid does, keeping
    the units ``keep`` says. The root's ``valid`` is the verdict, whatever is kept."""
    if node.context is not None:
        node.context.compiler.complete()  # the walk reads every node
    return _Evaluation(state, limit, keep).run(node, instance)
