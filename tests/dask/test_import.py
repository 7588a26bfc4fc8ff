"""Dask is an optional extra: the core never imports it, and schemacore.dask without
it says how to install it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"


def _python(code: str) -> subprocess.CompletedProcess[str]:
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(SRC), os.environ.get("PYTHONPATH")])
    )
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=environment,
        timeout=120,
        check=False,
    )


def test_the_core_and_scale_never_import_dask() -> None:
    done = _python(
        "import sys, schemacore, schemacore.cli, schemacore.scale\n"
        "loaded = sorted(name for name in sys.modules "
        "if name.split('.')[0] in ('dask', 'distributed', 'fsspec', 'pyspark'))\n"
        "print(loaded)"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_without_the_extra_the_import_error_says_what_to_install() -> None:
    # sys.modules[name] = None makes "import name" fail as a missing package does.
    done = _python(
        "import sys\n"
        "sys.modules['dask'] = None\n"
        "try:\n"
        "    import schemacore.dask\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    assert done.returncode == 0, done.stderr
    assert "pip install 'schemacore[dask]'" in done.stdout
