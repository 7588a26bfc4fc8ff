"""Tool-argument issues a model can act on, and the MCP result that carries them.

Every engine error is re-worded from structure: where (a dot/bracket path from the
arguments root), what the schema expected (read from the schema itself: types,
enum values, the required name, bounds) and the TYPE of what arrived. Argument
values are never shown, except for the three string-shape keywords (``pattern``,
``minLength``, ``maxLength``), whose issues carry a capped excerpt of that very
string and the property's own ``description`` as a hint. Object keys chosen by the
caller are never shown either: a key the schema does not define appears as ``*``,
and an unexpected property is reported at its parent with the names that are
allowed.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

import schemacore
from schemacore.uri import unquote_fragment

from .bounds import BoundaryLimits, check_argument_shape
from .errors import EXECUTION_FAILURE, VALIDATION, BoundaryError
from .jsonvalues import (
    REDACTED,
    array_index,
    describe_type,
    dot_path,
    json_key,
    json_type,
    pointer,
    show_json,
    split_pointer,
    tokens_along,
)
from .schemalookup import SchemaLookup
from .toolschema import ToolSchema, validate_schema

__all__ = [
    "ISSUE_META_KEY",
    "STRING_SHAPE_KEYWORDS",
    "ToolArgIssue",
    "ToolArgValidationResult",
    "check_arguments",
    "format_tool_arg_issues",
    "tool_error_result",
    "validate_property_value",
    "validate_tool_args",
]

STRING_SHAPE_KEYWORDS: Final = frozenset({"pattern", "minLength", "maxLength"})
ISSUE_META_KEY: Final = "schemacore/tool-arg-issues"
"""The ``_meta`` key of an ``isError`` result under which the structured issues go."""

Mode = Literal["enforce", "warn", "off"]

_HINT_LIMIT = 200
_ENUM_SHOWN = 10
_NAMES_SHOWN = 20


@dataclass(frozen=True, slots=True)
class ToolArgIssue:
    """One way in which tool arguments miss their schema, safe to show a model.

    Attributes:
        path: dot/bracket path from the arguments root (``items[0].name``), ``""``
            for the root; keys the schema does not define appear as ``*``.
        pointer: the same location as a JSON Pointer.
        code: a stable machine code (``type-mismatch``, ``property-missing``, ...).
        keyword: the schema keyword that failed.
        expected: what the schema asks for, worded from the schema.
        got: the type of what arrived (with a length where useful), never the value.
        message: one sentence combining the above.
        value: string-shape issues only: a capped excerpt of the offending string.
        hint: string-shape issues only: the property's own ``description``.
        suggestion: for an unexpected property, a schema-defined name it may be.
    """

    path: str
    pointer: str
    code: str
    keyword: str
    expected: str
    got: str
    message: str
    value: str | None = None
    hint: str | None = None
    suggestion: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable form; optional fields only when set."""
        result: dict[str, Any] = {
            "path": self.path,
            "pointer": self.pointer,
            "code": self.code,
            "keyword": self.keyword,
            "expected": self.expected,
            "got": self.got,
            "message": self.message,
        }
        for name in ("value", "hint", "suggestion"):
            if getattr(self, name) is not None:
                result[name] = getattr(self, name)
        return result


@dataclass(frozen=True, slots=True)
class ToolArgValidationResult:
    """The verdict of :func:`validate_tool_args`.

    Attributes:
        ok: whether the call may proceed (``warn`` mode proceeds on schema
            mismatches only, never past an ``execution_failure`` or arguments
            that are not a JSON object).
        issues: the issues found (at most ``max_issues``).
        mode: the mode the check ran in.
        error_class: ``None`` when there is no issue, else ``"validation"`` or
            ``"execution_failure"`` (a bound was hit; the arguments were refused
            without being evaluated).
        total: how many issues there were before capping.
    """

    ok: bool
    issues: tuple[ToolArgIssue, ...] = ()
    mode: Mode = "enforce"
    error_class: str | None = None
    total: int = 0


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


# -- checking ---------------------------------------------------------------------------------


def _dedupe(issues: Iterable[ToolArgIssue]) -> list[ToolArgIssue]:
    seen: set[tuple[str, str, str, str]] = set()
    unique: list[ToolArgIssue] = []
    for issue in issues:
        key = (issue.pointer, issue.code, issue.expected, issue.got)
        if key not in seen:
            seen.add(key)
            unique.append(issue)
    return unique


def _evaluation_failure(exc: BaseException, lookup: SchemaLookup, value: Any) -> BoundaryError:
    location = getattr(exc, "location", "")
    # Array indexes are read from the arguments; only keys may be redacted.
    tokens = [
        t if isinstance(t, int) or t in lookup.names else REDACTED
        for t in tokens_along(value, split_pointer(location))
    ]
    limit = getattr(exc, "limit", None) or "recursion"
    return BoundaryError(
        "arguments-evaluation-failed",
        "the arguments could not be evaluated against the schema within the "
        f"engine's limits ({limit}); they were not accepted",
        error_class=EXECUTION_FAILURE,
        path=pointer(tokens),
        limit=limit,
        tokens=tokens,
    )


def _find_issues(
    tool_schema: ToolSchema, value: Any, *, require_object: bool
) -> tuple[list[ToolArgIssue], int]:
    check_argument_shape(value, tool_schema.limits, tool_schema.lookup.names)
    if require_object and not isinstance(value, dict):
        raise BoundaryError(
            "arguments-not-object",
            f"tool arguments must be a JSON object, not {json_type(value)}",
        )
    validator = tool_schema.validator
    try:
        if validator.is_valid(value):
            return [], 0
        errors = list(validator.iter_errors(value))
    except (schemacore.SchemaCoreError, RecursionError) as exc:
        raise _evaluation_failure(exc, tool_schema.lookup, value) from None
    ctx = _Context(tool_schema.lookup, value, tool_schema.limits)
    issues: list[ToolArgIssue] = []
    for error in errors:
        issues.extend(_convert(ctx, error))
    issues = _dedupe(issues)
    if not issues:  # pragma: no cover - an invalid value always yields an error
        issues = [_issue(ctx, [], "schema-mismatch", "", "a value the schema accepts", "")]
    return issues[: tool_schema.limits.max_issues], len(issues)


def check_arguments(tool_schema: ToolSchema, arguments: Any) -> tuple[list[ToolArgIssue], int]:
    """The issues of ``arguments`` (capped) and their exact count.

    Raises BoundaryError for arguments that cannot be evaluated at all: outside the
    JSON data model (``validation``), beyond the bounds (``execution_failure``), or
    not an object (``validation``, code ``arguments-not-object``).
    """
    return _find_issues(tool_schema, arguments, require_object=True)


def _as_tool_schema(tool_or_schema: Any, role: Literal["input", "output"]) -> ToolSchema:
    if isinstance(tool_or_schema, ToolSchema):
        return tool_or_schema
    checked = getattr(tool_or_schema, "input", None)
    if isinstance(checked, ToolSchema):  # an admitted tool
        return checked
    if hasattr(tool_or_schema, "input_schema") and hasattr(tool_or_schema, "name"):
        return validate_schema(tool_or_schema.input_schema, role=role)  # a ToolDescriptor
    return validate_schema(tool_or_schema, role=role)


def _issue_from_error(exc: BoundaryError, arguments: Any = None) -> ToolArgIssue:
    # Which tokens are array indexes is known where the error was raised, from the
    # value; failing that, from ``arguments``; never from the text of a token.
    tokens = exc.tokens
    if tokens is None:
        tokens = tuple(tokens_along(arguments, split_pointer(exc.path)))
    path = dot_path(tokens)
    return ToolArgIssue(
        path=path,
        pointer=exc.path,
        code=exc.code,
        keyword="",
        expected="arguments within the runtime's bounds"
        if exc.error_class == EXECUTION_FAILURE
        else "JSON arguments that form an object",
        got=exc.message,
        message=f"{path or 'the arguments'}: {exc.message}",
    )


def validate_tool_args(
    args: Any, tool_or_schema: Any, *, mode: Mode = "enforce"
) -> ToolArgValidationResult:
    """Check tool-call arguments and return issues a model can act on.

    ``tool_or_schema`` is a :class:`ToolSchema`, an admitted tool, a
    ``ToolDescriptor`` or a raw input schema (compiled on each call: prefer passing
    a compiled one). ``mode``: ``"enforce"`` (``ok`` only without issues),
    ``"warn"`` (schema mismatches are reported but the call may proceed) or
    ``"off"`` (no check at all). Warn softens schema mismatches only: arguments
    that are not a JSON object (NaN, tuples, sets, non-string keys, a non-object
    root) or that hit a bound or an engine limit are refused (``ok`` False) in
    every mode but ``"off"``. Full Draft 2020-12 semantics apply.

    Raises:
        BoundaryError: a raw schema that does not pass :func:`validate_schema`.
    """
    if mode not in ("enforce", "warn", "off"):
        raise ValueError(f"mode must be 'enforce', 'warn' or 'off', not {mode!r}")
    if mode == "off":
        return ToolArgValidationResult(ok=True, mode=mode)
    tool_schema = _as_tool_schema(tool_or_schema, "input")
    try:
        issues, total = check_arguments(tool_schema, args)
    except BoundaryError as exc:
        # Not a schema mismatch: a bound was hit, the engine could not finish, or the
        # arguments are not a JSON object at all. Refused in "warn" mode too.
        return ToolArgValidationResult(
            ok=False,
            issues=(_issue_from_error(exc, args),),
            mode=mode,
            error_class=exc.error_class,
            total=1,
        )
    if not issues:
        return ToolArgValidationResult(ok=True, mode=mode)
    return ToolArgValidationResult(
        ok=mode == "warn", issues=tuple(issues), mode=mode, error_class=VALIDATION, total=total
    )


def validate_property_value(value: Any, property_schema: Any) -> ToolArgValidationResult:
    """Check one property value against that property's schema alone (any Draft
    2020-12 schema, boolean included; nothing of the root, such as its
    ``required``, applies); paths are relative to the value. The same result type
    as :func:`validate_tool_args`: ``ok`` and ``issues``.

    Raises:
        BoundaryError: the schema is refused, or the value is beyond the bounds.
    """
    tool_schema = _as_tool_schema(property_schema, "output")
    issues, total = _find_issues(tool_schema, value, require_object=False)
    return ToolArgValidationResult(
        ok=not issues,
        issues=tuple(issues),
        error_class=VALIDATION if issues else None,
        total=total,
    )


# -- rendering for the model -------------------------------------------------------------------


def _render_issue(issue: ToolArgIssue) -> str:
    line = f"- {issue.message}"
    if issue.value is not None:
        line += f"; value: {json.dumps(issue.value, ensure_ascii=False)}"
    if issue.hint:
        # On its own line, quoted and escaped: a newline or a "- " in a parameter's
        # description cannot break the list or pass for an issue of its own.
        line += f"\n  parameter: {json.dumps(issue.hint, ensure_ascii=False)}"
    return line


def format_tool_arg_issues(
    tool_name: str, issues: Sequence[ToolArgIssue], *, total: int | None = None, limit: int = 10
) -> str:
    """A model-visible text that lets the model correct its call.

    ``tool_name`` comes from the catalog (trusted); ``issues`` are already
    value-safe. At most ``limit`` issues are listed, then "and N more".

    Raises:
        TypeError: ``issues`` holds anything but :class:`ToolArgIssue` (an admission
            diagnostic or a schema error is never rendered for a model).
    """
    if not isinstance(tool_name, str):
        raise TypeError("tool_name must be a string")
    issues = _argument_issues("format_tool_arg_issues", issues)
    count = max(total if total is not None else len(issues), len(issues))
    name = json.dumps(tool_name, ensure_ascii=False)
    if not issues:
        return f"The arguments for tool {name} are valid."
    noun = "issue" if count == 1 else "issues"
    lines = [
        f"The tool {name} was not called: its arguments do not match the tool's "
        f"input schema ({count} {noun})."
    ]
    lines.extend(_render_issue(issue) for issue in issues[:limit])
    if count > min(limit, len(issues)):
        lines.append(f"… and {count - min(limit, len(issues))} more.")
    lines.append("Correct the arguments and call the tool again.")
    return "\n".join(lines)


def _argument_issues(what: str, issues: Any) -> tuple[ToolArgIssue, ...]:
    """``issues`` as a tuple, if it is a sequence of ToolArgIssue and nothing else."""
    if isinstance(issues, (str, bytes, Mapping)) or not isinstance(issues, Sequence):
        raise TypeError(f"{what} takes a sequence of ToolArgIssue, not {type(issues).__name__}")
    for issue in issues:
        if not isinstance(issue, ToolArgIssue):
            raise TypeError(f"{what} takes only ToolArgIssue items, not {type(issue).__name__}")
    return tuple(issues)


def tool_error_result(
    tool_name: str, failure: ToolArgValidationResult | BoundaryError | Sequence[ToolArgIssue]
) -> dict[str, Any]:
    """An MCP ``CallToolResult`` with ``isError: true`` for a call that was refused
    before dispatch (a tool execution error, not a JSON-RPC error, so the model sees
    it). The structured issues go under ``_meta[ISSUE_META_KEY]``, not into
    ``structuredContent``, which clients may check against the output schema.

    The result goes to a model, so it is built from argument-level errors only: a
    :class:`ToolArgValidationResult`, a sequence of :class:`ToolArgIssue`, or a
    :class:`BoundaryError` about the arguments (a code starting with
    ``arguments-``, as ``validate_arguments`` and ``parse_tool_args`` raise).
    Schema, catalog and contract errors (an admission ``Diagnostic``, an
    ``AdmissionRejected``, a ``BoundaryError`` about a schema) are trusted-host
    data that may carry internal URIs: they are refused.

    Raises:
        TypeError: ``failure`` is none of the argument-level types above.
        ValueError: a ``BoundaryError`` that is not about the arguments, an empty
            issue list, or a result that accepted the arguments.
    """
    if not isinstance(tool_name, str):
        raise TypeError("tool_name must be a string")
    if isinstance(failure, BoundaryError):
        if not failure.code.startswith("arguments-"):
            raise ValueError(
                f"{failure.code} is not an argument error: only errors about the arguments "
                "may be shown to a model"
            )
        issues = _argument_issues("tool_error_result", failure.issues) or (
            _issue_from_error(failure),
        )
        code, error_class, total = failure.code, failure.error_class, len(issues)
    elif isinstance(failure, ToolArgValidationResult):
        issues = _argument_issues("tool_error_result", failure.issues)
        if not issues:
            raise ValueError("the arguments were accepted: there is no error to report")
        code = (
            issues[0].code if failure.error_class != VALIDATION and issues else "arguments-invalid"
        )
        error_class, total = failure.error_class or VALIDATION, failure.total
    else:
        issues = _argument_issues("tool_error_result", failure)
        if not issues:
            raise ValueError("tool_error_result needs at least one issue")
        code, error_class, total = "arguments-invalid", VALIDATION, len(issues)
    return {
        "content": [
            {"type": "text", "text": format_tool_arg_issues(tool_name, issues, total=total)}
        ],
        "isError": True,
        "_meta": {
            ISSUE_META_KEY: {
                "code": code,
                "errorClass": error_class,
                "dispatched": False,
                "total": total,
                "issues": [issue.to_dict() for issue in issues],
            }
        },
    }
