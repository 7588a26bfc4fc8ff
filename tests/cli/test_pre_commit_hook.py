"""The pre-commit hook: its manifest, and its command run the way pre-commit runs it
(entry, then the hook's args, then the staged file names)."""

from __future__ import annotations

import shlex
import tomllib
from pathlib import Path
from typing import Any

import yaml

from .helpers import ROOT, run_cli, write_json

HOOK_ID = "schemacore-validate"


def _hook() -> dict[str, Any]:
    manifest = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    hooks = {hook["id"]: hook for hook in manifest}
    return hooks[HOOK_ID]  # type: ignore[no-any-return]


def test_the_manifest_names_an_installed_command() -> None:
    hook = _hook()
    assert {"id", "name", "entry", "language"} <= set(hook)
    assert hook["language"] == "python"  # pre-commit pip-installs this repository
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "scripts"
    ]
    command, subcommand, *_ = shlex.split(hook["entry"])
    assert command in scripts and subcommand == "validate"
    # YAML files need PyYAML in the hook's environment.
    assert any(dep.lower().startswith("pyyaml") for dep in hook["additional_dependencies"])


def _run_hook(schema: str, *files: str) -> Any:
    _, *entry_args = shlex.split(_hook()["entry"])  # python -m schemacore stands for it
    return run_cli(*entry_args, schema, *files)


def test_the_hook_passes_good_files_and_fails_on_bad_ones(tmp_path: Path) -> None:
    schema = write_json(tmp_path, "schema.json", {"type": "object", "required": ["name"]})
    good = write_json(tmp_path, "good.json", {"name": "a"})
    config = tmp_path / "config.yaml"
    config.write_text("name: b\n", encoding="utf-8")
    settings = tmp_path / "settings.toml"
    settings.write_text("age = 3\n", encoding="utf-8")

    passed = _run_hook(schema, good, str(config))
    assert passed.status == 0, passed
    failed = _run_hook(schema, good, str(config), str(settings))
    assert failed.status == 1
    assert f"{settings}: (root): 'name' is a required property" in failed.out_lines
