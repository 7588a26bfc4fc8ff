"""Resource limits that keep hostile schemas and instances from exhausting a process.

Every limit fails closed: exceeding one raises :class:`schemacore.ExecutionFailure`
naming the limit (``.limit``), its value (``.value``) and where it was hit
(``.location``). It is never reported as a plain mismatch, so it cannot turn into
``False``, nor into a failed branch inside ``anyOf``/``oneOf``/``not``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

__all__ = ["Limits"]


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds applied while compiling a schema and validating an instance.

    The defaults are meant for untrusted schemas and instances. The schema limits are
    checked by ``compile``, the instance limits while validating.

    Schema limits:
        max_schema_depth: deepest nesting of subschemas in one schema document.
        max_subschemas: most schema objects compiled for one validator, counting
            each specialisation of a schema reached through a different dynamic scope.
        max_references: most ``$ref``/``$dynamicRef`` keywords compiled.
        max_reference_depth: how deeply schema objects may nest while compiling,
            following references as well as subschemas (a long chain of references
            counts each link).
        max_inplace_applications: most subschemas one value can be checked against
            in place (allOf, anyOf, oneOf, not, if/then/else, dependentSchemas,
            references), counted through shared subschemas; bounds schemas whose
            references fan out exponentially. Also through keywords that apply
            subschemas to the same children (items and contains, say), counted
            through nested schemas. A recursive schema that applies itself to a child
            more than once is answered by ``is_valid`` with each answer per value
            remembered; its error and evaluation paths, whose reports grow
            exponentially, fail once they have repeated this many applications.

        max_pattern_length: longest regular expression in a schema (``pattern``,
            ``patternProperties``), checked at compile time. A piece repeated
            ``{n}`` or ``{n,}`` times counts ``n`` times (``a{99999}`` is 99,999
            characters): the regular-expression engine unrolls such repeats while
            compiling, so a short pattern can cost as much as a long one. Generous
            by default: translating and compiling are linear in this size, and
            real schemas hold alternations of tens of thousands of characters.
        max_regex_format_length: the same bound for an instance string checked
            by an asserted ``regex`` format, while validating: instances are
            untrusted where schemas usually are not, so it is tighter.

    Instance limits:
        max_instance_depth: how many recursive applications (through a reference
            or subschema that leads back to a schema being applied) may be nested
            while validating one instance. Only a recursive schema can descend
            without bound (anything else descends at most as deep as the schema
            itself), so this bounds the depth of instance the validator walks into.
        max_instance_nodes: when set, the instance is walked once before validation
            and refused if it has more values than this, or is nested deeper than
            ``max_instance_depth``, or holds anything outside the JSON data model
            anywhere. Off (None) by default: the walk costs about as much as
            validating a simple schema. Without it, values outside the JSON data
            model are refused where the validation reaches them.
        max_pattern_input: longest string ``pattern`` and ``patternProperties`` will
            run a regular expression on.
        regex_timeout: seconds one regular-expression match may take.
        time_budget: seconds one validation call may take; None (the default) for no
            budget. Checked at every schema node, so it costs time when set.
    """

    max_schema_depth: int = 64
    max_subschemas: int = 50_000
    max_references: int = 10_000
    max_reference_depth: int = 128
    max_inplace_applications: int = 100_000
    max_instance_depth: int = 256
    max_instance_nodes: int | None = None
    max_pattern_input: int = 100_000
    max_pattern_length: int = 65_536
    max_regex_format_length: int = 4_096
    regex_timeout: float = 0.5
    time_budget: float | None = None

    def __post_init__(self) -> None:
        for field in fields(self):
            value = getattr(self, field.name)
            if value is None and field.name in ("max_instance_nodes", "time_budget"):
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"Limits.{field.name} must be a number, not {value!r}")
            if field.type in ("int", "int | None") and not isinstance(value, int):
                raise TypeError(f"Limits.{field.name} must be an integer, not {value!r}")
            if not math.isfinite(value) or value <= 0:
                raise ValueError(f"Limits.{field.name} must be positive and finite, not {value!r}")
