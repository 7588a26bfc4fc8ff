"""Suite cases, how each is compiled and checked, and the expectation list lookup.

Shared by ``test_suite.py`` (pytest) and ``report.py`` (figures), so both judge a
case the same way. ``schemacore`` is imported lazily: collecting the cases never
depends on the engine.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tests.suite import expectations

if TYPE_CHECKING:
    from schemacore import ValidationError, Validator

__all__ = [
    "DRAFTS",
    "SECTIONS",
    "SuiteCase",
    "ValidatorCache",
    "check_case",
    "expectation_for",
    "expectation_problems",
    "load_cases",
]

# Suite folder -> the dialect its schemas are written in (default_dialect): each
# folder's schemas may leave $schema out.
DRAFTS: dict[str, str] = {
    "draft4": "draft-04",
    "draft6": "draft-06",
    "draft7": "draft-07",
    "draft2019-09": "2019-09",
    "draft2020-12": "2020-12",
}

# Section name -> (folder below tests/<draft>, format_assertion). The suite asks
# runners to turn format assertion on for optional/format only; everything else,
# optional/format-assertion.json included, runs with the defaults.
SECTIONS: dict[str, tuple[str, bool]] = {
    "required": ("", False),
    "optional": ("optional", False),
    "optional/format": ("optional/format", True),
}


@dataclass(frozen=True, eq=False)
class SuiteCase:
    """One test of the suite: an instance, its group's schema, the expected answer.

    Ids are ``<file>::<group description>::<test description>`` with ``<file>``
    relative to the suite's ``tests/`` folder, e.g. ``draft2020-12/ref.json``.
    """

    id: str
    group_id: str
    file_id: str
    section: str
    draft: str
    schema: Any
    data: Any
    valid: bool
    format_assertion: bool


def load_cases(suite: Path) -> list[SuiteCase]:
    """The cases of every draft folder and section, in file order."""
    tests_root = suite / "tests"
    cases: list[SuiteCase] = []
    seen: set[str] = set()
    sections = [
        (draft, section, folder, format_assertion)
        for draft in DRAFTS
        for section, (folder, format_assertion) in SECTIONS.items()
    ]
    for draft, section, folder, format_assertion in sections:
        directory = tests_root / draft / folder
        for path in sorted(directory.glob("*.json")):
            file_id = path.relative_to(tests_root).as_posix()
            with path.open(encoding="utf-8") as handle:
                groups = json.load(handle)
            for group in groups:
                group_id = f"{file_id}::{group['description']}"
                for test in group["tests"]:
                    case_id = f"{group_id}::{test['description']}"
                    if case_id in seen:
                        # Ids name cases in the expectation list; an ambiguous one
                        # would silently cover two cases.
                        raise ValueError(f"duplicate suite case id: {case_id}")
                    seen.add(case_id)
                    cases.append(
                        SuiteCase(
                            id=case_id,
                            group_id=group_id,
                            file_id=file_id,
                            section=section,
                            draft=draft,
                            schema=group["schema"],
                            data=test["data"],
                            valid=test["valid"],
                            format_assertion=format_assertion,
                        )
                    )
    return cases


class ValidatorCache:
    """Compiles each group's schema once; a failed compile is not cached, so every
    case of that group reports the compile error itself.

    ``generated`` gives a second validator of the same schema whose ``is_valid`` has
    already been replaced by generated code (schemacore does that only after a number
    of calls, which a suite group never reaches), so both fast paths are checked.
    """

    def __init__(self, registry: Mapping[str, Any]) -> None:
        self._registry = registry
        self._validators: dict[str, Validator] = {}
        self._generated: dict[str, Validator] = {}

    def _compile(self, case: SuiteCase) -> Validator:
        import schemacore

        return schemacore.compile(
            case.schema,
            registry=self._registry,
            format_assertion=case.format_assertion,
            default_dialect=DRAFTS[case.draft],
        )

    def get(self, case: SuiteCase) -> Validator:
        validator = self._validators.get(case.group_id)
        if validator is None:
            validator = self._compile(case)
            self._validators[case.group_id] = validator
        return validator

    def generated(self, case: SuiteCase) -> Validator:
        validator = self._generated.get(case.group_id)
        if validator is None:
            validator = self._compile(case)
            validator._promote()
            self._generated[case.group_id] = validator
        return validator


def _summary(errors: Iterable[object], limit: int = 3) -> str:
    shown = [repr(error) for error in list(errors)[:limit]]
    return "; ".join(shown)


def _best_match_problems(
    validator: Validator, raised: ValidationError | None, errors: list[object]
) -> list[str]:
    """validate() reads errors only until one is as relevant as the schema's can be
    (schemacore.ceiling): no error may be more relevant than that, and the error it
    raised must be the one best_match picks from all of them."""
    import schemacore
    from schemacore.ceiling import error_ceiling
    from schemacore.relevance import relevance

    found = [error for error in errors if isinstance(error, schemacore.ValidationError)]
    ceiling = error_ceiling(validator._node)
    problems = [
        f"an error is more relevant than the ceiling {ceiling}: {error!r}"
        for error in found
        if relevance(error) > ceiling
    ]
    expected = schemacore.best_match(found)
    if raised is not None and expected is not None:
        where = (raised.instance_location, raised.keyword_location, raised.message)
        drained = (expected.instance_location, expected.keyword_location, expected.message)
        if where != drained:
            problems.append(f"validate raised {where}, best_match of every error is {drained}")
    return problems


def check_case(
    validator: Validator, case: SuiteCase, generated: Validator | None = None
) -> list[str]:
    """Run ``case`` through every result path of ``validator`` (and the generated-code
    ``is_valid`` of ``generated``); return what is wrong (empty: the case passed)."""
    import schemacore

    problems: list[str] = []
    expected = "valid" if case.valid else "invalid"
    # json.dumps tells 1 from 1.0 from true, so it catches any change to the instance.
    before = json.dumps(case.data)

    verdict = validator.is_valid(case.data)
    if verdict is not case.valid:
        problems.append(f"is_valid returned {verdict!r}, expected {case.valid} ({expected})")
    if generated is not None:
        verdict = generated.is_valid(case.data)
        if verdict is not case.valid:
            problems.append(
                f"is_valid (generated code) returned {verdict!r}, expected {case.valid}"
            )

    # Typed as object: these checks guard the engine against its own annotations.
    errors: list[object] = list(validator.iter_errors(case.data))
    for error in errors:
        if not isinstance(error, schemacore.ValidationError):
            problems.append(f"iter_errors yielded a {type(error).__name__}: {error!r}")
            continue
        locations: tuple[object, ...] = (error.instance_location, error.keyword_location)
        if not all(isinstance(location, str) for location in locations):
            problems.append(f"iter_errors yielded an error with non-string locations: {error!r}")
    if (not errors) != case.valid:
        if case.valid:
            problems.append(
                f"iter_errors yielded {len(errors)} error(s) for a valid instance: "
                + _summary(errors)
            )
        else:
            problems.append("iter_errors yielded no error for an invalid instance")

    try:
        validator.validate(case.data)
    except schemacore.ValidationError as error:
        raised: schemacore.ValidationError | None = error
    else:
        raised = None
    if (raised is not None) == case.valid:
        problems.append(
            f"validate {'raised' if raised else 'did not raise'} ValidationError "
            f"for an instance expected {expected}"
        )
    problems.extend(_best_match_problems(validator, raised, errors))

    evaluation = validator.evaluate(case.data)
    evaluated = evaluation.valid
    if evaluated is not case.valid:
        problems.append(f"evaluate().valid was {evaluated!r}, expected {case.valid}")
    # valid is is_valid's answer; the evaluation walk (which the list output needs)
    # reaches its own, in the root's unit.
    walked = evaluation.output("list")["details"][0]["valid"]
    if walked is not case.valid:
        problems.append(f"the evaluation walk answered {walked!r}, expected {case.valid}")

    if json.dumps(case.data) != before:
        problems.append("validation changed the instance")
    return problems


def expectation_for(case: SuiteCase) -> tuple[str, str] | None:
    """``("skip" | "xfail", reason)`` if the expectation list names this case, its
    group or its file; ``None`` otherwise."""
    for key in (case.id, case.group_id, case.file_id):
        if key in expectations.SKIP:
            return "skip", expectations.SKIP[key]
        if key in expectations.XFAIL:
            return "xfail", expectations.XFAIL[key]
    return None


def expectation_problems(cases: Iterable[SuiteCase]) -> list[str]:
    """Entries of the expectation list that match no case (stale), or that are
    listed as both SKIP and XFAIL, or that cover a case twice."""
    cases = list(cases)
    known = {key for case in cases for key in (case.id, case.group_id, case.file_id)}
    problems: list[str] = []
    for kind, entries in (("SKIP", expectations.SKIP), ("XFAIL", expectations.XFAIL)):
        for key in entries:
            if key not in known:
                problems.append(f"stale {kind} entry, matches no suite case: {key!r}")
    for key in expectations.SKIP.keys() & expectations.XFAIL.keys():
        problems.append(f"listed as both SKIP and XFAIL: {key!r}")
    listed = expectations.SKIP.keys() | expectations.XFAIL.keys()
    for case in cases:
        matches = [key for key in (case.id, case.group_id, case.file_id) if key in listed]
        if len(matches) > 1:
            problems.append(f"case {case.id!r} is covered by more than one entry: {matches}")
    return problems
