"""A flag for every schemacore.Limits field, made from the dataclass."""

from __future__ import annotations

import argparse
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import pytest

import schemacore
from schemacore.commandline import limitflags
from schemacore.commandline.limitflags import add_limit_arguments, flag_for, limits_from

from .helpers import run_cli, run_main, write_json


def _value_for(field_type: str, default: Any) -> int | float:
    """A value unlike the default, of the field's type."""
    if "float" in field_type:
        return 0.25 if default != 0.25 else 0.5
    return 7 if default != 7 else 8


@pytest.fixture
def compiled(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    seen: list[dict[str, Any]] = []
    real_compile = schemacore.compile

    def recording_compile(schema: Any, **options: Any) -> schemacore.Validator:
        seen.append(options)
        return real_compile(schema, **options)

    monkeypatch.setattr(schemacore, "compile", recording_compile)
    return seen


@pytest.mark.parametrize("field", fields(schemacore.Limits), ids=lambda field: field.name)
def test_every_limit_has_a_flag_that_reaches_compile(
    tmp_path: Path, field: Any, compiled: list[dict[str, Any]]
) -> None:
    schema = write_json(tmp_path, "s.json", {})
    instance = write_json(tmp_path, "i.json", {})
    value = _value_for(str(field.type), getattr(schemacore.Limits(), field.name))
    result = run_main("validate", flag_for(field.name), str(value), schema, instance)
    assert result.status == 0, result.err
    given: dict[str, Any] = {field.name: value}
    expected = schemacore.Limits(**given)
    assert compiled[-1]["limits"] == expected
    assert flag_for(field.name) in run_main("validate", "--help").out


def test_without_flags_the_untrusted_defaults_stay(
    tmp_path: Path, compiled: list[dict[str, Any]]
) -> None:
    schema = write_json(tmp_path, "s.json", {})
    assert run_main("validate", schema, schema).status == 0
    assert compiled[-1].get("limits", schemacore.Limits()) == schemacore.Limits()


def test_several_flags_combine(tmp_path: Path, compiled: list[dict[str, Any]]) -> None:
    schema = write_json(tmp_path, "s.json", {})
    argv = ["--max-schema-depth", "9", "--regex-timeout", "2", "--time-budget", "3.5"]
    assert run_main("validate", *argv, schema, schema).status == 0
    assert compiled[-1]["limits"] == schemacore.Limits(
        max_schema_depth=9, regex_timeout=2.0, time_budget=3.5
    )


@pytest.mark.parametrize(
    ("flag", "value", "needle"),
    [
        ("--max-schema-depth", "0", "must be positive"),
        ("--max-instance-depth", "-3", "must be positive"),
        ("--max-subschemas", "many", "not a number of type int"),
        ("--max-references", "2.5", "not a number of type int"),
        ("--regex-timeout", "nan", "must be positive and finite"),
        ("--max-pattern-length", "none", "not a number of type int"),  # not optional
    ],
)
def test_a_value_limits_refuses_is_a_usage_error(
    tmp_path: Path, flag: str, value: str, needle: str
) -> None:
    schema = write_json(tmp_path, "s.json", {})
    result = run_cli("validate", flag, value, schema, schema)
    assert result.status == 2
    assert "usage:" in result.err and f"argument {flag}: " in result.err, result.err
    assert needle in result.err, result.err


def test_optional_limits_accept_none(tmp_path: Path, compiled: list[dict[str, Any]]) -> None:
    schema = write_json(tmp_path, "s.json", {})
    assert run_main("validate", "--time-budget", "none", schema, schema).status == 0
    assert compiled[-1]["limits"] == schemacore.Limits(time_budget=None)


def test_a_limit_given_on_the_command_line_is_enforced(tmp_path: Path) -> None:
    schema = write_json(tmp_path, "s.json", {"items": {"items": {"items": {}}}})
    result = run_cli("validate", "--max-schema-depth", "2", schema, schema)
    assert result.status == 2
    assert result.err == (
        "error: execution_failure: schema nesting is deeper than max_schema_depth=2 "
        "(at '/items/items/items')\n"
    )
    assert run_cli("validate", "--max-schema-depth", "5", schema, schema).status == 0


def test_a_field_added_to_limits_gets_its_flag(monkeypatch: pytest.MonkeyPatch) -> None:
    @dataclass(frozen=True, slots=True)
    class Wider(schemacore.Limits):
        max_widgets: int = 3

    monkeypatch.setattr(limitflags, "Limits", Wider)
    parser = argparse.ArgumentParser()
    add_limit_arguments(parser)
    limits = limits_from(parser.parse_args(["--max-widgets", "11", "--max-schema-depth", "4"]))
    assert limits == Wider(max_widgets=11, max_schema_depth=4)
    assert limits_from(parser.parse_args([])) is None


def test_a_field_of_a_type_without_a_flag_fails_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    @dataclass(frozen=True, slots=True)
    class Odd(schemacore.Limits):
        hosts: str = "none"

    monkeypatch.setattr(limitflags, "Limits", Odd)
    with pytest.raises(TypeError, match=r"no command-line flag for Limits\.hosts"):
        add_limit_arguments(argparse.ArgumentParser())
