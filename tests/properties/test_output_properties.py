"""Output properties over generated Draft 2020-12 schemas and JSON instances.

* every part of the lazy ``evaluate(x)`` (``valid``, ``errors``, ``annotations``,
  each output format and its ``iter_json`` text), asked for in any order and on
  fresh evaluations, equals a direct recomputation: ``is_valid``, every error of
  ``iter_errors`` and the whole evaluation tree (tests/output/recompute.py);
* the walks that keep less than the whole tree give the same outputs, also after
  the validator moved to generated code.

The hypothesis profile comes from ``HYPOTHESIS_PROFILE`` (see profiles.py).
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, note
from hypothesis import strategies as st

import schemacore
from schemacore.display import show
from tests.output.recompute import check_agreement

from .profiles import PROFILE
from .strategies import documents, instances_for


@st.composite
def cases(draw: st.DrawFn) -> tuple[Any, list[Any]]:
    schema = draw(documents())
    return schema, draw(instances_for(schema))


@PROFILE
@given(cases())
def test_lazy_outputs_match_a_direct_recomputation(case: tuple[Any, list[Any]]) -> None:
    schema, instances = case
    note(f"schema: {show(schema, 100_000)}")
    validator = schemacore.compile(schema)
    for instance in instances:
        note(f"instance: {show(instance, 100_000)}")
        check_agreement(validator, instance)
    # The verdict comes from is_valid, whichever tier answers it.
    validator._promote()
    for instance in instances:
        check_agreement(validator, instance)
