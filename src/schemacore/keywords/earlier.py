"""Keywords as the drafts before 2020-12 define them, where the meaning differs.

* ``items`` (2019-09 and before): a subschema for every item, or an array of
  subschemas by position (2020-12's ``prefixItems``); ``additionalItems`` then
  applies to the items after them, and is ignored otherwise.
* ``$recursiveRef`` / ``$recursiveAnchor`` (2019-09): a reference to ``#`` that,
  when its target resource sets ``$recursiveAnchor: true``, goes to the outermost
  resource of the dynamic scope that sets it too. Resolved at compile time, as
  ``$dynamicRef`` is: the binding is part of each node's dynamic scope, under a
  name no ``$dynamicAnchor`` can have.
* ``maximum`` / ``minimum`` (draft-04): ``exclusiveMaximum`` / ``exclusiveMinimum``
  are booleans that make them exclusive.
"""

from __future__ import annotations

from typing import Any

from ..emit import Writer
from ..model import Keyword, Node, SchemaContext
from ..resources import Target
from ..spec import Marks, Reach, Role, Shape, Spec
from ..units import Steps, Unit, Walker
from .applicator import emit_items, indexed_items, rest_items, walk_indexed_items, walk_rest_items
from .core import emit_reference, reference, walk_reference
from .validation import bound

__all__ = [
    "ADDITIONAL_ITEMS",
    "EXCLUSIVE_MAXIMUM_04",
    "EXCLUSIVE_MINIMUM_04",
    "ITEMS_EARLIER",
    "MAXIMUM_04",
    "MINIMUM_04",
    "RECURSIVE_ANCHOR",
    "RECURSIVE_NAME",
    "RECURSIVE_REF",
]

# The dynamic-scope name of $recursiveAnchor: no $dynamicAnchor can be named so
# (an anchor name starts with a letter or "_").
RECURSIVE_NAME = "#recursive"


def compile_items(ctx: SchemaContext, value: Any) -> Keyword | None:
    if isinstance(value, list):
        return indexed_items(ctx, value, "items")
    return rest_items(ctx, value, "items", 0)


def _items_before(ctx: SchemaContext) -> int | None:
    """How many items additionalItems comes after: those of an array-form items;
    None when items is not an array, and additionalItems is ignored."""
    items = ctx.schema.get("items")
    if not ctx.active("items") or not isinstance(items, list):
        return None
    return len(items)


def compile_additional_items(ctx: SchemaContext, value: Any) -> Keyword | None:
    start = _items_before(ctx)
    return None if start is None else rest_items(ctx, value, "additionalItems", start)


def compile_recursive_ref(ctx: SchemaContext, value: Any) -> Keyword:
    if not isinstance(value, str):
        raise ctx.schema_error("$recursiveRef must be a string", "$recursiveRef")
    target = ctx.resolve(value, "$recursiveRef")
    # A target that is not there (defer_unresolved) is no bookend either.
    node = target.node if type(target) is Target else None
    if isinstance(node, dict) and node.get("$recursiveAnchor") is True:
        for name, resource in ctx.scope:
            if name == RECURSIVE_NAME:
                target = ctx.compiler.index.dynamic_anchors[(resource, name)]
                break
    return reference(ctx, "$recursiveRef", target)


def _draft4_bound(
    name: str, exclusive: str, inclusive_words: str, exclusive_words: str, inclusive: Any
) -> Any:
    compile_inclusive = bound(name, inclusive, inclusive_words)
    strict = (lambda x, m: x < m) if name == "maximum" else (lambda x, m: x > m)
    compile_exclusive = bound(name, strict, exclusive_words)

    def compile(ctx: SchemaContext, value: Any) -> Keyword:
        flag = ctx.schema.get(exclusive, False)
        if not isinstance(flag, bool):
            raise ctx.schema_error(f"{exclusive} must be a boolean in draft-04", exclusive)
        return (compile_exclusive if flag else compile_inclusive)(ctx, value)

    return compile


# -- generated code -------------------------------------------------------------------


def emit_earlier_items(
    w: Writer, i: int, node: Node, ctx: SchemaContext, k: Keyword, x: str, t: str, d: int
) -> bool:
    # The array form goes to the closures; one subschema for every item is items.
    return not isinstance(ctx.schema["items"], list) and emit_items(w, i, node, ctx, k, x, t, d)


# -- evaluation (annotations and output units) -------------------------------------


def walk_earlier_items(
    ev: Walker, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit
) -> Steps:
    if isinstance(value, list):
        return walk_indexed_items(ev, node, "items", value, x, u)
    return walk_rest_items(ev, node, "items", 0, x, u)


def walk_additional_items(
    ev: Walker, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit
) -> Steps | None:
    start = _items_before(ctx)
    return None if start is None else walk_rest_items(ev, node, "additionalItems", start, x, u)


ITEMS_EARLIER = Spec(
    "items",
    compile_items,
    Role.APPLICATOR,
    "array",
    Shape.ONE_OR_LIST,
    Reach.INDEXED,
    reach_one=Reach.REST_ITEMS,
    marks=Marks.PREFIX,
    marks_one=Marks.ALL_ITEMS,
    emit=emit_earlier_items,
    evaluate=walk_earlier_items,
)
ADDITIONAL_ITEMS = Spec(
    "additionalItems",
    compile_additional_items,
    Role.APPLICATOR,
    "array",
    Shape.ONE,
    Reach.REST_ITEMS,
    marks=Marks.ALL_ITEMS,
    continues="items",
    evaluate=walk_additional_items,
)
RECURSIVE_REF = Spec(
    "$recursiveRef",
    compile_recursive_ref,
    Role.APPLICATOR,
    reach=Reach.ALWAYS,
    reference=True,
    emit=emit_reference,
    evaluate=walk_reference,
)
RECURSIVE_ANCHOR = Spec("$recursiveAnchor", None, Role.SILENT)
MAXIMUM_04 = Spec(
    "maximum",
    _draft4_bound(
        "maximum",
        "exclusiveMaximum",
        "greater than the maximum",
        "greater than or equal to the exclusive maximum",
        lambda x, m: x <= m,
    ),
    Role.ASSERTION,
    "number",
)
MINIMUM_04 = Spec(
    "minimum",
    _draft4_bound(
        "minimum",
        "exclusiveMinimum",
        "less than the minimum",
        "less than or equal to the exclusive minimum",
        lambda x, m: x >= m,
    ),
    Role.ASSERTION,
    "number",
)
EXCLUSIVE_MAXIMUM_04 = Spec("exclusiveMaximum", None, Role.PART, "number", part_of="maximum")
EXCLUSIVE_MINIMUM_04 = Spec("exclusiveMinimum", None, Role.PART, "number", part_of="minimum")
