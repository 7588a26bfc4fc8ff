"""Validation vocabulary: assertions on one instance value.

Each keyword declares the JSON type it constrains; the node builder only calls it
on instances of that type, so the checks here need no type guards of their own.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from decimal import Decimal
from fractions import Fraction
from typing import Any

from ..display import show
from ..emit import Emitter, Writer
from ..errors import ExecutionFailure, ValidationError
from ..fixedpattern import Run, fixed_runs
from ..jsonvalue import EXACT, JSON_TYPES, as_decimal, decimal_integral, json_key
from ..model import Keyword, Node, SchemaContext, assertion, make_error
from ..paths import Path
from ..spec import Role, Spec
from .core import pattern_search

__all__ = [
    "CONST",
    "DEPENDENT_REQUIRED",
    "ENUM",
    "EXCLUSIVE_MAXIMUM",
    "EXCLUSIVE_MINIMUM",
    "MAXIMUM",
    "MAX_ITEMS",
    "MAX_LENGTH",
    "MAX_PROPERTIES",
    "MINIMUM",
    "MIN_ITEMS",
    "MIN_LENGTH",
    "MIN_PROPERTIES",
    "MULTIPLE_OF",
    "PATTERN",
    "REQUIRED",
    "TYPE",
    "UNIQUE_ITEMS",
    "bound",
    "compile_dependent_required",
    "one_type",
    "parse_types",
    "whole",
]

Compile = Callable[[SchemaContext, Any], "Keyword | None"]


# One frozenset per distinct set of type names (at most 2**7), shared by every node.
_TYPE_SETS: dict[frozenset[str], frozenset[str]] = {}
# The usual "type": "<name>", answered without building a set.
_ONE_TYPE: dict[str, frozenset[str]] = {name: frozenset({name}) for name in JSON_TYPES}
_TYPE_SETS.update((types, types) for types in _ONE_TYPE.values())


def one_type(value: Any) -> frozenset[str] | None:
    """The set of a ``type`` value that names one JSON type, else None."""
    return _ONE_TYPE.get(value) if type(value) is str else None


def parse_types(ctx: SchemaContext, value: Any) -> frozenset[str]:
    found = one_type(value)
    if found is not None:
        return found
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list) or not names:
        raise ctx.schema_error("type must be a type name or a non-empty array of them", "type")
    for name in names:
        if name not in JSON_TYPES:
            raise ctx.schema_error(f"unknown type {name!r}", "type")
    types = frozenset(names)
    return _TYPE_SETS.setdefault(types, types)


def _number(ctx: SchemaContext, keyword: str, value: Any) -> int | float | Decimal:
    if isinstance(value, Decimal) and Decimal.is_finite(value):
        return value  # a schema read with parse_float=Decimal
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ctx.schema_error(f"{keyword} must be a number", keyword)
    return value


def whole(value: Any) -> Any:
    """An integral float or Decimal as the integer it holds (anything else as it is):
    the value of a count keyword. A Decimal beyond any length is sys.maxsize, not an
    integer of a billion digits (Decimal("1E+1000000000"))."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, Decimal) and Decimal.is_finite(value) and decimal_integral(value):
        return int(value) if value.adjusted() < 19 else sys.maxsize
    return value


def _count(ctx: SchemaContext, keyword: str, value: Any) -> int:
    value = whole(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ctx.schema_error(f"{keyword} must be a non-negative integer", keyword)
    return value


# -- any type ---------------------------------------------------------------------


def _schema_key(ctx: SchemaContext, keyword: str, value: Any) -> Any:
    """The JSON equality key of a value the schema holds: one outside the JSON data
    model (the meta-schema does not look inside const and enum) makes the schema
    invalid, it is no limit of the instance."""
    try:
        return json_key(value)
    except ExecutionFailure as exc:
        detail = exc.message.replace("the instance", "its value", 1)
        raise ctx.schema_error(
            f"{keyword} is not JSON: {detail}", keyword, reason="not-json"
        ) from None


def compile_const(ctx: SchemaContext, value: Any) -> Keyword:
    if isinstance(value, str):

        def valid(x: Any) -> bool:
            return x == value and isinstance(x, str)

    elif value is None or isinstance(value, bool):

        def valid(x: Any) -> bool:
            return x is value

    else:
        key = _schema_key(ctx, "const", value)

        def valid(x: Any) -> bool:
            return bool(json_key(x) == key)

    return assertion(ctx, "const", None, valid, _const_message, value, cost=5)


def _const_message(x: Any, value: Any) -> str:
    return f"the value must be {show(value)}"


def compile_enum(ctx: SchemaContext, value: Any) -> Keyword:
    if not isinstance(value, list):
        raise ctx.schema_error("enum must be an array", "enum")
    keys = frozenset(_schema_key(ctx, "enum", member) for member in value)
    strings = frozenset(member for member in value if isinstance(member, str))

    def valid(x: Any) -> bool:
        if type(x) is str:
            return x in strings
        return json_key(x) in keys

    # The members shown in a message, and whether there are more: shown when an
    # error is reported, not on every compile.
    return assertion(ctx, "enum", None, valid, _enum_message, tuple(value[:11]), cost=5)


def _enum_message(x: Any, members: tuple[Any, ...]) -> str:
    shown = ", ".join(show(member) for member in members[:10])
    if len(members) > 10:
        shown += ", ..."
    return f"the value must be one of: {shown}"


# -- numbers ------------------------------------------------------------------------


def _rational(number: int | float) -> int | Fraction:
    """The exact value ``multipleOf`` reasons about.

    An integral float is the integer it holds (2.0**60 is 2**60, as JSON equality
    says; its shortest repr 1.152921504606847e+18 is another integer). A fractional
    float is its shortest repr, the decimal the author wrote, so 4.02 is a multiple
    of 0.01 although their binary values disagree. Subclasses (numpy scalars, float
    enums) are read through the base type, never through their own repr."""
    if type(number) is int:
        return number
    if isinstance(number, int):
        return int.__int__(number)
    value = float.__float__(number)
    if value.is_integer():
        return int(value)
    return Fraction(float.__repr__(value))


def _scaled(number: Any) -> tuple[tuple[int, ...], int]:
    """The digits and exponent of a finite number as :func:`as_decimal` reads it."""
    _, digits, exponent = as_decimal(number).as_tuple()
    assert isinstance(exponent, int)
    return digits, exponent


def _decimal_multiple(x: Any, digits: tuple[int, ...], exponent: int) -> bool:
    """Whether ``x`` is a multiple of the divisor with ``digits`` and ``exponent``
    (read as as_decimal reads them), in Decimal arithmetic on operands no longer
    than the two numbers: ``Decimal("1E+1000000000")`` costs no more than 1."""
    own, power = _scaled(x)
    coefficient = Decimal((0, own, 0))
    if not coefficient:
        return True
    divisor = Decimal((0, digits, 0))
    shift = power - exponent
    if shift >= 0:
        # x / divisor = coefficient * 10**shift / divisor: past the divisor's powers
        # of 2 and 5 (fewer than 4 per digit), more factors of ten change nothing.
        shift = min(shift, 4 * len(digits))
        return not EXACT.remainder(Decimal((0, own, shift)), divisor)
    if -shift > len(own):
        return False  # 10**-shift alone is more than the coefficient
    return not EXACT.remainder(coefficient, Decimal((0, digits, -shift)))


def compile_multiple_of(ctx: SchemaContext, value: Any) -> Keyword:
    divisor = _number(ctx, "multipleOf", value)
    if divisor <= 0:
        raise ctx.schema_error("multipleOf must be greater than 0", "multipleOf")
    digits, exponent = _scaled(divisor)

    if isinstance(divisor, Decimal):
        # Exact for every number; as_decimal reads a float as multipleOf always has.
        def valid(x: Any) -> bool:
            return _decimal_multiple(x, digits, exponent)

        return assertion(ctx, "multipleOf", "number", valid, _multiple_message, divisor, cost=8)
    exact = _rational(divisor)

    if isinstance(exact, int):
        # An integral divisor: integer arithmetic, and a fractional instance is
        # never a multiple of an integer.
        def valid(x: Any) -> bool:
            if type(x) is int:
                return x % exact == 0
            if isinstance(x, Decimal):
                return _decimal_multiple(x, digits, exponent)
            number = _rational(x)
            return isinstance(number, int) and number % exact == 0

    else:

        def valid(x: Any) -> bool:
            if isinstance(x, Decimal):
                return _decimal_multiple(x, digits, exponent)
            return (_rational(x) / exact).denominator == 1

    return assertion(ctx, "multipleOf", "number", valid, _multiple_message, divisor, cost=8)


def _multiple_message(x: Any, divisor: int | float | Decimal) -> str:
    return f"{show(x)} is not a multiple of {show(divisor)}"


def bound(
    name: str, test: Callable[[Any, Any], bool], words: str
) -> Callable[[SchemaContext, Any], Keyword]:
    def message(x: Any, limit: int | float | Decimal) -> str:
        return f"{show(x)} is {words} {show(limit)}"

    def compile_bound(ctx: SchemaContext, value: Any) -> Keyword:
        limit = _number(ctx, name, value)
        # Where a Decimal meets a float, both are read by as_decimal: a fractional
        # float is its shortest repr (Decimal("0.1") >= 0.1), never its binary value
        # (Python's own comparison, which a context may also trap).
        against = as_decimal(limit)

        if isinstance(limit, Decimal):

            def valid(x: Any) -> bool:
                return test(as_decimal(x), against)

        else:

            def valid(x: Any) -> bool:
                if isinstance(x, Decimal):
                    return test(as_decimal(x), against)
                return test(x, limit)

        return assertion(ctx, name, "number", valid, message, limit, 2)

    return compile_bound


compile_minimum = bound("minimum", lambda x, m: x >= m, "less than the minimum")
compile_maximum = bound("maximum", lambda x, m: x <= m, "greater than the maximum")
compile_exclusive_minimum = bound(
    "exclusiveMinimum", lambda x, m: x > m, "less than or equal to the exclusive minimum"
)
compile_exclusive_maximum = bound(
    "exclusiveMaximum", lambda x, m: x < m, "greater than or equal to the exclusive maximum"
)


# -- sizes --------------------------------------------------------------------------


def _size(
    name: str, applies_to: str, at_least: bool, noun: str
) -> Callable[[SchemaContext, Any], Keyword | None]:
    words = "fewer than" if at_least else "more than"
    measured = "length" if applies_to == "string" else "count"

    def message(x: Any, limit: int) -> str:
        # show: the schema may give a count longer than Python writes as text.
        return f"the {applies_to} has {len(x)} {noun}, {words} {show(limit)}"

    def measure(x: Any) -> dict[str, Any]:
        return {measured: len(x)}

    def compile_size(ctx: SchemaContext, value: Any) -> Keyword | None:
        limit = _count(ctx, name, value)
        if at_least:
            if limit == 0:
                return None

            def valid(x: Any) -> bool:
                return len(x) >= limit

        else:

            def valid(x: Any) -> bool:
                return len(x) <= limit

        return assertion(ctx, name, applies_to, valid, message, limit, 3, measure)

    return compile_size


# -- strings ------------------------------------------------------------------------


def compile_pattern_keyword(ctx: SchemaContext, value: Any) -> Keyword:
    if not isinstance(value, str):
        raise ctx.schema_error("pattern must be a string", "pattern")
    search = pattern_search(ctx, value, "pattern")

    def valid(x: Any) -> bool:
        return search(x) is not None

    return assertion(ctx, "pattern", "string", valid, _pattern_message, value, cost=20)


def _pattern_message(x: Any, pattern: str) -> str:
    return f"the string does not match the pattern {pattern!r}"


# -- arrays -------------------------------------------------------------------------


def compile_unique_items(ctx: SchemaContext, value: Any) -> Keyword | None:
    if not isinstance(value, bool):
        raise ctx.schema_error("uniqueItems must be a boolean", "uniqueItems")
    if not value:
        return None

    def valid(x: Any) -> bool:
        if len(x) < 2:
            return True
        kinds = set(map(type, x))
        if len(kinds) == 1 and (str in kinds or int in kinds):
            # Only strings, or only integers: Python's equality is JSON's.
            return len(set(x)) == len(x)
        keys = [json_key(item) for item in x]
        try:
            return len(set(keys)) == len(keys)
        except TypeError:  # pragma: no cover - json_key always returns hashables
            return False

    return assertion(
        ctx, "uniqueItems", "array", valid, _unique_message, cost=30, measure=_duplicates
    )


def _first_duplicate(x: Any) -> tuple[int, int] | None:
    seen: dict[Any, int] = {}
    for index, item in enumerate(x):
        key = json_key(item)
        if key in seen:
            return seen[key], index
        seen[key] = index
    return None  # pragma: no cover - only asked once the check failed


def _duplicates(x: Any) -> dict[str, Any]:
    pair = _first_duplicate(x)
    return {"duplicates": list(pair)} if pair is not None else {}


def _unique_message(x: Any, detail: None) -> str:
    pair = _first_duplicate(x)
    if pair is not None:
        return f"the array items are not unique (items {pair[0]} and {pair[1]} are equal)"
    return "the array items are not unique"  # pragma: no cover


# -- objects ------------------------------------------------------------------------


def _names(ctx: SchemaContext, value: Any, *where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(n, str) for n in value):
        raise ctx.schema_error(f"{where[0]} must be an array of strings", *where)
    return tuple(dict.fromkeys(value))


def compile_required(ctx: SchemaContext, value: Any) -> Keyword | None:
    names = _names(ctx, value, "required")
    if not names:
        return None

    def valid(x: Any) -> bool:
        for name in names:
            if name not in x:
                return False
        return True

    def errors(x: Any, ipath: Path, kpath: Path) -> Iterator[ValidationError]:
        for name in names:
            if name not in x:
                yield make_error(
                    f"{name!r} is a required property",
                    "required",
                    x,
                    ipath,
                    (kpath, "required"),
                    ctx.location("required"),
                    params={"required": list(names), "missing": [name]},
                )

    return Keyword("required", "object", valid, errors, cost=4)


def compile_dependent_required(
    ctx: SchemaContext, value: Any, keyword: str = "dependentRequired"
) -> Keyword | None:
    if not isinstance(value, dict):
        raise ctx.schema_error(f"{keyword} must be an object", keyword)
    rules = tuple(
        (name, _names(ctx, needed, keyword, name)) for name, needed in value.items() if needed
    )
    if not rules:
        return None

    def valid(x: Any) -> bool:
        for name, needed in rules:
            if name in x:
                for other in needed:
                    if other not in x:
                        return False
        return True

    def errors(x: Any, ipath: Path, kpath: Path) -> Iterator[ValidationError]:
        for name, needed in rules:
            if name in x:
                for other in needed:
                    if other not in x:
                        yield make_error(
                            f"{other!r} is required when {name!r} is present",
                            keyword,
                            x,
                            ipath,
                            ((kpath, keyword), name),
                            ctx.location(keyword, name),
                            params={"property": name, "missing": [other]},
                        )

    return Keyword(keyword, "object", valid, errors, cost=6)


# -- generated code -------------------------------------------------------------------


def emit_required(
    w: Writer, i: int, node: Node, ctx: SchemaContext, k: Keyword, x: str, t: str, d: int
) -> bool:
    names = list(dict.fromkeys(ctx.schema["required"]))
    if len(names) > _SPELLED_OUT:
        # One set comparison, in C, and one line of code however many names.
        w.add(i, f"if not {x}.keys() >= {w.const(frozenset(names))}: return False")
        return True
    if names:
        test = " or ".join(f"{w.const(name)} not in {x}" for name in names)
        w.add(i, f"if {test}: return False")
    return True


# Required names tested one by one (cheaper than a set comparison for a few).
_SPELLED_OUT = 8


def emit_size(op: str) -> Emitter:
    def emit(
        w: Writer, i: int, node: Node, ctx: SchemaContext, k: Keyword, x: str, t: str, d: int
    ) -> bool:
        limit = whole(ctx.schema[k.name])
        w.add(i, f"if len({x}) {op} {w.const(limit)}: return False")
        return True

    return emit


def emit_unique_items(
    w: Writer, i: int, node: Node, ctx: SchemaContext, k: Keyword, x: str, t: str, d: int
) -> bool:
    # Most arrays are too short to hold a duplicate: no call for them.
    w.add(i, f"if len({x}) > 1 and not {w.const(k.valid)}({x}): return False")
    return True


def emit_bound(op: str) -> Emitter:
    def emit(
        w: Writer, i: int, node: Node, ctx: SchemaContext, k: Keyword, x: str, t: str, d: int
    ) -> bool:
        limit = ctx.schema[k.name]
        if isinstance(limit, Decimal):
            return False  # a float meets it as its shortest repr: the closure's work
        w.add(i, f"if not ({x} {op} {w.const(limit)}): return False")
        return True

    return emit


def emit_pattern(
    w: Writer, i: int, node: Node, ctx: SchemaContext, k: Keyword, x: str, t: str, d: int
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
        w.add(i + 1, f"if not ({emit_fixed_test(w, x, *fixed)}): return False")
        w.add(i, f"elif {w.const(search)}({x}) is None: return False")
        return True
    if short is not None:
        w.add(i, f"if len({x}) < {w.const(below)}:")
        w.add(i + 1, f"if {w.const(short)}({x}) is None: return False")
        w.add(i, f"elif {w.const(search)}({x}) is None: return False")
    else:
        w.add(i, f"if {w.const(search)}({x}) is None: return False")
    return True


def emit_fixed_test(w: Writer, x: str, length: int, runs: tuple[Run, ...]) -> str:
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


def emit_enum(
    w: Writer, i: int, node: Node, ctx: SchemaContext, k: Keyword, x: str, t: str, d: int
) -> bool:
    members = ctx.schema["enum"]
    if not all(isinstance(m, str) for m in members):
        return False
    if t == "string":
        w.add(i, f"if {x} not in {w.const(frozenset(members))}: return False")
    else:
        w.add(i, "return False")
    return True


def _assertion(
    name: str, compile: Compile, applies_to: str | None, emit: Emitter | None = None
) -> Spec:
    return Spec(name, compile, Role.ASSERTION, applies_to, emit=emit)


# "type" is fused into every node's dispatch table (keywords.build_node reads it).
TYPE = Spec("type", None, Role.ASSERTION)
CONST = _assertion("const", compile_const, None)
ENUM = _assertion("enum", compile_enum, None, emit_enum)
MULTIPLE_OF = _assertion("multipleOf", compile_multiple_of, "number")
MINIMUM = _assertion("minimum", compile_minimum, "number", emit_bound(">="))
MAXIMUM = _assertion("maximum", compile_maximum, "number", emit_bound("<="))
EXCLUSIVE_MINIMUM = _assertion(
    "exclusiveMinimum", compile_exclusive_minimum, "number", emit_bound(">")
)
EXCLUSIVE_MAXIMUM = _assertion(
    "exclusiveMaximum", compile_exclusive_maximum, "number", emit_bound("<")
)
MIN_LENGTH = _assertion(
    "minLength", _size("minLength", "string", True, "characters"), "string", emit_size("<")
)
MAX_LENGTH = _assertion(
    "maxLength", _size("maxLength", "string", False, "characters"), "string", emit_size(">")
)
MIN_ITEMS = _assertion(
    "minItems", _size("minItems", "array", True, "items"), "array", emit_size("<")
)
MAX_ITEMS = _assertion(
    "maxItems", _size("maxItems", "array", False, "items"), "array", emit_size(">")
)
MIN_PROPERTIES = _assertion(
    "minProperties", _size("minProperties", "object", True, "properties"), "object", emit_size("<")
)
MAX_PROPERTIES = _assertion(
    "maxProperties", _size("maxProperties", "object", False, "properties"), "object", emit_size(">")
)
PATTERN = _assertion("pattern", compile_pattern_keyword, "string", emit_pattern)
UNIQUE_ITEMS = _assertion("uniqueItems", compile_unique_items, "array", emit_unique_items)
REQUIRED = _assertion("required", compile_required, "object", emit_required)
DEPENDENT_REQUIRED = _assertion("dependentRequired", compile_dependent_required, "object")
