"""What the engine knows about one keyword, in one object: :class:`Spec`.

A spec names its compiler (schema value -> :class:`~schemacore.model.Keyword`) and
states its structural facts: where its subschemas are in its value, which part of
the instance each subschema applies to, whether their errors are yielded as its
own, what it marks as evaluated for ``unevaluated*``, and how ``evaluate()``
reports it. Every table that used to be kept by hand (the resource index's
subschema positions, the recursion analysis's edge classes, the unevaluated fold's
conditional keywords, the evaluation walk's roles, the error depths ``validate()``
stops at) is derived from these facts; ``tests/engine/test_specs.py`` checks that the
derived tables and the compiled products agree.

A dialect (:mod:`schemacore.dialects`) is a table of specs: a keyword whose meaning
changed between drafts has one spec per meaning, under the same name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .emit import Emitter
    from .model import Keyword, SchemaContext
    from .units import Handler

__all__ = ["IN_PLACE", "LEAVES", "Marks", "Reach", "Role", "Shape", "Spec"]

Compile = Callable[["SchemaContext", Any], "Keyword | None"]


class Shape(Enum):
    """Where the subschemas are in the keyword's value."""

    NONE = "none"  # the value holds no subschema
    ONE = "one"  # the value is a subschema
    LIST = "list"  # an array of subschemas
    MAP = "map"  # an object whose member values are subschemas (others skipped)
    ONE_OR_LIST = "one-or-list"  # a subschema, or an array of them (legacy items)


class Reach(Enum):
    """What part of the instance a subschema of the keyword is applied to."""

    NOTHING = "nothing"  # no subschema
    UNAPPLIED = "unapplied"  # kept for references only ($defs, definitions)
    ALWAYS = "always"  # the value itself, every time (allOf, references)
    SOMETIMES = "sometimes"  # the value itself, depending on it (anyOf, if, ...)
    NEGATED = "negated"  # the value itself, its annotations dropped (not)
    NAMED = "named"  # the member its name names (properties)
    PATTERN = "pattern"  # members whose names match (patternProperties)
    REST_MEMBERS = "rest-members"  # members its siblings leave (additionalProperties)
    UNEVALUATED_MEMBERS = "unevaluated-members"
    INDEXED = "indexed"  # the item at its index (prefixItems, array-form items)
    REST_ITEMS = "rest-items"  # items after the indexed ones (items, additionalItems)
    EVERY_ITEM = "every-item"  # any item (contains)
    UNEVALUATED_ITEMS = "unevaluated-items"
    KEYS = "keys"  # a member name, which has no children (propertyNames)
    CONTENT = "content"  # a value decoded from a string (contentSchema)


# Reaches that apply the subschema to the instance location itself, and those whose
# subschema sees a value with no children (a name) or a new value (decoded content).
IN_PLACE = frozenset({Reach.ALWAYS, Reach.SOMETIMES, Reach.NEGATED})
LEAVES = frozenset({Reach.KEYS, Reach.CONTENT})


class Marks(Enum):
    """What a keyword evaluates, for ``unevaluatedProperties``/``unevaluatedItems``."""

    NOTHING = "nothing"
    NAMES = "names"  # its declared member names
    PATTERNS = "patterns"  # names matching its patterns
    ALL_MEMBERS = "all-members"
    PREFIX = "prefix"  # the items its array of subschemas covers
    ALL_ITEMS = "all-items"
    SOME_ITEMS = "some-items"  # depends on the instance (contains)


class Role(Enum):
    """How ``evaluate()`` reports the keyword."""

    SILENT = "silent"  # identifies, structures or comments: no output unit
    ASSERTION = "assertion"  # its compiled check decides its unit
    ANNOTATION = "annotation"  # its value is its annotation
    APPLICATOR = "applicator"  # applies subschemas: a walk of its own
    PART = "part"  # read by another keyword of its object (then, minContains, ...)


@dataclass(frozen=True, eq=False, slots=True)
class Spec:
    """One keyword's meaning in one draft. Specs compare by identity: two drafts
    share a spec exactly when the keyword means the same in both.

    ``compile`` returns the compiled keyword, or None when it needs no run-time
    work; a spec without one only identifies, annotates or is read by a sibling
    (``part_of``). ``applies_to`` is the JSON type it constrains (None: any).
    """

    name: str
    compile: Compile | None
    role: Role
    applies_to: str | None = None
    shape: Shape = Shape.NONE
    reach: Reach = Reach.NOTHING
    # For ONE_OR_LIST: what the single-subschema form reaches (the list form is INDEXED).
    reach_one: Reach = Reach.NOTHING
    marks: Marks = Marks.NOTHING
    marks_one: Marks = Marks.NOTHING
    part_of: str | None = None
    # The sibling whose array of subschemas it continues; without one it is ignored
    # (additionalItems after an array-form items).
    continues: str | None = None
    # A reference keyword: its subschema is another schema's, not in its value.
    reference: bool = False
    # Whether its subschemas' errors are yielded as its own (allOf, properties, $ref);
    # False: they never are, it yields one error of its own instead (anyOf, oneOf,
    # not, contains: theirs are its context) or none (if only picks then or else).
    passes_errors: bool = True
    # How generated code writes the keyword out (schemacore.emit), beside its
    # compiler; None: generated code calls the compiled closure.
    emit: Emitter | None = None
    # How evaluate() walks it (schemacore.units), for keywords applying subschemas.
    evaluate: Handler | None = None

    def __post_init__(self) -> None:
        if (self.shape is Shape.NONE) != (self.reach is Reach.NOTHING) and not self.reference:
            raise ValueError(f"{self.name}: a shape needs a reach, and a reach a shape")

    def reach_of(self, tokens: tuple[str | int, ...]) -> Reach:
        """What the subschema at ``tokens`` (the child's path from its schema
        object, keyword first) is applied to."""
        if self.shape is Shape.ONE_OR_LIST and len(tokens) == 1:
            return self.reach_one
        return self.reach

    def __repr__(self) -> str:
        return f"<Spec {self.name} {self.role.value}>"
