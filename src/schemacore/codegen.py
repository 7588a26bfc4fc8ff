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
from typing import Any

from . import dialects
from .emit import Emitter, Writer, emit_node
from .model import Node, SchemaContext
from .spec import Spec

__all__ = ["EMITTERS", "HOT", "WORTH_WRITING", "generate_valid", "promote"]

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
    w = Writer()
    emit_node(w, 1, node, ctx, "x", 0)
    # Namespace entries become default arguments: locals are the fastest lookup.
    parameters = ", ".join(f"{name}={name}" for name in w.names)
    source = "\n".join([f"def valid(x, {parameters}):", *w.lines, "    return True"])
    namespace = dict(w.names)
    # The source holds only generated names (see the module docstring).
    exec(compile(source, f"<schemacore {node.uri}>", "exec"), namespace)
    fn: Callable[[Any], bool] = namespace["valid"]
    return fn
