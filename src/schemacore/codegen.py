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

import builtins
import threading
from collections.abc import Callable
from time import perf_counter
from types import CodeType, FunctionType
from typing import Any

from . import dialects
from .emit import Emitter, Writer, emit_node
from .model import Node, SchemaContext
from .spec import Spec

__all__ = ["EMITTERS", "WORTH_WRITING", "WRITE_SLICE", "generate_valid", "promote"]

# The keywords generated code writes out, by spec (each spec's own emitter, from its
# keyword module); every other keyword is a call of its compiled closure. A spec that
# changes meaning in a draft (draft-04's maximum) is another object, so it never
# reaches an emitter written for another meaning.
EMITTERS: dict[Spec, Emitter] = {
    spec: spec.emit
    for dialect in dialects.DIALECTS
    for spec, _ in dialect.keywords.values()
    if spec.emit is not None
}

# Tiering. A validator runs on closures until the time is_valid has spent in them
# reaches WORTH_WRITING times its compile time, about what writing its generated
# code costs (a median of 1.9x over the real MCP tool schemas of 2026). Paying for
# the code once the closures have cost as much bounds the waste to about twice the
# best choice made in hindsight, and a validator used a few times never pays. Then
# it writes code after each call, for WRITE_SLICE seconds and half its compile time
# at most (one node more at worst; emitters keep a node's code bounded), until all
# of it is written: no call takes much longer than the compile did.
WORTH_WRITING = 2.0
WRITE_SLICE = 0.002


def promote(nodes: list[Node], start: int = 0, until: float | None = None) -> int:
    """Write generated ``is_valid`` code for the nodes that allow it, from the
    ``start``-th (counting from the last compiled) on, until ``perf_counter()``
    passes ``until``. Returns where to resume, or -1 once every node is written.

    Children were compiled after their parents, so going backwards lets a parent
    bind (or inline) its children's generated code. Stopping between two nodes is
    safe: closures and generated code call each other through ``Node.valid``.
    """
    count = len(nodes)
    position = start
    while position < count:
        node = nodes[count - 1 - position]
        position += 1
        if node.only is not None:
            continue  # generated code goes straight to the node it stands for
        if node.inline_ok and node.generated is None and node.context is not None:
            generated = generate_valid(node, node.context)
            node.generated = generated
            node.valid = generated
            if until is not None and position < count and perf_counter() > until:
                return position
    for node in nodes:
        target = node
        while target.alias is not None:
            target = target.alias
        if target is not node and target.generated is not None:
            # Calls through the node (a validator's root, a reference cell) too.
            node.valid = target.generated
    return -1


def generate_valid(node: Node, ctx: SchemaContext) -> Callable[[Any], bool]:
    """Write and compile the ``is_valid`` function of ``node``."""
    w = Writer()
    emit_node(w, 1, node, ctx, "x", 0)
    namespace = w.names
    header = "def valid(x):"
    if len(namespace) <= _LOCAL_CONSTANTS and any(
        line.lstrip().startswith("for ") for line in w.lines
    ):
        # A loop reads its constants once per item: default arguments make them
        # locals, the fastest read, for a copy per call of a bounded few.
        header = f"def valid(x, {', '.join(f'{name}={name}' for name in namespace)}):"
    # Otherwise the constants are the function's globals: bound once, read through
    # the interpreter's cached global loads, so a call costs the same whatever the
    # schema's size (default arguments are copied into every call's frame).
    source = "\n".join([header, *w.lines, "    return True"])
    namespace["__builtins__"] = builtins
    code = _code_of(source)
    defaults = tuple(namespace[name] for name in code.co_varnames[1 : code.co_argcount])
    return FunctionType(code, namespace, None, defaults or None)


# Most constants a function with a loop takes as default arguments.
_LOCAL_CONSTANTS = 128


# Compiled code by source text. The source holds only generated names (see the
# module docstring), so schema objects of the same shape share one code object
# whatever their values: most of a large schema's subschemas are a handful of
# shapes, and compiling source is most of what writing code costs. Bounded: at most
# _MAX_CODE entries, none of a source longer than _MAX_SHARED characters (a long
# source is one schema's own and seldom repeats).
_CODE: dict[str, CodeType] = {}
_CODE_LOCK = threading.Lock()
_MAX_CODE = 1024
_MAX_SHARED = 8192


def _code_of(source: str) -> CodeType:
    code = _CODE.get(source)
    if code is None:
        # Shared by many schemas, so the file name names none of them.
        module = compile(source, "<schemacore generated>", "exec")
        code = next(c for c in module.co_consts if isinstance(c, CodeType))
        if len(source) <= _MAX_SHARED:
            with _CODE_LOCK:
                if len(_CODE) >= _MAX_CODE:
                    # Forget the older half (dicts keep insertion order).
                    for stale in list(_CODE)[: _MAX_CODE // 2]:
                        _CODE.pop(stale, None)
                _CODE[source] = code
    return code
