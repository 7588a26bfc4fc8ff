"""Release habits: the version, the licence metadata, a clear message without regex."""

from __future__ import annotations

import subprocess
import sys
from importlib import metadata
from pathlib import Path

import schemacore

ROOT = Path(__file__).resolve().parents[1]


def test_version_is_the_installed_distributions() -> None:
    assert schemacore.__version__ == metadata.version("schemacore")
    parts = schemacore.__version__.split(".")
    assert len(parts) == 3 and all(part.isdigit() for part in parts)


def test_licence_is_in_the_metadata_and_the_tree() -> None:
    meta = metadata.metadata("schemacore")
    assert meta["License-Expression"] == "MIT"
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")
    assert "json-schema" in (meta["Keywords"] or "")


def test_changelog_names_the_current_version() -> None:
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"## {schemacore.__version__}" in changelog


def test_import_without_regex_says_what_is_missing() -> None:
    # sys.modules["regex"] = None makes `import regex` raise ImportError, as a
    # missing installation would.
    code = "import sys; sys.modules['regex'] = None; import schemacore"
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT / "src")},
    )
    assert result.returncode == 1
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: schemacore needs the 'regex' package")
    assert "pip install regex" in last
