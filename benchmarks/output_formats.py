"""What each output format costs, against ``is_valid``, on the records document.

``python benchmarks/output_formats.py`` builds the ``records`` workload's document
(20,000 records by default; an invalid copy has one bad record in 100) and times, in
interleaved rounds (the minimum of each is shown, the machine being shared and noisy):
``is_valid``, ``iter_errors`` drained, and ``evaluate(x).output(fmt)`` for ``flag``,
``basic`` and ``list`` (``.annotations`` too), on the valid and the invalid document.
Each ratio is to ``is_valid`` on the same document (an invalid one stops at its first
bad record; ``iter_errors`` is the fair measure for an invalid ``basic``, which lists
every error). Then one more run of each under ``tracemalloc`` for its peak.

``--src DIR`` measures the schemacore under ``DIR`` (another checkout's ``src``) for a
before/after; ``--quick`` uses 500 records and 2 rounds (a smoke test). Nothing is
asserted.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
import tracemalloc
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

_ROOT = Path(__file__).resolve().parents[1]


def _cases(validator: Any, valid: Any, invalid: Any) -> dict[str, Callable[[], Any]]:
    return {
        "is_valid, valid": lambda: validator.is_valid(valid),
        "flag, valid": lambda: validator.evaluate(valid).output("flag"),
        "basic, valid": lambda: validator.evaluate(valid).output("basic"),
        "annotations, valid": lambda: validator.evaluate(valid).annotations,
        "list, valid": lambda: validator.evaluate(valid).output("list"),
        "is_valid, invalid": lambda: validator.is_valid(invalid),
        "iter_errors, invalid": lambda: list(validator.iter_errors(invalid)),
        "flag, invalid": lambda: validator.evaluate(invalid).output("flag"),
        "basic, invalid": lambda: validator.evaluate(invalid).output("basic"),
        "list, invalid": lambda: validator.evaluate(invalid).output("list"),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=None)
    parser.add_argument("--rounds", type=int, default=None)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--src", default=str(_ROOT / "src"), help="the schemacore to measure")
    args = parser.parse_args(argv)
    records = args.records or (500 if args.quick else 20_000)
    rounds = args.rounds or (2 if args.quick else 5)
    sys.path[:0] = [args.src, str(_ROOT)]
    import schemacore
    from benchmarks import workloads

    schema, good, bad, _ = workloads._record_docs(records, "records")
    valid = workloads._doc(good)
    invalid = workloads._doc(workloads._sprinkle(good, bad, 100))
    validator = schemacore.compile(schema)
    for _ in range(20):  # past the move to generated code
        validator.is_valid(valid)
    assert validator.is_valid(valid) and not validator.is_valid(invalid)
    cases = _cases(validator, valid, invalid)
    gc.collect()
    gc.freeze()  # the documents are not rescanned inside the timed calls

    best = dict.fromkeys(cases, float("inf"))
    for n in range(rounds):
        order = list(cases.items())
        shift = n % len(order)
        for name, run in order[shift:] + order[:shift]:
            started = time.perf_counter()
            run()
            best[name] = min(best[name], time.perf_counter() - started)
    peaks: dict[str, int] = {}
    for name, run in cases.items():
        tracemalloc.start()
        run()
        peaks[name] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()

    print(f"schemacore {schemacore.__version__} from {Path(schemacore.__file__).parent}")
    print(f"records document: {records:,} records, min of {rounds} interleaved rounds")
    print(f"{'':24} {'time':>11} {'/ is_valid':>11} {'peak':>11}")
    for name, seconds in best.items():
        base = best["is_valid, invalid" if name.endswith("invalid") else "is_valid, valid"]
        print(
            f"{name:24} {seconds * 1e3:8.1f} ms {seconds / base:10.1f}x "
            f"{peaks[name] / 2**20:7.1f} MiB"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
