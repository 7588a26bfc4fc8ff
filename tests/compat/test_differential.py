"""schemacore.compat against python-jsonschema on the Draft 2020-12 suite.

For every suite test python-jsonschema answers as the suite expects, the compat
validator must give the same ``is_valid``; for every invalid one, the same errors:
``absolute_path``, ``absolute_schema_path``, ``validator``, ``validator_value``,
``schema``, ``instance``, ``json_path``. Only the places where the two report a
failure differently by design are left out, each by a rule below (``_by_design``),
never by a list of cases.
"""

from __future__ import annotations

import json
import os
from collections import Counter
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
from referencing.jsonschema import DRAFT202012

try:
    SUITE = locate_suite().path
except SuiteUnavailable as exc:
    if os.environ.get("SCHEMACORE_REQUIRE_SUITE") == "1":
        raise
    pytest.skip(f"JSON-Schema-Test-Suite unavailable: {exc}", allow_module_level=True)

ROOT = SUITE / "tests" / "draft2020-12"
REGISTRY = load_registry(SUITE)
THEIR_REGISTRY = referencing.Registry().with_resources(
    (uri, referencing.Resource.from_contents(doc, DRAFT202012)) for uri, doc in REGISTRY.items()
)
FILES = sorted(
    [*ROOT.glob("*.json"), *ROOT.glob("optional/*.json"), *ROOT.glob("optional/format/*.json")]
)
# Counted over all files by the tests, checked by test_enough_was_compared.
TOTALS: Counter[str] = Counter()

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
    # python-jsonschema: one "items" error for `items: false`; schemacore: each item.
    return validator == "items" and value == "false"


def _cases(path: Path) -> list[tuple[str, Any, list[dict[str, Any]]]]:
    groups = json.loads(path.read_text(encoding="utf-8"))
    return [(group["description"], group["schema"], group["tests"]) for group in groups]


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT)) for p in FILES])
def test_agrees_with_python_jsonschema(path: Path) -> None:
    formats = "optional/format" in path.as_posix()
    problems: list[str] = []
    for description, schema, tests in _cases(path):
        if "$schema" in json.dumps(schema) and "2020-12" not in json.dumps(schema):
            continue  # a schema of another draft: not a 2020-12 comparison
        ours = compat.Draft202012Validator(
            schema,
            registry=REGISTRY,
            format_checker=compat.Draft202012Validator.FORMAT_CHECKER if formats else None,
        )
        theirs = jsonschema.Draft202012Validator(
            schema,
            registry=THEIR_REGISTRY,
            format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER if formats else None,
        )
        for test in tests:
            where = f"{description} / {test['description']}"
            try:
                their_answer = theirs.is_valid(test["data"])
            except Exception:
                TOTALS["python-jsonschema raised"] += 1
                continue
            if their_answer != test["valid"]:
                TOTALS["python-jsonschema disagrees with the suite"] += 1
                continue
            try:
                answer = ours.is_valid(test["data"])
            except UnsupportedCapability:
                # Another draft reached through a reference (the suite's cross-draft
                # tests; tests/suite/expectations.py lists them for the engine).
                TOTALS["schemacore unsupported"] += 1
                continue
            TOTALS["is_valid compared"] += 1
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
                TOTALS["errors identical"] += 1
            else:
                TOTALS["errors differ by design"] += 1
    assert not problems, "\n".join(problems)


def test_enough_was_compared() -> None:
    """Runs after the per-file tests (pytest keeps file order): the comparison must
    have covered most of the suite, not passed vacuously."""
    if not TOTALS:
        pytest.skip("run together with test_agrees_with_python_jsonschema")
    assert TOTALS["is_valid compared"] > 1200, TOTALS
    assert TOTALS["errors identical"] > 450, TOTALS
    assert TOTALS["errors differ by design"] < TOTALS["errors identical"] / 5, TOTALS
