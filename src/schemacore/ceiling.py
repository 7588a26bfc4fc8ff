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
_UNAPPLIED = Reach.UNAPPLIED

Edges = list[tuple[Node, int]]


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
    edges: dict[Node, Edges | None] = {}
    stack = [node]
    while stack:
        current = stack[-1]
        if current.ceiling is not None:
            stack.pop()
            continue
        if current not in edges:
            edges[current] = _edges(current)
        mine = edges[current]
        if mine is None:
            current.ceiling = _ANYTHING
            stack.pop()
            continue
        # Edges that close no cycle form no cycle either: children finish first.
        pending = [child for child, _ in mine if child.ceiling is None]
        if pending:
            stack.extend(pending)
            continue
        stack.pop()
        current.ceiling = _combine(current, mine)
    assert node.ceiling is not None
    return node.ceiling


def _edges(node: Node) -> Edges | None:
    """The children whose errors ``node`` yields as its own, each with the levels it
    adds; None when no bound can be known (a cycle, or a keyword no spec describes)."""
    ctx = node.context
    if ctx is None:
        return []  # a boolean schema: no subschemas
    if any(keyword.spec is None for keyword in node.keywords.values()):
        return None
    table = ctx.dialect.keywords
    found: Edges = []
    for tokens, child in node.children.items():
        entry = table.get(str(tokens[0]))
        if entry is None:
            return None
        spec = entry[0]
        if not spec.passes_errors:
            continue  # only the keyword's own error, counted in _own
        reach = spec.reach_of(tokens)
        if reach is _UNAPPLIED:
            continue  # $defs: applied through references only, counted there
        step = _STEPS.get(reach)
        if step is None or tokens in node.back:
            return None
        found.append((child, step))
    return found


def _own(node: Node) -> tuple[int, int]:
    """The most relevant error of ``node`` at its own value."""
    if node.boolean is False:
        return _OWN_WEAK  # "false" is weak
    if node.trivial:
        return NO_ERRORS
    best = _OWN if node.types is not None else NO_ERRORS
    for name in node.keywords:
        if name not in WEAK:
            return _OWN
        best = max(best, _OWN_WEAK)
    return best


def _combine(node: Node, edges: Edges) -> tuple[int, int]:
    best = _own(node)
    for child, step in edges:
        assert child.ceiling is not None
        depth, strong = child.ceiling
        if depth < 0:
            continue  # the child yields no error
        candidate = (min(UNBOUNDED, depth + step), strong)
        if candidate > best:
            best = candidate
    return best
