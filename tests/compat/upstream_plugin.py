"""A pytest plugin that runs python-jsonschema's own tests as migrated code.

Loaded with ``-p tests.compat.upstream_plugin`` by ``test_upstream_suite.py`` in a
pytest subprocess over the ``jsonschema/tests/`` files of the installed wheel. It
does what docs/migration.md tells a user to do, change the import: every name
``schemacore.compat`` provides replaces python-jsonschema's where the test modules
look it up (``jsonschema.X``, ``jsonschema.validators.X``, ``jsonschema.exceptions.X``,
``jsonschema._types.TypeChecker``), before any test module is imported.

The package ``jsonschema`` gets compat's names as attributes. Its submodules are
replaced in ``sys.modules`` (and on the package) by copies with compat's names, so a
test module's ``from jsonschema import validators`` or ``from jsonschema.validators
import X`` sees compat while python-jsonschema's own functions (``extend``,
``create``, which a migrated program still calls) keep their own module globals, as
they would in a real migration. A name compat does not provide stays
python-jsonschema's; every test that relies on one is deselected below.

What is out of scope is ``upstream_scope.RULES``: each rule names the tests it
deselects and the line of docs/migration.md that says why. Whatever is not
deselected must pass. The outcome (passed, deselected and skipped by reason,
failures, and where python-jsonschema's own validator classes ran) is written as
JSON to the file named by ``SCHEMACORE_UPSTREAM_REPORT``.
"""

from __future__ import annotations

import fnmatch
import json
import os
import sys
import types
from collections import Counter
from collections.abc import Callable, Generator, Iterator
from typing import Any

import jsonschema
import jsonschema._types
import jsonschema.exceptions
import jsonschema.validators
import pytest

from schemacore import compat
from schemacore.compat import _ValidatorBase
from tests.compat.upstream_scope import MESSAGE_NEUTRAL, RULES, Rule

# -- the migration ----------------------------------------------------------------

_DRAFTS = (
    "Draft4Validator",
    "Draft6Validator",
    "Draft7Validator",
    "Draft201909Validator",
    "Draft202012Validator",
)
# python-jsonschema's own classes, kept to notice a test that still runs one.
UPSTREAM_CLASSES = {name: getattr(jsonschema.validators, name) for name in _DRAFTS}


class NoDraft3:
    """Stands in for ``Draft3Validator``, which compat does not have.

    The test modules read the name at import (class bodies, the suite runner's
    skip functions), so it must exist; any test that uses it fails here instead of
    quietly running python-jsonschema's class. Every such test is deselected.
    """

    FORMAT_CHECKER = compat.FormatChecker()  # read by the suite runner at import

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise compat.UnsupportedDialect("schemacore.compat has no Draft3Validator")

    @classmethod
    def check_schema(cls, *args: Any, **kwargs: Any) -> None:
        raise compat.UnsupportedDialect("schemacore.compat has no Draft3Validator")


_CLASSES = {name: getattr(compat, name) for name in _DRAFTS}
PACKAGE_NAMES: dict[str, Any] = {
    **_CLASSES,
    "Draft3Validator": NoDraft3,
    "FormatChecker": compat.FormatChecker,
    "TypeChecker": compat.TypeChecker,
    "ValidationError": compat.ValidationError,
    "SchemaError": compat.SchemaError,
    "validate": compat.validate,
}
VALIDATORS_NAMES: dict[str, Any] = {
    **_CLASSES,
    "Draft3Validator": NoDraft3,
    # The tests' name for the newest draft's class (python-jsonschema's default).
    "_LATEST_VERSION": compat.Draft202012Validator,
    "validate": compat.validate,
    "validator_for": compat.validator_for,
}
EXCEPTIONS_NAMES: dict[str, Any] = {
    name: getattr(compat, name)
    for name in (
        "ValidationError",
        "SchemaError",
        "ErrorTree",
        "FormatError",
        "UndefinedTypeCheck",
        "UnknownType",
        "best_match",
        "relevance",
    )
}
TYPES_NAMES: dict[str, Any] = {"TypeChecker": compat.TypeChecker}


def _migrated(original: types.ModuleType, names: dict[str, Any]) -> types.ModuleType:
    """A copy of ``original`` with ``names`` replaced, installed where imports find it."""
    module = types.ModuleType(original.__name__, original.__doc__)
    module.__dict__.update(original.__dict__)
    module.__dict__.update(names)
    sys.modules[original.__name__] = module
    return module


def _migrate() -> None:
    for name, value in PACKAGE_NAMES.items():
        setattr(jsonschema, name, value)
    jsonschema.validators = _migrated(jsonschema.validators, VALIDATORS_NAMES)
    jsonschema.exceptions = _migrated(jsonschema.exceptions, EXCEPTIONS_NAMES)
    jsonschema._types = _migrated(jsonschema._types, TYPES_NAMES)


_migrate()


# -- what the harness adds ------------------------------------------------------


def _contents(error: Any) -> dict[str, Any]:
    # python-jsonschema's best_match tests compare two errors with the private
    # ``_contents()``: here it is built from compat's public attributes.
    names = (
        *("message", "cause", "context", "validator", "validator_value", "path"),
        *("schema_path", "instance", "schema", "parent"),
    )
    return {name: getattr(error, name) for name in names}


compat.ValidationError._contents = _contents  # type: ignore[attr-defined]


class AnyText(str):
    """A message that equals every string: the message-neutral run of a test that
    also checks python-jsonschema's wording (docs/migration.md: "Messages are
    schemacore's own wording")."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, str)

    def __ne__(self, other: object) -> bool:
        return not isinstance(other, str)

    __hash__ = str.__hash__


def _neutral(error: Any) -> Any:
    error.message = AnyText(error.message)
    for sub in error.context:
        _neutral(sub)
    return error


def _short_id(item: pytest.Item) -> str:
    return f"{item.path.name}::{item.nodeid.split('::', 1)[1]}"


def _matches(short: str, patterns: tuple[str, ...]) -> bool:
    for pattern in patterns:
        if fnmatch.fnmatchcase(short, pattern):
            return True
    return False


def rule_for(short: str) -> Rule | None:
    """The rule deselecting the test ``file.py::Class::test``, if any."""
    for rule in RULES:
        if _matches(short, rule.patterns):
            return rule
    return None


# -- what happened --------------------------------------------------------------


class Outcome:
    """Collects the run's outcome for the report."""

    def __init__(self) -> None:
        self.deselected: dict[str, list[str]] = {rule.reason: [] for rule in RULES}
        self.unused: list[str] = []
        self.passed: list[str] = []
        self.failed: list[str] = []
        self.skipped: Counter[str] = Counter()
        self.upstream_ran: list[str] = []  # tests where python-jsonschema's classes ran
        self.compiles = 0  # schemas compat compiled: the swap did take effect
        self.current = ""

    def write(self, path: str) -> None:
        report = {
            "jsonschema": _installed_version(),
            "passed": len(self.passed),
            # Per module and class: what of the scope ran (the suite runner's classes
            # are one per draft).
            "passed_by_class": dict(Counter(_class_of(test) for test in self.passed)),
            "failed": self.failed,
            "skipped": dict(self.skipped),
            "deselected": self.deselected,
            "unused_patterns": self.unused,
            "upstream_ran": sorted(set(self.upstream_ran)),
            "compat_compiles": self.compiles,
        }
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(report, handle, indent=1, sort_keys=True)


def _class_of(test: str) -> str:
    return "::".join(test.split("::")[:2])


def _installed_version() -> str:
    from importlib.metadata import version

    return version("jsonschema")


OUTCOME = Outcome()


def _count_compiles() -> None:
    original = _ValidatorBase._compile

    def counted(self: _ValidatorBase) -> Any:
        OUTCOME.compiles += 1
        return original(self)

    _ValidatorBase._compile = counted  # type: ignore[method-assign]


def _watch_upstream() -> None:
    # A test that still validates with python-jsonschema's class for a draft compat
    # has was not migrated: the outer test requires there are none.
    for cls in UPSTREAM_CLASSES.values():
        original = cls.iter_errors

        def watched(self: Any, *args: Any, __original: Callable[..., Any] = original) -> Any:
            OUTCOME.upstream_ran.append(OUTCOME.current)
            return __original(self, *args)

        cls.iter_errors = watched


_count_compiles()
_watch_upstream()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselect what RULES put out of scope, counting each under its reason.

    ``SCHEMACORE_UPSTREAM_ALL=1`` deselects nothing: a maintainer's view of what
    each rule hides (the report still names the rule of every test)."""
    everything = os.environ.get("SCHEMACORE_UPSTREAM_ALL") == "1"
    kept: list[pytest.Item] = []
    dropped: list[pytest.Item] = []
    used: set[str] = set()
    for item in items:
        short = _short_id(item)
        rule = rule_for(short)
        if rule is None or everything:
            kept.append(item)
        else:
            dropped.append(item)
        if rule is None:
            continue
        OUTCOME.deselected[rule.reason].append(short)
        for pattern in rule.patterns:
            if fnmatch.fnmatchcase(short, pattern):
                used.add(pattern)
                break
    OUTCOME.unused = [p for rule in RULES for p in rule.patterns if p not in used]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    items[:] = kept


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    """Run message-neutral where MESSAGE_NEUTRAL says so, and note the test running."""
    OUTCOME.current = short = _short_id(item)
    if not _matches(short, MESSAGE_NEUTRAL):
        return (yield)
    original = _ValidatorBase.iter_errors

    def neutral(self: _ValidatorBase, instance: Any) -> Iterator[Any]:
        for error in original(self, instance):
            yield _neutral(error)

    _ValidatorBase.iter_errors = neutral  # type: ignore[method-assign]
    try:
        return (yield)
    finally:
        _ValidatorBase.iter_errors = original  # type: ignore[method-assign]


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Count each test once: failed in any phase, else skipped, else passed."""
    short = report.nodeid.split("/")[-1]
    if report.failed:
        OUTCOME.failed.append(short)
    elif report.skipped:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else "?"
        OUTCOME.skipped[reason.removeprefix("Skipped: ")] += 1
    elif report.when == "call":
        OUTCOME.passed.append(short)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Write the report where the outer test reads it."""
    path = os.environ.get("SCHEMACORE_UPSTREAM_REPORT")
    if path:
        OUTCOME.write(path)
