"""schemacore for Bowtie, the JSON Schema compliance harness, in two ways.

In-process, as a direct connectable (``pip install 'schemacore[bowtie]'``)::

    bowtie suite -i direct:schemacore.bowtie:implementation \\
        path/to/JSON-Schema-Test-Suite/tests/draft2020-12

Out of process, as an IHOP harness: ``python -m schemacore.bowtie`` reads Bowtie's
protocol messages (one JSON object a line) from standard input and answers each on
standard output. It needs nothing beyond schemacore itself, which is what a container
image for Bowtie's listing runs.

Either way each case's schema is compiled with
:class:`schemacore.compat.Draft202012Validator`, with the case's registry.

Bowtie requires a homepage, an issue tracker and a source address for every
implementation. schemacore has no public address yet, so all three name the folder
the package is installed in (a true address, never an invented one); they are to be
replaced by the project's real addresses once it has them.
"""

from __future__ import annotations

import json
import platform
import sys
import traceback
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, Any

from . import __version__
from .compat import DIALECTS, UnsupportedDialect, validator_for
from .dialect import normalise

# Also `implementation`, the direct connectable, built on first read (__getattr__).
__all__ = ["info", "run_case", "serve"]

_HERE = Path(__file__).resolve().parent.as_uri() + "/"
_DIALECTS = tuple(entry.meta_schema_uri for entry in DIALECTS if entry.supported)

Validate = Callable[[Any], Any]


def info() -> dict[str, Any]:
    """What Bowtie shows about this implementation (its ``implementation`` object)."""
    return {
        "name": "schemacore",
        "language": "python",
        "version": __version__,
        "homepage": _HERE,
        "issues": _HERE,
        "source": _HERE,
        "dialects": list(_DIALECTS),
        "language_version": platform.python_version(),
        "os": platform.system(),
        "os_version": platform.release(),
    }


def _validator_class(dialect: str) -> Any:
    if normalise(dialect) not in _DIALECTS:
        raise UnsupportedDialect(f"schemacore does not implement {dialect}")
    return validator_for({"$schema": dialect})


def _compile(cls: Any, schema: Any, registry: Any) -> Any:
    return validator_for(schema, default=cls)(schema, registry=registry)


def run_case(case: Mapping[str, Any], dialect: str) -> list[dict[str, bool]]:
    """The results of one Bowtie case: ``{"valid": ...}`` for each of its tests.

    Raises what compiling or validating raises; the caller reports it as errored.
    """
    validator = _compile(_validator_class(dialect), case["schema"], case.get("registry") or {})
    return [{"valid": validator.is_valid(test["instance"])} for test in case["tests"]]


def _answer(message: Mapping[str, Any], state: dict[str, Any]) -> dict[str, Any] | None:
    """The response to one IHOP message (None for ``stop``)."""
    command = message.get("cmd")
    if command == "start":
        if message.get("version") != 1:
            raise ValueError(f"unsupported IHOP version {message.get('version')!r}")
        state["started"] = True
        return {"version": 1, "implementation": info()}
    if not state.get("started"):
        raise ValueError(f"{command!r} before start")
    if command == "dialect":
        state["dialect"] = message["dialect"]
        return {"ok": True}
    if command == "run":
        seq = message["seq"]
        try:
            results = run_case(message["case"], state.get("dialect", _DIALECTS[-1]))
        except Exception as error:  # reported to Bowtie as an errored case
            return {
                "seq": seq,
                "errored": True,
                "context": {
                    "message": f"{type(error).__name__}: {error}",
                    "traceback": traceback.format_exc(),
                },
            }
        return {"seq": seq, "results": results}
    if command == "stop":
        return None
    raise ValueError(f"unknown command {command!r}")


def serve(stdin: IO[str], stdout: IO[str]) -> int:
    """Answer IHOP messages from ``stdin`` on ``stdout`` until ``stop`` or the end of
    input. Returns the exit status (0 after ``stop``)."""
    state: dict[str, Any] = {}
    for line in stdin:
        if not line.strip():
            continue
        response = _answer(json.loads(line), state)
        if response is None:
            return 0
        stdout.write(json.dumps(response) + "\n")
        stdout.flush()
    return 0


# -- the direct connectable ----------------------------------------------------------


def _direct() -> Any:
    """Built on first use: only Bowtie's runner needs it, and it imports Bowtie."""
    from bowtie._core import Dialect
    from bowtie._direct_connectable import DirectImplementation
    from bowtie._registry import Invalid
    from url import URL

    def compiler_for(dialect: Any) -> Callable[[Any, Any], Validate]:
        cls = _validator_class(str(dialect.uri))

        def compile(schema: Any, registry: Any) -> Validate:
            validator = _compile(cls, schema, registry)

            def validate(instance: Any) -> Any:
                if validator.is_valid(instance):
                    return None
                return Invalid("not valid", list(validator.iter_errors(instance)))

            return validate

        return compile

    compiler_for.__name__ = "schemacore"
    here = URL.parse(_HERE)
    return DirectImplementation.from_callable(
        language="python",
        version=__version__,
        homepage=here,
        issues=here,
        source=here,
        dialects=frozenset(Dialect.from_str(uri) for uri in _DIALECTS),
    )(compiler_for)


_IMPLEMENTATION: list[Any] = []


def __getattr__(name: str) -> Any:
    if name == "implementation":
        if not _IMPLEMENTATION:
            _IMPLEMENTATION.append(_direct())
        return _IMPLEMENTATION[0]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


if __name__ == "__main__":
    sys.exit(serve(sys.stdin, sys.stdout))
