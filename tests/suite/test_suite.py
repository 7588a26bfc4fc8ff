"""The official JSON-Schema-Test-Suite (drafts 4, 6, 7, 2019-09 and 2020-12), one pytest
case per suite test, each folder compiled with ``default_dialect`` set to its draft.

Where the suite comes from: see ``locate.py`` (``$JSON_SCHEMA_TEST_SUITE``, then
``../shared/JSON-Schema-Test-Suite`` beside the clone, then a verified download of
the commit in ``tests/suite/COMMIT``). If none is available the whole module is
skipped with the reason shown; with ``SCHEMACORE_REQUIRE_SUITE=1`` (set by
``.ci/run``) that is an error instead, so CI can never pass without the suite.

Every file under ``remotes/`` is in the registry as ``http://localhost:1234/<path>``.
Each group's schema is compiled once; each case must give the expected answer on
every path: ``is_valid`` (closures and generated code), ``iter_errors`` (no errors
iff valid, every error a ``schemacore.ValidationError`` with string locations),
``validate`` and ``evaluate()`` (its ``valid``, and the evaluation walk's own verdict,
read from the list output).
``optional/format/*.json`` runs with ``format_assertion=True``; everything else,
``optional/format-assertion.json`` included, with the defaults.

The optional directory carries the ``optional_suite`` marker and runs by default;
``SCHEMACORE_SUITE_OPTIONAL=0`` skips it (the skips stay visible in the summary);
``-m "not optional_suite"`` hides it altogether and ``-m optional_suite`` runs only it.

Known deviations live in ``expectations.py`` (SKIP, and strict XFAIL);
``test_expectations_are_not_stale`` keeps that list honest.
"""

from __future__ import annotations

import os
from typing import Any

import pytest

from tests.suite.cases import (
    DRAFTS,
    SECTIONS,
    SuiteCase,
    ValidatorCache,
    check_case,
    expectation_for,
    expectation_problems,
    load_cases,
)
from tests.suite.locate import SuiteUnavailable, load_registry, locate_suite, pinned_commit

OPTIONAL_ENV = "SCHEMACORE_SUITE_OPTIONAL"
OPTIONAL_REASON = "optional suite turned off with SCHEMACORE_SUITE_OPTIONAL=0"

try:
    SUITE = locate_suite()
except SuiteUnavailable as exc:
    if os.environ.get("SCHEMACORE_REQUIRE_SUITE") == "1":
        raise
    pytest.skip(f"JSON-Schema-Test-Suite unavailable: {exc}", allow_module_level=True)

CASES = load_cases(SUITE.path)
REGISTRY = load_registry(SUITE.path)
_validators = ValidatorCache(REGISTRY)
_optional_disabled = os.environ.get(OPTIONAL_ENV) == "0"


def _param(case: SuiteCase) -> Any:
    marks: list[pytest.MarkDecorator] = []
    if case.section != "required":
        marks.append(pytest.mark.optional_suite)
        if _optional_disabled:
            marks.append(pytest.mark.skip(reason=OPTIONAL_REASON))
    expectation = expectation_for(case)
    if expectation is not None:
        kind, reason = expectation
        if kind == "skip":
            marks.append(pytest.mark.skip(reason=f"expectations.SKIP: {reason}"))
        else:
            marks.append(pytest.mark.xfail(reason=f"expectations.XFAIL: {reason}", strict=True))
    return pytest.param(case, id=case.id, marks=marks)


@pytest.mark.parametrize("case", [_param(case) for case in CASES])
def test_case(case: SuiteCase) -> None:
    validator = _validators.get(case)
    problems = check_case(validator, case, _validators.generated(case))
    assert not problems, "\n".join(problems)


def test_expectations_are_not_stale() -> None:
    problems = expectation_problems(CASES)
    assert not problems, "tests/suite/expectations.py:\n" + "\n".join(problems)


def test_every_section_has_cases() -> None:
    # Guards against a layout change that would make a section pass vacuously.
    found = {(case.draft, case.section) for case in CASES}
    expected = {(draft, section) for draft in DRAFTS for section in SECTIONS}
    assert found == expected, f"sections without cases: {expected - found}"


def test_remotes_are_registered() -> None:
    assert "http://localhost:1234/draft2020-12/integer.json" in REGISTRY
    assert all(uri.startswith("http://localhost:1234/") for uri in REGISTRY)


def test_suite_commit_matches_pin() -> None:
    pin = pinned_commit()
    if SUITE.commit is None:
        pytest.skip(f"{SUITE.path} has no COMMIT file; cannot tell its version")
    if SUITE.source == "env" and SUITE.commit != pin:
        pytest.skip(f"JSON_SCHEMA_TEST_SUITE is at {SUITE.commit}, the pin is {pin}")
    assert SUITE.commit == pin, f"suite at {SUITE.describe()} is not the pinned {pin}"
