"""Hypothesis settings profiles for the engine property tests.

* ``ci`` (the default): bounded and derandomized, so every CI run checks the same
  examples and the whole folder stays well under a minute.
* ``fuzz``: many examples with fresh randomness, for long runs outside CI::

      HYPOTHESIS_PROFILE=fuzz python -m pytest tests/properties --hypothesis-show-statistics

The profile is chosen by the ``HYPOTHESIS_PROFILE`` environment variable and applied
to these tests only (through ``PROFILE``), not loaded globally: other test folders
keep their own hypothesis settings.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

__all__ = ["PROFILE", "PROFILE_NAME"]

_SLOW_IS_FINE = [HealthCheck.too_slow, HealthCheck.data_too_large]

settings.register_profile(
    "ci",
    max_examples=150,
    deadline=None,
    derandomize=True,
    database=None,
    print_blob=True,
    suppress_health_check=_SLOW_IS_FINE,
)
settings.register_profile(
    "fuzz",
    max_examples=20_000,
    deadline=None,
    print_blob=True,
    suppress_health_check=_SLOW_IS_FINE,
)

PROFILE_NAME = os.environ.get("HYPOTHESIS_PROFILE", "ci")
PROFILE = settings.get_profile(PROFILE_NAME)
