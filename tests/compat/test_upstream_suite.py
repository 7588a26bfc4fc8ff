"""python-jsonschema's own tests, run against schemacore.compat.

The installed python-jsonschema wheel ships its test modules (``jsonschema/tests/``).
They run here in a pytest subprocess with ``tests/compat/upstream_plugin.py``, which
swaps in every name compat provides (the migration docs/migration.md prescribes:
change the import) and deselects what the guide puts out of scope, each rule tied to
one of its lines (``upstream_plugin.RULES``). Everything else must pass, and the
counts must be the ones the guide states.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.compat.upstream_scope import RULES
from tests.suite.locate import REPO_ROOT, SuiteUnavailable, locate_suite

if os.environ.get("SCHEMACORE_REQUIRE_CLIENTS") != "1":  # CI: a missing one fails
    pytest.importorskip("jsonschema", reason="python-jsonschema is not installed")
    # test_exceptions.py checks json_path by parsing it with jsonpath-ng.
    pytest.importorskip("jsonpath_ng", reason="jsonpath-ng is not installed")
import jsonschema
import jsonschema.tests  # the wheel's test package, run below

try:
    SUITE = locate_suite().path
except SuiteUnavailable as exc:
    if os.environ.get("SCHEMACORE_REQUIRE_SUITE") == "1":
        raise
    pytest.skip(f"JSON-Schema-Test-Suite unavailable: {exc}", allow_module_level=True)

UPSTREAM = Path(jsonschema.tests.__file__).parent
# Every test module of the wheel. fuzz_validate.py is not a pytest module (it runs
# under hypothesis/atheris on its own); typing/ holds a file for type checkers only.
FILES = (
    "test_validators.py",
    "test_jsonschema_test_suite.py",
    "test_types.py",
    "test_format.py",
    "test_exceptions.py",
    "test_utils.py",
    "test_deprecations.py",
    "test_cli.py",
)
DOCS = REPO_ROOT / "docs" / "migration.md"

# The counts docs/migration.md states, measured with this python-jsonschema release
# (pyproject.toml pins it for the test extra: a new release brings new tests).
MEASURED_WITH = "4.26.0"
PASSED = 7938
DESELECTED = {
    "Draft 3": 44,
    "message wording": 68,
    "RefResolver": 39,
    "type redefinition": 33,
    "deprecated APIs": 29,
    "create": 20,
    "best_match's rule": 8,
    "error causes": 6,
    "minContains/maxContains location": 3,
    "error order": 1,
    "values outside the JSON data model": 5,
    "unresolvable references": 1,
    "the jsonschema command line": 50,
}
# python-jsonschema's own skip list for its suite runner (test_jsonschema_test_suite.py).
SKIPPED = {
    "ECMA regex support will be added in #1142.": 36,
    "Leap seconds are unsupported.": 28,
    "Complex email validation is (intentionally) unsupported.": 17,
    "Vocabulary support is still in-progress.": 2,
}


def _suite_view(root: Path) -> Path:
    """The suite laid out as python-jsonschema's runner reads it, less Draft 3.

    The runner builds its Draft 3 test class at import from ``tests/draft3``, which
    the suite copy schemacore uses may lack: empty files stand in (whether or not
    the copy has that folder: Draft 3 is out of scope), so that class has no tests.
    Everything else links to the real suite.
    """
    (root / "tests").mkdir(parents=True)
    (root / "remotes").symlink_to(SUITE / "remotes", target_is_directory=True)
    for draft in sorted((SUITE / "tests").iterdir()):
        if draft.is_dir() and draft.name != "draft3":
            (root / "tests" / draft.name).symlink_to(draft, target_is_directory=True)
    optional = root / "tests" / "draft3" / "optional"
    optional.mkdir(parents=True)
    for name in ("bignum", "non-bmp-regex", "zeroTerminatedFloats"):
        (optional / f"{name}.json").write_text("[]", encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Run the wheel's tests once through the plugin; the report and the output."""
    scratch = tmp_path_factory.mktemp("upstream")
    report = scratch / "report.json"
    site = UPSTREAM.parent.parent  # where ``jsonschema`` is installed
    env = {
        **os.environ,
        "JSON_SCHEMA_TEST_SUITE": str(_suite_view(scratch / "suite")),
        "SCHEMACORE_UPSTREAM_REPORT": str(report),
        "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), str(REPO_ROOT / "src")]),
        # Only the plugin, and nothing written into the installed package.
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "tests.compat.upstream_plugin",
        "-p",
        "no:cacheprovider",
        "-c",
        os.devnull,
        "--rootdir",
        str(site),
        "-q",
        "-rfE",
        *(str(UPSTREAM / name) for name in FILES),
    ]
    result = subprocess.run(command, cwd=site, env=env, capture_output=True, text=True, timeout=900)
    output = result.stdout[-20000:] + result.stderr[-5000:]
    assert report.exists(), f"the plugin wrote no report (exit {result.returncode}):\n{output}"
    found: dict[str, Any] = json.loads(report.read_text(encoding="utf-8"))
    found["returncode"] = result.returncode
    found["output"] = output
    return found


def test_every_test_in_scope_passes(run: dict[str, Any]) -> None:
    assert run["failed"] == [] and run["returncode"] == 0, run["output"]
    assert run["passed"] > 7000, run["output"]


def test_the_tests_ran_against_compat(run: dict[str, Any]) -> None:
    # The suite runner alone compiles a schema per test case through compat.
    assert run["compat_compiles"] > 7000
    # No test that ran validated with python-jsonschema's class of a draft compat has.
    assert run["upstream_ran"] == []


def test_every_deselection_rule_still_matches_a_test(run: dict[str, Any]) -> None:
    assert run["unused_patterns"] == []


def test_the_counts_are_the_documented_ones(run: dict[str, Any]) -> None:
    if run["jsonschema"] != MEASURED_WITH:
        pytest.skip(f"counts measured with jsonschema {MEASURED_WITH}, not {run['jsonschema']}")
    counts = {reason: len(tests) for reason, tests in run["deselected"].items()}
    assert (run["passed"], counts, run["skipped"]) == (PASSED, DESELECTED, SKIPPED)


def _plain(text: str) -> str:
    return " ".join(text.split())


def test_the_migration_guide_states_the_scope() -> None:
    guide = _plain(DOCS.read_text(encoding="utf-8"))
    # Each reason rests on a line of the guide, and the guide's table counts it.
    for rule in RULES:
        assert _plain(rule.docs) in guide, rule.reason
        row = re.escape(f"| {rule.reason} | {DESELECTED[rule.reason]} |")
        assert re.search(row, guide), rule.reason
    assert f"{PASSED:,} passed" in guide
    assert f"python-jsonschema {MEASURED_WITH}" in guide
    assert f"{sum(SKIPPED.values())} skipped" in guide
    assert set(DESELECTED) == {rule.reason for rule in RULES}
