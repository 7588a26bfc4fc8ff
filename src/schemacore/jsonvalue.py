"""The JSON data model as Python values: types, equality and hashing.

JSON has one number type, so ``1 == 1.0``; but ``true`` is not ``1``, although
Python says ``True == 1``. Everything that compares instance values (``enum``,
``const``, ``uniqueItems``) goes through :func:`json_key` or :func:`json_equal`.

A finite ``decimal.Decimal`` is a JSON number too (``json.loads(text,
parse_float=Decimal)``), equal to a float when it is that float's shortest repr (the
decimal the float was written as), so ``Decimal("0.1")`` equals ``0.1``, and to an
integer or integral float of its value, so ``Decimal("1.0")`` equals ``1``.
"""

from __future__ import annotations

import math
from decimal import MAX_EMAX, MAX_PREC, MIN_EMIN, Context, Decimal, InvalidOperation
from typing import Any

from .errors import ExecutionFailure
from .paths import Path

__all__ = [
    "EXACT",
    "JSON_TYPES",
    "JSON_VALUES",
    "as_decimal",
    "decimal_integral",
    "describe_non_json",
    "json_equal",
    "json_key",
    "json_type",
    "outside_json",
    "type_name",
]

JSON_TYPES = frozenset({"null", "boolean", "object", "array", "number", "string", "integer"})
# The Python values of the JSON data model, as messages put it.
JSON_VALUES = "JSON values are dict, list, str, int, float, finite Decimal, bool and None"

_EXACT: dict[type, str] = {
    dict: "object",
    list: "array",
    str: "string",
    int: "number",
    float: "number",
    bool: "boolean",
    type(None): "null",
}


def json_type(value: Any) -> str | None:
    """The JSON type of ``value`` ("number" for every number), or None if it has none.

    Subclasses of ``dict``, ``list``, ``str``, ``int`` and ``float`` count as their
    base type; anything else (tuples, sets, bytes, arbitrary objects) is outside the
    JSON data model. So are non-finite floats, which JSON cannot express.
    """
    exact = _EXACT.get(type(value))
    if exact is not None:
        if exact == "number" and type(value) is float and not math.isfinite(value):
            return None
        return exact
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, int):
        return "number"  # however long: math.isfinite would overflow on a huge one
    if isinstance(value, float):
        return "number" if math.isfinite(float.__float__(value)) else None
    if isinstance(value, Decimal):
        return "number" if Decimal.is_finite(value) else None
    return None


def type_name(value: Any) -> str:
    """A JSON type name for messages ("integer" for integral numbers)."""
    kind = json_type(value)
    if kind == "number" and (
        isinstance(value, int)
        or (decimal_integral(value) if isinstance(value, Decimal) else float(value).is_integer())
    ):
        return "integer"
    return kind if kind is not None else f"non-JSON value ({type(value).__name__})"


# Decimal arithmetic rounds to the calling thread's context, which may also trap:
# the little the engine does with Decimals runs in this context, where every result
# it asks for is exact (callers keep the operands small: see validation.multipleOf).
EXACT = Context(prec=MAX_PREC, Emax=MAX_EMAX, Emin=MIN_EMIN, traps=[InvalidOperation])


def decimal_integral(value: Decimal) -> bool:
    """Whether a finite Decimal holds an integer (``Decimal("1.0")`` does)."""
    return bool(Decimal.__eq__(EXACT.to_integral_value(value), value))


def as_decimal(number: Any) -> Decimal:
    """The exact Decimal a finite JSON number stands for when it meets a Decimal: an
    integral float is its integer, a fractional one its shortest repr (the rule
    ``multipleOf`` applies to floats), never its binary value. Never mixes floats
    and Decimals, which a context may trap (``FloatOperation``)."""
    if type(number) is Decimal:
        return number
    if isinstance(number, Decimal):
        return Decimal(number)
    if isinstance(number, int):
        return Decimal(int.__int__(number))
    value = float.__float__(number)
    if value.is_integer():
        return Decimal(int(value))
    return Decimal(float.__repr__(value))


class _Tag:
    """Distinct markers so that tagged keys never collide with raw scalar keys."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"<{self.name}>"


_TRUE = ("bool", True)
_FALSE = ("bool", False)
_ARRAY = _Tag("array")
_OBJECT = _Tag("object")
_DECIMAL = _Tag("decimal")


def json_key(value: Any) -> Any:
    """A hashable key such that ``json_key(a) == json_key(b)`` iff a and b are equal JSON.

    Strings, numbers and null are their own keys (Python already equates 1 and 1.0);
    booleans, arrays and objects get tagged tuples so that ``true`` never equals 1
    and ``[1]`` never equals ``(1,)`` of another kind.
    """
    kind = type(value)
    if kind is str or kind is int or value is None:
        return value
    if kind is float:
        if value - value != 0.0:  # NaN and infinities are not JSON
            raise _not_json(value)
        return value
    if kind is bool:
        return _TRUE if value else _FALSE
    if kind is list:
        return (_ARRAY, tuple([json_key(item) for item in value]))
    if kind is dict:
        return (_OBJECT, frozenset([(_name(k), json_key(v)) for k, v in value.items()]))
    # Subclasses of the JSON containers and scalars, read through their base type:
    # their own __eq__, __hash__ or __float__ (an enum's, numpy's) are not JSON's.
    if isinstance(value, bool):
        return _TRUE if value else _FALSE
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, int):
        return int.__int__(value)
    if isinstance(value, float):
        return json_key(float.__float__(value))
    if isinstance(value, list):
        return (_ARRAY, tuple([json_key(item) for item in value]))
    if isinstance(value, dict):
        return (_OBJECT, frozenset([(_name(k), json_key(v)) for k, v in value.items()]))
    if isinstance(value, Decimal):
        return _decimal_key(value)
    raise _not_json(value)


def _decimal_key(value: Decimal) -> Any:
    if not Decimal.is_finite(value):
        raise _not_json(value)
    plain = as_decimal(value)
    if decimal_integral(plain):
        # Python already equates (and hashes alike) 1, 1.0 and Decimal("1.0").
        return plain
    as_float = Decimal.__float__(plain)
    if Decimal.__eq__(Decimal(float.__repr__(as_float)), plain):
        return as_float  # the shortest repr of a float: that float's key
    # No float is written so: a key no float's can equal (Python would equate
    # Decimal("0.1000000000000000055511151231257827021181583404541015625") and 0.1).
    return (_DECIMAL, plain)


def _name(key: Any) -> Any:
    if type(key) is str or isinstance(key, str):
        return key
    raise ExecutionFailure(
        f"the instance has an object key of type {type(key).__name__}; JSON object keys "
        "are strings",
        limit="json_data_model",
    )


def _not_json(value: Any) -> ExecutionFailure:
    if isinstance(value, Decimal):
        what = Decimal.__repr__(value)
    else:
        what = repr(value) if isinstance(value, float) else type(value).__name__
    return ExecutionFailure(
        f"the instance contains {what}, which is not a JSON value", limit="json_data_model"
    )


def json_equal(a: Any, b: Any) -> bool:
    """JSON equality: numbers by value, booleans only equal booleans."""
    return bool(json_key(a) == json_key(b))


def describe_non_json(value: Any) -> str:
    """What ``value``, a value outside the JSON data model, is, for messages."""
    if isinstance(value, float):
        return f"the float {value!r}, which JSON cannot represent"
    if isinstance(value, Decimal):
        return f"the Decimal {Decimal.__str__(value)}, which JSON cannot represent"
    name = type(value).__name__
    article = "an" if name[:1].lower() in "aeiou" else "a"
    return f"{article} {name}, which is not a JSON value"


_SCALARS = (str, int, type(None))  # bool is an int
_LEAVE: Any = object()  # on the walk's stack: the container below is done


def outside_json(value: Any) -> tuple[Path, str] | None:
    """Where ``value`` first leaves the JSON data model, as (the path there, what is
    there), or None when it is JSON throughout: objects with string keys, arrays,
    strings, booleans, null, and finite numbers (``int`` of any size, ``float``,
    ``Decimal``), subclasses read as their base type.

    NaN and infinities, floats or Decimals, are not JSON numbers; nor is a container
    that holds itself (JSON text cannot). The path of a non-string key is its
    object's. Iterative, and each container is read once however often it is
    shared, so neither depth nor a shared value repeated at every level costs more
    than the distinct values do."""
    stack: list[tuple[Any, Any]] = [(value, None)]
    pop, push = stack.pop, stack.append
    done: set[int] = set()
    open_containers: set[int] = set()  # on the path from the root to the current one
    while stack:
        item, path = pop()
        kind = type(item)
        if kind is str or kind is int or kind is bool or item is None:
            continue
        if kind is float:
            if item - item != 0.0:  # NaN and infinities
                return path, describe_non_json(item)
            continue
        if item is _LEAVE:
            open_containers.discard(path)  # here the container's id
            continue
        is_dict = kind is dict or (kind is not list and isinstance(item, dict))
        if is_dict or kind is list or isinstance(item, list):
            key = id(item)
            if key in open_containers:
                noun = "object" if is_dict else "array"
                return path, f"an {noun} that contains itself, which JSON cannot represent"
            if key in done:
                continue
            done.add(key)
            open_containers.add(key)
            push((_LEAVE, key))
            if is_dict:
                for name, member in item.items():
                    if not isinstance(name, str):
                        return path, (
                            f"an object key of type {type(name).__name__}; JSON object "
                            "keys are strings"
                        )
                    push((member, (path, name)))
            else:
                for index, member in enumerate(item):
                    push((member, (path, index)))
        elif isinstance(item, float):
            if not math.isfinite(float.__float__(item)):
                return path, describe_non_json(item)
        elif isinstance(item, Decimal):
            if not Decimal.is_finite(item):
                return path, describe_non_json(item)
        elif not isinstance(item, _SCALARS):
            return path, describe_non_json(item)
    return None
