"""Hazard: ``decimal.Decimal`` numbers (``json.loads(text, parse_float=Decimal)``).

The documented decision: a finite Decimal (or subclass) is a JSON number on every
path, in instances and in schemas. Where a Decimal meets a float, the float is read
as ``multipleOf`` always read floats: an integral float is its integer, a fractional
one its shortest repr (so ``Decimal("0.1") >= 0.1``), never its binary value, and
never through Python's mixed comparison (which a context can trap). Draft-04: no
Decimal is an integer, as no float is. NaN, sNaN and infinite Decimals raise
ExecutionFailure("json_data_model"). The thread's decimal context changes nothing.
"""

from __future__ import annotations

import decimal
import json
from decimal import Decimal
from typing import Any

import pytest

import schemacore
from schemacore import ExecutionFailure, Limits, SchemaError
from schemacore.compat import Draft202012Validator
from schemacore.runtime import validate_tool_args
from schemacore.runtime.jsonvalues import json_equal as runtime_equal
from schemacore.runtime.jsonvalues import json_text

from .support import PATHS, QUICK, call_iter_errors, expect_failure, within

D = Decimal
DRAFT4 = "http://json-schema.org/draft-04/schema#"


def verdicts(schema: Any, instance: Any) -> list[Any]:
    """is_valid on closures and on generated code, iter_errors, evaluate."""
    cold = schemacore.compile(schema)
    hot = schemacore.compile(schema)
    hot._promote()
    errors = list(cold.iter_errors(instance))
    evaluated = cold.evaluate(instance).valid
    return [cold.is_valid(instance), hot.is_valid(instance), not errors, evaluated]


def check(schema: Any, instance: Any, expected: bool) -> None:
    """The verdicts on ``instance`` alone, as an array item and as a member."""
    inner = {k: v for k, v in schema.items() if k != "$schema"}
    root = {k: v for k, v in schema.items() if k == "$schema"}
    for wrapped, value in (
        (schema, instance),
        ({**root, "items": inner}, [instance]),
        ({**root, "properties": {"a": inner}}, {"a": instance}),
    ):
        assert verdicts(wrapped, value) == [expected] * 4, (wrapped, value)


CASES: list[tuple[Any, Any, bool]] = [
    ({"type": "number"}, D("1.5"), True),
    ({"type": "integer"}, D("1.0"), True),
    ({"type": "integer"}, D("1E+3"), True),
    ({"type": "integer"}, D("1.5"), False),
    ({"type": "integer"}, D("1.0000000000000000000000000001"), False),
    ({"type": "string"}, D("1"), False),
    ({"type": ["string", "integer"]}, D("-0"), True),
    ({"$schema": DRAFT4, "type": "integer"}, D("1.0"), False),
    ({"$schema": DRAFT4, "type": "integer"}, D("1"), False),
    ({"$schema": DRAFT4, "type": "number"}, D("1"), True),
    ({"$schema": DRAFT4, "maximum": 1, "exclusiveMaximum": True}, D("0.999"), True),
    ({"$schema": DRAFT4, "maximum": 0.1, "exclusiveMaximum": True}, D("0.1"), False),
    # multipleOf, exact: a float divisor is its shortest repr.
    ({"multipleOf": D("0.1")}, D("0.3"), True),
    ({"multipleOf": 0.1}, D("0.3"), True),
    ({"multipleOf": D("0.1")}, 0.3, True),
    ({"multipleOf": 0.01}, D("4.02"), True),
    ({"multipleOf": 0.01}, D("4.025"), False),
    ({"multipleOf": 3}, D("3.0"), True),
    ({"multipleOf": 3}, D("3.3"), False),
    ({"multipleOf": 16.0}, D(2**60), True),
    ({"multipleOf": 2**60}, D("1.152921504606847E+18"), False),
    ({"multipleOf": D("0.01")}, 4.02, True),
    ({"multipleOf": D("0.01")}, 7, True),
    ({"multipleOf": D("1.5")}, D("-4.5"), True),
    ({"multipleOf": D("0.3")}, D("0"), True),
    # Bounds: a float limit or instance is its shortest repr, not its binary value
    # (0.1 is 0.1000000000000000055511151231257827... in binary).
    ({"minimum": 0.1}, D("0.1"), True),
    ({"maximum": 0.1}, D("0.1"), True),
    ({"exclusiveMaximum": 0.1}, D("0.1"), False),
    ({"minimum": D("0.1")}, 0.1, True),
    ({"maximum": D("0.1")}, 0.1, True),
    ({"exclusiveMinimum": D("0.1")}, 0.1, False),
    ({"maximum": 0.1}, D("0.1000000000000000055511151231257827021181583404541015625"), False),
    ({"maximum": 2.0**60}, D(2**60), True),
    ({"maximum": 2.0**60}, D(2**60 + 1), False),
    ({"minimum": 10**5000}, D("1E+5000"), True),
    ({"exclusiveMinimum": 10**5000}, D("1E+5000"), False),
    ({"minimum": D("1.5")}, 1, False),
    ({"maximum": D("1.5")}, D("1.50"), True),
    ({"exclusiveMinimum": 2}, D("2.0000000000000000000000000000001"), True),
    # JSON equality: Decimal("1.0") == 1 == 1.0; Decimal("0.1") == 0.1.
    ({"const": 1}, D("1.00"), True),
    ({"const": 1.0}, D("1"), True),
    ({"const": 0.1}, D("0.10"), True),
    ({"const": 0.1}, D("0.1000000000000000055511151231257827021181583404541015625"), False),
    ({"const": D("0.1")}, 0.1, True),
    ({"const": [D("2.50")]}, [2.5], True),
    ({"const": True}, D("1"), False),
    ({"enum": [1.5, "a"]}, D("1.5"), True),
    ({"enum": [D("0.30000000000000001")]}, 0.3, False),
    ({"enum": [D("0.30000000000000001")]}, D("0.300000000000000010"), True),
    ({"uniqueItems": True}, [D("1.0"), 1], False),
    ({"uniqueItems": True}, [D("0.1"), 0.1], False),
    ({"uniqueItems": True}, [D("0.1"), D("0.10000000000000001")], True),
    ({"uniqueItems": True}, [D("1"), True], True),
    # Counts given as Decimals (a schema read with parse_float=Decimal).
    ({"maxLength": D("2.0")}, "abc", False),
    ({"minItems": D("1E+0")}, [1], True),
    ({"maxLength": D("1E+1000000000")}, "abc", True),
    ({"minLength": D("1E+1000000000")}, "abc", False),
    ({"contains": True, "maxContains": D("1.0")}, [1, 2], False),
]


@pytest.mark.parametrize(("schema", "instance", "expected"), CASES)
def test_decimals_answer_exactly_on_every_path(schema: Any, instance: Any, expected: bool) -> None:
    check(schema, instance, expected)


class Money(Decimal):
    """A Decimal subclass with its own repr and comparisons."""

    def __repr__(self) -> str:
        return f"Money({self})"

    def __ge__(self, other: Any) -> bool:
        return False

    def __eq__(self, other: Any) -> bool:
        return False

    __hash__ = Decimal.__hash__


@pytest.mark.parametrize(("schema", "instance", "expected"), CASES[:40])
def test_a_decimal_subclass_answers_as_its_plain_value(
    schema: Any, instance: Any, expected: bool
) -> None:
    if isinstance(instance, Decimal):
        check(schema, Money(instance), expected)


HUGE_EXPONENTS: list[tuple[Any, Any, bool]] = [
    ({"multipleOf": 5}, D("1E+1000000000"), True),
    ({"multipleOf": 3}, D("1E+1000000000"), False),
    ({"multipleOf": 0.3}, D("3E+999999999"), True),
    ({"multipleOf": 2}, D("1E-1000000000"), False),
    ({"multipleOf": D("1E-1000000000")}, 5, True),
    ({"multipleOf": D("1E-1000000000")}, D("1E-999999999"), True),
    ({"multipleOf": D("1E+1000000000")}, D("2E+1000000000"), True),
    ({"multipleOf": D("3E+1000000000")}, D("2E+1000000000"), False),
    ({"multipleOf": 0.5}, D("7" * 200_000 + ".5"), True),
    ({"multipleOf": 7}, D("7" * 200_000), True),
    ({"maximum": 1e308}, D("1E+1000000000"), False),
    ({"type": "integer"}, D("1E-1000000000"), False),
    ({"const": 0.0}, D("1E-1000000000"), False),
    ({"uniqueItems": True}, [D("1E+1000000000"), D("10E+999999999")], False),
]


@pytest.mark.parametrize(("schema", "instance", "expected"), HUGE_EXPONENTS)
def test_huge_exponents_and_long_coefficients_answer_quickly(
    schema: Any, instance: Any, expected: bool
) -> None:
    # "1e1000000000" is 12 characters of JSON text: no billion-digit integer is built.
    with within(QUICK):
        assert verdicts(schema, instance) == [expected] * 4


@pytest.mark.parametrize("schema", [s for s, _, _ in CASES[:30]])
@pytest.mark.parametrize("instance", [D("0.1"), D("2.5"), D("1.0"), D("12345678901234567890.5")])
def test_the_threads_decimal_context_changes_nothing(schema: Any, instance: Any) -> None:
    expected = verdicts(schema, instance)
    with decimal.localcontext() as context:
        context.prec = 2
        context.Emax = 3
        context.Emin = -3
        context.rounding = decimal.ROUND_FLOOR
        for signal in (decimal.FloatOperation, decimal.Inexact, decimal.Rounded, decimal.Clamped):
            context.traps[signal] = True
        assert verdicts(schema, instance) == expected


# -- not JSON ---------------------------------------------------------------------------

NON_FINITE = [D("NaN"), D("-NaN"), D("sNaN"), D("Infinity"), D("-Infinity")]
LOOKING: list[Any] = [
    {"type": "number"},
    {"type": "integer"},
    {"type": "string"},
    {"minimum": 0},
    {"multipleOf": 0.5},
    {"const": 1},
    {"enum": [1, "a"]},
    {"not": {"type": "string"}},
    {"$schema": DRAFT4, "type": "integer"},
]


@pytest.mark.parametrize("call", PATHS)
@pytest.mark.parametrize("schema", LOOKING, ids=json.dumps)
@pytest.mark.parametrize("value", NON_FINITE, ids=str)
def test_non_finite_decimals_are_not_json(call: Any, schema: Any, value: Decimal) -> None:
    failure = expect_failure(call, schemacore.compile(schema), value, limit="json_data_model")
    assert "Decimal" in failure.message
    root = {k: v for k, v in schema.items() if k == "$schema"}
    inner = {k: v for k, v in schema.items() if k != "$schema"}
    nested = schemacore.compile({**root, "properties": {"a": {"items": inner}}})
    failure = expect_failure(call, nested, {"a": [value]}, limit="json_data_model")
    if call is call_iter_errors:  # the error path locates it (is_valid need not)
        assert failure.location == "/a/0"


@pytest.mark.parametrize("value", NON_FINITE, ids=str)
def test_non_finite_decimals_fail_evaluate_unique_items_and_the_instance_walk(
    value: Decimal,
) -> None:
    for schema in ({"minimum": 0}, {"uniqueItems": True, "items": True}):
        with pytest.raises(ExecutionFailure) as caught:
            schemacore.compile(schema).evaluate([value, 1] if "uniqueItems" in schema else value)
        assert caught.value.limit == "json_data_model"
    walked = schemacore.compile({}, limits=Limits(max_instance_nodes=100))
    for call in PATHS:
        failure = expect_failure(call, walked, {"x": [1, value]}, limit="json_data_model")
        assert failure.location == "/x/1"


@pytest.mark.parametrize("value", [*NON_FINITE, "x", [1]], ids=str)
@pytest.mark.parametrize("keyword", ["minimum", "multipleOf", "exclusiveMaximum"])
def test_a_schema_number_must_be_a_finite_number(keyword: str, value: Any) -> None:
    with pytest.raises(SchemaError):
        schemacore.compile({keyword: value})


@pytest.mark.parametrize("value", NON_FINITE, ids=str)
def test_a_non_finite_decimal_in_const_or_enum_is_a_schema_error(value: Decimal) -> None:
    for schema in ({"const": value}, {"enum": [1, value]}):
        with pytest.raises(SchemaError):
            schemacore.compile(schema)


# -- schemas, messages, output, compat, runtime -------------------------------------------

PRICE = """{"type": "object", "required": ["price"], "properties": {
    "price": {"type": "number", "exclusiveMinimum": 0, "maximum": 99.99, "multipleOf": 0.01},
    "qty": {"type": "integer", "minimum": 1.0, "enum": [1, 2.0, 3.5]}}}"""


@pytest.mark.parametrize("schema_floats", [float, Decimal], ids=["float-schema", "decimal-schema"])
def test_a_document_read_with_decimals_answers_as_with_floats(schema_floats: Any) -> None:
    schema = json.loads(PRICE, parse_float=schema_floats)
    for text in (
        '{"price": 4.02, "qty": 2.0}',
        '{"price": 99.99, "qty": 1}',
        '{"price": 0.1, "qty": 3.5}',
        '{"price": 4.025, "qty": 1}',
        '{"price": 100.0}',
        '{"price": 0.0}',
        '{"price": 1.5, "qty": 2.5}',
    ):
        floats, decimals = json.loads(text), json.loads(text, parse_float=Decimal)
        for hot in (False, True):
            validator = schemacore.compile(schema)
            if hot:
                validator._promote()
            assert validator.is_valid(decimals) == validator.is_valid(floats), text
            assert [e.instance_location for e in validator.iter_errors(decimals)] == [
                e.instance_location for e in validator.iter_errors(floats)
            ]


def test_messages_and_output_show_the_number_as_written() -> None:
    validator = schemacore.compile({"minimum": D("2.50"), "multipleOf": D("0.1")})
    messages = sorted(e.message for e in validator.iter_errors(D("1.25")))
    assert messages == ["1.25 is less than the minimum 2.50", "1.25 is not a multiple of 0.1"]
    integer = schemacore.compile({"type": "string"})
    assert [e.message for e in integer.iter_errors(D("1.0"))] == ["integer is not of type string"]
    evaluation = validator.evaluate(D("1.25"))
    for fmt in ("flag", "basic", "detailed", "verbose"):
        assert evaluation.output(fmt)["valid"] is False
    assert "Decimal(" not in str(evaluation.output("basic"))


def test_the_callers_values_are_not_changed() -> None:
    schema = {"enum": [D("1.50")], "minimum": D("1.5")}
    instance = [D("1.500"), {"a": D("-0")}]
    before = json_text([schema, instance])
    schemacore.compile({"items": schema}).evaluate(instance)
    assert json_text([schema, instance]) == before
    assert str(instance[0]) == "1.500"


def test_the_compat_layer_counts_decimals_as_numbers() -> None:
    validator = Draft202012Validator({"type": "integer", "maximum": 0.5})
    assert not validator.is_valid(D("1.0"))
    assert [e.validator for e in validator.iter_errors(D("1.0"))] == ["maximum"]
    checker = validator.TYPE_CHECKER
    assert checker.is_type(D("1.0"), "integer") and checker.is_type(D("1.5"), "number")
    assert not checker.is_type(D("1.5"), "integer") and not checker.is_type(D("NaN"), "number")


def test_tool_arguments_may_hold_decimals() -> None:
    schema = json.loads(PRICE, parse_float=Decimal)
    assert validate_tool_args({"price": D("4.02"), "qty": D("2.0")}, schema).ok
    refused = validate_tool_args({"price": D("4.025")}, schema)
    assert not refused.ok and [i.code for i in refused.issues] == ["number-not-multiple"]
    assert refused.issues[0].got == "number"  # the value itself is never echoed
    for value in (D("NaN"), D("sNaN"), D("-Infinity")):
        result = validate_tool_args({"price": value}, schema)
        assert [i.code for i in result.issues] == ["arguments-value-not-json"]
        assert "non-finite number" in result.issues[0].got


def test_the_runtime_writes_and_equates_decimals_as_the_engine_does() -> None:
    assert json_text({"a": [D("1.50"), D("1E+1000000000"), 0.1]}) == (
        '{"a": [1.50, 1E+1000000000, 0.1]}'
    )
    assert json.loads(json_text([D("-0.000")]), parse_float=Decimal) == [D("-0.000")]
    assert runtime_equal(D("0.1"), 0.1) and runtime_equal(D("1.0"), 1)
    assert not runtime_equal(D("0.1000000000000000055511151231257827021181583404541015625"), 0.1)
    assert not runtime_equal(D("1"), True)
    with pytest.raises(TypeError):
        json_text([D("NaN")])
