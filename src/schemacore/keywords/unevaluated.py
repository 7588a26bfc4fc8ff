"""Unevaluated vocabulary: ``unevaluatedProperties`` and ``unevaluatedItems``.

They run last in their schema object and read the locations its other keywords (and
the in-place subschemas that passed) evaluated, which the node collects in an
:class:`~schemacore.compiler.Evaluated` only where such a keyword can see it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from ..compiler import Evaluated, Keyword, SchemaContext, make_error
from ..errors import ValidationError
from ..paths import Path
from .applicator import string_key
from .core import call_errors, call_valid

__all__ = ["KEYWORDS"]


def compile_unevaluated_properties(ctx: SchemaContext, value: Any) -> Keyword:
    child = ctx.descend(value, "unevaluatedProperties")
    check = call_valid(child)
    child_errors = call_errors(child)
    absolute = ctx.location("unevaluatedProperties")

    def track(x: Any, acc: Evaluated) -> bool:
        if not acc.all_props:
            seen = acc.props
            for key, member in x.items():
                if key not in seen:
                    if type(key) is not str:
                        string_key(key)
                    if not check(member):
                        return False
        acc.all_props = True
        return True

    def valid(x: Any) -> bool:
        return track(x, Evaluated())

    def errors_given(x: Any, acc: Evaluated, ipath: Path, kpath: Path) -> Iterator[ValidationError]:
        for key in x:
            if type(key) is not str:
                string_key(key)
        if acc.all_props:
            return
        left = [key for key in x if key not in acc.props]
        here = (kpath, "unevaluatedProperties")
        if value is False and left:
            listed = ", ".join(repr(k) for k in left)
            yield make_error(
                f"unevaluated properties are not allowed ({listed} "
                f"{'was' if len(left) == 1 else 'were'} unexpected)",
                "unevaluatedProperties",
                x,
                ipath,
                here,
                absolute,
            )
            return
        for key in left:
            yield from child_errors(x[key], (ipath, key), here)

    def errors(x: Any, ipath: Path, kpath: Path) -> Iterator[ValidationError]:
        return errors_given(x, Evaluated(), ipath, kpath)

    return Keyword("unevaluatedProperties", "object", valid, errors, track, errors_given, cost=1000)


def compile_unevaluated_items(ctx: SchemaContext, value: Any) -> Keyword:
    child = ctx.descend(value, "unevaluatedItems")
    check = call_valid(child)
    child_errors = call_errors(child)
    absolute = ctx.location("unevaluatedItems")

    def unevaluated(x: Any, acc: Evaluated) -> Iterator[int]:
        if acc.all_items:
            return
        seen = acc.items
        for index in range(acc.prefix, len(x)):
            if index not in seen:
                yield index

    def track(x: Any, acc: Evaluated) -> bool:
        for index in unevaluated(x, acc):
            if not check(x[index]):
                return False
        acc.all_items = True
        return True

    def valid(x: Any) -> bool:
        return track(x, Evaluated())

    def errors_given(x: Any, acc: Evaluated, ipath: Path, kpath: Path) -> Iterator[ValidationError]:
        left = list(unevaluated(x, acc))
        here = (kpath, "unevaluatedItems")
        if value is False and left:
            yield make_error(
                f"unevaluated items are not allowed (items at {left} were unexpected)",
                "unevaluatedItems",
                x,
                ipath,
                here,
                absolute,
            )
            return
        for index in left:
            yield from child_errors(x[index], (ipath, index), here)

    def errors(x: Any, ipath: Path, kpath: Path) -> Iterator[ValidationError]:
        return errors_given(x, Evaluated(), ipath, kpath)

    return Keyword("unevaluatedItems", "array", valid, errors, track, errors_given, cost=1000)


KEYWORDS: dict[str, Callable[[SchemaContext, Any], Keyword | None]] = {
    "unevaluatedProperties": compile_unevaluated_properties,
    "unevaluatedItems": compile_unevaluated_items,
}
