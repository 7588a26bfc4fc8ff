"""schemacore.compat against python-jsonschema on the suite of every draft compat has.

Each draft's folder of the JSON-Schema-Test-Suite (2020-12, 2019-09, 7, 6, 4) runs
through both libraries' class for that draft. For every suite test python-jsonschema
answers as the suite expects, the compat validator must give the same ``is_valid``;
for every invalid one, the same errors:
``absolute_path``, ``absolute_schema_path``, ``validator``, ``validator_value``,
``schema``, ``instance``, ``json_path``. Only the places where the two report a
failure differently by design are left out, each by a rule below (``_by_design``),
never by a list of cases.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from schemacore import UnsupportedCapability, compat
from tests.suite.locate import SuiteUnavailable, load_registry, locate_suite

if os.environ.get("SCHEMACORE_REQUIRE_CLIENTS") != "1":  # CI: a missing one fails
    pytest.importorskip("jsonschema", reason="python-jsonschema is not installed")
    pytest.importorskip("referencing", reason="referencing is not installed")
import jsonschema
import referencing
import referencing.jsonschema

try:
    SUITE = locate_suite().path
except SuiteUnavailable as exc:
    if os.environ.get("SCHEMACORE_REQUIRE_SUITE") == "1":
        raise
    pytest.skip(f"JSON-Schema-Test-Suite unavailable: {exc}", allow_module_level=True)

REGISTRY = load_registry(SUITE)


@dataclass(frozen=True)
class Draft:
    """One suite folder and each library's class (and referencing's spec) for it."""

    folder: str
    class_name: str
    specification: Any
    # What a $schema of this draft contains, to tell schemas of other drafts apart.
    marker: str


DRAFTS = (
    Draft("draft2020-12", "Draft202012Validator", referencing.jsonschema.DRAFT202012, "2020-12"),
    Draft("draft2019-09", "Draft201909Validator", referencing.jsonschema.DRAFT201909, "2019-09"),
    Draft("draft7", "Draft7Validator", referencing.jsonschema.DRAFT7, "draft-07"),
    Draft("draft6", "Draft6Validator", referencing.jsonschema.DRAFT6, "draft-06"),
    Draft("draft4", "Draft4Validator", referencing.jsonschema.DRAFT4, "draft-04"),
)


def _their_registry(draft: Draft) -> Any:
    return referencing.Registry().with_resources(
        (uri, referencing.Resource.from_contents(doc, draft.specification))
        for uri, doc in REGISTRY.items()
    )


def _files(draft: Draft) -> list[Path]:
    root = SUITE / "tests" / draft.folder
    return sorted(
        [*root.glob("*.json"), *root.glob("optional/*.json"), *root.glob("optional/format/*.json")]
    )


CASES = [(draft, path) for draft in DRAFTS for path in _files(draft)]
# Counted per draft over all files by the tests, checked by test_enough_was_compared.
TOTALS: dict[str, Counter[str]] = {draft.folder: Counter() for draft in DRAFTS}
# The least each draft's comparison must cover: the comparisons measured with
# python-jsonschema 4.26.0 (compared, identical), less some slack for suite updates.
ENOUGH = {
    "draft2020-12": (1200, 450),
    "draft2019-09": (1700, 600),
    "draft7": (1300, 480),
    "draft6": (1000, 380),
    "draft4": (700, 290),
}

# The keywords python-jsonschema reports at "contains" (minContains, maxContains)
# while schemacore reports them at their own location.
_CONTAINS = frozenset({"contains", "minContains", "maxContains"})


def _key(error: Any) -> tuple[Any, ...]:
    return (
        tuple(error.absolute_path),
        tuple(error.absolute_schema_path),
        error.validator,
        json.dumps(error.validator_value, sort_keys=True),
        json.dumps(error.schema, sort_keys=True),
        json.dumps(error.instance, sort_keys=True),
        error.json_path,
    )


def _by_design(key: tuple[Any, ...]) -> bool:
    """Whether an error seen by one side only is one of the known ways the two
    report the same failure differently."""
    schema_path, validator, value = key[1], key[2], key[3]
    if validator is None:
        # A false subschema: python-jsonschema reports it without the instance path
        # (properties, patternProperties, prefixItems) or at the applicator.
        return True
    if validator in _CONTAINS:
        return True
    if "unevaluatedProperties" in schema_path or "unevaluatedItems" in schema_path:
        # python-jsonschema: one error at the keyword; schemacore: the subschema's.
        return True
    # python-jsonschema: one "items" (2020-12) or "additionalItems" (earlier drafts)
    # error for a `false` there; schemacore: the false schema's, at each item.
    return validator in ("items", "additionalItems") and value == "false"


def _cases(path: Path) -> list[tuple[str, Any, list[dict[str, Any]]]]:
    groups = json.loads(path.read_text(encoding="utf-8"))
    return [(group["description"], group["schema"], group["tests"]) for group in groups]


@pytest.mark.parametrize(
    ("draft", "path"),
    CASES,
    ids=[f"{d.folder}/{p.relative_to(SUITE / 'tests' / d.folder)}" for d, p in CASES],
)
def test_agrees_with_python_jsonschema(draft: Draft, path: Path) -> None:
    formats = "optional/format" in path.as_posix()
    ours_class = getattr(compat, draft.class_name)
    their_class = getattr(jsonschema, draft.class_name)
    their_registry = _their_registry(draft)
    totals = TOTALS[draft.folder]
    problems: list[str] = []
    for description, schema, tests in _cases(path):
        text = json.dumps(schema)
        if "$schema" in text and draft.marker not in text:
            continue  # a schema of another draft: not this draft's comparison
        ours = ours_class(
            schema,
            registry=REGISTRY,
            format_checker=ours_class.FORMAT_CHECKER if formats else None,
        )
        theirs = their_class(
            schema,
            registry=their_registry,
            format_checker=their_class.FORMAT_CHECKER if formats else None,
        )
        for test in tests:
            where = f"{description} / {test['description']}"
            try:
                their_answer = theirs.is_valid(test["data"])
            except Exception:
                totals["python-jsonschema raised"] += 1
                continue
            if their_answer != test["valid"]:
                totals["python-jsonschema disagrees with the suite"] += 1
                continue
            try:
                answer = ours.is_valid(test["data"])
            except UnsupportedCapability:
                # Another draft reached through a reference (the suite's cross-draft
                # tests; tests/suite/expectations.py lists them for the engine).
                totals["schemacore unsupported"] += 1
                continue
            totals["is_valid compared"] += 1
            if answer != their_answer:
                problems.append(f"{where}: is_valid {answer}, python-jsonschema {their_answer}")
                continue
            if answer:
                continue
            mine = Counter(_key(error) for error in ours.iter_errors(test["data"]))
            their = Counter(_key(error) for error in theirs.iter_errors(test["data"]))
            only_mine = [key for key in mine - their if not _by_design(key)]
            only_their = [key for key in their - mine if not _by_design(key)]
            if only_mine or only_their:
                problems.append(f"{where}: only schemacore {only_mine}, only theirs {only_their}")
            elif mine == their:
                totals["errors identical"] += 1
            else:
                totals["errors differ by design"] += 1
    assert not problems, "\n".join(problems)


def test_enough_was_compared() -> None:
    """Runs after the per-file tests (pytest keeps file order): each draft's
    comparison must have covered most of its suite, not passed vacuously."""
    if not any(TOTALS.values()):
        pytest.skip("run together with test_agrees_with_python_jsonschema")
    for folder, (compared, identical) in ENOUGH.items():
        totals = TOTALS[folder]
        assert totals["is_valid compared"] > compared, (folder, totals)
        assert totals["errors identical"] > identical, (folder, totals)
        assert totals["errors differ by design"] < totals["errors identical"] / 5, (folder, totals)
