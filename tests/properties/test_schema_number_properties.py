"""Schema number properties: non-JSON and edge numbers in every keyword position.

NaN and infinities (float or Decimal, sNaN included), finite Decimals, integers past
``sys.get_int_max_str_digits``, -0.0, 1e308 and ordinary numbers, placed in an
assertion's value, an annotation's (``default``, ``examples``, ``const``, ``enum``,
an unknown keyword's), a subschema position, alone or inside an array or object, at
the root or in a subschema, under each draft:

* a number that is not JSON is refused by ``compile`` (``SchemaError``, reason
  ``not-json``, located at the number itself);
* otherwise either ``compile`` refuses the schema with a located ``SchemaError`` (a
  negative ``maxLength``, say), or every output format of every evaluation is text
  that a strict ``json.loads`` reads, holding the output's values: Decimals exactly,
  integers too long to write as their size. Never another exception.

The hypothesis profile comes from ``HYPOTHESIS_PROFILE`` (see profiles.py).
"""

from __future__ import annotations

import json
import math
from decimal import Decimal
from typing import Any

from hypothesis import given, note
from hypothesis import strategies as st

import schemacore
from schemacore import SchemaError
from schemacore.display import describe_integer, show
from schemacore.jsonvalue import outside_json
from schemacore.output import FORMATS

from .profiles import PROFILE

DRAFTS = {
    "2020-12": "https://json-schema.org/draft/2020-12/schema",
    "2019-09": "https://json-schema.org/draft/2019-09/schema",
    "draft-07": "http://json-schema.org/draft-07/schema#",
    "draft-06": "http://json-schema.org/draft-06/schema#",
    "draft-04": "http://json-schema.org/draft-04/schema#",
}

NOT_JSON = [
    float("nan"),
    float("inf"),
    float("-inf"),
    Decimal("NaN"),
    Decimal("-NaN"),
    Decimal("sNaN"),
    Decimal("Infinity"),
    Decimal("-Infinity"),
]
HUGE = 10**5000
numbers = (
    st.sampled_from(NOT_JSON)
    | st.sampled_from(
        [
            HUGE,
            -HUGE,
            3**9000,
            -0.0,
            0.0,
            1e308,
            -1e308,
            5e-324,
            2**53 + 1,
            Decimal("-0"),
            Decimal("1.50"),
            Decimal("1E+5000"),
            Decimal("-1E-5000"),
            Decimal("0.1000000000000000055511151231257827021181583404541015625"),
        ]
    )
    | st.decimals(allow_nan=False, allow_infinity=False)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.integers()
)

# Keywords whose value is the number itself, and those whose value holds it.
BARE = [
    "maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum", "multipleOf",
    "maxLength", "minLength", "maxItems", "minItems", "maxProperties", "minProperties",
    "minContains", "maxContains", "const", "default", "x-unknown", "title", "type",
    "additionalProperties",
]  # fmt: skip
HELD = {
    "enum": lambda n: [n],
    "examples": lambda n: [n],
    "default": lambda n: {"k": [1, n]},
    "const": lambda n: [n],
    "x-unknown": lambda n: {"deep": [{"er": n}]},
    "required": lambda n: [n],
    "properties": lambda n: {"p": n},
    "items": lambda n: [n],
}
HELD_AT = {
    "enum": "/0",
    "examples": "/0",
    "default": "/k/1",
    "const": "/0",
    "x-unknown": "/deep/0/er",
    "required": "/0",
    "properties": "/p",
    "items": "/0",
}
# Subschema positions the keyword may sit in (the instance reaches the first three).
WRAPS = {
    "root": (lambda s: s, ""),
    "properties": (lambda s: {"properties": {"p": s}}, "/properties/p"),
    "items": (lambda s: {"items": s}, "/items"),
    "definitions": (lambda s: {"definitions": {"d": s}}, "/definitions/d"),
}
INSTANCES: list[Any] = [0, 1.5, -HUGE, "s", None, [1, 2], {"p": 1}, {"p": [2.5]}]


@st.composite
def schemas(draw: st.DrawFn) -> tuple[Any, str, Any]:
    """A schema with one generated number in it, the number's pointer, the number."""
    number = draw(numbers)
    if draw(st.booleans()):
        keyword = draw(st.sampled_from(BARE))
        value, at = number, f"/{keyword}"
    else:
        keyword = draw(st.sampled_from(sorted(HELD)))
        value, at = HELD[keyword](number), f"/{keyword}{HELD_AT[keyword]}"
    wrap, prefix = WRAPS[draw(st.sampled_from(sorted(WRAPS)))]
    schema = wrap({keyword: value})
    draft = draw(st.sampled_from(sorted(DRAFTS)))
    return {"$schema": DRAFTS[draft], **schema}, prefix + at, number


def finite(number: Any) -> bool:
    if isinstance(number, float):
        return math.isfinite(number)
    if isinstance(number, Decimal):
        return number.is_finite()
    return True


def refuse(constant: str) -> Any:
    raise ValueError(f"not JSON: {constant}")


def expected(value: Any) -> Any:
    """An output value as its JSON text must read back with numbers as Decimals."""
    if isinstance(value, dict):
        return {key: expected(member) for key, member in value.items()}
    if isinstance(value, list):
        return [expected(item) for item in value]
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        try:
            repr(value)
        except ValueError:
            return describe_integer(value)
        return Decimal(value)
    if isinstance(value, float):
        return Decimal(repr(value))
    assert isinstance(value, Decimal)
    return value


def same(read: Any, wanted: Any) -> bool:
    """Equal JSON, types kept apart (Python equates True and Decimal(1))."""
    if isinstance(wanted, dict):
        return (
            isinstance(read, dict)
            and read.keys() == wanted.keys()
            and all(same(read[key], wanted[key]) for key in wanted)
        )
    if isinstance(wanted, list):
        return (
            isinstance(read, list)
            and len(read) == len(wanted)
            and all(same(a, b) for a, b in zip(read, wanted, strict=True))
        )
    return type(read) is type(wanted) and bool(read == wanted)


@PROFILE
@given(schemas())
def test_a_number_anywhere_in_a_schema_is_refused_or_written_as_json(
    case: tuple[Any, str, Any],
) -> None:
    schema, at, number = case
    note(f"schema: {show(schema, 100_000)}")
    try:
        validator = schemacore.compile(schema)
    except SchemaError as refused:
        note(f"refused: {refused}")
        if not finite(number):
            assert refused.reason == "not-json"
            assert refused.location == at
        else:
            assert refused.reason != "not-json"
            assert at.startswith(refused.location)  # where the number is, or around it
        return
    assert finite(number), "a non-JSON number compiled"
    for instance in INSTANCES:
        evaluation = validator.evaluate(instance)
        for fmt in FORMATS:
            output = evaluation.output(fmt)
            assert outside_json(output) is None
            for ensure_ascii in (True, False):
                text = "".join(evaluation.iter_json(fmt, ensure_ascii=ensure_ascii))
                json.loads(text, parse_constant=refuse)  # no NaN, no Infinity
                read = json.loads(
                    text, parse_constant=refuse, parse_float=Decimal, parse_int=Decimal
                )
                assert same(read, expected(output)), (fmt, text)
