"""How relevant the errors of a compiled schema can be, known before validating.

:func:`~schemacore.relevance.best_match` keeps the first error of greatest
:func:`~schemacore.relevance.relevance` (instance depth, then not weak): a later error
replaces it only when strictly more relevant. Once an error is as relevant as any
error of the schema can be, no later one can change the answer, and
``Validator.validate`` stops reading errors there (:func:`error_ceiling` is that
bound).

The bound follows the keywords' spec facts (:class:`~schemacore.spec.Spec`): a
keyword's own errors sit at its value; the errors of a subschema it passes on sit
where the subschema applies, no deeper for one applied in place, to a name or to
decoded content (``reach``), one level deeper for one applied to a member or an item,
and references follow their target. A keyword that sums its subschemas' errors up
(``passes_errors`` false) adds only its own. A cycle, or anything the specs do not
describe, leaves the depth unbounded: ``validate`` then reads every error, as before.
"""

from __future__ import annotations

from .dialect import Dialect
from .model import Node
from .relevance import WEAK
from .spec import IN_PLACE, LEAVES, Reach

__all__ = ["NO_ERRORS", "UNBOUNDED", "error_ceiling"]

# A depth no instance has (its pointer would not fit in memory): "no bound known".
UNBOUNDED = 1 << 62
# The ceiling of a schema that yields no error at all: below every relevance.
NO_ERRORS = (-1, 0)
_ANYTHING = (UNBOUNDED, 1)
_OWN = (0, 1)
_OWN_WEAK = (0, 0)

# Levels below the value that each reach adds; a reach missing here is not known.
_STEPS: dict[Reach, int] = {
    **dict.fromkeys(IN_PLACE | LEAVES, 0),
    **dict.fromkeys(
        (
            Reach.NAMED,
            Reach.PATTERN,
            Reach.REST_MEMBERS,
            Reach.UNEVALUATED_MEMBERS,
            Reach.INDEXED,
            Reach.REST_ITEMS,
            Reach.EVERY_ITEM,
            Reach.UNEVALUATED_ITEMS,
        ),
        1,
    ),
}
# In a step table: the subschema's errors are not the node's (summed up by its
# keyword, or $defs, applied through references only); and a reach not known.
_SKIP = -1
_UNKNOWN = -2

# Per dialect, keyword -> steps of (its single subschema, a member of its list or
# map): the spec facts read once, not per node (Enum lookups are slow in 3.11).
# Bounded: custom meta-schemas make dialects of their own.
_TABLES: dict[Dialect, dict[str, tuple[int, int]]] = {}
_MAX_TABLES = 256


def _steps(dialect: Dialect) -> dict[str, tuple[int, int]]:
    table = _TABLES.get(dialect)
    if table is None:
        table = {}
        for name, (spec, _) in dialect.keywords.items():
            if not spec.passes_errors:
                table[name] = (_SKIP, _SKIP)
                continue
            one, member = spec.reach_of((name,)), spec.reach_of((name, 0))
            table[name] = (
                _SKIP if one is Reach.UNAPPLIED else _STEPS.get(one, _UNKNOWN),
                _SKIP if member is Reach.UNAPPLIED else _STEPS.get(member, _UNKNOWN),
            )
        if len(_TABLES) >= _MAX_TABLES:
            _TABLES.clear()
        _TABLES[dialect] = table
    return table


def error_ceiling(node: Node) -> tuple[int, int]:
    """The greatest ``relevance`` an error yielded by ``node.errors`` can have, its
    depth counted from the node's value: (depth, 1 when not weak), ``NO_ERRORS`` when
    it yields none, a depth of ``UNBOUNDED`` when no bound is known.

    Worked out for the nodes it needs on first use and kept on them (Node.ceiling):
    a schema that never meets ``validate`` with an invalid instance pays nothing.
    Threads may both work a node out; they write the same value, and only a final one.
    """
    known = node.ceiling
    if known is not None:
        return known
    if node.context is not None:
        node.context.compiler.complete()  # it walks every node (Compiler.defer_leaf)
    stack = [node]
    while stack:
        current = stack[-1]
        if current.ceiling is not None:
            stack.pop()
            continue
        # Edges that close no cycle form no cycle either: children finish first,
        # and a node is looked at again once they have.
        found = _ceiling_or_pending(current)
        if isinstance(found, list):
            stack.extend(found)
        else:
            current.ceiling = found
            stack.pop()
    assert node.ceiling is not None
    return node.ceiling


def _ceiling_or_pending(node: Node) -> tuple[int, int] | list[Node]:
    """The ceiling of ``node``, or the children it needs that are not known yet."""
    ctx = node.context
    if ctx is None:
        return _OWN_WEAK if node.boolean is False else NO_ERRORS  # "false" is weak
    if node.trivial:
        return NO_ERRORS
    best = _OWN if node.types is not None else NO_ERRORS
    for name, keyword in node.keywords.items():
        if keyword.spec is None:
            return _ANYTHING  # a keyword no spec describes
        if best is not _OWN:
            best = _OWN_WEAK if name in WEAK else _OWN
    table = _steps(ctx.dialect)
    back = node.back
    pending: list[Node] = []
    for tokens, child in node.children.items():
        steps = table.get(str(tokens[0]))
        if steps is None:
            return _ANYTHING
        step = steps[0] if len(tokens) == 1 else steps[1]
        if step == _SKIP:
            continue
        if step == _UNKNOWN or tokens in back:
            return _ANYTHING  # a reach not known, or a cycle
        below = child.ceiling
        if below is None:
            pending.append(child)
        elif not pending and below[0] >= 0:
            candidate = (min(UNBOUNDED, below[0] + step), below[1])
            if candidate > best:
                best = candidate
    return pending or best
