"""schemacore as a Bowtie direct connectable: Bowtie's runner calls it in-process.

Install the extra (``pip install 'schemacore[bowtie]'``), then::

    bowtie suite -i direct:schemacore.bowtie:implementation \\
        path/to/JSON-Schema-Test-Suite/tests/draft2020-12

Each case's schema is compiled with :class:`schemacore.compat.Draft202012Validator`,
its registry (a ``referencing.Registry`` Bowtie builds) passed as ``registry=``.

Bowtie requires a homepage, an issue tracker and a source address for every
implementation. schemacore has no public address yet, so all three name the folder
the package is installed in (a true address, never an invented one); they are to be
replaced by the project's real addresses once it has them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from bowtie._core import Dialect
from bowtie._direct_connectable import DirectImplementation
from bowtie._registry import Invalid
from url import URL

from . import __version__
from .compat import DIALECTS, UnsupportedDialect, validator_for

__all__ = ["implementation"]

_HERE = URL.parse(Path(__file__).resolve().parent.as_uri() + "/")

Validate = Callable[[Any], "Invalid[Any] | None"]


def _supported_dialects() -> frozenset[Dialect]:
    found: set[Dialect] = set()
    for entry in DIALECTS:
        if entry.supported:
            found.add(Dialect.from_str(entry.meta_schema_uri))
    return frozenset(found)


def _compiler_for(dialect: Dialect) -> Callable[[Any, Any], Validate]:
    """The schema compiler for ``dialect``: (schema, registry) -> validate(instance),
    which answers None for a valid instance and an ``Invalid`` group otherwise."""
    uri = str(dialect.uri)
    cls = validator_for({"$schema": uri})

    def compile(schema: Any, registry: Any) -> Validate:
        validator = validator_for(schema, default=cls)(schema, registry=registry)

        def validate(instance: Any) -> Invalid[Any] | None:
            if validator.is_valid(instance):
                return None
            return Invalid("not valid", list(validator.iter_errors(instance)))

        return validate

    return compile


def _unsupported(dialect: Dialect) -> Callable[[Any, Any], Validate]:
    raise UnsupportedDialect(f"schemacore does not implement {dialect.uri}")


def _compiler(dialect: Dialect) -> Callable[[Any, Any], Validate]:
    if dialect not in _supported_dialects():
        return _unsupported(dialect)
    return _compiler_for(dialect)


_compiler.__name__ = "schemacore"

implementation: Callable[[], Any] = DirectImplementation.from_callable(
    language="python",
    version=__version__,
    homepage=_HERE,
    issues=_HERE,
    source=_HERE,
    dialects=_supported_dialects(),
)(_compiler)
