"""Straight-line Python for the ``is_valid`` path of a schema object.

The keyword closures are correct and general; calling one per keyword per value
is what costs. For the keywords that dominate real schemas (type, properties,
required, additionalProperties, items, bounds, string enums, patterns, references)
this module writes the checks of a schema object, and of its small subschemas, into
one Python function: a type dispatch on the exact class of the value, then plain
comparisons that ``return False`` on the first failure. Every other keyword, and
every value that is not of an exact JSON type (subclasses, values outside the JSON
data model), is handed to the compiled closures, so behaviour stays theirs.

Schema values never appear in the generated source: each one is bound to a name in
the function's namespace (``_c0``, ``_c1``, ...), and the source holds only those
names, generated identifiers and Python syntax.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from time import monotonic
from typing import Any, NamedTuple

from .fixedpattern import Run, fixed_runs
from .guard import too_deep
from .keywords import applicator as ap
from .keywords import core, expired
from .keywords import earlier as old
from .keywords import validation as va
from .keywords.core import memoised, pattern_search, recursion
from .keywords.dispatch import discriminator
from .model import Keyword, Node, SchemaContext, finite
from .spec import Spec

__all__ = ["EMITTERS", "HOT", "WORTH_WRITING", "generate_valid", "promote"]

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
_MISSING: Any = object()
Tokens = tuple[str | int, ...]


class _Writer:
    """Accumulates source lines and the namespace they refer to."""

    def __init__(self) -> None:
        self.names: dict[str, Any] = {"_MISSING": _MISSING, "_finite": finite}
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


def _call(w: _Writer, indent: int, fn: Callable[[Any], bool], var: str) -> None:
    w.add(indent, f"if not {w.const(fn)}({var}): return False")


class _Edge(NamedTuple):
    """Where a child edge leads: the node that does the work, past nodes that only
    stand for another; and when the edge closes a cycle, the node it closes on (the
    one the closures call, count and memoise under) and how a failure names it."""

    node: Node
    closing: Node | None = None
    where: str = ""


def _edge(parent: Node, tokens: Tokens) -> _Edge:
    """Follow a child edge of ``parent``: generated code counts the instance depth
    where it closes a cycle, as the closures do (keywords.core)."""
    node = parent.children[tokens]
    closing, where = (node, _where(parent, tokens)) if tokens in parent.back else (None, "")
    while True:
        if node.alias is not None:
            node = node.alias
        elif node.only is not None and node.only in node.back and closing is None:
            # A reference (or lone branch) that closes a cycle: the call through it.
            where = _where(node, node.only)
            node = closing = node.children[node.only]
        else:
            return _Edge(node, closing, where)


def _where(parent: Node, tokens: Tokens) -> str:
    """How a failure names a cycle's closing edge: the reference keyword, or else the
    schema it leads to (as keywords.core does)."""
    keyword = parent.keywords.get(str(tokens[0]))
    spec = keyword.spec if keyword is not None else None
    if spec is not None and spec.reference and parent.context is not None:
        return parent.context.location(*tokens)
    return parent.children[tokens].uri


def _emit_child(
    w: _Writer, indent: int, parent: Node, tokens: Tokens, var: str, depth: int
) -> None:
    """Checks of a subschema on ``var``, inlined when small enough, else a call."""
    node, closing, where = _edge(parent, tokens)
    if closing is not None and closing.loop:
        # A loop without progress: the closures' call records it (see Node.loop).
        w.add(indent, f"if not {w.const(recursion(closing, where)[0])}({var}): return False")
        return
    if closing is not None:
        _recursive_call(w, indent, node, closing, where, var)
        return
    if node.trivial:
        return
    if node.boolean is False:
        w.add(indent, "return False")
        return
    if _inlinable(node, depth) and w.total < _MAX_LINES:
        context = node.context
        assert context is not None
        _emit_node(w, indent, node, context, var, depth + 1)
    else:
        w.add(indent, f"if not {_branch_test(w, parent, tokens)}({var}): return False")


def _recursive_call(
    w: _Writer, indent: int, node: Node, closing: Node, where: str, var: str
) -> None:
    """A call that closes a cycle, counting the depth in line: one Python frame per
    level of recursion, the callee's."""
    context = closing.context
    assert context is not None, "only a schema object can be unfinished"
    limit = context.options.limits.max_instance_depth
    state = w.const(context.compiler.state)
    depth, result = w.var(), w.var()
    limit_name = w.const(limit)
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


def _inlinable(node: Node, depth: int) -> bool:
    return node.ready and node.inline_ok and node.context is not None and depth < _MAX_DEPTH


_EXACT = frozenset(py_type for py_type, _ in _BRANCHES)


def _emit_node(
    w: _Writer, indent: int, node: Node, ctx: SchemaContext, var: str, depth: int
) -> None:
    """The checks of one schema object on the value in ``var``: fall through on
    success, ``return False`` on failure."""
    if ctx.options.limits.time_budget is not None:
        # Every schema object checks the deadline, inlined or not, as the closures do.
        state = w.const(ctx.compiler.state)
        w.add(indent, f"if {w.const(monotonic)}() > {state}.deadline:")
        w.add(indent + 1, f"raise {w.const(expired)}({w.const(ctx)})")
    if node.lone is not None:
        # One keyword that applies to every value stands for the node: no dispatch
        # (its subschemas check the type and floats themselves).
        _emit_keyword(w, indent, node, ctx, node.keywords[node.lone], var, "", depth)
        return
    types = node.types
    keywords = list(node.keywords.values())
    if "additionalProperties" in node.keywords and _closed(node, ctx):
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
                _emit_keyword(w, indent + 1, node, ctx, keyword, var, json_type, depth)
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
        w.add(indent, f"{opener} {kind} in {w.const(_EXACT)}:")
        w.add(indent + 1, "return False")
        opener = "elif"
    # Subclasses of the JSON types and values outside the JSON data model take the
    # general path, which knows how to classify or refuse them.
    w.add(indent, f"{opener} {kind} not in {w.const(_EXACT)}:" if opener == "if" else "else:")
    _call(w, indent + 1, node.closure_valid, var)


# A closed object (additionalProperties false, no patternProperties) is refused by one
# set test, so generated code runs it right after required: extra names are the cheapest
# failure to find. Only is_valid's order changes (so on an instance holding both an
# extra name and a value outside JSON it may answer False first, as documented).
_CLOSED_FIRST = ("required", "additionalProperties")


def _closed(node: Node, ctx: SchemaContext) -> bool:
    """Whether additionalProperties is false and nothing else can admit a name."""
    if ctx.active("patternProperties") or ("additionalProperties",) not in node.children:
        return False
    return _edge(node, ("additionalProperties",)).node.boolean is False


def _emit_keyword(
    w: _Writer,
    indent: int,
    node: Node,
    ctx: SchemaContext,
    keyword: Keyword,
    var: str,
    json_type: str,
    depth: int,
) -> None:
    emitter = EMITTERS.get(keyword.spec) if keyword.spec is not None else None
    if emitter is None or not emitter(w, indent, node, ctx, keyword, var, json_type, depth):
        _call(w, indent, keyword.valid, var)


Emitter = Callable[[_Writer, int, Node, SchemaContext, Keyword, str, str, int], bool]


def _properties(
    w: _Writer, i: int, node: Node, ctx: SchemaContext, k: Keyword, x: str, t: str, d: int
) -> bool:
    # "required" runs first (it is cheaper), so a required name is there by now.
    required = node.keywords.get("required")
    present = set(ctx.schema["required"]) if required is not None else set()
    optional = [
        name
        for name in ctx.schema["properties"]
        if name not in present and not node.children[("properties", name)].trivial
    ]
    many = len(optional) > _MANY_PROPERTIES
    if many:
        # Objects usually hold a few of many declared names (a meta-schema declares
        # sixty keywords, a schema uses three): look up the names the value has in a
        # table of checks rather than every declared name in the value.
        table = {name: _callable(node, ("properties", name)) for name in optional}
        key, value, check = w.var(), w.var(), w.var()
        w.add(i, f"for {key}, {value} in {x}.items():")
        w.add(i + 1, f"{check} = {w.const(table)}.get({key})")
        w.add(i + 1, f"if {check} is not None and not {check}({value}): return False")
    for name in ctx.schema["properties"]:
        child = node.children[("properties", name)]
        if child.trivial or (many and name not in present):
            continue
        value = w.var()
        if name in present:
            w.add(i, f"{value} = {x}[{w.const(name)}]")
            _emit_child(w, i, node, ("properties", name), value, d)
            continue
        w.add(i, f"{value} = {x}.get({w.const(name)}, _MISSING)")
        w.add(i, f"if {value} is not _MISSING:")
        mark = len(w.lines)
        _emit_child(w, i + 1, node, ("properties", name), value, d)
        if len(w.lines) == mark:
            w.add(i + 1, "pass")
    return True


# Above this many optional declared properties, generated code walks the value's
# names instead of the declared ones.
_MANY_PROPERTIES = 8


def _callable(parent: Node, tokens: Tokens) -> Callable[[Any], bool]:
    """A function answering is_valid for a subschema, as _branch_test's expression."""
    node, closing, where = _edge(parent, tokens)
    if closing is not None:
        return recursion(closing, where)[0]
    if node.generated is not None:
        return node.generated
    return lambda value: node.valid(value)


def _required(
    w: _Writer, i: int, node: Node, ctx: SchemaContext, k: Keyword, x: str, t: str, d: int
) -> bool:
    names = list(dict.fromkeys(ctx.schema["required"]))
    for start in range(0, len(names), 8):
        chunk = names[start : start + 8]
        test = " or ".join(f"{w.const(name)} not in {x}" for name in chunk)
        w.add(i, f"if {test}: return False")
    return True


def _additional_properties(
    w: _Writer, i: int, node: Node, ctx: SchemaContext, k: Keyword, x: str, t: str, d: int
) -> bool:
    if ctx.active("patternProperties"):
        return False
    known = frozenset(ctx.schema["properties"]) if ctx.active("properties") else frozenset()
    if _closed(node, ctx):
        # The closure re-checks and refuses keys that are not strings.
        w.add(i, f"if not {w.const(known)}.issuperset({x}) and not {w.const(k.valid)}({x}):")
        w.add(i + 1, "return False")
        return True
    key, value = w.var(), w.var()
    w.add(i, f"for {key}, {value} in {x}.items():")
    w.add(i + 1, f"if {key} not in {w.const(known)}:")
    # The closure refuses keys that are not strings.
    w.add(i + 2, f"if type({key}) is not str and not {w.const(k.valid)}({x}): return False")
    _emit_child(w, i + 2, node, ("additionalProperties",), value, d)
    return True


def _items(
    w: _Writer, i: int, node: Node, ctx: SchemaContext, k: Keyword, x: str, t: str, d: int
) -> bool:
    if ctx.active("prefixItems"):
        return False
    item = w.var()
    target, closing, where = _edge(node, ("items",))
    if closing is not None and not closing.memo and not closing.loop:
        # Every item is one level deeper: count the level once around the loop, not
        # once per item (only for a non-empty array, as the per-item count would).
        context = closing.context
        assert context is not None
        state = w.const(context.compiler.state)
        limit = w.const(context.options.limits.max_instance_depth)
        level = w.var()
        w.add(i, f"if {x}:")
        w.add(i + 1, f"{state}.depth = {level} = {state}.depth + 1")
        w.add(
            i + 1,
            f"if {level} > {limit}: raise {w.const(too_deep)}({limit}, {w.const(where)})",
        )
        w.add(i + 1, "try:")
        w.add(i + 2, f"for {item} in {x}:")
        w.add(i + 3, f"if not {w.const(target)}.valid({item}): return False")
        w.add(i + 1, f"finally: {state}.depth = {level} - 1")
        return True
    w.add(i, f"for {item} in {x}:")
    mark = len(w.lines)
    _emit_child(w, i + 1, node, ("items",), item, d)
    if len(w.lines) == mark:
        w.add(i + 1, "pass")
    return True


def _size(op: str) -> Emitter:
    def emit(
        w: _Writer, i: int, node: Node, ctx: SchemaContext, k: Keyword, x: str, t: str, d: int
    ) -> bool:
        limit = va.whole(ctx.schema[k.name])
        w.add(i, f"if len({x}) {op} {w.const(limit)}: return False")
        return True

    return emit


def _unique_items(
    w: _Writer, i: int, node: Node, ctx: SchemaContext, k: Keyword, x: str, t: str, d: int
) -> bool:
    # Most arrays are too short to hold a duplicate: no call for them.
    w.add(i, f"if len({x}) > 1 and not {w.const(k.valid)}({x}): return False")
    return True


def _bound(op: str) -> Emitter:
    def emit(
        w: _Writer, i: int, node: Node, ctx: SchemaContext, k: Keyword, x: str, t: str, d: int
    ) -> bool:
        limit = ctx.schema[k.name]
        if isinstance(limit, Decimal):
            return False  # a float meets it as its shortest repr: the closure's work
        w.add(i, f"if not ({x} {op} {w.const(limit)}): return False")
        return True

    return emit


def _pattern(
    w: _Writer, i: int, node: Node, ctx: SchemaContext, k: Keyword, x: str, t: str, d: int
) -> bool:
    limits = ctx.options.limits
    search = pattern_search(ctx, ctx.schema["pattern"], "pattern")
    short = getattr(search, "short", None)
    # Up to this length the fast search alone decides; longer strings go through the
    # guarded search, which arms the timer or refuses them (max_pattern_input).
    below = min(getattr(search, "safe_below", 0), limits.max_pattern_input + 1)
    fixed = fixed_runs(ctx.schema["pattern"])
    # Measured: in line beats the regex call for one or two runs, not for more.
    if fixed is not None and len(fixed[1]) <= 2:
        # Fixed-length ASCII runs: string predicates in line, no regex call. Strings
        # beyond max_pattern_input still go to the guarded search, which refuses them.
        w.add(i, f"if len({x}) <= {w.const(limits.max_pattern_input)}:")
        w.add(i + 1, f"if not ({_fixed_test(w, x, *fixed)}): return False")
        w.add(i, f"elif {w.const(search)}({x}) is None: return False")
        return True
    if short is not None:
        w.add(i, f"if len({x}) < {w.const(below)}:")
        w.add(i + 1, f"if {w.const(short)}({x}) is None: return False")
        w.add(i, f"elif {w.const(search)}({x}) is None: return False")
    else:
        w.add(i, f"if {w.const(search)}({x}) is None: return False")
    return True


def _fixed_test(w: _Writer, x: str, length: int, runs: tuple[Run, ...]) -> str:
    """An expression true when the string ``x`` matches the fixed runs."""
    tests = [f"len({x}) == {w.const(length)}", f"{x}.isascii()"]
    for run in runs:
        whole = run.start == 0 and run.end == length
        part = x if whole else f"{x}[{w.const(run.start)}:{w.const(run.end)}]"
        if run.kind == "literal":
            if run.end - run.start == 1:
                part = f"{x}[{w.const(run.start)}]"
            tests.append(f"{part} == {w.const(run.text)}")
        elif run.kind == "upper":
            tests.append(f"{part}.isalpha() and {part}.isupper()")
        elif run.kind == "lower":
            tests.append(f"{part}.isalpha() and {part}.islower()")
        else:
            tests.append(f"{part}.{run.kind}()")
    return " and ".join(tests)


def _enum(
    w: _Writer, i: int, node: Node, ctx: SchemaContext, k: Keyword, x: str, t: str, d: int
) -> bool:
    members = ctx.schema["enum"]
    if not all(isinstance(m, str) for m in members):
        return False
    if t == "string":
        w.add(i, f"if {x} not in {w.const(frozenset(members))}: return False")
    else:
        w.add(i, "return False")
    return True


def _reference(
    w: _Writer, i: int, node: Node, ctx: SchemaContext, k: Keyword, x: str, t: str, d: int
) -> bool:
    _emit_child(w, i, node, (k.name,), x, d)
    return True


def _all_of(
    w: _Writer, i: int, node: Node, ctx: SchemaContext, k: Keyword, x: str, t: str, d: int
) -> bool:
    count = len(ctx.schema["allOf"])
    branches = [node.children[("allOf", index)] for index in range(count)]
    dispatch = discriminator(branches) if t == "object" else None
    if dispatch is not None:
        name, indexes = dispatch
        table = {value: branches[index].children[("then",)] for value, index in indexes.items()}
        tag, then = w.var(), w.var()
        w.add(i, f"{tag} = {x}.get({w.const(name)})")
        w.add(i, f"if type({tag}) is str:")
        w.add(i + 1, f"{then} = {w.const(table)}.get({tag})")
        w.add(i + 1, f"if {then} is not None and not {then}.valid({x}): return False")
        # A str subclass may hash or compare in its own way: every condition decides.
        w.add(i, f"elif isinstance({tag}, str) and not {w.const(k.valid)}({x}): return False")
        return True
    for index in range(count):
        _emit_child(w, i, node, ("allOf", index), x, d)
    return True


def _earlier_items(
    w: _Writer, i: int, node: Node, ctx: SchemaContext, k: Keyword, x: str, t: str, d: int
) -> bool:
    # The array form goes to the closures; one subschema for every item is items.
    return not isinstance(ctx.schema["items"], list) and _items(w, i, node, ctx, k, x, t, d)


def _branch_test(w: _Writer, parent: Node, tokens: Tokens) -> str:
    """An expression calling a subschema's current is_valid function."""
    node, closing, where = _edge(parent, tokens)
    if closing is not None:
        # An expression cannot count in line: the counting closure does it.
        return w.const(recursion(closing, where)[0])
    if node.generated is not None:
        return w.const(node.generated)
    return f"{w.const(node)}.valid"


def _any_of(
    w: _Writer, i: int, node: Node, ctx: SchemaContext, k: Keyword, x: str, t: str, d: int
) -> bool:
    count = len(ctx.schema["anyOf"])
    if count == 1:
        _emit_child(w, i, node, ("anyOf", 0), x, d)
        return True
    tests = [f"{_branch_test(w, node, ('anyOf', index))}({x})" for index in range(count)]
    w.add(i, f"if not ({' or '.join(tests)}): return False")
    return True


def _one_of(
    w: _Writer, i: int, node: Node, ctx: SchemaContext, k: Keyword, x: str, t: str, d: int
) -> bool:
    if len(ctx.schema["oneOf"]) == 1:
        _emit_child(w, i, node, ("oneOf", 0), x, d)
        return True
    count = w.var()
    w.add(i, f"{count} = 0")
    for index in range(len(ctx.schema["oneOf"])):
        test = _branch_test(w, node, ("oneOf", index))
        w.add(i, f"if {test}({x}):")
        w.add(i + 1, f"if {count}: return False")
        w.add(i + 1, f"{count} = 1")
    w.add(i, f"if not {count}: return False")
    return True


def _not(
    w: _Writer, i: int, node: Node, ctx: SchemaContext, k: Keyword, x: str, t: str, d: int
) -> bool:
    w.add(i, f"if {_branch_test(w, node, ('not',))}({x}): return False")
    return True


def _if(
    w: _Writer, i: int, node: Node, ctx: SchemaContext, k: Keyword, x: str, t: str, d: int
) -> bool:
    then = node.children.get(("then",))
    otherwise = node.children.get(("else",))
    w.add(i, f"if {_branch_test(w, node, ('if',))}({x}):")
    mark = len(w.lines)
    if then is not None:
        _emit_child(w, i + 1, node, ("then",), x, d)
    if len(w.lines) == mark:
        w.add(i + 1, "pass")
    if otherwise is not None:
        w.add(i, "else:")
        mark = len(w.lines)
        _emit_child(w, i + 1, node, ("else",), x, d)
        if len(w.lines) == mark:
            w.add(i + 1, "pass")
    return True


def _dependent_schemas(
    w: _Writer, i: int, node: Node, ctx: SchemaContext, k: Keyword, x: str, t: str, d: int
) -> bool:
    for name in ctx.schema["dependentSchemas"]:
        child = node.children[("dependentSchemas", name)]
        if child.trivial:
            continue
        w.add(i, f"if {w.const(name)} in {x}:")
        mark = len(w.lines)
        _emit_child(w, i + 1, node, ("dependentSchemas", name), x, d)
        if len(w.lines) == mark:
            w.add(i + 1, "pass")
    return True


# The keywords generated code writes out, by spec; every other keyword is a call of
# its compiled closure. A spec that changes meaning in a draft (draft-04's maximum)
# is another object, so it never reaches an emitter written for another meaning.
EMITTERS: dict[Spec, Emitter] = {
    ap.PROPERTIES: _properties,
    va.REQUIRED: _required,
    ap.ADDITIONAL_PROPERTIES: _additional_properties,
    ap.ITEMS: _items,
    old.ITEMS_EARLIER: _earlier_items,
    va.MIN_LENGTH: _size("<"),
    va.MAX_LENGTH: _size(">"),
    va.MIN_ITEMS: _size("<"),
    va.MAX_ITEMS: _size(">"),
    va.MIN_PROPERTIES: _size("<"),
    va.MAX_PROPERTIES: _size(">"),
    va.MINIMUM: _bound(">="),
    va.MAXIMUM: _bound("<="),
    va.EXCLUSIVE_MINIMUM: _bound(">"),
    va.EXCLUSIVE_MAXIMUM: _bound("<"),
    va.PATTERN: _pattern,
    va.UNIQUE_ITEMS: _unique_items,
    va.ENUM: _enum,
    core.REF: _reference,
    core.DYNAMIC_REF: _reference,
    old.RECURSIVE_REF: _reference,
    ap.ALL_OF: _all_of,
    ap.ANY_OF: _any_of,
    ap.ONE_OF: _one_of,
    ap.NOT: _not,
    ap.IF: _if,
    ap.DEPENDENT_SCHEMAS: _dependent_schemas,
}

# Validator calls after which generated code replaces the closures. Writing costs
# about as much as a few dozen calls through the closures save, so a schema checked a
# handful of times (and compile + first call) stays on closures.
HOT = 16
# Seconds of validation on closures after which writing the code pays for itself.
WORTH_WRITING = 0.005


def promote(nodes: list[Node]) -> None:
    """Write generated ``is_valid`` code for every node that allows it.

    Children were compiled after their parents, so going backwards lets a parent
    bind (or inline) its children's generated code.
    """
    for node in reversed(nodes):
        if node.only is not None:
            continue  # generated code goes straight to the node it stands for
        if node.inline_ok and node.generated is None and node.context is not None:
            generated = generate_valid(node, node.context)
            node.generated = generated
            node.valid = generated
    for node in nodes:
        target = node
        while target.alias is not None:
            target = target.alias
        if target is not node and target.generated is not None:
            # Calls through the node (a validator's root, a reference cell) too.
            node.valid = target.generated


def generate_valid(node: Node, ctx: SchemaContext) -> Callable[[Any], bool]:
    """Write and compile the ``is_valid`` function of ``node``."""
    w = _Writer()
    _emit_node(w, 1, node, ctx, "x", 0)
    # Namespace entries become default arguments: locals are the fastest lookup.
    parameters = ", ".join(f"{name}={name}" for name in w.names)
    source = "\n".join([f"def valid(x, {parameters}):", *w.lines, "    return True"])
    namespace = dict(w.names)
    # The source holds only generated names (see the module docstring).
    exec(compile(source, f"<schemacore {node.uri}>", "exec"), namespace)
    fn: Callable[[Any], bool] = namespace["valid"]
    return fn
