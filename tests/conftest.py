"""Session-wide pytest hooks: say which suite checkout the run uses."""

from __future__ import annotations

import os

import pytest

from tests.suite.locate import SuiteUnavailable, locate_suite


def pytest_report_header(config: pytest.Config) -> list[str]:
    try:
        where = locate_suite().describe()
    except SuiteUnavailable as exc:
        where = f"unavailable ({exc})"
    optional = "off" if os.environ.get("SCHEMACORE_SUITE_OPTIONAL") == "0" else "on"
    return [f"JSON-Schema-Test-Suite: {where}; optional suite: {optional}"]
