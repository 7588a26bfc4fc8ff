"""schemacore: a compiled, pure-Python JSON Schema Draft 2020-12 validator.

Compile a schema once, then validate many instances::

    import schemacore

    validator = schemacore.compile({"type": "object", "required": ["name"]})
    validator.is_valid({"name": "Ada"})        # True
    for error in validator.iter_errors({}):
        print(error.instance_location, error.message)
"""

from __future__ import annotations

__version__ = "0.1.0"

try:
    import regex as _regex  # noqa: F401  (the one runtime dependency)
except ImportError as _missing:  # pragma: no cover - tested in a subprocess
    raise ImportError(
        "schemacore needs the 'regex' package (ECMA-262 patterns are run with it); "
        "install it with: pip install regex"
    ) from _missing

from .errors import (
    ExecutionFailure,
    SchemaCoreError,
    SchemaError,
    UnsupportedCapability,
    ValidationError,
)
from .limits import Limits
from .model import DeferredReference
from .output import Annotation, Evaluation
from .relevance import best_match
from .validator import Validator, compile, is_valid, validate

__all__ = [
    "Annotation",
    "DeferredReference",
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
