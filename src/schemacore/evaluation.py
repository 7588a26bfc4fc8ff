"""The evaluation product: a tree of output units with annotations.

``is_valid`` and ``iter_errors`` never build this; ``Validator.evaluate`` does. It
walks the compiled nodes the way the specification describes evaluation: every
keyword of every schema object applied produces an output unit, annotations are kept
only where every enclosing unit passed, and ``unevaluatedProperties``/
``unevaluatedItems`` read the annotations of their schema object and of its passing
in-place subschemas. Assertions reuse the compiled keyword closures, so a keyword's
verdict is the same here as on the fast path.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .compiler import Node, SchemaContext, type_matches
from .errors import ValidationError
from .jsonvalue import json_type, type_name
from .keywords.core import count_repeat
from .pointer import escape
from .resources import ARRAY, MAPPING, SINGLE

__all__ = ["Unit", "evaluate_node", "iter_annotations"]

_NO_ANNOTATION: Any = object()

# Keywords that only identify, structure or comment: neither assertions nor
# annotations ($comment MUST NOT be collected, by the specification).
_SILENT = frozenset(
    {
        "$id", "$schema", "$anchor", "$dynamicAnchor", "$vocabulary", "$comment", "$defs",
        "definitions", "then", "else", "minContains", "maxContains",
    }
)  # fmt: skip
_ANNOTATIONS = frozenset(
    {
        "title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly",
        "format", "contentEncoding", "contentMediaType", "contentSchema",
    }
)  # fmt: skip
_EVALUATED_PROPS = ("properties", "patternProperties", "additionalProperties")
_EVALUATED_ITEMS = ("prefixItems", "items", "contains")


@dataclass(slots=True)
class Unit:
    """One output unit: a schema object or one of its keywords, at one instance place.

    ``keyword`` is None for the unit of a whole schema object.
    """

    keyword_location: str
    absolute_keyword_location: str
    instance_location: str
    keyword: str | None = None
    valid: bool = True
    error: str | None = None
    annotation: Any = _NO_ANNOTATION
    children: list[Unit] = field(default_factory=list)

    @property
    def has_annotation(self) -> bool:
        return self.annotation is not _NO_ANNOTATION


def iter_annotations(unit: Unit) -> Iterator[Unit]:
    """Annotation units of a tree, skipping every subtree that did not pass."""
    if not unit.valid:
        return
    if unit.has_annotation:
        yield unit
    for child in unit.children:
        yield from iter_annotations(child)


def _join(pointer: str, token: str | int) -> str:
    return f"{pointer}/{escape(token)}"


def _first_message(errors: Iterator[ValidationError], fallback: str) -> str:
    for error in errors:
        return error.message
    return fallback


Handler = Callable[["_Evaluation", Node, SchemaContext, Any, Any, Unit], None]


class _Evaluation:
    """One call of ``evaluate``: the walk and its helpers."""

    def __init__(self) -> None:
        self.current: list[Unit] | None = None

    def node(self, node: Node, x: Any, ipath: str, kpath: str) -> Unit:
        if node.memo:
            count_repeat(node, x, ipath)
        unit = Unit(kpath, node.uri, ipath)
        if node.boolean is not None:
            if not node.boolean:
                unit.valid = False
                unit.error = "false schema does not allow anything"
            return unit
        ctx = node.context
        assert ctx is not None
        schema = ctx.schema
        last: list[tuple[str, Any]] = []
        for name, value in schema.items():
            if name in _SILENT or not self._active(ctx, name):
                continue
            if name in ("unevaluatedProperties", "unevaluatedItems"):
                last.append((name, value))
                continue
            unit.children.append(self.keyword(node, ctx, name, value, x, ipath, kpath))
        for name, value in last:
            # unevaluated* read the units of their siblings, built just above.
            self.current = unit.children
            unit.children.append(self.keyword(node, ctx, name, value, x, ipath, kpath))
        unit.valid = all(child.valid for child in unit.children)
        return unit

    @staticmethod
    def _active(ctx: SchemaContext, name: str) -> bool:
        from .keywords import VOCABULARY_OF

        vocabulary = VOCABULARY_OF.get(name)
        if vocabulary is None:
            return True  # an unknown keyword: an annotation
        if name == "format":
            return ctx.dialect.has("format-annotation") or ctx.dialect.asserts_format
        return ctx.dialect.has(vocabulary)

    def keyword(
        self, node: Node, ctx: SchemaContext, name: str, value: Any, x: Any, ipath: str, kpath: str
    ) -> Unit:
        unit = Unit(_join(kpath, name), ctx.location(name), ipath, keyword=name)
        handler = _HANDLERS.get(name)
        if handler is not None:
            handler(self, node, ctx, value, x, unit)
        elif name in _ANNOTATIONS:
            self.annotation(node, name, value, x, unit)
        elif name not in _KNOWN:
            unit.annotation = value  # unknown keywords are annotations
        else:
            self.assertion(node, name, x, unit)
        return unit

    # -- assertions and annotations ---------------------------------------------

    def assertion(self, node: Node, name: str, x: Any, unit: Unit) -> None:
        compiled = node.keywords.get(name)
        if compiled is None or not _applies(compiled.applies_to, x):
            return
        if not compiled.valid(x):
            unit.valid = False
            unit.error = _first_message(compiled.errors(x, None, None), f"{name} failed")

    def annotation(self, node: Node, name: str, value: Any, x: Any, unit: Unit) -> None:
        if name in ("format", "contentEncoding", "contentMediaType", "contentSchema"):
            if json_type(x) != "string":
                return
            schema = node.context.schema if node.context is not None else {}
            if name == "contentSchema" and "contentMediaType" not in schema:
                return  # contentSchema means nothing without a media type
            owner = node.keywords.get(name)
            if owner is not None:
                self.assertion(node, name, x, unit)
        unit.annotation = value

    def type(self, node: Node, x: Any, unit: Unit) -> None:
        types = node.types
        if types is not None and not type_matches(types, x):
            unit.valid = False
            expected = " or ".join(sorted(types))
            unit.error = f"{type_name(x)} is not of type {expected}"

    # -- subschemas -------------------------------------------------------------

    def child(
        self, node: Node, tokens: tuple[str | int, ...], x: Any, ipath: str, unit: Unit
    ) -> Unit:
        target = node.children[tokens]
        location = unit.keyword_location
        for token in tokens[1:]:
            location = _join(location, token)
        result = self.node(target, x, ipath, location)
        unit.children.append(result)
        return result


def _applies(applies_to: str | None, x: Any) -> bool:
    if applies_to is None:
        return True
    kind = json_type(x)
    if applies_to == "float":
        return type(x) is float
    return kind == applies_to


# -- keyword handlers -----------------------------------------------------------


def _type(ev: _Evaluation, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit) -> None:
    ev.type(node, x, u)


def _properties(
    ev: _Evaluation, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit
) -> None:
    if not isinstance(x, dict):
        return
    matched = [name for name in value if name in x]
    for name in matched:
        ev.child(node, ("properties", name), x[name], _join(u.instance_location, name), u)
    u.valid = all(c.valid for c in u.children)
    u.annotation = matched


def _pattern_properties(
    ev: _Evaluation, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit
) -> None:
    if not isinstance(x, dict):
        return
    from .keywords.applicator import pattern_searches

    searches = list(zip(value, pattern_searches(ctx, value, "patternProperties"), strict=True))
    matched = []
    for key, member in x.items():
        hit = False
        for pattern, search in searches:
            if search(key):
                hit = True
                where = _join(u.instance_location, key)
                ev.child(node, ("patternProperties", pattern), member, where, u)
        if hit:
            matched.append(key)
    u.valid = all(c.valid for c in u.children)
    u.annotation = matched


def _additional_properties(
    ev: _Evaluation, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit
) -> None:
    if not isinstance(x, dict):
        return
    from .keywords.applicator import pattern_searches

    known = ctx.schema.get("properties", {}) if ctx.active("properties") else {}
    patterns = ctx.schema.get("patternProperties", {}) if ctx.active("patternProperties") else {}
    searches = pattern_searches(ctx, patterns, "patternProperties")
    extra = [k for k in x if k not in known and not any(s(k) for s in searches)]
    for key in extra:
        ev.child(node, ("additionalProperties",), x[key], _join(u.instance_location, key), u)
    u.valid = all(c.valid for c in u.children)
    u.annotation = extra


def _property_names(
    ev: _Evaluation, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit
) -> None:
    if not isinstance(x, dict):
        return
    for key in x:
        # The name is the instance; annotations on names are not kept (there is no
        # instance location for a name), so the unit carries only the verdict.
        result = ev.child(node, ("propertyNames",), key, u.instance_location, u)
        result.children = [c for c in result.children if not c.valid]
    u.valid = all(c.valid for c in u.children)


def _prefix_items(
    ev: _Evaluation, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit
) -> None:
    if not isinstance(x, list):
        return
    count = min(len(value), len(x))
    for index in range(count):
        ev.child(node, ("prefixItems", index), x[index], _join(u.instance_location, index), u)
    u.valid = all(c.valid for c in u.children)
    if count:
        u.annotation = True if count == len(x) else count - 1


def _items(ev: _Evaluation, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit) -> None:
    if not isinstance(x, list):
        return
    start = len(ctx.schema.get("prefixItems", ())) if ctx.active("prefixItems") else 0
    for index in range(start, len(x)):
        ev.child(node, ("items",), x[index], _join(u.instance_location, index), u)
    u.valid = all(c.valid for c in u.children)
    if len(x) > start:
        u.annotation = True


def _contains(ev: _Evaluation, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit) -> None:
    if not isinstance(x, list):
        return
    matched = []
    for index, item in enumerate(x):
        result = ev.child(node, ("contains",), item, _join(u.instance_location, index), u)
        if result.valid:
            matched.append(index)
    compiled = node.keywords.get("contains")
    u.valid = compiled is None or compiled.valid(x)
    if not u.valid and compiled is not None:
        u.error = _first_message(compiled.errors(x, None, None), "contains failed")
    # Items that did not match are not an error of contains' subschema.
    u.children = [c for c in u.children if c.valid]
    u.annotation = True if len(matched) == len(x) and x else matched


def _all_of(ev: _Evaluation, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit) -> None:
    for index in range(len(value)):
        ev.child(node, ("allOf", index), x, u.instance_location, u)
    u.valid = all(c.valid for c in u.children)


def _any_of(ev: _Evaluation, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit) -> None:
    for index in range(len(value)):
        ev.child(node, ("anyOf", index), x, u.instance_location, u)
    u.valid = any(c.valid for c in u.children)
    if not u.valid:
        u.error = "the value is not valid under any of the anyOf schemas"


def _one_of(ev: _Evaluation, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit) -> None:
    for index in range(len(value)):
        ev.child(node, ("oneOf", index), x, u.instance_location, u)
    passed = sum(1 for c in u.children if c.valid)
    u.valid = passed == 1
    if passed == 0:
        u.error = "the value is not valid under any of the oneOf schemas"
    elif passed > 1:
        u.error = "the value is valid under more than one of the oneOf schemas"


def _not(ev: _Evaluation, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit) -> None:
    result = ev.child(node, ("not",), x, u.instance_location, u)
    u.valid = not result.valid
    if not u.valid:
        u.error = "the value must not be valid under the not schema"
    # Whatever happened inside "not" yields no annotations.
    _drop_annotations(result)


def _drop_annotations(unit: Unit) -> None:
    unit.annotation = _NO_ANNOTATION
    for child in unit.children:
        _drop_annotations(child)


def _if(ev: _Evaluation, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit) -> None:
    condition = ev.child(node, ("if",), x, u.instance_location, u)
    # The condition's verdict is not an error; its annotations count if it passed.
    branch = "then" if condition.valid else "else"
    if not condition.valid:
        u.children.clear()
    if (branch,) in node.children and ctx.active(branch):
        target = node.children[(branch,)]
        location = u.keyword_location.rpartition("/")[0] + "/" + branch
        result = ev.node(target, x, u.instance_location, location)
        u.children.append(result)
        u.valid = result.valid


def _dependent_schemas(
    ev: _Evaluation, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit
) -> None:
    if not isinstance(x, dict):
        return
    keyword = u.keyword or "dependentSchemas"
    for name, sub in value.items():
        if name in x and not isinstance(sub, list):
            ev.child(node, (keyword, name), x, u.instance_location, u)
    u.valid = all(c.valid for c in u.children)
    if keyword == "dependencies":
        ev.assertion(node, "dependencies", x, u)


def _dependent_required(
    ev: _Evaluation, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit
) -> None:
    ev.assertion(node, "dependentRequired", x, u)


def _reference(
    ev: _Evaluation, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit
) -> None:
    assert u.keyword is not None
    result = ev.child(node, (u.keyword,), x, u.instance_location, u)
    u.valid = result.valid


def _unevaluated_properties(
    ev: _Evaluation, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit
) -> None:
    if not isinstance(x, dict):
        return
    parent = _siblings(ev, u)
    seen = _evaluated(parent, u.instance_location, (*_EVALUATED_PROPS, "unevaluatedProperties"))
    if seen is None:
        u.annotation = []
        return
    left = [key for key in x if key not in seen]
    for key in left:
        ev.child(node, ("unevaluatedProperties",), x[key], _join(u.instance_location, key), u)
    u.valid = all(c.valid for c in u.children)
    if not u.valid and value is False:
        u.error = "unevaluated properties are not allowed"
    u.annotation = left


def _unevaluated_items(
    ev: _Evaluation, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit
) -> None:
    if not isinstance(x, list):
        return
    parent = _siblings(ev, u)
    seen = _evaluated(parent, u.instance_location, (*_EVALUATED_ITEMS, "unevaluatedItems"))
    if seen is None:
        return
    left = [i for i in range(len(x)) if i not in seen]
    for index in left:
        ev.child(node, ("unevaluatedItems",), x[index], _join(u.instance_location, index), u)
    u.valid = all(c.valid for c in u.children)
    if not u.valid and value is False:
        u.error = "unevaluated items are not allowed"
    if left:
        u.annotation = True


def _siblings(ev: _Evaluation, unit: Unit) -> list[Unit]:
    assert ev.current is not None
    return ev.current


def _evaluated(units: list[Unit], where: str, keywords: tuple[str, ...]) -> set[Any] | None:
    """Names or indexes evaluated at ``where`` by passing units among ``units``;
    None when everything there was evaluated."""
    seen: set[Any] = set()
    for unit in units:
        for found in iter_annotations(unit):
            if found.instance_location != where or found.keyword not in keywords:
                continue
            value = found.annotation
            if value is True:
                return None
            if found.keyword == "prefixItems" and isinstance(value, int):
                seen.update(range(value + 1))
            elif isinstance(value, list):
                seen.update(value)
    return seen


_HANDLERS: dict[str, Handler] = {
    "type": _type,
    "properties": _properties,
    "patternProperties": _pattern_properties,
    "additionalProperties": _additional_properties,
    "propertyNames": _property_names,
    "prefixItems": _prefix_items,
    "items": _items,
    "contains": _contains,
    "allOf": _all_of,
    "anyOf": _any_of,
    "oneOf": _one_of,
    "not": _not,
    "if": _if,
    "dependentSchemas": _dependent_schemas,
    "dependencies": _dependent_schemas,
    "dependentRequired": _dependent_required,
    "$ref": _reference,
    "$dynamicRef": _reference,
    "unevaluatedProperties": _unevaluated_properties,
    "unevaluatedItems": _unevaluated_items,
}

_KNOWN = frozenset(
    {*_HANDLERS, *_ANNOTATIONS, *_SILENT, *SINGLE, *ARRAY, *MAPPING}
    | {
        "enum", "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum",
        "exclusiveMinimum", "maxLength", "minLength", "pattern", "maxItems", "minItems",
        "uniqueItems", "maxProperties", "minProperties", "required",
    }
)  # fmt: skip


def evaluate_node(node: Node, instance: Any) -> Unit:
    """Evaluate ``instance`` against the compiled root ``node``."""
    return _Evaluation().node(node, instance, "", "")
