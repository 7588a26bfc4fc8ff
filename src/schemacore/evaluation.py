"""The evaluation product: a tree of output units with annotations.

``is_valid`` and ``iter_errors`` never build this; ``Validator.evaluate`` does. It
walks the compiled nodes the way the specification describes evaluation: every
keyword of every schema object applied produces an output unit, annotations are kept
only where every enclosing unit passed, and ``unevaluatedProperties``/
``unevaluatedItems`` read the annotations of their schema object and of its passing
in-place subschemas. Assertions reuse the compiled keyword closures, so a keyword's
verdict is the same here as on the fast path.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from . import dialects
from .calls import count_repeat, loop_failure
from .errors import ValidationError
from .guard import CallState, too_deep
from .jsonvalue import json_type, type_name
from .keywords import applicator as ap
from .keywords import core
from .keywords import earlier as old
from .keywords import unevaluated as ue
from .keywords import validation as va
from .keywords.applicator import pattern_searches
from .model import Node, SchemaContext, type_matches
from .pointer import escape
from .spec import Marks, Reach, Role, Spec

__all__ = ["HANDLERS", "Unit", "evaluate_node", "iter_annotations"]

_NO_ANNOTATION: Any = object()

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


@dataclass(slots=True)
class Unit:
    """One output unit: a schema object or one of its keywords, at one instance place.

    ``keyword`` is None for the unit of a whole schema object.
    """

    keyword_location: str
    absolute_keyword_location: str
    instance_location: str
    keyword: str | None = None
    valid: bool = True
    error: str | None = None
    annotation: Any = _NO_ANNOTATION
    children: list[Unit] = field(default_factory=list)

    @property
    def has_annotation(self) -> bool:
        return self.annotation is not _NO_ANNOTATION


def iter_annotations(unit: Unit) -> Iterator[Unit]:
    """Annotation units of a tree, depth first, skipping every subtree that did not
    pass. Iterative: a tree is several units deep per level of the instance."""
    pending = [unit]
    while pending:
        current = pending.pop()
        if not current.valid:
            continue
        if current.has_annotation:
            yield current
        pending.extend(reversed(current.children))


def _join(pointer: str, token: str | int) -> str:
    return f"{pointer}/{escape(token)}"


def _first_message(errors: Iterator[ValidationError], fallback: str) -> str:
    for error in errors:
        return error.message
    return fallback


# The walk is a trampoline: a step asks for a subschema to be applied by yielding
# (target node, value, instance location, evaluation path, whether the edge closes
# a cycle, the unit the result belongs to) and is sent the target's unit, appended
# to that unit's children. _Evaluation.run keeps the pending steps on
# a list, so a deep instance costs no Python recursion, and counts the depth as
# is_valid does: one level per edge that closes a cycle, against max_instance_depth.
Request: TypeAlias = "tuple[Node, Any, str, str, bool, Unit]"
Walk: TypeAlias = "Generator[Request, Unit, Unit]"
Steps: TypeAlias = "Generator[Request, Unit, None]"
Handler = Callable[["_Evaluation", Node, SchemaContext, Any, Any, Unit], "Steps | None"]


class _Evaluation:
    """One call of ``evaluate``: the walk and its helpers."""

    def __init__(self, state: CallState, limit: int) -> None:
        self.current: list[Unit] | None = None
        self.state = state
        self.limit = limit

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

    def node(self, node: Node, x: Any, ipath: str, kpath: str) -> Walk:
        if node.memo:
            count_repeat(node, x, ipath)
        unit = Unit(kpath, node.uri, ipath)
        if node.boolean is not None:
            if not node.boolean:
                unit.valid = False
                unit.error = "false schema does not allow anything"
            return unit
        ctx = node.context
        assert ctx is not None
        dialect = ctx.dialect
        members: Any = ctx.schema.items()
        if dialect.ref_alone and "$ref" in ctx.schema:
            members = (("$ref", ctx.schema["$ref"]),)  # its siblings are ignored
        last: list[tuple[Any, Spec]] = []
        for name, value in members:
            spec = dialect.active.get(name)
            if spec is None:
                if name in dialect.keywords:
                    continue  # a keyword of a vocabulary that is not active
                # An unknown keyword: an annotation.
                unit.children.append(
                    Unit(_join(kpath, name), ctx.location(name), ipath, name, annotation=value)
                )
                continue
            if spec.role is Role.SILENT or spec.role is Role.PART:
                continue
            if spec.reach in _UNEVALUATED:
                last.append((value, spec))
                continue
            child, steps = self.keyword(node, ctx, spec, value, x, ipath, kpath)
            if steps is not None:
                yield from steps
            unit.children.append(child)
        for value, spec in last:
            # unevaluated* read the units of their siblings, built just above.
            self.current = unit.children
            child, steps = self.keyword(node, ctx, spec, value, x, ipath, kpath)
            if steps is not None:
                yield from steps
            unit.children.append(child)
        unit.valid = all(child.valid for child in unit.children)
        return unit

    def keyword(
        self, node: Node, ctx: SchemaContext, spec: Spec, value: Any, x: Any, ipath: str, kpath: str
    ) -> tuple[Unit, Steps | None]:
        """The keyword's unit, and the steps that fill it in when it applies
        subschemas (None when it is already complete)."""
        name = spec.name
        unit = Unit(_join(kpath, name), ctx.location(name), ipath, keyword=name)
        if spec.role is Role.APPLICATOR:
            return unit, HANDLERS[spec](self, node, ctx, value, x, unit)
        if spec.role is Role.ANNOTATION:
            self.annotation(node, name, value, x, unit)
        elif spec is va.TYPE:
            self.type(node, ctx, x, unit)
        else:
            self.assertion(node, name, x, unit)
        return unit, None

    # -- assertions and annotations ---------------------------------------------

    def assertion(self, node: Node, name: str, x: Any, unit: Unit) -> None:
        compiled = node.keywords.get(name)
        if compiled is None or not _applies(compiled.applies_to, x):
            return
        if not compiled.valid(x):
            unit.valid = False
            unit.error = _first_message(compiled.errors(x, None, None), f"{name} failed")

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
            location = _join(location, token)
        return target, x, ipath, location, tokens in node.back, unit


def _applies(applies_to: str | None, x: Any) -> bool:
    if applies_to is None:
        return True
    kind = json_type(x)
    if applies_to == "float":
        return type(x) is float
    return kind == applies_to


# -- keyword handlers -----------------------------------------------------------


def _properties(
    ev: _Evaluation, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit
) -> Steps:
    if not isinstance(x, dict):
        return
    matched = [name for name in value if name in x]
    for name in matched:
        yield ev.child(node, ("properties", name), x[name], _join(u.instance_location, name), u)
    u.valid = all(c.valid for c in u.children)
    u.annotation = matched


def _pattern_properties(
    ev: _Evaluation, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit
) -> Steps:
    if not isinstance(x, dict):
        return
    searches = list(zip(value, pattern_searches(ctx, value, "patternProperties"), strict=True))
    matched = []
    for key, member in x.items():
        hit = False
        for pattern, search in searches:
            if search(key):
                hit = True
                where = _join(u.instance_location, key)
                yield ev.child(node, ("patternProperties", pattern), member, where, u)
        if hit:
            matched.append(key)
    u.valid = all(c.valid for c in u.children)
    u.annotation = matched


def _additional_properties(
    ev: _Evaluation, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit
) -> Steps:
    if not isinstance(x, dict):
        return
    known = ctx.schema.get("properties", {}) if ctx.active("properties") else {}
    patterns = ctx.schema.get("patternProperties", {}) if ctx.active("patternProperties") else {}
    searches = pattern_searches(ctx, patterns, "patternProperties")
    extra = [k for k in x if k not in known and not any(s(k) for s in searches)]
    for key in extra:
        yield ev.child(node, ("additionalProperties",), x[key], _join(u.instance_location, key), u)
    u.valid = all(c.valid for c in u.children)
    u.annotation = extra


def _property_names(
    ev: _Evaluation, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit
) -> Steps:
    if not isinstance(x, dict):
        return
    for key in x:
        # The name is the instance; annotations on names are not kept (there is no
        # instance location for a name), so the unit carries only the verdict.
        result = yield ev.child(node, ("propertyNames",), key, u.instance_location, u)
        result.children = [c for c in result.children if not c.valid]
    u.valid = all(c.valid for c in u.children)


def _prefix_items(
    ev: _Evaluation, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit
) -> Steps:
    return _indexed_items(ev, node, "prefixItems", value, x, u)


def _items(ev: _Evaluation, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit) -> Steps:
    start = len(ctx.schema.get("prefixItems", ())) if ctx.active("prefixItems") else 0
    return _rest_items(ev, node, "items", start, x, u)


def _rest_items(ev: _Evaluation, node: Node, keyword: str, start: int, x: Any, u: Unit) -> Steps:
    if not isinstance(x, list):
        return
    for index in range(start, len(x)):
        yield ev.child(node, (keyword,), x[index], _join(u.instance_location, index), u)
    u.valid = all(c.valid for c in u.children)
    if len(x) > start:
        u.annotation = True


def _indexed_items(ev: _Evaluation, node: Node, keyword: str, value: Any, x: Any, u: Unit) -> Steps:
    if not isinstance(x, list):
        return
    count = min(len(value), len(x))
    for index in range(count):
        yield ev.child(node, (keyword, index), x[index], _join(u.instance_location, index), u)
    u.valid = all(c.valid for c in u.children)
    if count:
        u.annotation = True if count == len(x) else count - 1


def _earlier_items(
    ev: _Evaluation, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit
) -> Steps:
    if isinstance(value, list):
        return _indexed_items(ev, node, "items", value, x, u)
    return _rest_items(ev, node, "items", 0, x, u)


def _additional_items(
    ev: _Evaluation, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit
) -> Steps | None:
    items = ctx.schema.get("items")
    if not ctx.active("items") or not isinstance(items, list):
        return None  # ignored without an array of items
    return _rest_items(ev, node, "additionalItems", len(items), x, u)


def _contains(
    ev: _Evaluation, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit
) -> Steps:
    if not isinstance(x, list):
        return
    matched = []
    for index, item in enumerate(x):
        result = yield ev.child(node, ("contains",), item, _join(u.instance_location, index), u)
        if result.valid:
            matched.append(index)
    compiled = node.keywords.get("contains")
    u.valid = compiled is None or compiled.valid(x)
    if not u.valid and compiled is not None:
        u.error = _first_message(compiled.errors(x, None, None), "contains failed")
    # Items that did not match are not an error of contains' subschema.
    u.children = [c for c in u.children if c.valid]
    u.annotation = True if len(matched) == len(x) and x else matched


def _all_of(ev: _Evaluation, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit) -> Steps:
    for index in range(len(value)):
        yield ev.child(node, ("allOf", index), x, u.instance_location, u)
    u.valid = all(c.valid for c in u.children)


def _any_of(ev: _Evaluation, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit) -> Steps:
    for index in range(len(value)):
        yield ev.child(node, ("anyOf", index), x, u.instance_location, u)
    u.valid = any(c.valid for c in u.children)
    if not u.valid:
        u.error = "the value is not valid under any of the anyOf schemas"


def _one_of(ev: _Evaluation, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit) -> Steps:
    for index in range(len(value)):
        yield ev.child(node, ("oneOf", index), x, u.instance_location, u)
    passed = sum(1 for c in u.children if c.valid)
    u.valid = passed == 1
    if passed == 0:
        u.error = "the value is not valid under any of the oneOf schemas"
    elif passed > 1:
        u.error = "the value is valid under more than one of the oneOf schemas"


def _not(ev: _Evaluation, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit) -> Steps:
    result = yield ev.child(node, ("not",), x, u.instance_location, u)
    u.valid = not result.valid
    if not u.valid:
        u.error = "the value must not be valid under the not schema"
    # Whatever happened inside "not" yields no annotations.
    _drop_annotations(result)


def _drop_annotations(unit: Unit) -> None:
    pending = [unit]
    while pending:
        current = pending.pop()
        current.annotation = _NO_ANNOTATION
        pending.extend(current.children)


def _if(ev: _Evaluation, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit) -> Steps:
    condition = yield ev.child(node, ("if",), x, u.instance_location, u)
    # The condition's verdict is not an error; its annotations count if it passed.
    branch = "then" if condition.valid else "else"
    if not condition.valid:
        u.children.clear()
    if (branch,) in node.children and ctx.active(branch):
        target = node.children[(branch,)]
        location = u.keyword_location.rpartition("/")[0] + "/" + branch
        result = yield target, x, u.instance_location, location, (branch,) in node.back, u
        u.valid = result.valid


def _dependent_schemas(
    ev: _Evaluation, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit
) -> Steps:
    if not isinstance(x, dict):
        return
    keyword = u.keyword or "dependentSchemas"
    for name, sub in value.items():
        if name in x and not isinstance(sub, list):
            yield ev.child(node, (keyword, name), x, u.instance_location, u)
    u.valid = all(c.valid for c in u.children)
    if keyword == "dependencies":
        ev.assertion(node, "dependencies", x, u)


def _reference(
    ev: _Evaluation, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit
) -> Steps:
    assert u.keyword is not None
    result = yield ev.child(node, (u.keyword,), x, u.instance_location, u)
    u.valid = result.valid


def _unevaluated_properties(
    ev: _Evaluation, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit
) -> Steps:
    if not isinstance(x, dict):
        return
    parent = _siblings(ev, u)
    seen = _evaluated(parent, u.instance_location, _EVALUATED_PROPS)
    if seen is None:
        u.annotation = []
        return
    left = [key for key in x if key not in seen]
    for key in left:
        yield ev.child(node, ("unevaluatedProperties",), x[key], _join(u.instance_location, key), u)
    u.valid = all(c.valid for c in u.children)
    if not u.valid and value is False:
        u.error = "unevaluated properties are not allowed"
    u.annotation = left


def _unevaluated_items(
    ev: _Evaluation, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit
) -> Steps:
    if not isinstance(x, list):
        return
    parent = _siblings(ev, u)
    seen = _evaluated(parent, u.instance_location, _EVALUATED_ITEMS)
    if seen is None:
        return
    left = [i for i in range(len(x)) if i not in seen]
    for index in left:
        yield ev.child(node, ("unevaluatedItems",), x[index], _join(u.instance_location, index), u)
    u.valid = all(c.valid for c in u.children)
    if not u.valid and value is False:
        u.error = "unevaluated items are not allowed"
    if left:
        u.annotation = True


def _siblings(ev: _Evaluation, unit: Unit) -> list[Unit]:
    assert ev.current is not None
    return ev.current


def _evaluated(units: list[Unit], where: str, keywords: frozenset[str]) -> set[Any] | None:
    """Names or indexes evaluated at ``where`` by passing units among ``units``;
    None when everything there was evaluated."""
    seen: set[Any] = set()
    for unit in units:
        for found in iter_annotations(unit):
            if found.instance_location != where or found.keyword not in keywords:
                continue
            value = found.annotation
            if value is True:
                return None
            if isinstance(value, int):  # the last index an array of subschemas reached
                seen.update(range(value + 1))
            elif isinstance(value, list):
                seen.update(value)
    return seen


# The walk of every keyword that applies subschemas (Role.APPLICATOR), by spec:
# tests/engine/test_specs.py checks that every dialect's applicators are here.
HANDLERS: dict[Spec, Handler] = {
    ap.PROPERTIES: _properties,
    ap.PATTERN_PROPERTIES: _pattern_properties,
    ap.ADDITIONAL_PROPERTIES: _additional_properties,
    ap.PROPERTY_NAMES: _property_names,
    ap.PREFIX_ITEMS: _prefix_items,
    ap.ITEMS: _items,
    old.ITEMS_EARLIER: _earlier_items,
    old.ADDITIONAL_ITEMS: _additional_items,
    ap.CONTAINS: _contains,
    ap.ALL_OF: _all_of,
    ap.ANY_OF: _any_of,
    ap.ONE_OF: _one_of,
    ap.NOT: _not,
    ap.IF: _if,
    ap.DEPENDENT_SCHEMAS: _dependent_schemas,
    ap.DEPENDENCIES: _dependent_schemas,
    core.REF: _reference,
    core.DYNAMIC_REF: _reference,
    old.RECURSIVE_REF: _reference,
    ue.UNEVALUATED_PROPERTIES: _unevaluated_properties,
    ue.UNEVALUATED_ITEMS: _unevaluated_items,
}


def evaluate_node(node: Node, instance: Any, state: CallState, limit: int) -> Unit:
    """Evaluate ``instance`` against the compiled root ``node``, counting recursion
    in ``state`` against ``limit`` (max_instance_depth), as is_valid does."""
    return _Evaluation(state, limit).run(node, instance)
