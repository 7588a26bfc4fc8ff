"""Property tests: register the hypothesis profiles and say which one is active."""

from __future__ import annotations

import pytest

from tests.properties.profiles import PROFILE, PROFILE_NAME


def pytest_report_header(config: pytest.Config) -> list[str]:
    return [
        f"schemacore property tests: hypothesis profile {PROFILE_NAME!r} "
        f"(max_examples={PROFILE.max_examples}, derandomize={PROFILE.derandomize}); "
        "choose with HYPOTHESIS_PROFILE=ci|fuzz"
    ]
