"""Print conformance figures for the JSON-Schema-Test-Suite, per section.

Usage: ``python tests/suite/report.py [--all]``

Runs every case (the optional sections too, regardless of
``SCHEMACORE_SUITE_OPTIONAL``) through the same checks as ``test_suite.py`` and prints
one line per section, then the failing case ids. Cases listed in
``expectations.SKIP`` are not run and are counted separately; failures listed in
``expectations.XFAIL`` are still failures here, only tagged. Exit status 1 if any
required case fails, 2 if the suite cannot be found, else 0.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

if __package__ in (None, ""):
    # Run as a script: make the repository root importable for ``tests.suite``,
    # and the source tree for ``schemacore`` when it is not installed.
    _root = Path(__file__).resolve().parents[2]
    sys.path.insert(0, str(_root))
    sys.path.insert(1, str(_root / "src"))

from tests.suite.cases import (
    DRAFTS,
    SECTIONS,
    SuiteCase,
    ValidatorCache,
    check_case,
    expectation_for,
    load_cases,
)
from tests.suite.locate import (
    SuiteUnavailable,
    load_registry,
    locate_suite,
    pinned_commit,
)

_LABELS = {
    "required": "required",
    "optional": "optional",
    "optional/format": "optional/format",
}
_NOTES = {
    "required": "",
    "optional": "",
    "optional/format": " (format_assertion=True)",
}
_SHOWN_PER_SECTION = 25


def _run(case: SuiteCase, validators: ValidatorCache) -> str | None:
    """``None`` if the case passes, else a one-line reason."""
    try:
        problems = check_case(validators.get(case), case, validators.generated(case))
    except Exception as exc:  # a crash is a failure of that case, not of the report
        return f"raised {type(exc).__name__}: {exc}"
    return "; ".join(problems) or None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--all", action="store_true", help="list every failure, not the first 25")
    args = parser.parse_args(argv)

    try:
        suite = locate_suite()
    except SuiteUnavailable as exc:
        print(f"error: JSON-Schema-Test-Suite unavailable: {exc}", file=sys.stderr)
        return 2
    pin = pinned_commit()
    print(f"JSON-Schema-Test-Suite: {suite.describe()}")
    if suite.commit not in (None, pin):
        print(f"warning: this is not the pinned commit {pin}")

    cases = load_cases(suite.path)
    validators = ValidatorCache(load_registry(suite.path))
    keys = [(draft, section) for draft in DRAFTS for section in SECTIONS]
    failures: dict[tuple[str, str], list[tuple[str, str]]] = {key: [] for key in keys}
    totals = dict.fromkeys(keys, 0)
    passed = dict.fromkeys(keys, 0)
    skipped = dict.fromkeys(keys, 0)

    for case in cases:
        key = (case.draft, case.section)
        totals[key] += 1
        expectation = expectation_for(case)
        if expectation is not None and expectation[0] == "skip":
            skipped[key] += 1
            continue
        reason = _run(case, validators)
        if reason is None:
            passed[key] += 1
            continue
        if expectation is not None:
            reason = f"[listed XFAIL: {expectation[1]}] {reason}"
        failures[key].append((case.id, reason))

    print(
        "every path agrees: both is_valid paths, iter_errors, validate, evaluate().valid "
        "and the evaluation walk"
    )
    for key in keys:
        draft, section = key
        label = f"{draft} {_LABELS[section]}"
        line = f"{label}: {passed[key]}/{totals[key]} passed{_NOTES[section]}"
        if skipped[key]:
            line += f", {skipped[key]} skipped (expectations.SKIP)"
        print(line)

    for key in keys:
        listed = failures[key]
        if not listed:
            continue
        print(f"\nfailures, {key[0]} {_LABELS[key[1]]} ({len(listed)}):")
        shown = listed if args.all else listed[:_SHOWN_PER_SECTION]
        for case_id, reason in shown:
            print(f"  {case_id}\n      {reason}")
        if len(shown) < len(listed):
            print(f"  ... and {len(listed) - len(shown)} more (--all lists them)")

    return 1 if any(failures[(draft, "required")] for draft in DRAFTS) else 0


if __name__ == "__main__":
    sys.exit(main())
