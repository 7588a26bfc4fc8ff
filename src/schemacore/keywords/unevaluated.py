"""Unevaluated vocabulary: ``unevaluatedProperties`` and ``unevaluatedItems``.

They run last in their schema object and read the locations its other keywords (and
the in-place subschemas that passed) evaluated, which the node collects in an
:class:`~schemacore.compiler.Evaluated` only where such a keyword can see it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..calls import call_errors, call_valid
from ..errors import ValidationError
from ..model import Evaluated, Keyword, Node, SchemaContext, leftover_errors
from ..paths import Path
from ..spec import Marks, Reach, Role, Shape, Spec
from ..units import Steps, Unit, Walker, evaluated_at, join
from .applicator import string_key

__all__ = ["UNEVALUATED_ITEMS", "UNEVALUATED_PROPERTIES", "fold"]


def compile_unevaluated_properties(ctx: SchemaContext, value: Any) -> Keyword:
    child = ctx.descend(value, "unevaluatedProperties")
    check = call_valid(child)
    child_errors = call_errors(child)

    def track(x: Any, acc: Evaluated) -> bool:
        if not acc.all_props:
            seen = acc.props
            for key, member in x.items():
                if key not in seen:
                    if type(key) is not str:
                        string_key(key)
                    if not check(member):
                        return False
        acc.all_props = True
        return True

    def valid(x: Any) -> bool:
        return track(x, Evaluated())

    def errors_given(x: Any, acc: Evaluated, ipath: Path, kpath: Path) -> Iterator[ValidationError]:
        for key in x:
            if type(key) is not str:
                string_key(key)
        if acc.all_props:
            return
        left = [key for key in x if key not in acc.props]
        yield from leftover_errors(
            "unevaluatedProperties", value, x, left, child_errors, ipath, kpath, ctx
        )

    def errors(x: Any, ipath: Path, kpath: Path) -> Iterator[ValidationError]:
        return errors_given(x, Evaluated(), ipath, kpath)

    return Keyword("unevaluatedProperties", "object", valid, errors, track, errors_given, cost=1000)


def compile_unevaluated_items(ctx: SchemaContext, value: Any) -> Keyword:
    child = ctx.descend(value, "unevaluatedItems")
    check = call_valid(child)
    child_errors = call_errors(child)

    def unevaluated(x: Any, acc: Evaluated) -> Iterator[int]:
        if acc.all_items:
            return
        seen = acc.items
        for index in range(acc.prefix, len(x)):
            if index not in seen:
                yield index

    def track(x: Any, acc: Evaluated) -> bool:
        for index in unevaluated(x, acc):
            if not check(x[index]):
                return False
        acc.all_items = True
        return True

    def valid(x: Any) -> bool:
        return track(x, Evaluated())

    def errors_given(x: Any, acc: Evaluated, ipath: Path, kpath: Path) -> Iterator[ValidationError]:
        left = list(unevaluated(x, acc))
        yield from leftover_errors(
            "unevaluatedItems", value, x, left, child_errors, ipath, kpath, ctx
        )

    def errors(x: Any, ipath: Path, kpath: Path) -> Iterator[ValidationError]:
        return errors_given(x, Evaluated(), ipath, kpath)

    return Keyword("unevaluatedItems", "array", valid, errors, track, errors_given, cost=1000)


# -- compile-time folding ---------------------------------------------------------
#
# Where everything that can evaluate a property (or item) of this schema object is
# known at compile time (its own keywords and those of the subschemas it always
# applies in place: allOf branches and references, which schemacore resolves while
# compiling), unevaluated* needs no tracking at all: it becomes a check against
# fixed names, patterns and a prefix length, like additionalProperties.


# Spec facts bound once: attribute lookups on an Enum class are slow in 3.11.
_ALWAYS, _SOMETIMES = Reach.ALWAYS, Reach.SOMETIMES
_UNEVALUATED = (Reach.UNEVALUATED_MEMBERS, Reach.UNEVALUATED_ITEMS)
_ONE_OR_LIST = Shape.ONE_OR_LIST
_NAMES, _PATTERNS, _ALL_MEMBERS = Marks.NAMES, Marks.PATTERNS, Marks.ALL_MEMBERS
_PREFIX, _ALL_ITEMS, _SOME_ITEMS = Marks.PREFIX, Marks.ALL_ITEMS, Marks.SOME_ITEMS


class _Static:
    def __init__(self) -> None:
        self.names: set[str] = set()
        self.patterns: list[str] = []
        self.prefix = 0
        self.all_props = False
        self.all_items = False


def _collect(node: Node, found: _Static, seen: set[int], root: bool) -> bool:
    """Gather what ``node`` always evaluates; False if that depends on the instance.

    Read from the keywords' specs: what each marks as evaluated, and which apply
    their subschemas in place always (followed), or only on some instances."""
    if id(node) in seen:
        return True
    seen.add(id(node))
    if node.boolean is not None:
        return True
    ctx = node.context
    if ctx is None or (not node.ready and not root):
        return False
    schema = ctx.schema
    active = ctx.dialect.active
    if ctx.dialect.ref_alone and "$ref" in schema:
        return True  # unevaluated* is no keyword of those drafts: nothing to see
    for name, value in schema.items():
        spec = active.get(name)
        if spec is None:
            continue
        if spec.reach is _SOMETIMES and spec.part_of is None:
            return False  # anyOf, oneOf, if, dependentSchemas...
        if spec.continues is not None and not isinstance(schema.get(spec.continues), list):
            continue  # additionalItems without an array of items: ignored
        marks = spec.marks
        if spec.shape is _ONE_OR_LIST and not isinstance(value, list):
            marks = spec.marks_one
        if root and spec.reach in _UNEVALUATED:
            continue  # the keyword being folded
        if marks is _SOME_ITEMS:
            return False  # contains: which items depends on the instance
        if marks is _NAMES and isinstance(value, dict):
            found.names.update(value)
        elif marks is _PATTERNS and isinstance(value, dict):
            found.patterns.extend(value)
        elif marks is _ALL_MEMBERS:
            found.all_props = True
        elif marks is _PREFIX and isinstance(value, list):
            found.prefix = max(found.prefix, len(value))
        elif marks is _ALL_ITEMS:
            found.all_items = True
    for tokens, child in node.children.items():
        spec = active.get(str(tokens[0]))
        if spec is not None and spec.reach is _ALWAYS and not _collect(child, found, seen, False):
            return False
    return True


def fold(node: Node, ctx: SchemaContext, keyword: Keyword) -> Keyword | None:
    """A tracking-free replacement for an unevaluated* keyword, if one exists."""
    found = _Static()
    if not _collect(node, found, set(), True):
        return None
    value = ctx.schema[keyword.name]
    child = ctx.children[(keyword.name,)]
    check = call_valid(child)
    child_errors = call_errors(child)
    if keyword.name == "unevaluatedProperties":
        if found.all_props:
            return _evaluates_all(keyword)
        from .applicator import pattern_searches, unmatched_keys

        names = frozenset(found.names)
        searches = pattern_searches(ctx, found.patterns, "patternProperties")

        def left(x: Any) -> list[str]:
            return list(unmatched_keys(x, names, searches))

        def valid(x: Any) -> bool:
            for key in left(x):
                if not check(x[key]):
                    return False
            return True

        def errors(x: Any, ipath: Path, kpath: Path) -> Iterator[ValidationError]:
            # Each leftover member's own errors (none when it is valid), so that a
            # failure inside one is located there.
            yield from leftover_errors(
                "unevaluatedProperties", value, x, left(x), child_errors, ipath, kpath, ctx
            )

        def track(x: Any, acc: Evaluated) -> bool:
            if not valid(x):
                return False
            acc.all_props = True
            return True

        return Keyword("unevaluatedProperties", "object", valid, errors, track, cost=95)

    if found.all_items:
        return _evaluates_all(keyword)
    start = found.prefix

    def valid_items(x: Any) -> bool:
        for index in range(start, len(x)):
            if not check(x[index]):
                return False
        return True

    def item_errors(x: Any, ipath: Path, kpath: Path) -> Iterator[ValidationError]:
        left = list(range(start, len(x)))
        yield from leftover_errors(
            "unevaluatedItems", value, x, left, child_errors, ipath, kpath, ctx
        )

    def track_items(x: Any, acc: Evaluated) -> bool:
        if not valid_items(x):
            return False
        acc.all_items = True
        return True

    return Keyword("unevaluatedItems", "array", valid_items, item_errors, track_items, cost=95)


def _evaluates_all(keyword: Keyword) -> Keyword:
    """Everything is already evaluated: nothing to check, but report it upwards."""
    applies_to = keyword.applies_to
    marks_props = keyword.name == "unevaluatedProperties"

    def valid(x: Any) -> bool:
        return True

    def errors(x: Any, ipath: Path, kpath: Path) -> Iterator[ValidationError]:
        return iter(())

    def track(x: Any, acc: Evaluated) -> bool:
        if marks_props:
            acc.all_props = True
        else:
            acc.all_items = True
        return True

    return Keyword(keyword.name, applies_to, valid, errors, track, cost=95)


# -- evaluation (annotations and output units) -------------------------------------


def walk_unevaluated_properties(
    ev: Walker, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit
) -> Steps:
    if not isinstance(x, dict):
        return
    parent = walk_siblings(ev, u)
    seen = evaluated_at(parent, u.instance_location, ev.member_keywords)
    if seen is None:
        u.annotation = []
        return
    left = [key for key in x if key not in seen]
    for key in left:
        yield ev.child(node, ("unevaluatedProperties",), x[key], join(u.instance_location, key), u)
    u.valid = all(c.valid for c in u.children)
    if not u.valid and value is False:
        u.error = "unevaluated properties are not allowed"
    u.annotation = left


def walk_unevaluated_items(
    ev: Walker, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit
) -> Steps:
    if not isinstance(x, list):
        return
    parent = walk_siblings(ev, u)
    seen = evaluated_at(parent, u.instance_location, ev.item_keywords)
    if seen is None:
        return
    left = [i for i in range(len(x)) if i not in seen]
    for index in left:
        yield ev.child(node, ("unevaluatedItems",), x[index], join(u.instance_location, index), u)
    u.valid = all(c.valid for c in u.children)
    if not u.valid and value is False:
        u.error = "unevaluated items are not allowed"
    if left:
        u.annotation = True


def walk_siblings(ev: Walker, unit: Unit) -> list[Unit]:
    assert ev.current is not None
    return ev.current


UNEVALUATED_PROPERTIES = Spec(
    "unevaluatedProperties",
    compile_unevaluated_properties,
    Role.APPLICATOR,
    "object",
    Shape.ONE,
    Reach.UNEVALUATED_MEMBERS,
    marks=Marks.ALL_MEMBERS,
    evaluate=walk_unevaluated_properties,
)
UNEVALUATED_ITEMS = Spec(
    "unevaluatedItems",
    compile_unevaluated_items,
    Role.APPLICATOR,
    "array",
    Shape.ONE,
    Reach.UNEVALUATED_ITEMS,
    marks=Marks.ALL_ITEMS,
    evaluate=walk_unevaluated_items,
)
