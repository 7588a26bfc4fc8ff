"""The per-call helpers the gateway runs on every call's arguments keep their meaning.

``json_text`` (the digest's canonical text) writes what ``json.dumps`` writes for every
Decimal-free value and option set, whether its encoder is cached or not; ``freeze`` and
``thaw`` copy every level, however the scalars are skipped.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from decimal import Decimal
from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from schemacore.runtime.gateway.frozen import freeze, thaw
from schemacore.runtime.jsonvalues import json_text
from tests.properties.profiles import PROFILE
from tests.properties.strategies import json_values

OPTIONS: list[dict[str, Any]] = [
    {},
    {"sort_keys": True, "separators": (",", ":"), "ensure_ascii": False, "allow_nan": False},
    {"separators": [",", ":"]},  # unhashable: no cached encoder
    {"indent": 2, "sort_keys": True},
]


@PROFILE
@given(value=json_values(), options=st.sampled_from(OPTIONS))
def test_json_text_is_json_dumps_without_decimals(value: Any, options: dict[str, Any]) -> None:
    try:
        expected = json.dumps(value, **options)
    except (TypeError, ValueError) as exc:
        with pytest.raises(type(exc)):
            json_text(value, **options)
        return
    assert json_text(value, **options) == expected


def test_json_text_writes_decimals_and_refuses_what_json_dumps_refuses() -> None:
    assert json_text({"a": [Decimal("1.50"), 2]}, separators=(",", ":")) == '{"a":[1.50,2]}'
    for bad in ({1, 2}, Decimal("NaN"), b"x"):
        with pytest.raises(TypeError):
            json_text([Decimal("1"), bad])
    with pytest.raises(ValueError):
        json_text([Decimal("1"), float("nan")], allow_nan=False)


@PROFILE
@given(value=json_values())
def test_freeze_and_thaw_copy_every_level(value: Any) -> None:
    frozen = freeze(value)
    assert thaw(frozen) == value
    stack = [frozen]
    while stack:
        item = stack.pop()
        assert not isinstance(item, (dict, list))
        if isinstance(item, MappingProxyType):
            stack.extend(item.values())
        elif isinstance(item, tuple):
            stack.extend(item)


def test_freeze_keeps_subclasses_and_other_values_as_they_are() -> None:
    odd = OrderedDict(a=[Decimal("1.5"), True])
    frozen = freeze({"x": odd, "y": (1, 2)})
    assert frozen["x"] == {"a": (Decimal("1.5"), True)} and frozen["y"] == (1, 2)
    assert thaw(frozen) == {"x": {"a": [Decimal("1.5"), True]}, "y": [1, 2]}
