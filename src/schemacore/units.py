"""The evaluation product's units, and what a keyword's walk may ask of the walker.

The outputs of ``Validator.evaluate`` are written from a tree of :class:`Unit` (one
per schema object and per keyword applied at an instance location; a walk may keep
fewer, see :mod:`schemacore.evaluation`). The walk of each keyword that applies
subschemas lives beside its compiler, in its keyword module, and is named by its
spec (``Spec.evaluate``); it talks to the walker (:mod:`schemacore.evaluation`)
only through :class:`Walker`.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeAlias

from .errors import ValidationError
from .model import Node, SchemaContext
from .pointer import escape

__all__ = [
    "NO_ANNOTATION",
    "Handler",
    "Request",
    "Steps",
    "Unit",
    "Walk",
    "Walker",
    "drop_annotations",
    "evaluated_at",
    "first_message",
    "iter_annotations",
    "join",
]


class _NoAnnotation:
    """The value of a unit without an annotation (None is an annotation's value)."""

    __slots__ = ()

    def __reduce__(self) -> str:
        return "NO_ANNOTATION"  # pickled by name: still the one sentinel once loaded

    def __repr__(self) -> str:
        return "NO_ANNOTATION"


NO_ANNOTATION: Any = _NoAnnotation()


@dataclass(slots=True)
class Unit:
    """One output unit: a schema object or one of its keywords, at one instance place.

    ``keyword`` is None for the unit of a whole schema object.
    """

    keyword_location: str
    absolute_keyword_location: str
    instance_location: str
    keyword: str | None = None
    valid: bool = True
    error: str | None = None
    annotation: Any = NO_ANNOTATION
    children: list[Unit] = field(default_factory=list)

    @property
    def has_annotation(self) -> bool:
        return self.annotation is not NO_ANNOTATION


def iter_annotations(unit: Unit) -> Iterator[Unit]:
    """Annotation units of a tree, depth first, skipping every subtree that did not
    pass. Iterative: a tree is several units deep per level of the instance."""
    pending = [unit]
    while pending:
        current = pending.pop()
        if not current.valid:
            continue
        if current.has_annotation:
            yield current
        pending.extend(reversed(current.children))


def join(pointer: str, token: str | int) -> str:
    return f"{pointer}/{escape(token)}"


def first_message(errors: Iterator[ValidationError], fallback: str) -> str:
    for error in errors:
        return error.message
    return fallback


def drop_annotations(unit: Unit) -> None:
    pending = [unit]
    while pending:
        current = pending.pop()
        current.annotation = NO_ANNOTATION
        pending.extend(current.children)


def evaluated_at(units: list[Unit], where: str, keywords: frozenset[str]) -> set[Any] | None:
    """Names or indexes evaluated at ``where`` by passing units among ``units``;
    None when everything there was evaluated."""
    seen: set[Any] = set()
    for unit in units:
        for found in iter_annotations(unit):
            if found.instance_location != where or found.keyword not in keywords:
                continue
            value = found.annotation
            if value is True:
                return None
            if isinstance(value, int):  # the last index an array of subschemas reached
                seen.update(range(value + 1))
            elif isinstance(value, list):
                seen.update(value)
    return seen


# The walk is a trampoline: a step asks for a subschema to be applied by yielding
# (target node, value, instance location, evaluation path, whether the edge closes
# a cycle, the unit the result belongs to) and is sent the target's unit, appended
# to that unit's children. _Evaluation.run keeps the pending steps on
# a list, so a deep instance costs no Python recursion, and counts the depth as
# is_valid does: one level per edge that closes a cycle, against max_instance_depth.
Request: TypeAlias = "tuple[Node, Any, str, str, bool, Unit]"
Walk: TypeAlias = "Generator[Request, Unit, Unit]"
Steps: TypeAlias = "Generator[Request, Unit, None]"


class Walker(Protocol):
    """What a keyword's walk may use of the walker."""

    # The units of the schema object's other keywords, for unevaluated*.
    current: list[Unit] | None
    # The keywords whose annotations mark members / items as evaluated.
    member_keywords: frozenset[str]
    item_keywords: frozenset[str]

    def child(
        self, node: Node, tokens: tuple[str | int, ...], x: Any, ipath: str, unit: Unit
    ) -> Request:
        """The request to apply the subschema at ``tokens`` of ``node`` to ``x``."""
        ...

    def assertion(self, node: Node, name: str, x: Any, unit: Unit) -> None:
        """Decide ``unit`` by the compiled keyword ``name`` of ``node``."""
        ...


Handler = Callable[[Walker, Node, SchemaContext, Any, Any, Unit], "Steps | None"]
