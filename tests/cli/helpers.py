"""Running the command line in a real subprocess, and writing input files."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from schemacore.cli import main

SRC = Path(__file__).resolve().parents[2] / "src"
ROOT = SRC.parent


class Result(NamedTuple):
    status: int
    out: str
    err: str

    @property
    def out_lines(self) -> list[str]:
        return self.out.splitlines()

    @property
    def err_lines(self) -> list[str]:
        return self.err.splitlines()


def run_cli(
    *args: str,
    stdin: bytes | None = None,
    env: Mapping[str, str] | None = None,
    pythonpath: tuple[str, ...] = (),
) -> Result:
    """``python -m schemacore ARGS`` in a child process (this checkout's source)."""
    environment = dict(os.environ)
    paths = [*pythonpath, str(SRC), environment.get("PYTHONPATH", "")]
    environment["PYTHONPATH"] = os.pathsep.join(filter(None, paths))
    environment.update(env or {})
    completed = subprocess.run(
        [sys.executable, "-m", "schemacore", *args],
        input=stdin,
        capture_output=True,
        env=environment,
        timeout=300,
        check=False,
    )
    out = completed.stdout.decode("utf-8", "replace")
    err = completed.stderr.decode("utf-8", "replace")
    assert "Traceback" not in err, err
    return Result(completed.returncode, out, err)


def run_main(*args: str) -> Result:
    """``main(argv)`` in this process, its output captured."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(args))
    return Result(status, out.getvalue(), err.getvalue())


def write_json(folder: Path, name: str, value: Any) -> str:
    path = folder / name
    path.write_text(json.dumps(value), encoding="utf-8")
    return str(path)


def write_lines(folder: Path, name: str, values: list[Any]) -> str:
    path = folder / name
    path.write_text("".join(json.dumps(value) + "\n" for value in values), encoding="utf-8")
    return str(path)


SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "age": {"type": "integer", "minimum": 0}},
    "required": ["name"],
}
