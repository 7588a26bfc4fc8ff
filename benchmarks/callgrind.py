"""Run a benchmark module's phases under ``valgrind --tool=callgrind``.

The module marks the end of each phase with a call of ``os.getppid()`` (callgrind
dumps its counters before each); :func:`phase_counts` returns the module's
standard output and the instructions counted in each phase, in order. Instruction
counts repeat to a fraction of a percent on a shared machine, where timings do not.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

__all__ = ["phase_counts"]


def phase_counts(module: str, arguments: list[str]) -> tuple[str, list[int]]:
    """``python -m module *arguments`` under callgrind: (its stdout, the instructions
    of each phase, the part before the first ``os.getppid()`` left out)."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "out"
        run = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                "--dump-before=getppid",
                f"--callgrind-out-file={out}",
                sys.executable,
                "-m",
                module,
                *arguments,
            ],
            capture_output=True,
            text=True,
            check=True,
            cwd=Path(__file__).resolve().parents[1],
            env={**os.environ, "PYTHONHASHSEED": "0"},
        )
        counts = []
        index = 2  # dump 1 is everything before the first phase
        while Path(f"{out}.{index}").exists():
            text = Path(f"{out}.{index}").read_text()
            counts.append(int(text.split("\nsummary: ")[1].split()[0]))
            index += 1
    return run.stdout, counts
