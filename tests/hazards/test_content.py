"""Hazard: content the JSON media type must refuse, and content a parser limit stops.

With ``content_assertion=True``, ``contentMediaType: application/json`` accepts RFC
8259 JSON text only: Python's json module also reads ``NaN`` and ``Infinity``, which
are mismatches here. Text too deep or with an integer too long for Python to convert
is valid JSON this process cannot read: ExecutionFailure on every path, so ``not``
cannot turn it into a pass.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

import schemacore
from schemacore import ExecutionFailure

from .support import CALLS, Call, expect_failure

JSON_MEDIA = {"contentMediaType": "application/json"}
SCHEMAS: dict[str, Any] = {
    "media": JSON_MEDIA,
    "media+schema": {**JSON_MEDIA, "contentSchema": {"type": "array"}},
    "not-media": {"not": JSON_MEDIA},
    "anyOf-media": {"anyOf": [JSON_MEDIA, {"type": "integer"}]},
    "items": {"items": JSON_MEDIA},
}

NOT_RFC_8259 = ["NaN", "Infinity", "-Infinity", "[NaN]", '{"a": -Infinity}', "[1, Infinity]"]


def compiled(schema: Any) -> schemacore.Validator:
    return schemacore.compile(schema, content_assertion=True)


def failed(call: Call, validator: schemacore.Validator, instance: Any) -> bool:
    """Whether ``call`` reports a mismatch (it must not raise here)."""
    result = call(validator, instance)
    return result is False or (bool(result) and result is not True)


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("text", NOT_RFC_8259)
def test_nan_and_infinity_are_not_json_text(call: Call, text: str) -> None:
    assert failed(call, compiled(JSON_MEDIA), text)
    assert not compiled(JSON_MEDIA).evaluate(text).valid
    assert not failed(call, compiled({"not": JSON_MEDIA}), text)
    assert not failed(call, compiled(JSON_MEDIA), text.replace("NaN", "0").replace("Infinity", "1"))
    encoded = {**JSON_MEDIA, "contentEncoding": "base64"}
    assert failed(call, compiled(encoded), base64.b64encode(text.encode()).decode())


def test_the_mismatch_names_the_media_type() -> None:
    (error,) = compiled(JSON_MEDIA).iter_errors("NaN")
    assert error.keyword == "contentMediaType"
    assert error.message == "the content is not valid application/json"


DEEP_TEXT = "[" * 100_000 + "]" * 100_000
LONG_INTEGER = "[" + "7" * 5000 + "]"


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("schema_id", SCHEMAS)
@pytest.mark.parametrize(
    ("text", "limit"),
    [(DEEP_TEXT, "recursion"), (LONG_INTEGER, "int_max_str_digits"), ("-" + "1" * 4301, None)],
    ids=["deep", "long-integer", "long-negative"],
)
def test_a_parser_limit_is_a_failure_never_a_mismatch(
    call: Call, schema_id: str, text: str, limit: str | None
) -> None:
    schema = SCHEMAS[schema_id]
    instance: Any = [text] if schema_id == "items" else text
    failure = expect_failure(call, compiled(schema), instance, limit=limit)
    assert failure.limit in ("recursion", "int_max_str_digits")
    with pytest.raises(ExecutionFailure):
        compiled(schema).evaluate(instance)


def test_json_within_the_limits_still_parses() -> None:
    validator = compiled({**JSON_MEDIA, "contentSchema": {"items": {"minimum": 10**4000}}})
    assert validator.is_valid(json.dumps([10**4000 + 1]))
    assert not validator.is_valid(json.dumps([1]))
    assert compiled(JSON_MEDIA).is_valid("[" * 200 + "]" * 200)
