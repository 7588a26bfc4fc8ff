"""Wording engine errors as issues a model can act on, from structure only.

Every engine error is re-worded from structure: where (a dot/bracket path from the
arguments root), what the schema expected (read from the schema itself: types,
enum values, the required name, bounds) and the TYPE of what arrived. Argument
values are never shown, except for the string-shape keywords, whose issues carry a
capped excerpt of that very string and the property's own ``description`` as a
hint. Object keys chosen by the caller are never shown either: a key the schema
does not define appears as ``*``, and an unexpected property is reported at its
parent with the names that are allowed.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

import schemacore
from schemacore.uri import unquote_fragment

from .argissue import STRING_SHAPE_KEYWORDS, ToolArgIssue
from .bounds import BoundaryLimits
from .jsonvalues import (
    REDACTED,
    array_index,
    describe_type,
    dot_path,
    json_key,
    pointer,
    show_json,
    split_pointer,
    tokens_along,
)
from .schemalookup import SchemaLookup

__all__ = ["word_errors"]

_HINT_LIMIT = 200
_ENUM_SHOWN = 10
_NAMES_SHOWN = 20


# -- locating things in the arguments --------------------------------------------------


class _Context:
    """What every conversion needs: the schema lookup, the arguments, the limits."""

    __slots__ = ("arguments", "counters", "limits", "lookup")

    def __init__(self, lookup: SchemaLookup, arguments: Any, limits: BoundaryLimits) -> None:
        self.lookup = lookup
        self.arguments = arguments
        self.limits = limits
        # (instance location, keyword location) -> how many engine errors were seen,
        # to pair the n-th "required" error with the n-th missing name.
        self.counters: dict[tuple[str, str], int] = {}

    def locate(self, location: str) -> tuple[list[str | int], Any]:
        """Tokens (indexes as ints) of an instance location, and the value there."""
        tokens = tokens_along(self.arguments, split_pointer(location))
        node = self.arguments
        for token in tokens:
            if isinstance(node, list) and isinstance(token, int):
                node = node[token] if token < len(node) else None
            else:
                node = node.get(token) if isinstance(node, dict) else None
        return tokens, node

    def shown(self, tokens: Iterable[str | int]) -> list[str | int]:
        """Tokens with every key the schema does not define replaced by ``*``."""
        names = self.lookup.names
        return [t if isinstance(t, int) or t in names else REDACTED for t in tokens]


def _issue(
    ctx: _Context,
    tokens: Sequence[str | int],
    code: str,
    keyword: str,
    expected: str,
    got: str,
    *,
    value: str | None = None,
    hint: str | None = None,
    suggestion: str | None = None,
) -> ToolArgIssue:
    shown = ctx.shown(tokens)
    path = dot_path(shown)
    where = path or "the arguments"
    message = f"{where}: expected {expected}; got {got}"
    if suggestion is not None:
        message += f" (did you mean {json.dumps(suggestion)}?)"
    return ToolArgIssue(
        path=path,
        pointer=pointer(shown),
        code=code,
        keyword=keyword,
        expected=expected,
        got=got,
        message=message,
        value=value,
        hint=hint,
        suggestion=suggestion,
    )


def _excerpt(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def _cap(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


# -- wording the schema's expectation -----------------------------------------------------


def _types(value: Any) -> str:
    names = [value] if isinstance(value, str) else value
    if isinstance(names, list) and names and all(isinstance(n, str) for n in names):
        return " or ".join(names)
    return "the declared type"


def _choices(values: Any) -> str:
    if not isinstance(values, list) or not values:
        return "one of the allowed values"
    shown = ", ".join(show_json(v, 40) for v in values[:_ENUM_SHOWN])
    more = f", … ({len(values)} values)" if len(values) > _ENUM_SHOWN else ""
    return f"one of {shown}{more}"


def _number(value: Any) -> str:
    return show_json(value, 40)


_BOUNDS: Final = {
    "minimum": ("number-too-small", "a number >= {}"),
    "maximum": ("number-too-large", "a number <= {}"),
    "exclusiveMinimum": ("number-too-small", "a number > {}"),
    "exclusiveMaximum": ("number-too-large", "a number < {}"),
    "multipleOf": ("number-not-multiple", "a multiple of {}"),
    "minLength": ("string-too-short", "a string of at least {} characters"),
    "maxLength": ("string-too-long", "a string of at most {} characters"),
    "minItems": ("array-too-short", "an array of at least {} items"),
    "maxItems": ("array-too-long", "an array of at most {} items"),
    "minProperties": ("object-too-few-properties", "an object with at least {} properties"),
    "maxProperties": ("object-too-many-properties", "an object with at most {} properties"),
    "minContains": ("array-contains-too-few", "at least {} items matching the 'contains' schema"),
    "maxContains": ("array-contains-too-many", "at most {} items matching the 'contains' schema"),
}

_CONTENT: Final = {
    "contentEncoding": "a string in the {} encoding",
    "contentMediaType": "a string holding {} content",
    "contentSchema": "content that matches the 'contentSchema' schema",
}


def _declared_names(owner: Mapping[str, Any] | None, lookup: SchemaLookup) -> list[str]:
    """Property names the schema object ``owner`` (and its in-place applicators)
    defines: what an object there may contain."""
    if owner is None:
        return []
    names: dict[str, None] = {}
    stack: list[Any] = [owner]
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if not isinstance(node, dict) or id(node) in seen:
            continue
        seen.add(id(node))
        properties = node.get("properties")
        if isinstance(properties, dict):
            names.update(dict.fromkeys(k for k in properties if isinstance(k, str)))
        for keyword in ("allOf", "anyOf", "oneOf"):
            branches = node.get(keyword)
            if isinstance(branches, list):
                stack.extend(reversed(branches))
        for keyword in ("if", "then", "else"):
            stack.append(node.get(keyword))
        dependent = node.get("dependentSchemas")
        if isinstance(dependent, dict):
            stack.extend(dependent.values())
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#"):
            stack.append(lookup.resolve(ref))
    return list(names)


def _allowed_names_text(names: list[str], owner: Mapping[str, Any] | None) -> str:
    patterns = owner.get("patternProperties") if owner is not None else None
    parts: list[str] = []
    if names:
        shown = ", ".join(json.dumps(n, ensure_ascii=False) for n in names[:_NAMES_SHOWN])
        if len(names) > _NAMES_SHOWN:
            shown += f", … ({len(names)} names)"
        parts.append(f"only the properties {shown}")
    if isinstance(patterns, dict) and patterns:
        shown = ", ".join(show_json(p, 60) for p in list(patterns)[:5])
        parts.append(f"names matching {shown}")
    if not parts:
        return "no properties beyond those the schema allows here"
    return " or ".join(parts)


def _unexpected_names(instance: Any, owner: Mapping[str, Any] | None) -> list[str] | None:
    """The caller's keys an ``additionalProperties: false`` refused (never shown;
    used only to count them and to suggest a schema-defined name)."""
    if not isinstance(instance, dict) or owner is None or owner.get("patternProperties"):
        return None
    properties = owner.get("properties")
    known = properties if isinstance(properties, dict) else {}
    return [key for key in instance if key not in known]


def _suggest(unexpected: list[str] | None, names: list[str], instance: Any) -> str | None:
    """A schema-defined name close to one unexpected key and still absent."""
    if not unexpected or not isinstance(instance, dict):
        return None
    candidates = [n for n in names if n not in instance]
    for key in unexpected:
        close = difflib.get_close_matches(key, candidates, n=1, cutoff=0.75)
        if close:
            return close[0]
    return None


def _summarise_branch(branch: Any, index: int) -> str:
    if branch is True:
        return "anything"
    if isinstance(branch, dict):
        if "const" in branch:
            return show_json(branch["const"], 40)
        if "type" in branch:
            return _types(branch["type"])
        if "enum" in branch:
            return _choices(branch["enum"])
    return f"alternative {index + 1}"


# -- converting engine errors ----------------------------------------------------------------


def _convert(ctx: _Context, error: schemacore.ValidationError) -> list[ToolArgIssue]:
    keyword = error.keyword
    absolute = error.absolute_keyword_location
    tokens, target = ctx.locate(error.instance_location)
    subject = error.instance
    got = describe_type(subject)
    owner = ctx.lookup.keyword_owner(absolute)
    schema_value = owner.get(keyword) if owner is not None else None

    if isinstance(target, dict) and isinstance(subject, str):
        # The subject is not the object at this location but one of its keys: the
        # engine checked a property name (propertyNames). The key is the caller's.
        return [
            _issue(
                ctx,
                tokens,
                "property-name-invalid",
                keyword,
                f"property names that satisfy {_constraint(keyword, schema_value)}",
                "a property name that does not (the name is not shown)",
            )
        ]

    if keyword == "type":
        return [_issue(ctx, tokens, "type-mismatch", keyword, _types(schema_value), got)]
    if keyword == "enum":
        return [_issue(ctx, tokens, "enum-mismatch", keyword, _choices(schema_value), got)]
    if keyword == "const":
        expected = f"the value {show_json(schema_value, 60)}" if owner else "the constant value"
        return [_issue(ctx, tokens, "const-mismatch", keyword, expected, got)]
    if keyword == "required":
        return [_required(ctx, error, tokens, owner)]
    if keyword == "dependentRequired":
        return [_dependent_required(ctx, error, tokens)]
    if keyword in ("additionalProperties", "unevaluatedProperties"):
        return [_unexpected_property(ctx, error, tokens, owner)]
    if keyword == "unevaluatedItems":
        return [
            _issue(
                ctx,
                tokens,
                "array-item-not-allowed",
                keyword,
                "no items beyond those the schema describes",
                got,
            )
        ]
    if keyword == "false":
        return [_false(ctx, tokens)]
    if keyword in ("anyOf", "oneOf"):
        return _alternatives(ctx, error, tokens, owner)
    if keyword == "not":
        return [
            _issue(
                ctx,
                tokens,
                "forbidden-match",
                keyword,
                "a value that does not match the 'not' schema",
                got,
            )
        ]
    if keyword == "pattern":
        expected = (
            f"a string matching the pattern {show_json(schema_value, 120)}"
            if isinstance(schema_value, str)
            else "a string matching the pattern"
        )
        return [
            _string_shape(ctx, tokens, "string-pattern-mismatch", keyword, expected, subject, owner)
        ]
    if keyword in _BOUNDS:
        code, template = _BOUNDS[keyword]
        bound = _number(schema_value) if owner is not None else "the bound"
        expected = template.format(bound)
        if keyword in STRING_SHAPE_KEYWORDS:
            return [_string_shape(ctx, tokens, code, keyword, expected, subject, owner)]
        return [_issue(ctx, tokens, code, keyword, expected, got)]
    if keyword == "uniqueItems":
        return [
            _issue(
                ctx,
                tokens,
                "array-items-not-unique",
                keyword,
                "an array of unique items",
                _duplicates(subject),
            )
        ]
    if keyword == "contains":
        return [
            _issue(
                ctx,
                tokens,
                "array-contains-missing",
                keyword,
                "an array with at least one item matching the 'contains' schema",
                got,
            )
        ]
    if keyword == "format":
        expected = (
            f"a string in the {show_json(schema_value, 40)} format"
            if isinstance(schema_value, str)
            else "a string in the declared format"
        )
        return [_issue(ctx, tokens, "format-mismatch", keyword, expected, got)]
    if keyword in _CONTENT:
        shown = show_json(schema_value, 40) if isinstance(schema_value, str) else "the declared"
        return [
            _issue(ctx, tokens, "content-invalid", keyword, _CONTENT[keyword].format(shown), got)
        ]
    return [
        _issue(
            ctx,
            tokens,
            "schema-mismatch",
            keyword,
            f"a value satisfying the {show_json(keyword, 40)} keyword",
            got,
        )
    ]


def _constraint(keyword: str, value: Any) -> str:
    if keyword in _BOUNDS:
        return _BOUNDS[keyword][1].format(_number(value))
    if keyword == "pattern" and isinstance(value, str):
        return f"the pattern {show_json(value, 120)}"
    if keyword == "false":
        return "a schema that allows none"
    return f"the {show_json(keyword, 40)} keyword"


def _string_shape(
    ctx: _Context,
    tokens: list[str | int],
    code: str,
    keyword: str,
    expected: str,
    subject: Any,
    owner: Mapping[str, Any] | None,
) -> ToolArgIssue:
    if not isinstance(subject, str):  # pragma: no cover - the engine applies these to strings
        return _issue(ctx, tokens, code, keyword, expected, describe_type(subject))
    hint = owner.get("description") if owner is not None else None
    if not isinstance(hint, str):
        hint = ctx.lookup.description_along(tokens)
    return _issue(
        ctx,
        tokens,
        code,
        keyword,
        expected,
        describe_type(subject),
        value=_excerpt(subject, ctx.limits.excerpt_length),
        hint=_cap(hint, _HINT_LIMIT) if hint else None,
    )


def _nth(ctx: _Context, error: schemacore.ValidationError) -> int:
    key = (error.instance_location, error.keyword_location)
    index = ctx.counters.get(key, 0)
    ctx.counters[key] = index + 1
    return index


def _missing_name(listed: Any, instance: Any, index: int) -> str | None:
    """The index-th name of ``listed`` that ``instance`` lacks (names from the schema)."""
    if not (isinstance(listed, list) and isinstance(instance, dict)):
        return None
    missing = [n for n in dict.fromkeys(listed) if isinstance(n, str) and n not in instance]
    return missing[index] if index < len(missing) else None


def _required(
    ctx: _Context,
    error: schemacore.ValidationError,
    tokens: list[str | int],
    owner: Mapping[str, Any] | None,
) -> ToolArgIssue:
    listed = owner.get("required") if owner is not None else None
    name = _missing_name(listed, error.instance, _nth(ctx, error))
    if name is not None:
        return _issue(
            ctx,
            [*tokens, name],
            "property-missing",
            "required",
            f"the required property {json.dumps(name, ensure_ascii=False)}",
            "nothing (the property is absent)",
        )
    return _issue(
        ctx, tokens, "property-missing", "required", "every required property", "an object without"
    )


def _dependent_required(
    ctx: _Context, error: schemacore.ValidationError, tokens: list[str | int]
) -> ToolArgIssue:
    fragment = error.absolute_keyword_location.partition("#")[2]
    trigger_tokens = split_pointer(unquote_fragment(fragment))
    owner = ctx.lookup.keyword_owner(error.absolute_keyword_location, 2)
    rules = owner.get("dependentRequired") if owner is not None else None
    trigger = trigger_tokens[-1] if trigger_tokens else ""
    needed = rules.get(trigger) if isinstance(rules, dict) else None
    name = _missing_name(needed, error.instance, _nth(ctx, error))
    if name is not None:
        return _issue(
            ctx,
            [*tokens, name],
            "property-missing",
            "dependentRequired",
            f"the property {json.dumps(name, ensure_ascii=False)} "
            f"(required when {json.dumps(trigger, ensure_ascii=False)} is present)",
            "nothing (the property is absent)",
        )
    return _issue(
        ctx,
        tokens,
        "property-missing",
        "dependentRequired",
        "the properties required by a present property",
        "an object without",
    )


def _unexpected_property(
    ctx: _Context,
    error: schemacore.ValidationError,
    tokens: list[str | int],
    owner: Mapping[str, Any] | None,
) -> ToolArgIssue:
    instance = error.instance
    if error.keyword == "additionalProperties":
        properties = owner.get("properties") if owner is not None else None
        names = (
            [k for k in properties if isinstance(k, str)] if isinstance(properties, dict) else []
        )
        unexpected = _unexpected_names(instance, owner)
    else:
        names = _declared_names(owner, ctx.lookup)
        unexpected = [k for k in instance if k not in names] if isinstance(instance, dict) else None
    if unexpected:
        count = len(unexpected)
        got = (
            f"an object with {count} {'property' if count == 1 else 'properties'} not allowed here"
        )
    else:
        got = "an object with a property not allowed here"
    return _issue(
        ctx,
        tokens,
        "property-not-allowed",
        error.keyword,
        _allowed_names_text(names, owner),
        got,
        suggestion=_suggest(unexpected, names, instance),
    )


def _false(ctx: _Context, tokens: list[str | int]) -> ToolArgIssue:
    parent_tokens = tokens[:-1]
    _, parent = ctx.locate(pointer(parent_tokens)) if tokens else (None, None)
    if tokens and isinstance(parent, dict):
        return _issue(
            ctx, tokens, "property-not-allowed", "false", "this property to be absent", "a value"
        )
    if tokens and isinstance(parent, list):
        return _issue(
            ctx,
            tokens,
            "array-item-not-allowed",
            "false",
            "no item at this position",
            describe_type(_value_at(parent, tokens[-1])),
        )
    return _issue(ctx, tokens, "value-not-allowed", "false", "no value here", "a value")


def _value_at(container: Any, token: str | int) -> Any:
    if isinstance(container, list) and isinstance(token, int) and token < len(container):
        return container[token]
    return None


def _duplicates(subject: Any) -> str:
    if not isinstance(subject, list):
        return describe_type(subject)
    seen: dict[Any, int] = {}
    for index, item in enumerate(subject):
        key = json_key(item)
        if key in seen:
            return f"array ({len(subject)} items) whose items {seen[key]} and {index} are equal"
        seen[key] = index
    return describe_type(subject)


def _alternatives(
    ctx: _Context,
    error: schemacore.ValidationError,
    tokens: list[str | int],
    owner: Mapping[str, Any] | None,
) -> list[ToolArgIssue]:
    keyword = error.keyword
    branches_schema = owner.get(keyword) if owner is not None else None
    got = describe_type(error.instance)
    if keyword == "oneOf" and not error.context:
        return [
            _issue(
                ctx,
                tokens,
                "ambiguous-match",
                keyword,
                "a value that matches exactly one of the 'oneOf' alternatives",
                f"{got} that matches more than one",
            )
        ]
    prefix = error.keyword_location + "/"
    by_branch: dict[int, list[schemacore.ValidationError]] = {}
    for sub in error.context:
        rest = (
            sub.keyword_location[len(prefix) :] if sub.keyword_location.startswith(prefix) else ""
        )
        branch = array_index(rest.split("/", 1)[0])
        if branch is not None:
            by_branch.setdefault(branch, []).append(sub)
    count = len(branches_schema) if isinstance(branches_schema, list) else len(by_branch)

    def rank(index: int) -> tuple[bool, bool, int]:
        errors = by_branch.get(index, [])
        here = error.instance_location
        wrong_kind = any(
            e.instance_location == here and e.keyword in ("type", "const", "enum", "false")
            for e in errors
        )
        child = here + "/"
        wrong_tag = any(
            e.keyword in ("const", "enum")
            and e.instance_location.startswith(child)
            and "/" not in e.instance_location[len(child) :]
            for e in errors
        )
        return (wrong_kind, wrong_tag, len(errors))

    ranked = sorted((rank(i), i) for i in by_branch)
    if ranked:
        best_rank, best = ranked[0]
        runner_up = ranked[1][0] if len(ranked) > 1 else None
        # Descend into one branch only when it is clearly the one meant: its type
        # (and any const/enum tag) matched, and no other branch is as close.
        if not best_rank[0] and (runner_up is None or runner_up > best_rank):
            issues: list[ToolArgIssue] = []
            for sub in by_branch[best]:
                issues.extend(_convert(ctx, sub))
            return issues
    if isinstance(branches_schema, list):
        summary = " | ".join(
            dict.fromkeys(_summarise_branch(b, i) for i, b in enumerate(branches_schema))
        )
        expected = f"one of: {summary}"
    else:
        expected = f"a value matching one of the {count} alternatives"
    return [_issue(ctx, tokens, "no-alternative-matched", keyword, expected, got)]


def _dedupe(issues: Iterable[ToolArgIssue]) -> list[ToolArgIssue]:
    seen: set[tuple[str, str, str, str]] = set()
    unique: list[ToolArgIssue] = []
    for issue in issues:
        key = (issue.pointer, issue.code, issue.expected, issue.got)
        if key not in seen:
            seen.add(key)
            unique.append(issue)
    return unique


def word_errors(
    lookup: SchemaLookup,
    arguments: Any,
    limits: BoundaryLimits,
    errors: Iterable[schemacore.ValidationError],
) -> list[ToolArgIssue]:
    """The engine's ``errors`` for ``arguments`` as value-safe issues, without
    duplicates (never empty when ``errors`` is not)."""
    ctx = _Context(lookup, arguments, limits)
    issues: list[ToolArgIssue] = []
    for error in errors:
        issues.extend(_convert(ctx, error))
    issues = _dedupe(issues)
    if not issues:  # pragma: no cover - an invalid value always yields an error
        issues = [_issue(ctx, [], "schema-mismatch", "", "a value the schema accepts", "")]
    return issues
