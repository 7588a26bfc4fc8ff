"""Long patterns that are cheap: an alternation of literal words, as real schemas hold.

``python benchmarks/pattern_alternation.py`` builds ``^(?:word1|word2|...)$`` of 5,000
to 60,000 characters (seeded words of 4 to 12 letters) and measures, in interleaved
rounds with the minimum of each shown (the machine is shared and noisy):

- compile: ``schemacore.compile({"pattern": ...})`` with a cold pattern cache, i.e.
  translation to the ``regex`` package's syntax and its compile;
- match: one ``is_valid`` of a word of the alternation and of a 1,000-character
  string that is not one (the regular expression's worst case here: every branch
  tried at every position).

Both columns also show microseconds per 1,000 pattern characters: a flat column is
linear time. ``--quick`` runs two sizes, one round: a smoke test. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import random
import string
import sys
import time
from collections.abc import Callable

import schemacore
from schemacore import ecma262

SIZES = (5_000, 10_000, 20_000, 40_000, 60_000)


def alternation(size: int, seed: int = 1) -> tuple[str, list[str]]:
    """A pattern of about ``size`` characters and the words it alternates."""
    rng = random.Random(seed)
    words: list[str] = []
    length = 6
    while length < size:
        word = "".join(rng.choice(string.ascii_letters) for _ in range(rng.randint(4, 12)))
        words.append(word)
        length += len(word) + 1
    return "^(?:" + "|".join(words) + ")$", words


def _timed(work: Callable[[], object]) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def measure(sizes: tuple[int, ...], rounds: int) -> list[tuple[int, float, float]]:
    cases = [alternation(size) for size in sizes]
    best: dict[int, list[float]] = {index: [float("inf")] * 2 for index in range(len(cases))}
    miss = "z" * 1_000
    for _ in range(rounds):
        for index, (pattern, words) in enumerate(cases):  # interleaved: one size after another
            ecma262._CACHE.clear()  # a cold compile every round
            started = time.perf_counter()
            validator = schemacore.compile({"pattern": pattern})
            compile_time = time.perf_counter() - started

            def match(v: schemacore.Validator = validator, w: str = words[-1]) -> None:
                assert v.is_valid(w) and not v.is_valid(miss)

            match_time = _timed(match)
            best[index][0] = min(best[index][0], compile_time)
            best[index][1] = min(best[index][1], match_time)
    return [(len(cases[i][0]), best[i][0], best[i][1]) for i in range(len(cases))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="two sizes, one round")
    parser.add_argument("--rounds", type=int, default=7)
    options = parser.parse_args(argv)
    sizes = SIZES[:2] if options.quick else SIZES
    rounds = 1 if options.quick else options.rounds
    rows = measure(sizes, rounds)
    header = ("pattern chars", "compile ms", "us/1k chars", "match ms", "us/1k chars")
    print("{:>13} {:>11} {:>12} {:>9} {:>12}".format(*header))
    for chars, compiled, matched in rows:
        per = 1_000_000 / chars * 1_000
        print(
            f"{chars:>13,} {compiled * 1e3:>11.1f} {compiled * per:>12.1f} "
            f"{matched * 1e3:>9.3f} {matched * per:>12.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
