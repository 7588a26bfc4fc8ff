"""Schemas that can apply one subschema to one value more than once, through
children: ``{"items": {"$ref": "#"}, "contains": {"$ref": "#"}}`` checks each item
twice, each of its items four times, and so on: 2**depth applications for a list
nested ``depth`` deep, where the in-place count of Compiler.check_progress sees one.

* With a cycle (:func:`mark_fan_out`), the targets of the edges that close cycles
  (:attr:`Node.back`) memoise their ``is_valid`` answers per value for the length
  of one call, which makes the work linear again. Schemas whose cycles cannot reach
  one value twice (nearly all) pay nothing.
* Without one (:func:`check_child_fan_out`), there is nothing to memoise: the most
  applications one value can get are counted at compile time, and a schema past
  ``max_inplace_applications`` is refused, as in-place fan-out is.

Both are conservative: two edges conflict unless they provably apply to different
children (properties with different names, prefixItems at different indexes, items
and prefixItems of one schema object, values of different JSON types...).
"""

from __future__ import annotations

from collections.abc import Iterable

from .errors import ExecutionFailure
from .model import Node
from .spec import Reach

__all__ = ["check_child_fan_out", "mark_fan_out"]

# Reach values bound once: attribute lookups on an Enum class are slow in 3.11.
_ALWAYS = Reach.ALWAYS
_NAMED, _PATTERN, _INDEXED = Reach.NAMED, Reach.PATTERN, Reach.INDEXED
_REST_ITEMS, _EVERY_ITEM, _KEYS = Reach.REST_ITEMS, Reach.EVERY_ITEM, Reach.KEYS
_UNEVALUATED_ITEMS = Reach.UNEVALUATED_ITEMS


def _reach(owner: Node, tokens: tuple[str | int, ...]) -> Reach:
    """What the child of ``owner`` at ``tokens`` is applied to, from its keyword's
    spec in the owner's dialect (in place, for anything unknown: the conservative
    answer)."""
    ctx = owner.context
    entry = ctx.dialect.reaches.get(str(tokens[0])) if ctx is not None else None
    if entry is None:
        return _ALWAYS
    return entry[1] if len(tokens) > 1 else entry[0]


def _in_place(owner: Node, tokens: tuple[str | int, ...]) -> bool:
    ctx = owner.context
    return ctx is None or tokens[0] in ctx.dialect.in_place or tokens[0] not in ctx.dialect.reaches


def _leaf(owner: Node, tokens: tuple[str | int, ...]) -> bool:
    """Whether the child sees a value without children (a name, decoded content)."""
    ctx = owner.context
    return ctx is not None and tokens[0] in ctx.dialect.leaves


Edge = tuple[Node, tuple[str | int, ...]]
_MEMBER_RESTS = (Reach.REST_MEMBERS, Reach.UNEVALUATED_MEMBERS)


def mark_fan_out(nodes: list[Node]) -> bool:
    """Set ``memo`` on the targets of closing edges when a cycle can apply one of its
    subschemas to one value more than once (all of them: such schemas are rare, and
    a finer answer would cost every schema with cycles time to compile); whether it
    did."""
    sources = [node for node in nodes if node.back]
    if not sources:
        return False  # no cycle at all
    targets = [node.children[tokens] for node in sources for tokens in node.back]
    cyclic = _reaching(sources, nodes) & _reachable(targets)
    # A quick necessary condition first: two edges into the cycles, reached from one
    # node in place or through one node twice, part at a node with two such edges.
    if not any(_towards(node, cyclic) > 1 for node in cyclic) or not _fans_out(cyclic):
        return False
    for target in targets:
        target.memo = True
    return True


def _reaching(sources: list[Node], nodes: list[Node]) -> set[Node]:
    """The nodes from which one of ``sources`` can be reached (them included)."""
    parents: dict[Node, list[Node]] = {}
    for node in nodes:
        for child in node.children.values():
            parents.setdefault(child, []).append(node)
    found = set(sources)
    pending = list(sources)
    while pending:
        for parent in parents.get(pending.pop(), ()):
            if parent not in found:
                found.add(parent)
                pending.append(parent)
    return found


def _reachable(starts: list[Node]) -> set[Node]:
    """The nodes reachable from ``starts`` (them included)."""
    found = set(starts)
    pending = list(starts)
    while pending:
        for child in pending.pop().children.values():
            if child not in found:
                found.add(child)
                pending.append(child)
    return found


def _towards(node: Node, cyclic: set[Node]) -> int:
    return sum(
        1 for tokens, child in node.children.items() if child in cyclic and not _leaf(node, tokens)
    )


def _fans_out(component: set[Node]) -> bool:
    """Whether applying some node on a cycle can reach one child of the value through
    two edges into the cycles (or through one edge twice).

    ``component`` holds every node on a cycle, and the nodes on paths between two
    cycles: more than the cycles, which can only make the answer yes more often.
    """
    # The edges into the cycles that a node applies to children, reached in place
    # from it. Nodes on an in-place path between two nodes of the component are in it
    # too, so the walk stays in it; an edge reached twice is a fan-out already.
    reached: dict[Node, set[Edge]] = {}
    inplace: dict[Node, list[Node]] = {}
    below: set[Node] = set()  # nodes some node of the component applies in place
    for node in component:
        inplace[node] = [
            child
            for tokens, child in node.children.items()
            if _in_place(node, tokens)
            and child in component
            and not (node.loop and child.loop == node.loop)  # a loop fails at once
        ]
        below.update(inplace[node])

    def summary(start: Node) -> set[Edge] | None:
        # In-place edges form no cycle (check_progress refused those): a post-order
        # walk computes each node's summary once from its children's.
        pending: list[tuple[Node, bool]] = [(start, False)]
        while pending:
            node, expanded = pending.pop()
            if node in reached:
                continue
            if not expanded:
                pending.append((node, True))
                pending.extend((child, False) for child in inplace[node] if child not in reached)
                continue
            own = {
                (node, tokens)
                for tokens, child in node.children.items()
                if child in component and not _in_place(node, tokens) and not _leaf(node, tokens)
            }
            if not own and len(inplace[node]) == 1:
                # A reference, typically: the same summary (shared, never changed).
                reached[node] = reached[inplace[node][0]]
                continue
            for child in inplace[node]:
                theirs = reached[child]
                if not own.isdisjoint(theirs):
                    return None  # one edge through two in-place paths
                own |= theirs
            reached[node] = own
        return reached[start]

    # A summary holds those of the nodes applied in place below it: checking the
    # nodes nothing in the component applies in place is enough.
    checked: set[int] = set()
    for node in component:
        if node in below:
            continue
        edges = summary(node)
        if edges is None:
            return True
        if id(edges) not in checked:
            checked.add(id(edges))
            if _overlap(edges):
                return True
    return False


def _overlap(edges: Iterable[Edge]) -> bool:
    """Whether two of these edges (owner node, keyword tokens) can apply to one child."""
    names: dict[str, int] = {}
    patterns: set[int] = set()
    rests: set[int] = set()
    indexes: dict[int, int] = {}
    items: set[int] = set()
    every = 0
    array_rests: set[int] = set()
    others = 0
    for owner, tokens in edges:
        reach, here = _reach(owner, tokens), id(owner)
        if reach is _NAMED:
            name = str(tokens[1])
            if name in names:
                return True
            names[name] = here
        elif reach is _PATTERN:
            patterns.add(here)
        elif reach in _MEMBER_RESTS:
            # Only the members the same schema object leaves to them.
            rests.add(here)
        elif reach is _INDEXED:
            index = int(tokens[1])
            if index in indexes:
                return True
            indexes[index] = here
        elif reach is _REST_ITEMS:
            items.add(here)
        elif reach is _EVERY_ITEM:
            every += 1
        elif reach is _UNEVALUATED_ITEMS:
            array_rests.add(here)
        else:
            others += 1
    if others > 1 or every > 1:
        return True
    # Objects: a pattern may match any name (schema patterns are not run at compile
    # time: they could be slow), and additionalProperties/unevaluatedProperties only
    # exclude the names of their own schema object.
    if patterns and (names or len(patterns) > 1 or rests - patterns):
        return True
    if rests and (len(rests) > 1 or any(owner not in rests for owner in names.values())):
        return True
    # Arrays: contains applies to every item; prefixItems, items and unevaluatedItems
    # of one schema object share the items out, those of two schema objects do not.
    if every and (indexes or items or array_rests):
        return True
    return len(set(indexes.values()) | items | array_rests) > 1


# -- without cycles ----------------------------------------------------------------------


def check_child_fan_out(root: Node, nodes: list[Node], limit: int) -> None:
    """Refuse a schema that can check one value against more than ``limit``
    subschemas through nested keywords that share children out twice.

    Without a cycle there is nothing to memoise, but definitions that each apply the
    next one through two keywords to the same items (``items`` and ``contains``)
    still double the work at each level: 2**40 applications for 40 definitions.
    Compiler.check_progress bounds the applications in place; this bounds them
    through children, with the closing edges of cycles counted once (their targets
    memoise when a cycle fans out). The count is an upper bound: keywords that may
    apply to one child (a pattern and a name, say) are added up. ``root`` reaches
    every node; its ``paths`` bound the count from above, cheaply.
    """
    if root.paths <= limit:
        return  # fewer evaluation paths in all than the limit: nothing to add up
    cap = limit + 1
    # Per node: the most applications one value below (or at) it can get, and the
    # weighted edges to children that its in-place subschemas apply.
    most: dict[Node, int] = {}
    here: dict[Node, int] = {}
    edges: dict[Node, dict[Edge, int]] = {}
    for node in _post_order(nodes):
        inplace = [
            (tokens, child)
            for tokens, child in node.children.items()
            if _in_place(node, tokens) and tokens not in node.back
        ]
        # Applications at the node's own value: itself and its in-place subschemas
        # (a closing edge counts its call, not what its target does again).
        at_value = 1 + sum(
            1 if tokens in node.back else here[child]
            for tokens, child in node.children.items()
            if _in_place(node, tokens)
        )
        own: dict[Edge, int] = {}
        for tokens, child in node.children.items():
            if not _in_place(node, tokens):
                own[(node, tokens)] = 1 if tokens in node.back else most[child]
        if not own and len(inplace) == 1:
            summary = edges[inplace[0][1]]  # shared, never changed
        else:
            summary = own
            for _, child in inplace:
                for key, weight in edges[child].items():
                    summary[key] = min(cap, summary.get(key, 0) + weight)
        here[node] = min(cap, at_value)
        edges[node] = summary
        most[node] = max(here[node], _busiest_child(summary, cap))
        if most[node] > limit:
            where = node.context.pointer if node.context is not None else node.uri
            raise ExecutionFailure(
                f"a value could be checked against more than max_inplace_applications="
                f"{limit} subschemas (keywords that apply subschemas to the same members "
                "or items, such as items and contains, multiply through nested schemas)",
                location=where,
                limit="max_inplace_applications",
                value=limit,
            )


def _post_order(nodes: list[Node]) -> list[Node]:
    """Every node after the nodes it reaches without a closing edge."""
    done: set[Node] = set()
    order: list[Node] = []
    for root in nodes:
        if root in done:
            continue
        done.add(root)
        work = [(root, iter(_forward(root)))]
        while work:
            node, children = work[-1]
            for child in children:
                if child not in done:
                    done.add(child)
                    work.append((child, iter(_forward(child))))
                    break
            else:
                work.pop()
                order.append(node)
    return order


def _forward(node: Node) -> list[Node]:
    return [child for tokens, child in node.children.items() if tokens not in node.back]


def _busiest_child(summary: dict[Edge, int], cap: int) -> int:
    """An upper bound of the applications one child (or key, or decoded content)
    gets from these weighted edges: they add up where they may share a child."""
    names: dict[str, list[tuple[Node, int]]] = {}
    patterns = 0
    rests: dict[Node, int] = {}
    indexes: dict[int, int] = {}
    items: list[tuple[int, int]] = []
    every = 0
    keys = 0
    other = 0
    for (owner, tokens), weight in summary.items():
        reach = _reach(owner, tokens)
        if reach is _NAMED:
            names.setdefault(str(tokens[1]), []).append((owner, weight))
        elif reach is _PATTERN:
            patterns += weight
        elif reach in _MEMBER_RESTS:
            rests[owner] = rests.get(owner, 0) + weight
        elif reach is _INDEXED:
            index = int(tokens[1])
            indexes[index] = indexes.get(index, 0) + weight
        elif reach is _REST_ITEMS:
            start = sum(1 for key in owner.children if _reach(owner, key) is _INDEXED)
            items.append((start, weight))
        elif reach is _EVERY_ITEM or reach is _UNEVALUATED_ITEMS:
            every += weight
        elif reach is _KEYS:
            keys += weight
        else:
            other += weight
    rest = sum(rests.values())
    best = max(keys, other, patterns + rest)
    for owners in names.values():
        # additionalProperties and unevaluatedProperties skip their own names.
        excluded = sum(rests.get(owner, 0) for owner, _ in owners)
        best = max(best, sum(weight for _, weight in owners) + patterns + rest - excluded)
    all_items = sum(weight for _, weight in items)
    best = max(best, all_items + every)
    for index, weight in indexes.items():
        reached = sum(weight for start, weight in items if start <= index)
        best = max(best, weight + reached + every)
    return min(cap, best)
