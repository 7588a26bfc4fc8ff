"""Admit all 445 real MCP tools (``../shared/mcp-tools``) in every mode.

The counts below were measured with ``python tests/runtime/corpus.py``; they change
only if the corpus or an admission rule changes. Why a tool is not admitted:

* 78 tools declare ``"$schema": "http://json-schema.org/draft-07/schema#"``
  (zod-to-json-schema in the TypeScript SDK): archived-github 26, archived-gitlab 9,
  ref-everything 19, ref-filesystem 14, ref-memory 9, ref-sequentialthinking 1; 25 of
  them also on their output schema. ``unsupported_capability``: their batches are
  refused in strict mode, the tools are quarantined one by one in quarantine mode.
* 2 sentry-mcp tools (create_uptime_monitor, update_uptime_monitor) use the draft-07
  array form of ``items`` without declaring a dialect; under the 2020-12 default that
  is not a valid schema. ``validation``: fatal in both modes, so the whole sentry-mcp
  batch (54 tools) is refused in both.

Isolate mode leaves out just those 80 tools (78 + 2) and admits the other 365.
Listing draft-07 in ``dialects`` admits those tools under draft-07's own rules: the
same call admits 443 of 445; the two sentry-mcp tools stay out, correctly, since they
declare no dialect and are invalid under 2020-12.
"""

from __future__ import annotations

from collections import Counter

import pytest

from .corpus import CORPUS, DRAFT_07_TOO, corpus_files, report, tally

pytestmark = pytest.mark.skipif(
    not CORPUS.is_dir() or not corpus_files(),
    reason=f"the real MCP tool corpus is not present at {CORPUS}",
)


def test_corpus_strict() -> None:
    t = tally("strict")
    print(report())
    assert (t.files, t.tools) == (26, 445)
    assert (t.batches_admitted, t.batches_rejected) == (19, 7)
    assert (t.admitted, t.quarantined, t.rejected) == (313, 0, 132)
    assert t.rejection_reasons == Counter(
        {
            ("inputSchema", "unsupported_capability", "schema-dialect-unsupported"): 78,
            ("outputSchema", "unsupported_capability", "schema-dialect-unsupported"): 25,
            ("inputSchema", "validation", "schema-invalid"): 2,
        }
    )
    assert t.rejected_files == [
        "archived-github.json",
        "archived-gitlab.json",
        "ref-everything.json",
        "ref-filesystem.json",
        "ref-memory.json",
        "ref-sequentialthinking.json",
        "sentry-mcp.json",
    ]


def test_corpus_quarantine() -> None:
    t = tally("quarantine")
    assert (t.batches_admitted, t.batches_rejected) == (25, 1)
    assert (t.admitted, t.quarantined, t.rejected) == (313, 78, 54)
    assert t.quarantine_reasons == Counter(
        {
            ("inputSchema", "unsupported_capability", "schema-dialect-unsupported"): 78,
            ("outputSchema", "unsupported_capability", "schema-dialect-unsupported"): 25,
        }
    )
    assert t.rejection_reasons == Counter({("inputSchema", "validation", "schema-invalid"): 2})
    assert t.rejected_files == ["sentry-mcp.json"]


def test_corpus_isolate() -> None:
    t = tally("isolate")
    assert (t.batches_admitted, t.batches_rejected) == (26, 0)
    assert (t.admitted, t.quarantined, t.left_out, t.rejected) == (365, 0, 80, 0)
    assert t.left_out_reasons == Counter(
        {
            ("inputSchema", "unsupported_capability", "schema-dialect-unsupported"): 78,
            ("outputSchema", "unsupported_capability", "schema-dialect-unsupported"): 25,
            ("inputSchema", "validation", "schema-invalid"): 2,
        }
    )
    # Every tool is admitted or left out with a diagnostic: none silently dropped.
    assert t.admitted + t.left_out == t.tools


def test_corpus_isolate_with_draft_07_listed_admits_443() -> None:
    # The engine validates each draft-07 tool under draft-07's rules: only the two
    # sentry tools that are invalid under 2020-12 (they declare no dialect) stay out.
    t = tally("isolate", CORPUS, DRAFT_07_TOO)
    assert (t.admitted, t.left_out) == (443, 2)
    assert t.left_out_reasons == Counter({("inputSchema", "validation", "schema-invalid"): 2})
    unlisted = tally("isolate")
    assert (unlisted.admitted, unlisted.left_out) == (365, 80)
