"""Hazard: numbers JSON equates but Python spells differently.

An integral float is the integer it holds, on every keyword: ``2.0**60`` answers as
``2**60`` does (json.loads gives such floats for ``1152921504606846976.0``). And a
subclass of ``int`` or ``float`` (numpy scalars, float and int enums) answers as the
plain number it wraps, whatever its repr says, on every path.
"""

from __future__ import annotations

import enum
import json
from typing import Any

import pytest

import schemacore

from .support import CALLS, Call

# Every keyword that looks at a number, with integral and fractional divisors.
NUMERIC: list[Any] = [
    {"multipleOf": 16},
    {"multipleOf": 16.0},
    {"multipleOf": 3},
    {"multipleOf": 0.5},
    {"multipleOf": 0.01},
    {"multipleOf": 1e-8},
    {"multipleOf": 2**60},
    {"multipleOf": 0.123456789},
    {"minimum": 1.5},
    {"maximum": 2**60},
    {"exclusiveMinimum": 3},
    {"exclusiveMaximum": 2.0**60},
    {"type": "integer"},
    {"type": "number"},
    {"const": 3},
    {"enum": [1.5, 2**60, 4.02]},
    {"items": {"multipleOf": 0.01}, "uniqueItems": True},
]


def answers(call: Call, schema: Any, instance: Any) -> Any:
    """What ``call`` says, reduced to something comparable across equal instances."""
    validator = schemacore.compile(schema)
    result = call(validator, instance)
    if isinstance(result, list):
        return [(e.keyword_location, e.instance_location) for e in result]
    if isinstance(result, schemacore.ValidationError):
        return result.keyword_location
    return result


def evaluated(schema: Any, instance: Any) -> bool:
    return schemacore.compile(schema).evaluate(instance).valid


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("divisor", [16, 16.0, 2**10, 0.5, 0.25])
def test_an_integral_float_above_2_53_is_its_integer(call: Call, divisor: Any) -> None:
    big = json.loads("1152921504606846976.0")
    assert type(big) is float and big == 2**60
    assert answers(call, {"multipleOf": divisor}, big) in (True, [], None)
    assert evaluated({"multipleOf": divisor}, big)
    # 2**60 + 2**8 is a float too, and not a multiple of 2**10.
    odd = float(2**60 + 2**8)
    assert answers(call, {"multipleOf": 2**10}, odd) not in (True, [], None)


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("schema", NUMERIC, ids=json.dumps)
@pytest.mark.parametrize("exponent", [53, 54, 60, 64, 100, 300, 1000])
def test_integral_floats_answer_as_their_integers(call: Call, schema: Any, exponent: int) -> None:
    for value in (2**exponent, 3 * 2**exponent, 2**exponent * 5**10):
        as_float = float(value)
        exact = int(as_float)
        for wrap in (lambda x: x, lambda x: [x, 1]):
            expected = answers(call, schema, wrap(exact))
            assert answers(call, schema, wrap(as_float)) == expected, (value, wrap(0))
            assert evaluated(schema, wrap(as_float)) == evaluated(schema, wrap(exact))


def test_huge_floats_and_tiny_divisors_answer() -> None:
    assert schemacore.compile({"multipleOf": 0.5}).is_valid(1e308)
    assert not schemacore.compile({"multipleOf": 0.123456789}).is_valid(1e308)
    assert schemacore.compile({"multipleOf": 1e-300}).is_valid(1e-290)
    assert schemacore.compile({"multipleOf": 0.01}).is_valid(4.02)
    assert not schemacore.compile({"multipleOf": 16}).is_valid(2.5)
    assert not schemacore.compile({"multipleOf": 16.0}).is_valid(2.0**51 + 0.5)


# -- subclasses -------------------------------------------------------------------------


class Plain(float):
    pass


class NumpyLike(float):
    """Like numpy.float64 under numpy 2: its repr is no number literal."""

    def __repr__(self) -> str:
        return f"np.float64({float(self)!r})"


class FloatChoice(float, enum.Enum):
    HALF = 1.5
    HUGE = 2.0**60
    CENTS = 4.02


class Count(int):
    def __repr__(self) -> str:
        return f"np.int64({int(self)})"


class Level(enum.IntEnum):
    THREE = 3
    HUGE = 2**60


SUBCLASSED: list[tuple[Any, Any]] = [
    (Plain(1.5), 1.5),
    (Plain(4.02), 4.02),
    (Plain(2.0**60), 2.0**60),
    (NumpyLike(1.5), 1.5),
    (NumpyLike(3.0), 3.0),
    (NumpyLike(4.02), 4.02),
    (FloatChoice.HALF, 1.5),
    (FloatChoice.HUGE, 2.0**60),
    (FloatChoice.CENTS, 4.02),
    (Count(3), 3),
    (Count(2**60), 2**60),
    (Count(10**5000), 10**5000),
    (Level.THREE, 3),
    (Level.HUGE, 2**60),
]


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("schema", NUMERIC, ids=json.dumps)
@pytest.mark.parametrize("pair", SUBCLASSED, ids=lambda p: type(p[0]).__name__)
def test_a_number_subclass_answers_as_its_plain_value(
    call: Call, schema: Any, pair: tuple[Any, Any]
) -> None:
    wrapped, plain = pair
    for wrap in (lambda x: x, lambda x: [x], lambda x: {"a": x}):
        assert answers(call, schema, wrap(wrapped)) == answers(call, schema, wrap(plain))
        assert evaluated(schema, wrap(wrapped)) == evaluated(schema, wrap(plain))


def test_subclassed_divisors_compile_to_the_plain_keyword() -> None:
    for divisor, plain in ((NumpyLike(0.5), 0.5), (Count(16), 16), (FloatChoice.HALF, 1.5)):
        for instance in (3.0, 4.5, 2**60, 2.0**60, 7):
            mixed = schemacore.compile({"multipleOf": divisor}).is_valid(instance)
            assert mixed == schemacore.compile({"multipleOf": plain}).is_valid(instance)


def test_booleans_are_not_numbers() -> None:
    # bool subclasses int, but true is no number in JSON: the numeric keywords
    # ignore it and type/enum/const keep it apart from 1 and 0.
    for schema in ({"multipleOf": 2}, {"minimum": 5}, {"maximum": -1}):
        assert schemacore.compile(schema).is_valid(True)
    for schema in ({"type": "number"}, {"type": "integer"}, {"enum": [1, 0]}, {"const": 1}):
        assert not schemacore.compile(schema).is_valid(True)
        assert list(schemacore.compile(schema).iter_errors(True))
