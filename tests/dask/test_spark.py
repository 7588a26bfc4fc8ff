"""The Spark recipe of docs/scale.md in local mode (tests/dask/spark_recipe.py, run
in a process of its own): mapInPandas with a SharedValidator, compiled once per
Python worker process, gives the command line's records. Needs pyspark, pandas,
pyarrow and a Java runtime; skips without them, except under
SCHEMACORE_REQUIRE_SPARK=1 (CI), where they must be there."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.cli_stream import write_data
from tests.dask.helpers import run_cli

ROOT = Path(__file__).resolve().parents[2]
RECIPE = Path(__file__).with_name("spark_recipe.py")


def _missing() -> list[str]:
    missing = []
    for module in ("pyspark", "pandas", "pyarrow"):
        try:
            __import__(module)
        except ImportError:
            missing.append(module)
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        missing.append("a Java runtime")
    return missing


def test_map_in_pandas_compiles_once_per_python_worker(tmp_path: Path) -> None:
    missing = _missing()
    if missing:
        reason = f"the Spark recipe needs {', '.join(missing)}"
        if os.environ.get("SCHEMACORE_REQUIRE_SPARK") == "1":
            pytest.fail(reason + " (SCHEMACORE_REQUIRE_SPARK=1)")
        pytest.skip(reason)
    schema, data = write_data(tmp_path, 5_000)  # line 2 is invalid
    cli = run_cli("--error-format", "json", str(schema), str(data))
    environment = dict(os.environ)
    paths = [str(ROOT / "src"), environment.get("PYTHONPATH", "")]
    environment["PYTHONPATH"] = os.pathsep.join(filter(None, paths))
    environment["PYSPARK_PYTHON"] = sys.executable  # the Python workers: this one
    environment["SPARK_LOCAL_IP"] = "127.0.0.1"  # loopback only
    done = subprocess.run(
        [sys.executable, str(RECIPE), str(schema), str(data)],
        capture_output=True,
        text=True,
        env=environment,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])

    assert [row[0] for row in report["rows"]] == list(range(1, 5_001))
    records = [record for row in report["rows"] for record in row[2]]
    assert records == cli.records and len(records) == 1
    assert {row[1] for row in report["rows"]} == {"valid", "invalid"}
    # Fewer Python worker processes than the 6 partitions (Spark reuses them), and
    # each compiled the schema once.
    assert set(map(tuple, report["compiles"].values())) == {(1,)}, report
    assert 1 <= len(report["compiles"]) < 6, report["rows_per_worker"]
