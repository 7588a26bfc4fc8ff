"""Writing generated ``is_valid`` code: the writer, and how a node and its children
are written out.

Each keyword's own emitter lives beside its compiler, in its keyword module, and is
named by its :class:`~schemacore.spec.Spec` (``Spec.emit``); :func:`emit_node`
writes a schema object's type dispatch and hands each keyword to its emitter, or to
a call of its compiled closure when it has none (or declines). Schema values never
appear in the source: each is bound to a name (``_c0``, ``_c1``, ...).
"""

from __future__ import annotations

from collections.abc import Callable
from time import monotonic
from typing import Any, NamedTuple

from .calls import expired, memoised, recursion
from .guard import too_deep
from .model import Keyword, Node, SchemaContext, finite

__all__ = [
    "EXACT",
    "MISSING",
    "Edge",
    "Emitter",
    "Tokens",
    "Writer",
    "branch_test",
    "call",
    "callable_of",
    "closed",
    "edge",
    "emit_body",
    "emit_child",
    "emit_keyword",
    "emit_node",
    "inlinable",
    "recursive_call",
    "where_of",
]

# How much a node may grow by inlining subschemas, and how deep.
_MAX_LINES = 300


_MAX_DEPTH = 4


_NONE = type(None)


_BRANCHES: tuple[tuple[type, str], ...] = (
    (dict, "object"),
    (str, "string"),
    (int, "number"),
    (float, "number"),
    (list, "array"),
    (bool, "boolean"),
    (_NONE, "null"),
)


MISSING: Any = object()


Tokens = tuple[str | int, ...]


class Writer:
    """Accumulates source lines and the namespace they refer to."""

    def __init__(self) -> None:
        self.names: dict[str, Any] = {"MISSING": MISSING, "_finite": finite}
        self.ids: dict[int, str] = {}
        self.lines: list[str] = []
        self.total = 0
        self.counter = 0

    def const(self, value: Any) -> str:
        known = self.ids.get(id(value))
        if known is not None and self.names[known] is value:
            return known
        name = f"_c{len(self.names)}"
        self.names[name] = value
        self.ids[id(value)] = name
        return name

    def var(self) -> str:
        self.counter += 1
        return f"_v{self.counter}"

    def add(self, indent: int, line: str) -> None:
        self.total += 1
        self.lines.append("    " * indent + line)


def call(w: Writer, indent: int, fn: Callable[[Any], bool], var: str) -> None:
    w.add(indent, f"if not {w.const(fn)}({var}): return False")


class Edge(NamedTuple):
    """Where a child edge leads: the node that does the work, past nodes that only
    stand for another; and when the edge closes a cycle, the node it closes on (the
    one the closures call, count and memoise under) and how a failure names it."""

    node: Node
    closing: Node | None = None
    where: str = ""


def edge(parent: Node, tokens: Tokens) -> Edge:
    """Follow a child edge of ``parent``: generated code counts the instance depth
    where it closes a cycle, as the closures do (calls.recursion)."""
    node = parent.children[tokens]
    closing, where = (node, where_of(parent, tokens)) if tokens in parent.back else (None, "")
    while True:
        if node.alias is not None:
            node = node.alias
        elif node.only is not None and node.only in node.back and closing is None:
            # A reference (or lone branch) that closes a cycle: the call through it.
            where = where_of(node, node.only)
            node = closing = node.children[node.only]
        else:
            return Edge(node, closing, where)


def where_of(parent: Node, tokens: Tokens) -> str:
    """How a failure names a cycle's closing edge: the reference keyword, or else the
    schema it leads to (as calls.recursion does)."""
    keyword = parent.keywords.get(str(tokens[0]))
    spec = keyword.spec if keyword is not None else None
    if spec is not None and spec.reference and parent.context is not None:
        return parent.context.location(*tokens)
    return parent.children[tokens].uri


def emit_child(w: Writer, indent: int, parent: Node, tokens: Tokens, var: str, depth: int) -> None:
    """Checks of a subschema on ``var``, inlined when small enough, else a call."""
    node, closing, where = edge(parent, tokens)
    if closing is not None and closing.loop:
        # A loop without progress: the closures' call records it (see Node.loop).
        w.add(indent, f"if not {w.const(recursion(closing, where)[0])}({var}): return False")
        return
    if closing is not None:
        recursive_call(w, indent, node, closing, where, var)
        return
    if node.trivial:
        return
    if node.boolean is False:
        w.add(indent, "return False")
        return
    if inlinable(node, depth) and w.total < _MAX_LINES:
        context = node.context
        assert context is not None
        emit_node(w, indent, node, context, var, depth + 1)
    else:
        w.add(indent, f"if not {branch_test(w, parent, tokens)}({var}): return False")


def emit_body(w: Writer, indent: int, parent: Node, tokens: Tokens, var: str, depth: int) -> None:
    """A subschema's checks as the body of a block (``pass`` when it has none)."""
    mark = len(w.lines)
    emit_child(w, indent, parent, tokens, var, depth)
    if len(w.lines) == mark:
        w.add(indent, "pass")


def recursive_call(w: Writer, indent: int, node: Node, closing: Node, where: str, var: str) -> None:
    """A call that closes a cycle, counting the depth in line: one Python frame per
    level of recursion, the callee's."""
    context = closing.context
    assert context is not None, "only a schema object can be unfinished"
    limit = context.options.limits.max_instance_depth
    states = w.const(context.compiler.states)
    depth, result, state = w.var(), w.var(), w.var()
    limit_name = w.const(limit)
    w.add(indent, f"{state} = {states}.now")
    w.add(indent, f"{state}.depth = {depth} = {state}.depth + 1")
    w.add(
        indent,
        f"if {depth} > {limit_name}: raise {w.const(too_deep)}({limit_name}, {w.const(where)})",
    )
    if closing.memo:
        # Keyed by the node the closures use, so both share the answers.
        call = f"{w.const(memoised)}({state}, {w.const(closing)}, {var})"
    else:
        call = f"{w.const(node)}.valid({var})"
    w.add(indent, f"try: {result} = {call}")
    w.add(indent, f"finally: {state}.depth = {depth} - 1")
    w.add(indent, f"if not {result}: return False")


def inlinable(node: Node, depth: int) -> bool:
    return node.ready and node.inline_ok and node.context is not None and depth < _MAX_DEPTH


EXACT = frozenset(py_type for py_type, _ in _BRANCHES)


def emit_node(w: Writer, indent: int, node: Node, ctx: SchemaContext, var: str, depth: int) -> None:
    """The checks of one schema object on the value in ``var``: fall through on
    success, ``return False`` on failure."""
    if ctx.options.limits.time_budget is not None:
        # Every schema object checks the deadline, inlined or not, as the closures do.
        states = w.const(ctx.compiler.states)
        w.add(indent, f"if {w.const(monotonic)}() > {states}.now.deadline:")
        w.add(indent + 1, f"raise {w.const(expired)}({w.const(ctx)})")
    if node.lone is not None:
        # One keyword that applies to every value stands for the node: no dispatch
        # (its subschemas check the type and floats themselves).
        emit_keyword(w, indent, node, ctx, node.keywords[node.lone], var, "", depth)
        return
    types = node.types
    keywords = list(node.keywords.values())
    if "additionalProperties" in node.keywords and closed(node, ctx):
        keywords.sort(key=lambda k: k.name not in _CLOSED_FIRST)
    kind = w.var()
    branches: list[tuple[type, list[str]]] = []
    empty: list[type] = []
    for py_type, json_type in _BRANCHES:
        allowed = types is None or json_type in types
        integral_only = False
        if not allowed and json_type == "number" and types is not None and "integer" in types:
            allowed = True
            integral_only = py_type is float
        if not allowed:
            if py_type is float:
                # Rejected by type, but a NaN or an infinity is refused first.
                branches.append((float, [f"{'    ' * (indent + 1)}_finite({var}); return False"]))
            continue
        outer, w.lines = w.lines, []
        if py_type is float:
            w.add(indent + 1, f"if {var} - {var} != 0.0: _finite({var})")
            if integral_only and ctx.dialect.float_integers:
                w.add(indent + 1, f"if not {var}.is_integer(): return False")
            elif integral_only:
                w.add(indent + 1, "return False")  # draft-04: no float is an integer
        for keyword in keywords:
            if keyword.applies_to is None or keyword.applies_to == json_type:
                emit_keyword(w, indent + 1, node, ctx, keyword, var, json_type, depth)
        body, w.lines = w.lines, outer
        if len(body) == 1 and body[0].strip() == "return False":
            continue  # as good as rejected by type
        if body:
            branches.append((py_type, body))
        else:
            empty.append(py_type)
    w.add(indent, f"{kind} = type({var})")
    opener = "if"
    for py_type, body in branches:
        w.add(indent, f"{opener} {kind} is {w.const(py_type)}:")
        w.lines.extend(body)
        opener = "elif"
    if empty:
        w.add(indent, f"{opener} {kind} in {w.const(frozenset(empty))}:")
        w.add(indent + 1, "pass")
        opener = "elif"
    if len(branches) + len(empty) < len(_BRANCHES):
        # The type keyword rejects the other exact JSON types.
        w.add(indent, f"{opener} {kind} in {w.const(EXACT)}:")
        w.add(indent + 1, "return False")
        opener = "elif"
    # Subclasses of the JSON types and values outside the JSON data model take the
    # general path, which knows how to classify or refuse them.
    w.add(indent, f"{opener} {kind} not in {w.const(EXACT)}:" if opener == "if" else "else:")
    call(w, indent + 1, node.closure_valid, var)


# A closed object (additionalProperties false, no patternProperties) is refused by one
# set test, so generated code runs it right after required: extra names are the cheapest
# failure to find. Only is_valid's order changes (so on an instance holding both an
# extra name and a value outside JSON it may answer False first, as documented).
_CLOSED_FIRST = ("required", "additionalProperties")


def closed(node: Node, ctx: SchemaContext) -> bool:
    """Whether additionalProperties is false and nothing else can admit a name."""
    if ctx.active("patternProperties") or ("additionalProperties",) not in node.children:
        return False
    return edge(node, ("additionalProperties",)).node.boolean is False


def emit_keyword(
    w: Writer,
    indent: int,
    node: Node,
    ctx: SchemaContext,
    keyword: Keyword,
    var: str,
    json_type: str,
    depth: int,
) -> None:
    emitter = keyword.spec.emit if keyword.spec is not None else None
    if emitter is None or not emitter(w, indent, node, ctx, keyword, var, json_type, depth):
        call(w, indent, keyword.valid, var)


Emitter = Callable[[Writer, int, Node, SchemaContext, Keyword, str, str, int], bool]


def callable_of(parent: Node, tokens: Tokens) -> Callable[[Any], bool]:
    """A function answering is_valid for a subschema, as _branch_test's expression."""
    node, closing, where = edge(parent, tokens)
    if closing is not None:
        return recursion(closing, where)[0]
    if node.generated is not None:
        return node.generated
    return lambda value: node.valid(value)


def branch_test(w: Writer, parent: Node, tokens: Tokens) -> str:
    """An expression calling a subschema's current is_valid function."""
    node, closing, where = edge(parent, tokens)
    if closing is not None:
        # An expression cannot count in line: the counting closure does it.
        return w.const(recursion(closing, where)[0])
    if node.generated is not None:
        return w.const(node.generated)
    return f"{w.const(node)}.valid"
