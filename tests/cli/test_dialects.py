"""``validate --default-dialect``: the dialect of a schema that declares no $schema."""

from __future__ import annotations

from pathlib import Path

from tests.cli.helpers import run_cli, run_main, write_json

# Array-form items: a tuple before 2020-12, not a schema in 2020-12.
TUPLE = {"items": [{"type": "integer"}], "additionalItems": False}


def test_default_dialect_reads_the_schema_under_that_draft(tmp_path: Path) -> None:
    schema = write_json(tmp_path, "schema.json", TUPLE)
    good = write_json(tmp_path, "good.json", [1])
    bad = write_json(tmp_path, "bad.json", [1, 2])
    result = run_cli("validate", schema, good, bad, "--default-dialect", "draft-07")
    assert result.status == 1
    assert any(line.startswith(bad) for line in result.out_lines)
    assert not any(line.startswith(f"{good}:") and "invalid" in line for line in result.out_lines)
    by_uri = run_main(
        "validate", schema, good, "--default-dialect", "http://json-schema.org/draft-07/schema#"
    )
    assert by_uri.status == 0


def test_without_it_the_schema_is_read_as_2020_12(tmp_path: Path) -> None:
    schema = write_json(tmp_path, "schema.json", TUPLE)
    instance = write_json(tmp_path, "good.json", [1])
    result = run_main("validate", schema, instance)
    assert result.status == 2
    assert "not a valid Draft 2020-12 schema" in result.err


def test_draft_3_or_an_unknown_dialect_is_an_error(tmp_path: Path) -> None:
    schema = write_json(tmp_path, "schema.json", {})
    instance = write_json(tmp_path, "good.json", 1)
    for dialect in ("http://json-schema.org/draft-03/schema#", "https://example.com/nope"):
        result = run_main("validate", schema, instance, "--default-dialect", dialect)
        assert result.status == 2
        assert "unsupported_capability" in result.err
