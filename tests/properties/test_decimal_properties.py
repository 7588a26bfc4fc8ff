"""Decimal properties: a document (or schema) read with ``parse_float=Decimal``
answers as the float reading does wherever the floats are exact, and exactly where
they are not.

The hypothesis profile comes from ``HYPOTHESIS_PROFILE`` (see profiles.py).
"""

from __future__ import annotations

import json
import operator
from decimal import Decimal
from fractions import Fraction
from typing import Any

from hypothesis import event, given, note
from hypothesis import strategies as st

import schemacore

from .profiles import PROFILE
from .strategies import documents, json_values, numeric_schemas, repr_safe
from .test_engine_properties import answer, places, shown


def exact(floats: Any, decimals: Any) -> bool:
    """Whether every Decimal of ``decimals`` is the value the engine reads its float
    twin in ``floats`` as (an integral float's integer, else its shortest repr)."""
    if isinstance(floats, float):
        assert isinstance(decimals, Decimal)
        as_read = Decimal(int(floats)) if floats.is_integer() else Decimal(repr(floats))
        return as_read == decimals
    if isinstance(floats, list):
        return all(exact(f, d) for f, d in zip(floats, decimals, strict=True))
    if isinstance(floats, dict):
        return all(exact(floats[key], decimals[key]) for key in floats)
    return True


def readings(schema: Any, value: Any) -> list[tuple[Any, Any]]:
    """(schema, instance) with the numbers read as floats and as Decimals."""
    as_decimals = [json.loads(json.dumps(x), parse_float=Decimal) for x in (schema, value)]
    return [(s, v) for s in (schema, as_decimals[0]) for v in (value, as_decimals[1])]


@PROFILE
@given(documents() | numeric_schemas(), json_values())
def test_decimal_readings_answer_as_float_readings_where_exact(schema: Any, value: Any) -> None:
    if repr_safe(value) or repr_safe(schema):
        return  # json.dumps cannot write an integer this long
    pairs = readings(schema, value)
    if not (exact(schema, pairs[2][0]) and exact(value, pairs[1][1])):
        event("a float reading is not exact")
        return
    expected = answer(schemacore.compile(schema), value)
    where = places(schemacore.compile(schema), value)
    for read_schema, read_value in pairs[1:]:
        note(f"schema {shown(read_schema)}, instance {shown(read_value)}")
        validator = schemacore.compile(read_schema)
        hot = schemacore.compile(read_schema)
        hot._promote()
        assert answer(validator, read_value) == expected
        assert answer(hot, read_value) == expected
        assert places(validator, read_value) == where
        if isinstance(expected, bool):
            assert validator.evaluate(read_value).valid == expected


# Decimals with more digits, or a wider exponent, than any float holds.
_decimals = st.builds(
    lambda sign, digits, exponent: Decimal((sign, tuple(int(c) for c in digits), exponent)),
    st.integers(0, 1),
    st.text(alphabet="0123456789", min_size=1, max_size=40),
    st.integers(-60, 60),
)
_limits = _decimals | st.sampled_from([0.1, 0.3, 2.5, 1e-9, 1e22, 2.0**60, 7, 10**30])
_TESTS = {
    "minimum": operator.ge,
    "maximum": operator.le,
    "exclusiveMinimum": operator.gt,
    "exclusiveMaximum": operator.lt,
}


def rational(number: Any) -> Fraction:
    """The value the documented rule gives a number: floats as their shortest repr."""
    if isinstance(number, float) and not number.is_integer():
        return Fraction(repr(number))
    return Fraction(int(number)) if isinstance(number, float) else Fraction(number)


@PROFILE
@given(
    st.sampled_from([*_TESTS, "multipleOf"]),
    _limits,
    _decimals | st.sampled_from([0.1, 0.3, 2.5, 3, 2.0**60]),
)
def test_decimals_answer_exactly(keyword: str, limit: Any, instance: Any) -> None:
    if keyword == "multipleOf":
        limit = abs(limit)
        if not limit:
            return
        quotient = rational(instance) / rational(limit)
        expected = quotient.denominator == 1
    else:
        expected = _TESTS[keyword](rational(instance), rational(limit))
    validator = schemacore.compile({keyword: limit})
    hot = schemacore.compile({keyword: limit})
    hot._promote()
    assert validator.is_valid(instance) is expected
    assert hot.is_valid(instance) is expected
    assert (not list(validator.iter_errors(instance))) is expected
