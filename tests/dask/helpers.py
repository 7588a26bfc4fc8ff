"""Shared by the Dask tests: the command line run in this process, files, and
functions the workers import (a format checker that kills its worker once)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
from pathlib import Path
from typing import Any, NamedTuple

from schemacore.cli import main

# A small schema with a pattern, bounds and required keys: invalid records have
# one or several errors.
SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["id"],
    "properties": {
        "id": {"type": "integer", "minimum": 0},
        "name": {"type": "string", "pattern": "^[a-z]+$"},
        "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2},
    },
    "additionalProperties": False,
}


class Run(NamedTuple):
    status: int
    out: str
    err: str

    @property
    def records(self) -> list[dict[str, Any]]:
        """The --error-format json records printed on stdout."""
        return [json.loads(line) for line in self.out.splitlines()]


def run_cli(*args: str) -> Run:
    """``schemacore ARGS`` in this process, its output captured."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(["validate", "--no-progress", *args])
    return Run(status, out.getvalue(), err.getvalue())


def write_schema(folder: Path, schema: Any, name: str = "schema.json") -> str:
    path = folder / name
    path.write_text(json.dumps(schema), encoding="utf-8")
    return str(path)


def write_lines(folder: Path, name: str, values: list[Any]) -> str:
    path = folder / name
    path.write_text("".join(json.dumps(value) + "\n" for value in values), encoding="utf-8")
    return str(path)


def records_of(results: list[Any]) -> list[dict[str, Any]]:
    """The error records of results, in order: what the command line prints."""
    return [record for result in results for record in result.errors]


def kill_once(value: str) -> bool:
    """A format checker: for ``"kill:<path>"``, the first worker to see it creates
    ``<path>`` and dies by SIGKILL at once (a worker lost mid-run); after that, and
    for any other string, it says the value is valid."""
    if value.startswith("kill:"):
        marker = value[len("kill:") :]
        try:
            descriptor = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return True
        os.close(descriptor)
        os.kill(os.getpid(), signal.SIGKILL)
    return True


def generated_code_written(key: str) -> bool | None:
    """Run on a worker: whether its cached validator for ``key`` has all its
    generated code written (None when it holds no such validator)."""
    from schemacore.scale import _shared

    validator = _shared._cache.get(key)
    if validator is None:
        return None
    return bool(validator._compiler.promoted)


def set_version(version: str) -> str:
    """Run on a worker: make it claim another schemacore version; the old one."""
    import schemacore

    old = schemacore.__version__
    schemacore.__version__ = version
    return old
