"""``Evaluation.iter_json`` writes JSON any reader takes, whatever numbers the
schema's annotations hold: a finite Decimal as its number, an integer longer than
Python writes as text (``sys.get_int_max_str_digits``) as a string giving its size,
never ``NaN`` or ``Infinity``; in every output format, ASCII or not."""

from __future__ import annotations

import json
import sys
from decimal import Decimal
from typing import Any

import pytest

import schemacore
from schemacore.output import FORMATS

D7 = "http://json-schema.org/draft-07/schema#"


def refuse(constant: str) -> Any:
    raise ValueError(f"not JSON: {constant}")


def texts(schema: Any, instance: Any) -> dict[tuple[str, bool], str]:
    """Every output format's text, ASCII and not, each read by a strict parser."""
    evaluation = schemacore.compile(schema).evaluate(instance)
    written = {}
    for fmt in FORMATS:
        for ensure_ascii in (True, False):
            text = "".join(evaluation.iter_json(fmt, ensure_ascii=ensure_ascii))
            json.loads(text, parse_constant=refuse)
            written[fmt, ensure_ascii] = text
    return written


def annotations(text: str) -> list[Any]:
    """The annotation values in an output's text, numbers read as Decimals."""
    found: list[Any] = []

    def collect(value: Any) -> None:
        if isinstance(value, dict):
            for key, member in value.items():
                if key == "annotation":
                    found.append(member)
                elif key == "annotations" and isinstance(member, dict):
                    found.extend(member.values())
                else:
                    collect(member)
        elif isinstance(value, list):
            for item in value:
                collect(item)

    collect(json.loads(text, parse_constant=refuse, parse_float=Decimal))
    return found


DECIMAL_SCHEMAS: dict[str, tuple[Any, Any]] = {
    "default": ({"type": "number", "default": Decimal("1.5")}, Decimal("1.5")),
    "draft-07-examples": ({"$schema": D7, "examples": [Decimal("0.1")]}, [Decimal("0.1")]),
    "unknown-keyword": (
        {"x-range": {"low": Decimal("-1E+400"), "high": Decimal("1.000")}},
        {"low": Decimal("-1E+400"), "high": Decimal("1.000")},
    ),
    "negative-zero": ({"default": Decimal("-0")}, Decimal("-0")),
}


@pytest.mark.parametrize("case", DECIMAL_SCHEMAS)
def test_every_output_format_writes_a_decimal_annotation_as_its_number(case: str) -> None:
    schema, value = DECIMAL_SCHEMAS[case]
    for (fmt, _), text in texts(schema, 1).items():
        if fmt != "flag":
            assert annotations(text) == [value], fmt
            # The digits as written, not a float's rounding of them.
            assert str(next(iter(_decimals(value)))) in text, fmt


def _decimals(value: Any) -> list[Decimal]:
    if isinstance(value, dict):
        return [d for member in value.values() for d in _decimals(member)]
    if isinstance(value, list):
        return [d for item in value for d in _decimals(item)]
    return [value]


HUGE = 10**5000


@pytest.mark.parametrize(
    "schema",
    [
        pytest.param({"type": "number", "default": HUGE}, id="default"),
        pytest.param({"$schema": D7, "examples": [-HUGE]}, id="draft-07-examples"),
        pytest.param({"x-big": {"n": HUGE}}, id="unknown-keyword"),
    ],
)
def test_every_output_format_describes_an_integer_python_does_not_write(schema: Any) -> None:
    for (fmt, _), text in texts(schema, 1).items():
        if fmt != "flag":
            assert "an integer of about 5001 digits" in text, fmt


def test_an_integer_is_written_in_full_where_the_process_allows_it() -> None:
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)  # the process lifts Python's limit: its choice
    try:
        text = "".join(schemacore.compile({"default": HUGE}).evaluate(1).iter_json("list"))
        assert json.loads(text)["details"][0]["annotations"]["default"] == HUGE
    finally:
        sys.set_int_max_str_digits(limit)


@pytest.mark.parametrize("number", [-0.0, 1e308, -1e308, 5e-324, 2**53 + 1])
def test_edge_floats_and_integers_are_written_as_json_dumps_writes_them(number: Any) -> None:
    schema = {"default": number, "x-list": [number, {"n": number}]}
    evaluation = schemacore.compile(schema).evaluate(1)
    for (fmt, ensure_ascii), text in texts(schema, 1).items():
        assert text == json.dumps(evaluation.output(fmt), ensure_ascii=ensure_ascii)


def test_a_nan_the_unchecked_path_let_through_is_never_written() -> None:
    # compile refuses it (tests/engine/test_schema_json.py); a validator built
    # without the check still writes no NaN token.
    validator = schemacore.Validator({"default": float("nan")}, _check_schema=False)
    with pytest.raises(ValueError, match="JSON"):
        "".join(validator.evaluate(1).iter_json("basic"))
