"""Regenerate ``src/schemacore/formats/_ucd.py`` from the Unicode Character Database.

Python's :mod:`unicodedata` lacks three properties that IDNA2008 needs (RFC 5892):
Default_Ignorable_Code_Point, Joining_Type and Script. This script extracts just those
from the UCD text files (Debian's ``unicode-data`` package puts them in
/usr/share/unicode)::

    python tests/formats/make_ucd_tables.py [UCD_DIR] > src/schemacore/formats/_ucd.py

Joining_Type keeps only the runs whose explicit value differs from the default that
ArabicShaping.txt states (T for general categories Mn, Me and Cf, U otherwise), so
the default is computed with :mod:`unicodedata` at run time.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from collections.abc import Iterator
from pathlib import Path

SCRIPTS = ("Greek", "Hebrew", "Hiragana", "Katakana", "Han")


def _records(path: Path) -> Iterator[list[str]]:
    for line in path.read_text(encoding="utf-8").splitlines():
        data = line.split("#", 1)[0].strip()
        if data:
            yield [field.strip() for field in data.split(";")]


def _span(field: str) -> tuple[int, int]:
    first, _, last = field.partition("..")
    return int(first, 16), int(last or first, 16)


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for first, last in sorted(spans):
        if merged and first <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(last, merged[-1][1]))
        else:
            merged.append((first, last))
    return merged


def _bounds(spans: list[tuple[int, int]]) -> list[int]:
    # Half-open bounds: a code point is inside when bisect_right() gives an odd index.
    flat: list[int] = []
    for first, last in spans:
        flat += [first, last + 1]
    return flat


def _tuple(name: str, values: list[int]) -> str:
    lines = [f"{name}: tuple[int, ...] = ("]
    for i in range(0, len(values), 8):
        lines.append("    " + " ".join(f"0x{v:04X}," for v in values[i : i + 8]))
    lines.append(")")
    return "\n".join(lines)


def _version(path: Path) -> str:
    head = path.read_text(encoding="utf-8").splitlines()[0]
    found = re.search(r"-(\d+\.\d+\.\d+)\.txt", head)
    return found.group(1) if found else "unknown"


def _default_joining(cp: int) -> str:
    return "T" if unicodedata.category(chr(cp)) in ("Mn", "Me", "Cf") else "U"


def generate(ucd: Path) -> str:
    ignorable = [
        _span(rec[0])
        for rec in _records(ucd / "DerivedCoreProperties.txt")
        if rec[1] == "Default_Ignorable_Code_Point"
    ]
    scripts: dict[str, list[tuple[int, int]]] = {name: [] for name in SCRIPTS}
    for rec in _records(ucd / "Scripts.txt"):
        if rec[1] in scripts:
            scripts[rec[1]].append(_span(rec[0]))
    runs: list[list[int | str]] = []
    for rec in _records(ucd / "ArabicShaping.txt"):
        cp, kind = int(rec[0], 16), rec[2]
        if kind == _default_joining(cp):
            continue
        if runs and runs[-1][2] == kind and runs[-1][1] == cp - 1:
            runs[-1][1] = cp
        else:
            runs.append([cp, cp, kind])
    joining_bounds: list[int] = []
    for first, last, _kind in runs:
        joining_bounds += [int(first), int(last) + 1]
    kinds = "".join(str(run[2]) for run in runs)

    out = [
        '"""Unicode properties that :mod:`unicodedata` lacks, for IDNA2008 (RFC 5892).',
        "",
        f"Generated from the Unicode Character Database {_version(ucd / 'Scripts.txt')} by",
        "tests/formats/make_ucd_tables.py; do not edit by hand. Each table is a flat",
        "tuple of half-open bounds: a code point is inside when ``bisect_right`` gives an",
        'odd index."""',
        "",
        "# fmt: off",
        "",
        _tuple("DEFAULT_IGNORABLE", _bounds(_merge(ignorable))),
        "",
    ]
    for name in SCRIPTS:
        out += [_tuple(f"SCRIPT_{name.upper()}", _bounds(_merge(scripts[name]))), ""]
    out += [
        "# Joining_Type runs that differ from the ArabicShaping.txt default, and the",
        "# value of each run (one letter per bounds pair).",
        _tuple("JOINING_BOUNDS", joining_bounds),
        "JOINING_KINDS = (",
    ]
    for i in range(0, len(kinds), 64):
        out.append(f'    "{kinds[i : i + 64]}"')
    out += [")", ""]
    return "\n".join(out)


if __name__ == "__main__":
    sys.stdout.write(generate(Path(sys.argv[1] if len(sys.argv) > 1 else "/usr/share/unicode")))
