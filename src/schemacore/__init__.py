"""schemacore: a compiled, pure-Python JSON Schema Draft 2020-12 validator.

Compile a schema once, then validate many instances::

    import schemacore

    validator = schemacore.compile({"type": "object", "required": ["name"]})
    validator.is_valid({"name": "Ada"})        # True
    for error in validator.iter_errors({}):
        print(error.instance_location, error.message)
"""

from __future__ import annotations

from .errors import (
    ExecutionFailure,
    SchemaCoreError,
    SchemaError,
    UnsupportedCapability,
    ValidationError,
)
from .limits import Limits
from .output import Annotation, Evaluation
from .relevance import best_match
from .validator import Validator, compile, is_valid, validate

__all__ = [
    "Annotation",
    "Evaluation",
    "ExecutionFailure",
    "Limits",
    "SchemaCoreError",
    "SchemaError",
    "UnsupportedCapability",
    "ValidationError",
    "Validator",
    "best_match",
    "compile",
    "is_valid",
    "validate",
]

__version__ = "0.1.0"
