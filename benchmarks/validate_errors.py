"""``validate()`` on instances with many errors: does it stop once its answer is known?

``python benchmarks/validate_errors.py`` times, in interleaved rounds (the minimum of
each is shown, the machine being shared and noisy), three ways of getting one error:

- ``validate``: ``Validator.validate`` raising its most relevant error;
- ``drained``: what ``validate`` did before it could stop early, ``is_valid`` then
  ``best_match`` over every error of ``iter_errors`` (the same answer, checked);
- ``is_valid``: the fast path alone, for scale.

on these workloads (100,000 items each; ``--quick``: 1,000):

- ``many``: an array of strings against ``{"type": "array", "items": {"type": "integer"}}``,
  every item wrong;
- ``last``: the same schema, integers with one string at the end (nothing to stop
  early for: the error is the last thing found);
- ``nested``: rows of an object with a wrong ``id`` each, three levels down;
- ``shallow``: rows missing their ``id`` (``required`` fails one level above the
  deepest error the schema could yield, so no error proves itself the best:
  ``validate`` drains, as before).

Nothing is asserted but the answers' agreement.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

_SRC = str(Path(__file__).resolve().parents[1] / "src")
if _SRC not in sys.path:
    sys.path.insert(0, _SRC)

import schemacore  # noqa: E402

ITEMS = {"type": "array", "items": {"type": "integer"}}
ROWS = {
    "type": "object",
    "properties": {
        "rows": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"id": {"type": "integer"}},
                "required": ["id"],
            },
        }
    },
}


def workloads(size: int) -> dict[str, tuple[Any, Any]]:
    return {
        "many": (ITEMS, ["x"] * size),
        "last": (ITEMS, [*range(size - 1), "x"]),
        "nested": (ROWS, {"rows": [{"id": "x"} for _ in range(size)]}),
        "shallow": (ROWS, {"rows": [{"name": "x"} for _ in range(size)]}),
    }


def _validate(validator: schemacore.Validator, instance: Any) -> Any:
    try:
        validator.validate(instance)
    except schemacore.ValidationError as error:
        return error
    return None


def _drained(validator: schemacore.Validator, instance: Any) -> Any:
    if validator.is_valid(instance):
        return None
    return schemacore.best_match(list(validator.iter_errors(instance)))


def _timed(fn: Callable[[], Any], loops: int) -> float:
    start = time.perf_counter()
    for _ in range(loops):
        fn()
    return (time.perf_counter() - start) / loops


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1,000 items, 2 rounds")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--workload", action="append", help="only these (repeatable)")
    args = parser.parse_args(argv)
    size, rounds = (1_000, 2) if args.quick else (args.size, args.rounds)
    ways: dict[str, Callable[[schemacore.Validator, Any], Any]] = {
        "validate": _validate,
        "drained": _drained,
        "is_valid": lambda v, x: v.is_valid(x),
    }
    cases = []
    chosen = {n: w for n, w in workloads(size).items() if n in (args.workload or [n])}
    for name, (schema, instance) in chosen.items():
        validator = schemacore.compile(schema)
        fast, slow = _validate(validator, instance), _drained(validator, instance)
        if (fast.instance_location, fast.keyword_location) != (
            slow.instance_location,
            slow.keyword_location,
        ):
            raise SystemExit(f"{name}: validate() and the drained best_match disagree")
        for way, fn in ways.items():
            # Bound once, so every round times the same call; loops sized to ~50 ms.
            call = (lambda f, v, x: lambda: f(v, x))(fn, validator, instance)
            once = _timed(call, 1)
            cases.append((name, way, call, max(1, min(10_000, int(0.05 / max(once, 1e-7))))))
    best: dict[tuple[str, str], float] = {}
    for round_ in range(rounds):
        # A rotating order: drift hits every way alike.
        shift = round_ % len(cases)
        for name, way, call, loops in cases[shift:] + cases[:shift]:
            took = _timed(call, loops)
            best[(name, way)] = min(best.get((name, way), took), took)
    print(f"python {sys.version.split()[0]}, {size:,} items, min of {rounds} rounds")
    print(f"{'workload':<10}" + "".join(f"{way:>14}" for way in ways))
    for name in chosen:
        row = "".join(f"{best[(name, way)] * 1e3:>11.3f} ms" for way in ways)
        print(f"{name:<10}{row}")


if __name__ == "__main__":
    main()
