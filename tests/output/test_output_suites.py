"""The suite's output tests and annotation tests, and evaluate() against the fast paths.

- ``output-tests/draft2020-12``: each expected output is a schema; the ``basic`` output
  of ``evaluate`` must be valid against it (the suite's output schema is registered).
- ``annotations/tests``: every case compatible with 2020-12; the annotations collected
  at an instance location for a keyword must be exactly the expected ones.
- every required-suite case: ``evaluate(x).valid == is_valid(x)``, the evaluation tree
  reaches the same verdict on its own, and the ``basic`` errors are exactly the errors
  ``iter_errors`` yields.
- the instances of all these (and of the 2019-09 output tests): every part of the lazy
  ``evaluate(x)``, each output format and its ``iter_json`` text, equals a direct
  recomputation (tests/output/recompute.py).
"""

from __future__ import annotations

import json
import os
from typing import Any
from urllib.parse import unquote

import pytest

import schemacore
from schemacore.pointer import as_fragment, escape, parse_pointer
from schemacore.uri import join, split_fragment
from tests.output.recompute import check_agreement
from tests.suite.cases import ValidatorCache, load_cases
from tests.suite.locate import SuiteUnavailable, load_registry, locate_suite

try:
    SUITE = locate_suite().path
except SuiteUnavailable as exc:
    if os.environ.get("SCHEMACORE_REQUIRE_SUITE") == "1":
        raise
    pytest.skip(f"JSON-Schema-Test-Suite unavailable: {exc}", allow_module_level=True)

OUTPUT_DIR = SUITE / "output-tests" / "draft2020-12"
OUTPUT_SCHEMA = json.loads((OUTPUT_DIR / "output-schema.json").read_text())


def _output_cases() -> list[Any]:
    params = []
    for path in sorted((OUTPUT_DIR / "content").glob("*.json")):
        for group in json.loads(path.read_text()):
            for test in group["tests"]:
                for fmt, expected in test["output"].items():
                    case_id = f"{path.name}::{group['description']}::{test['description']}::{fmt}"
                    params.append(
                        pytest.param(group["schema"], test["data"], fmt, expected, id=case_id)
                    )
    return params


OUTPUT_CASES = _output_cases()


def test_output_cases_were_found() -> None:
    assert len(OUTPUT_CASES) >= 4


@pytest.mark.parametrize(("schema", "data", "fmt", "expected"), OUTPUT_CASES)
def test_output_case(schema: Any, data: Any, fmt: str, expected: Any) -> None:
    produced = schemacore.compile(schema).evaluate(data).output(fmt)
    checker = schemacore.compile(expected, registry={OUTPUT_SCHEMA["$id"]: OUTPUT_SCHEMA})
    problems = [e.message + " at " + e.instance_location for e in checker.iter_errors(produced)]
    assert checker.is_valid(produced), (produced, problems)


def _compatible(compatibility: str | None) -> bool:
    """The suite's compatibility notation, for release 2020."""
    if compatibility is None:
        return True
    for part in compatibility.split(","):
        if part.startswith("<="):
            if int(part[2:]) < 2020:
                return False
        elif part.startswith("="):
            if int(part[1:]) != 2020:
                return False
        elif int(part) > 2020:
            return False
    return True


def _canonical(root: Any, location: str) -> str:
    """The suite writes schema locations as pointers into the root document; an
    annotation's location is canonical (relative to the nearest ``$id``)."""
    base = root.get("$id", "") if isinstance(root, dict) else ""
    base = split_fragment(join("", base))[0]
    pointer = ""
    node = root
    for token in parse_pointer(unquote(split_fragment(location)[1])):
        node = node[int(token)] if isinstance(node, list) else node[token]
        pointer += "/" + escape(token)
        if isinstance(node, dict) and isinstance(node.get("$id"), str):
            base = split_fragment(join(base, node["$id"]))[0]
            pointer = ""
    return f"{base}#{as_fragment(pointer)}"


def _annotation_cases() -> list[Any]:
    params = []
    for path in sorted((SUITE / "annotations" / "tests").glob("*.json")):
        for case in json.loads(path.read_text())["suite"]:
            if not _compatible(case.get("compatibility")):
                continue
            for index, test in enumerate(case["tests"]):
                for assertion in test["assertions"]:
                    case_id = (
                        f"{path.name}::{case['description']}::{index}::"
                        f"{assertion['location']}::{assertion['keyword']}"
                    )
                    params.append(pytest.param(case, test["instance"], assertion, id=case_id))
    return params


ANNOTATION_CASES = _annotation_cases()


def test_annotation_cases_were_found() -> None:
    assert len(ANNOTATION_CASES) >= 80


@pytest.mark.parametrize(("case", "instance", "assertion"), ANNOTATION_CASES)
def test_annotation_case(case: Any, instance: Any, assertion: Any) -> None:
    validator = schemacore.compile(case["schema"], registry=case.get("externalSchemas", {}))
    evaluation = validator.evaluate(instance)
    got = {
        annotation.schema_location: annotation.value
        for annotation in evaluation.annotations
        if annotation.instance_location == assertion["location"]
        and annotation.keyword == assertion["keyword"]
    }
    expected = {
        _canonical(case["schema"], location): value
        for location, value in assertion["expected"].items()
    }
    assert got == expected


REGISTRY = load_registry(SUITE)
_validators = ValidatorCache(REGISTRY)
REQUIRED = [case for case in load_cases(SUITE) if case.section == "required"]


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in REQUIRED])
def test_evaluate_agrees_with_fast_paths(case: Any) -> None:
    validator = _validators.get(case)
    evaluation = validator.evaluate(case.data)
    assert evaluation.valid is validator.is_valid(case.data) is case.valid
    # The evaluation tree decides on its own; it must reach the same verdict.
    assert evaluation._tree.valid is case.valid
    basic = evaluation.output("basic")
    listed = [
        (e["keywordLocation"], e["instanceLocation"], e["error"]) for e in basic.get("errors", [])
    ]
    yielded = [
        (e.keyword_location, e.instance_location, e.message)
        for e in validator.iter_errors(case.data)
    ]
    assert listed == yielded


def _output_instances() -> list[Any]:
    params = []
    for path in sorted((SUITE / "output-tests").glob("*/content/*.json")):
        for group in json.loads(path.read_text()):
            for test in group["tests"]:
                case_id = f"{path.parent.parent.name}/{path.name}::{test['description']}"
                params.append(pytest.param(group["schema"], test["data"], id=case_id))
    return params


@pytest.mark.parametrize(("schema", "data"), _output_instances())
def test_lazy_evaluation_of_output_tests_agrees(schema: Any, data: Any) -> None:
    check_agreement(schemacore.compile(schema), data)


@pytest.mark.parametrize(("case", "instance", "assertion"), ANNOTATION_CASES)
def test_lazy_evaluation_of_annotation_tests_agrees(
    case: Any, instance: Any, assertion: Any
) -> None:
    validator = schemacore.compile(case["schema"], registry=case.get("externalSchemas", {}))
    check_agreement(validator, instance)


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in REQUIRED])
def test_lazy_evaluation_of_required_cases_agrees(case: Any) -> None:
    assert check_agreement(_validators.get(case), case.data) is case.valid
