"""Admit every file of the real MCP tool corpus in each mode and print the counts.

Usage: ``python tests/runtime/corpus.py [FOLDER]`` (default ``<repo>/../shared/mcp-tools``).

Each ``*.json`` file is one server's tool list, admitted as one batch. For each mode
it prints the batches and tools admitted, quarantined, left out (isolate mode) and
rejected, then the diagnostics grouped by (field, error class, code). Isolate mode
is run with Draft 2020-12 only and with draft-07 listed as well. Exit status 2 if the folder is
missing.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

if __package__ in (None, ""):
    _root = Path(__file__).resolve().parents[2]
    sys.path.insert(0, str(_root / "src"))

from schemacore.runtime import AdmissionRejected, ToolCatalog
from schemacore.runtime.catalog import AdmissionMode

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "mcp-tools"
MODES: tuple[AdmissionMode, ...] = ("strict", "quarantine", "isolate")
DRAFT_07_TOO = ("draft-07", "2020-12")


@dataclass
class Tally:
    """Counts for one admission mode over the whole corpus."""

    files: int = 0
    tools: int = 0
    batches_admitted: int = 0
    batches_rejected: int = 0
    admitted: int = 0
    quarantined: int = 0
    left_out: int = 0
    rejected: int = 0
    quarantine_reasons: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    left_out_reasons: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    rejection_reasons: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    rejected_files: list[str] = field(default_factory=list)


def corpus_files(folder: Path = CORPUS) -> list[Path]:
    return sorted(folder.glob("*.json"))


@cache
def tally(
    mode: AdmissionMode, folder: Path = CORPUS, dialects: tuple[str, ...] = ("2020-12",)
) -> Tally:
    """The counts for one mode (cached: the corpus is read-only test data)."""
    counts = Tally()
    catalog = ToolCatalog(dialects=dialects)
    for path in corpus_files(folder):
        tools = json.loads(path.read_bytes())
        counts.files += 1
        counts.tools += len(tools)
        try:
            bundle = catalog.admit_batch(tools, mode=mode)
        except AdmissionRejected as exc:
            counts.batches_rejected += 1
            counts.rejected += len(tools)
            counts.rejected_files.append(path.name)
            for d in exc.rejected:
                counts.rejection_reasons[(d.field, d.error_class, d.code)] += 1
            continue
        counts.batches_admitted += 1
        counts.admitted += len(bundle.accepted)
        omitted = len({d.index for d in bundle.rejected})
        reasons = counts.quarantine_reasons
        if mode == "isolate":
            counts.left_out += omitted
            reasons = counts.left_out_reasons
        else:
            counts.quarantined += omitted
        for d in bundle.rejected:
            reasons[(d.field, d.error_class, d.code)] += 1
    return counts


def report(folder: Path = CORPUS) -> str:
    lines = []
    runs = [(mode, ("2020-12",)) for mode in MODES] + [("isolate", DRAFT_07_TOO)]
    for mode, dialects in runs:
        t = tally(mode, folder, dialects)
        lines.append(
            f"{mode} (dialects {', '.join(dialects)}): {t.tools} tools in {t.files} files; "
            f"batches admitted {t.batches_admitted}, rejected {t.batches_rejected}; tools "
            f"admitted {t.admitted}, quarantined {t.quarantined}, left out {t.left_out}, "
            f"rejected {t.rejected}"
        )
        for title, reasons in (
            ("quarantined", t.quarantine_reasons),
            ("left out", t.left_out_reasons),
            ("rejected", t.rejection_reasons),
        ):
            for (where, error_class, code), count in sorted(reasons.items()):
                lines.append(f"  {title}: {count} x {where} {error_class} {code}")
        if t.rejected_files:
            lines.append(f"  rejected batches: {', '.join(t.rejected_files)}")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    folder = Path(argv[0]) if argv else CORPUS
    if not folder.is_dir():
        print(f"error: no MCP tool corpus at {folder}", file=sys.stderr)
        return 2
    print(report(folder))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
