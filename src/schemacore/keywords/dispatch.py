"""Discriminated ``allOf``: the shape of a tagged union written with ``if``/``then``.

``allOf: [{if: {required: [K], properties: {K: {const: V}}}, then: T}, ...]`` with one
K and distinct string Vs is how schemas bind an object's other fields to a tag. On an
object whose K holds the string V, only the branch of V can apply: every other
condition fails, and there is no ``else``. So one dictionary lookup replaces testing
every condition, on the ``is_valid`` path (generated code) and on the error path.
"""

from __future__ import annotations

from ..model import Node

__all__ = ["discriminator"]


def discriminator(branches: list[Node]) -> tuple[str, dict[str, int]] | None:
    """(K, {V: branch index}) when the finished ``branches`` have that shape, else None."""
    name: str | None = None
    table: dict[str, int] = {}
    for index, branch in enumerate(branches):
        ctx = branch.context
        if ctx is None or branch.alias is not None or set(ctx.schema) != {"if", "then"}:
            return None
        if branch.back:
            return None  # its then is called as it is, so it must not close a cycle
        condition = branch.children.get(("if",))
        then = branch.children.get(("then",))
        if condition is None or then is None or condition.context is None:
            return None
        dialect = condition.context.dialect
        if not (ctx.active("if") and ctx.active("then")):
            return None
        if not (dialect.has("validation") and dialect.has("applicator")):
            return None  # a custom meta-schema could switch required or const off
        test = condition.context.schema
        if set(test) != {"required", "properties"} or not isinstance(test["properties"], dict):
            return None
        (key,) = test["properties"] if len(test["properties"]) == 1 else (None,)
        if key is None or test["required"] != [key] or (name is not None and key != name):
            return None
        const = test["properties"][key]
        if not isinstance(const, dict) or set(const) != {"const"}:
            return None
        value = const["const"]
        if not isinstance(value, str) or value in table:
            return None
        name = key
        table[value] = index
    if name is None:
        return None
    return name, table
