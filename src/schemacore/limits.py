"""Resource limits that keep hostile schemas and instances from exhausting a process."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DEFAULT_LIMITS", "Limits"]


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds applied while compiling a schema and validating an instance.

    Exceeding any of them raises :class:`schemacore.ExecutionFailure` naming the
    limit; it is never reported as a plain validation failure.

    Attributes:
        max_schema_depth: deepest nesting of subschemas inside a schema document.
        max_subschemas: most subschemas compiled for one validator (references and
            dynamic-scope specialisations included).
        max_instance_depth: deepest nesting of arrays/objects the validator descends
            into while validating one instance.
    """

    max_schema_depth: int = 256
    max_subschemas: int = 100_000
    max_instance_depth: int = 256


DEFAULT_LIMITS = Limits()
