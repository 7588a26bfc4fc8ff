"""Bounds on the shape of argument documents and schema documents.

The engine's ``Limits`` bound schemas and compiled trees; the runtime bounds the
arguments' own shape before the engine sees them, iteratively (a 10,000-deep
document costs 64 steps, not a ``RecursionError``), and checks that every value is
in the JSON data model: string keys, finite numbers (finite Decimals too), no tuples,
sets or bytes.
Nothing is converted: a value outside the model is refused.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, NamedTuple

from .errors import EXECUTION_FAILURE, VALIDATION, BoundaryError
from .jsonvalues import REDACTED, pointer

__all__ = ["BoundaryLimits", "check_argument_shape", "check_schema_shape", "within"]


@dataclass(frozen=True, slots=True)
class BoundaryLimits:
    """Limits of the runtime boundary; exceeding one is an ``execution_failure``.

    Attributes:
        max_argument_depth: deepest nesting of objects/arrays in the arguments
            (the arguments object itself is level 1).
        max_argument_nodes: most values (containers and scalars) in the arguments.
        max_string_length: longest string (value or key) in the arguments, in
            characters.
        max_text_length: longest argument text ``parse_tool_args`` accepts, in
            characters.
        max_schema_depth: deepest JSON nesting of a schema document.
        max_schema_nodes: most JSON values in a schema document.
        max_issues: most issues reported for one call (the count is still exact).
        excerpt_length: longest excerpt of a string shown in a string-shape issue.
    """

    max_argument_depth: int = 64
    max_argument_nodes: int = 100_000
    max_string_length: int = 1_000_000
    max_text_length: int = 8_000_000
    max_schema_depth: int = 512
    max_schema_nodes: int = 200_000
    max_issues: int = 20
    excerpt_length: int = 32


DEFAULT_LIMITS = BoundaryLimits()

# A chain of (parent chain, token) pairs: built per value, turned into a pointer
# only when something is reported.
_Chain = tuple[Any, str | int] | None


class _Codes(NamedTuple):
    what: str
    too_deep: str
    too_large: str
    string_too_long: str
    key_not_string: str
    not_json: str
    lone_surrogate: str


_ARGUMENTS = _Codes(
    "the arguments",
    "arguments-too-deep",
    "arguments-too-large",
    "arguments-string-too-long",
    "arguments-key-not-string",
    "arguments-value-not-json",
    "arguments-json-invalid",
)
_SCHEMA = _Codes(
    "the schema",
    "schema-too-deep",
    "schema-too-large",
    "schema-too-large",
    "schema-key-not-string",
    "schema-value-not-json",
    "schema-value-not-json",
)

_LOG10_2 = math.log10(2)
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _too_long_for_text(value: int) -> bool:
    """Python refuses to write integers of more than ``sys.get_int_max_str_digits()``
    digits as text: such a value could not have come from JSON text and cannot be
    logged, hashed as JSON or quoted, so it is refused like NaN."""
    limit = sys.get_int_max_str_digits()
    return bool(limit) and value.bit_length() * _LOG10_2 >= limit - 1


def _tokens(chain: _Chain, shown: Callable[[str], bool]) -> list[str | int]:
    tokens: list[str | int] = []
    while chain is not None:
        chain, token = chain
        tokens.append(token if isinstance(token, int) or shown(token) else REDACTED)
    tokens.reverse()
    return tokens


def _walk(
    value: Any,
    codes: _Codes,
    *,
    max_depth: int,
    max_nodes: int,
    max_string: int,
    shown: Callable[[str], bool],
    check_surrogates: bool,
) -> None:
    def fail(code: str, message: str, chain: _Chain, limit: str | None = None) -> BoundaryError:
        tokens = _tokens(chain, shown)
        return BoundaryError(
            code,
            message,
            error_class=EXECUTION_FAILURE if limit else VALIDATION,
            path=pointer(tokens),
            limit=limit,
            tokens=tokens,
        )

    def check_string(text: str, chain: _Chain, noun: str) -> None:
        if len(text) > max_string:
            raise fail(
                codes.string_too_long,
                f"{codes.what} hold a {noun} longer than {max_string} characters",
                chain,
                "max_string_length",
            )
        if check_surrogates and _LONE_SURROGATE.search(text):
            raise fail(
                codes.lone_surrogate,
                f"{codes.what} hold a {noun} with an unpaired UTF-16 surrogate",
                chain,
            )

    nodes = 1
    # (value, chain, depth of the containers around it); children are pushed in
    # reverse so problems are found in document order.
    stack: list[tuple[Any, _Chain, int]] = [(value, None, 0)]
    while stack:
        item, chain, depth = stack.pop()
        if isinstance(item, str):
            check_string(item, chain, "string")
        elif isinstance(item, (dict, list)):
            if depth >= max_depth:
                raise fail(
                    codes.too_deep,
                    f"{codes.what} are nested deeper than {max_depth} levels",
                    chain,
                    "max_depth",
                )
            nodes += len(item)
            if nodes > max_nodes:
                raise fail(
                    codes.too_large,
                    f"{codes.what} hold more than {max_nodes} values",
                    chain,
                    "max_nodes",
                )
            if isinstance(item, dict):
                entries = list(item.items())
                for key, _ in entries:
                    if not isinstance(key, str):
                        raise fail(
                            codes.key_not_string,
                            f"{codes.what} have an object key that is a "
                            f"{type(key).__name__}, not a string",
                            chain,
                        )
                for key, child in reversed(entries):
                    check_string(key, (chain, key), "property name")
                    stack.append((child, (chain, key), depth + 1))
            else:
                for index in range(len(item) - 1, -1, -1):
                    stack.append((item[index], (chain, index), depth + 1))
        elif item is None or isinstance(item, bool):
            continue
        elif isinstance(item, int):
            if _too_long_for_text(item):
                raise fail(
                    codes.not_json,
                    f"{codes.what} hold an integer too long to write as JSON text",
                    chain,
                )
        elif isinstance(item, (float, Decimal)):
            # A Decimal is a JSON number (json.loads(text, parse_float=Decimal)).
            if not (Decimal.is_finite(item) if isinstance(item, Decimal) else math.isfinite(item)):
                raise fail(
                    codes.not_json,
                    f"{codes.what} hold a non-finite number, which JSON cannot express",
                    chain,
                )
        else:
            raise fail(
                codes.not_json,
                f"{codes.what} hold a {type(item).__name__}, which is not a JSON value",
                chain,
            )


# Integers this small are written as text under any int-to-text limit Python allows
# (the least is 640 digits); a larger one is left to the detailed walk.
_SAFE_INT = 2**63


def within(value: Any, max_depth: int, max_nodes: int, max_string: int) -> bool:
    """Whether ``value`` certainly passes the detailed shape walk with these bounds.

    The verdict pass every call runs: exact types only (``type(v) is str``), no
    allocation per value, nested containers gathered one nesting level at a time.
    False means "not certain" (a problem, or only a subclass, a Decimal or an
    integer past ``2**63``): the detailed walk then decides and finds the first
    problem in document order, so the verdict never changes what is refused or how.
    """
    if type(value) is not dict:
        if type(value) is list:
            return _levels_within([value], 0, 0, max_depth, max_nodes, max_string)
        return False  # a scalar or non-JSON root: rare, and the walk words it
    # The arguments object inline: most have no nested container, and a call per
    # value would cost more than its check (the same checks are written out below).
    nodes = len(value)
    if nodes >= max_nodes or max_depth <= 0:  # the walk counts the root too: 1 + nodes
        return False
    inner: list[Any] | None = None
    for key, item in value.items():
        if type(key) is not str or len(key) > max_string:
            return False
        kind = type(item)
        if kind is str:
            if len(item) > max_string:
                return False
        elif kind is int:
            if not -_SAFE_INT < item < _SAFE_INT:
                return False
        elif kind is bool or item is None:
            pass
        elif kind is float:
            if item - item != 0.0:  # NaN or infinite
                return False
        elif kind is dict or kind is list:
            if inner is None:
                inner = [item]
            else:
                inner.append(item)
        else:
            return False
    if inner is None:
        return True
    return _levels_within(inner, 1, nodes, max_depth, max_nodes, max_string)


def _levels_within(
    level: list[Any], depth: int, nodes: int, max_depth: int, max_nodes: int, max_string: int
) -> bool:
    """:func:`within` for the exact dicts and lists of ``level`` (all at ``depth``)
    and everything under them, ``nodes`` values counted so far."""
    while True:
        if depth >= max_depth:
            return False
        inner: list[Any] | None = None
        for container in level:
            nodes += len(container)
            if nodes >= max_nodes:
                return False
            if type(container) is dict:
                for key, item in container.items():
                    if type(key) is not str or len(key) > max_string:
                        return False
                    kind = type(item)
                    if kind is str:
                        if len(item) > max_string:
                            return False
                    elif kind is int:
                        if not -_SAFE_INT < item < _SAFE_INT:
                            return False
                    elif kind is bool or item is None:
                        pass
                    elif kind is float:
                        if item - item != 0.0:
                            return False
                    elif kind is dict or kind is list:
                        if inner is None:
                            inner = [item]
                        else:
                            inner.append(item)
                    else:
                        return False
            else:
                for item in container:
                    kind = type(item)
                    if kind is str:
                        if len(item) > max_string:
                            return False
                    elif kind is int:
                        if not -_SAFE_INT < item < _SAFE_INT:
                            return False
                    elif kind is bool or item is None:
                        pass
                    elif kind is float:
                        if item - item != 0.0:
                            return False
                    elif kind is dict or kind is list:
                        if inner is None:
                            inner = [item]
                        else:
                            inner.append(item)
                    else:
                        return False
        if inner is None:
            return True
        level = inner
        depth += 1


def check_argument_shape(
    arguments: Any,
    limits: BoundaryLimits,
    known_names: frozenset[str] = frozenset(),
    *,
    from_text: bool = False,
) -> None:
    """Refuse arguments outside the JSON data model or beyond the limits.

    Keys outside ``known_names`` (the names the schema defines) appear as ``*`` in
    the reported path. ``from_text`` also refuses unpaired surrogates, which
    strict JSON text must not produce.
    """
    if not from_text and within(
        arguments, limits.max_argument_depth, limits.max_argument_nodes, limits.max_string_length
    ):
        return
    _walk(
        arguments,
        _ARGUMENTS,
        max_depth=limits.max_argument_depth,
        max_nodes=limits.max_argument_nodes,
        max_string=limits.max_string_length,
        shown=known_names.__contains__,
        check_surrogates=from_text,
    )


def check_schema_shape(schema: Any, limits: BoundaryLimits) -> None:
    """Refuse a schema document outside the JSON data model or beyond the limits."""
    if within(schema, limits.max_schema_depth, limits.max_schema_nodes, limits.max_text_length):
        return
    _walk(
        schema,
        _SCHEMA,
        max_depth=limits.max_schema_depth,
        max_nodes=limits.max_schema_nodes,
        max_string=limits.max_text_length,
        shown=lambda key: True,
        check_surrogates=False,
    )
