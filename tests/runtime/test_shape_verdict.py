"""The shape check's two passes agree: the fast verdict and the detailed walk.

Every call first runs a verdict pass over the arguments (exact types, no allocation
per value) and walks them in detail, to find and word the first problem, only when
that pass is not certain. These properties pin the contract between the two, over
nested values that leave the JSON data model in every way the boundary refuses
(and in ways it accepts only through the walk: subclasses, Decimals, big integers):

* a "certain" verdict is never wrong: the walk finds nothing there;
* on values of exact JSON types the verdict is exact, so the walk runs only for a
  real problem (or an out-of-range integer);
* the check as a whole raises exactly what the walk alone raises (code, message,
  path, tokens, limit), so the first reported problem and its redaction are unchanged;
* ``validate_tool_args`` gives the same result as with the verdict pass switched off,
  and its top-level code for a value the walk refuses is the walk's own, never the
  schema mismatches' ``arguments-invalid`` (issue #29, item 4).
"""

from __future__ import annotations

import contextlib
import math
from collections import OrderedDict
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from schemacore.runtime import (
    BoundaryError,
    BoundaryLimits,
    argcheck,
    bounds,
    tool_error_result,
    validate_schema,
    validate_tool_args,
)
from schemacore.runtime.bounds import check_argument_shape, check_schema_shape
from schemacore.runtime.issues import ISSUE_META_KEY
from tests.properties.profiles import PROFILE


class _Str(str):
    pass


class _Dict(dict[Any, Any]):
    pass


class _Int(int):
    pass


class _Opaque:
    pass


KNOWN = frozenset({"a", "b", "name"})
# Small bounds, so that depth, size and string length are each hit often.
LIMITS = BoundaryLimits(max_argument_depth=3, max_argument_nodes=16, max_string_length=4)

_exact_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**63) + 1, 2**63 - 1)
    | st.floats()  # NaN and the infinities included
    | st.text(alphabet="ab\u00e9\ud800\udc00", max_size=6)  # lone surrogates, long strings
)
_exact_keys = st.sampled_from(["a", "b", "name", "other", "\ud800", "toolong"])
_odd_scalars = st.sampled_from(
    [
        2**63,
        -(2**63),
        10**700,
        _Int(3),
        _Str("ab"),
        _Str("toolong"),
        Decimal("1.5"),
        Decimal("NaN"),
        Decimal("Infinity"),
        (1, 2),
        (),
        {1},
        frozenset(),
        b"x",
        bytearray(b"x"),
        1j,
        _Opaque(),
    ]
)
_odd_keys = st.sampled_from([1, None, True, 1.5, (1,), _Str("a"), _Str("long!")])


def _values(scalars: st.SearchStrategy[Any], keys: st.SearchStrategy[Any]) -> Any:
    return st.recursive(
        scalars,
        lambda children: (
            st.lists(children, max_size=5)
            | st.dictionaries(keys, children, max_size=5)
            | st.dictionaries(keys, children, max_size=3).map(OrderedDict)
            | st.dictionaries(keys, children, max_size=3).map(_Dict)
            | st.lists(children, max_size=3).map(tuple)
        ),
        max_leaves=20,
    )


EXACT = st.recursive(
    _exact_scalars,
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(_exact_keys, children, max_size=5)
    ),
    max_leaves=20,
)
ANY = _values(_exact_scalars | _odd_scalars, _exact_keys | _odd_keys)


def _wrap(value: Any, around: list[Any]) -> Any:
    """``value`` under one container per token: an object for a key, a list else."""
    for token in around:
        value = {token: value} if isinstance(token, str) else [token, value]
    return value


# Deep enough to cross max_argument_depth from either side.
DEEP = st.builds(_wrap, ANY, st.lists(st.sampled_from(["a", "other", "toolong", 0]), max_size=6))


def _walk_alone(value: Any, from_text: bool) -> BoundaryError | None:
    """What the detailed walk raises for ``value`` under LIMITS, with no verdict pass."""
    try:
        bounds._walk(
            value,
            bounds._ARGUMENTS,
            max_depth=LIMITS.max_argument_depth,
            max_nodes=LIMITS.max_argument_nodes,
            max_string=LIMITS.max_string_length,
            shown=KNOWN.__contains__,
            check_surrogates=from_text,
        )
    except BoundaryError as exc:
        return exc
    return None


def _checked(value: Any, from_text: bool) -> BoundaryError | None:
    try:
        check_argument_shape(value, LIMITS, KNOWN, from_text=from_text)
    except BoundaryError as exc:
        return exc
    return None


def _fields(exc: BoundaryError | None) -> Any:
    if exc is None:
        return None
    return (exc.code, exc.message, exc.path, exc.tokens, exc.limit, exc.error_class)


def _verdict(value: Any) -> bool:
    return bounds.within(
        value, LIMITS.max_argument_depth, LIMITS.max_argument_nodes, LIMITS.max_string_length
    )


@PROFILE
@given(value=ANY | DEEP, from_text=st.booleans())
def test_a_certain_verdict_is_never_wrong_and_the_first_error_is_the_walks(
    value: Any, from_text: bool
) -> None:
    # from_text (unpaired surrogates refused too) always takes the walk.
    alone = _walk_alone(value, from_text=False)
    if _verdict(value):
        assert alone is None
    assert _fields(_checked(value, from_text)) == _fields(_walk_alone(value, from_text))


@PROFILE
@given(value=EXACT | st.builds(_wrap, EXACT, st.lists(st.just("a"), max_size=5)))
def test_the_verdict_is_exact_on_exact_json_types(value: Any) -> None:
    if type(value) not in (dict, list):
        return  # a scalar root is always left to the walk, which words its own checks
    assert _verdict(value) is (_walk_alone(value, from_text=False) is None)


TOOL = validate_schema(
    {
        "type": "object",
        "properties": {
            "a": {"type": "string"},
            "b": {"type": "array", "items": {"type": ["integer", "object"]}},
            "name": {"type": "object", "additionalProperties": {"type": "number"}},
        },
        "required": ["a"],
    },
    boundary_limits=LIMITS,
)


@contextlib.contextmanager
def _verdict_off() -> Iterator[None]:
    """The verdict pass is never certain here: every value goes through the walk."""
    certain = bounds.within
    bounds.within = argcheck.within = lambda *args: False
    try:
        yield
    finally:
        bounds.within = argcheck.within = certain


@PROFILE
@given(value=ANY | DEEP | st.dictionaries(_exact_keys | _odd_keys, ANY, max_size=4))
def test_validate_tool_args_is_the_same_without_the_verdict_pass(value: Any) -> None:
    fast = validate_tool_args(value, TOOL)
    assert validate_tool_args(value, _Admitted()) == fast  # an admitted tool's schema
    with _verdict_off():
        slow = validate_tool_args(value, TOOL)
    assert fast == slow
    walked = _walk_alone(value, from_text=False)
    if walked is not None:  # outside JSON or over a bound: refused with the walk's code
        assert (fast.ok, fast.code) == (False, walked.code)
        for failure in (fast, fast.issues):  # the verdict, or its bare issues
            meta = tool_error_result("t", failure)["_meta"][ISSUE_META_KEY]
            assert (meta["code"], meta["errorClass"]) == (walked.code, walked.error_class)


class _Admitted:
    """What the runtime reads of an admitted tool: its compiled input schema."""

    input = TOOL


def test_hostile_shapes_cost_no_recursion() -> None:
    deep: Any = "x"
    for _ in range(10_000):
        deep = {"a": [deep]}
    wide = list(range(200_000))
    assert not bounds.within(deep, 64, 100_000, 1_000_000)
    assert not bounds.within(wide, 64, 100_000, 1_000_000)
    for value in (deep, wide):
        with pytest.raises(BoundaryError) as caught:
            check_argument_shape(value, BoundaryLimits())
        assert caught.value.error_class == "execution_failure"


def test_schema_documents_use_the_same_verdict() -> None:
    limits = BoundaryLimits(max_schema_depth=3, max_schema_nodes=6)
    check_schema_shape({"type": "object", "properties": {"a": {}}}, limits)
    for schema, code in [
        ({"a": {"b": {"c": {}}}}, "schema-too-deep"),
        ({"enum": [1, 2, 3, 4, 5, 6]}, "schema-too-large"),
        ({"const": math.nan}, "schema-value-not-json"),
        ({1: {}}, "schema-key-not-string"),
    ]:
        with pytest.raises(BoundaryError) as caught:
            check_schema_shape(schema, limits)
        assert caught.value.code == code


def _chain(depth: int, kind: str) -> Any:
    value: Any = 0
    for _ in range(depth):
        value = {"a": value} if kind == "dict" else [value]
    return value


_n = LIMITS.max_argument_nodes
_s = LIMITS.max_string_length
_AT_THE_BOUNDS: list[Any] = [
    *({f"k{i}": 0 for i in range(n)} for n in range(_n - 2, _n + 1)),
    *({"a": [0] * n} for n in range(_n - 3, _n)),
    *({"a": [0] * (n - 4), "b": {"c": [0, 0]}} for n in range(_n - 3, _n + 1)),
    *(
        _chain(d, kind)
        for d in range(1, LIMITS.max_argument_depth + 2)
        for kind in ("dict", "list")
    ),
    *({"a": "x" * n} for n in (_s, _s + 1)),
    *({"x" * n: 0} for n in (_s, _s + 1)),
    *({"a": [{"x" * n: "y" * m}]} for n in (_s, _s + 1) for m in (_s, _s + 1)),
]


@pytest.mark.parametrize("value", _AT_THE_BOUNDS)
def test_the_verdict_is_exact_at_the_bounds(value: Any) -> None:
    alone = _walk_alone(value, False)
    assert _verdict(value) is (alone is None)
    assert _fields(_checked(value, False)) == _fields(alone)


@pytest.mark.parametrize("number", [2**63 - 1, -(2**63) + 1, 2**63, -(2**63), 10**4000])
def test_big_integers_are_left_to_the_walk(number: int) -> None:
    value = {"a": [number]}
    assert _verdict(value) is (abs(number) < 2**63)
    assert _fields(_checked(value, False)) == _fields(_walk_alone(value, False))


@pytest.mark.parametrize("value", [{}, [], {"a": 1}, [1]])
def test_no_container_at_all_under_a_zero_depth_bound(value: Any) -> None:
    assert not bounds.within(value, 0, 100, 100)
    with pytest.raises(BoundaryError) as caught:
        check_argument_shape(value, BoundaryLimits(max_argument_depth=0))
    assert caught.value.code == "arguments-too-deep"


def test_cycles_end_at_a_bound() -> None:
    loop: dict[str, Any] = {}
    loop["a"] = loop
    wide: list[Any] = []
    wide.extend([wide] * 1000)
    for value in (loop, wide):
        assert not bounds.within(value, 64, 100_000, 1_000_000)
        with pytest.raises(BoundaryError) as caught:
            check_argument_shape(value, BoundaryLimits())
        assert caught.value.error_class == "execution_failure"
