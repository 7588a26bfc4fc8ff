"""``schemacore validate --defer-unresolved``: a reference that names nothing (a
sibling document never published, as in real schemas) fails only the documents that
reach it; the others are checked as usual, in one process or several."""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import run_cli, run_main, write_json, write_lines

# As bitrise's schema does: a step file that is not beside it, under patternProperties.
SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string"}},
    "patternProperties": {"^step-": {"$ref": "missing-step.json"}},
}


def test_without_the_flag_the_schema_is_refused_naming_the_flag(tmp_path: Path) -> None:
    schema = write_json(tmp_path, "s.json", SCHEMA)
    result = run_main("validate", schema, write_json(tmp_path, "i.json", {"name": "x"}))
    assert result.status == 2
    assert "missing-step.json" in result.err and "--defer-unresolved" in result.err
    assert "defer_unresolved=True" not in result.err  # the engine's option, not a flag


def test_documents_that_never_reach_the_reference_are_checked(tmp_path: Path) -> None:
    schema = write_json(tmp_path, "s.json", SCHEMA)
    good = write_json(tmp_path, "good.json", {"name": "x"})
    bad = write_json(tmp_path, "bad.json", {"name": 5})
    result = run_main("validate", "--defer-unresolved", schema, good, bad)
    assert result.status == 1
    assert result.out_lines[0] == f"{good}: valid"
    assert result.out_lines[1].startswith(f"{bad}: /name: ")
    # Listed once, on stderr, whatever the number of documents.
    (warning,) = [line for line in result.err_lines if line.startswith("warning:")]
    assert "missing-step.json" in warning and "#/patternProperties/" in warning


@pytest.mark.parametrize("flags", [(), ("-q",), ("--output", "basic"), ("--error-format", "json")])
def test_a_document_that_reaches_it_is_not_checked_on_every_path(
    tmp_path: Path, flags: tuple[str, ...]
) -> None:
    schema = write_json(tmp_path, "s.json", SCHEMA)
    reaching = write_json(tmp_path, "r.json", {"name": "x", "step-1": {}})
    result = run_main("validate", "--defer-unresolved", *flags, schema, reaching)
    assert result.status == 2, result
    assert "missing-step.json" in result.out + result.err


def test_worker_processes_keep_the_option(tmp_path: Path) -> None:
    schema = write_json(tmp_path, "s.json", SCHEMA)
    lines = write_lines(
        tmp_path, "many.jsonl", [{"name": "x"}] * 3 + [{"name": "y", "step-2": 1}] + [{"name": 1}]
    )
    one = run_cli("validate", "--defer-unresolved", schema, lines)
    two = run_cli("validate", "--defer-unresolved", "--jobs", "2", "--lines", schema, lines)
    assert one.status == two.status == 2
    assert one.out == two.out
    assert [line for line in one.err_lines if not line.startswith("warning:")] == [
        line for line in two.err_lines if not line.startswith("warning:")
    ]
    assert ":4:" in one.err or "line 4" in one.err
