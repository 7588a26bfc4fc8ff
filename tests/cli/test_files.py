"""Many instance files: a verdict per file, bad files reported and passed over, one file
read at a time; YAML and TOML documents."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import schemacore
from schemacore.commandline import checking, documents

from .helpers import ROOT, SCHEMA, run_cli, run_main, write_json


@pytest.fixture
def schema(tmp_path: Path) -> str:
    return write_json(tmp_path, "schema.json", SCHEMA)


def test_each_file_gets_its_verdict_and_bad_files_do_not_stop_the_run(
    tmp_path: Path, schema: str
) -> None:
    good = write_json(tmp_path, "good.json", {"name": "Ada"})
    bad = write_json(tmp_path, "bad.json", {"name": 3})
    missing = str(tmp_path / "missing.json")
    broken = tmp_path / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    last = write_json(tmp_path, "last.json", {"name": "Grace"})

    result = run_cli("validate", schema, good, missing, bad, str(broken), last)

    # An unreadable or malformed file is not a verdict: status 2, as with one file.
    assert result.status == 2
    assert result.out_lines == [
        f"{good}: valid",
        f"{bad}: /name: integer is not of type string",
        f"{last}: valid",
    ]
    assert result.err_lines == [
        f"error: cannot read {missing}: No such file or directory",
        f"error: {broken}: invalid JSON: Expecting property name enclosed in double quotes: "
        "line 1 column 2 (char 1)",
    ]


def test_without_unreadable_files_the_status_is_the_verdict(tmp_path: Path, schema: str) -> None:
    good = write_json(tmp_path, "good.json", {"name": "Ada"})
    bad = write_json(tmp_path, "bad.json", {})
    assert run_cli("validate", schema, good, good).status == 0
    assert run_cli("validate", schema, good, bad, good).status == 1


def test_a_limit_hit_in_one_file_is_reported_and_the_run_goes_on(tmp_path: Path) -> None:
    schema = write_json(tmp_path, "s.json", {"items": {"pattern": "^a+$"}})
    long = write_json(tmp_path, "long.json", ["a" * 50])
    short = write_json(tmp_path, "short.json", ["b"])
    result = run_cli("validate", "--max-pattern-input", "10", schema, long, short)
    assert result.status == 2
    assert result.err_lines == [
        f"error: {long}: execution_failure: a string of 50 characters is longer than "
        "max_pattern_input=10"
    ]
    message = next(schemacore.compile({"pattern": "^a+$"}).iter_errors("b")).message
    assert result.out_lines == [f"{short}: /0: {message}"]


class _Recorder:
    """Stands in for a validator and records, with every file read, what happened when."""

    def __init__(self, validator: schemacore.Validator, events: list[str]) -> None:
        self._validator = validator
        self._events = events

    def is_valid(self, instance: Any) -> bool:
        self._events.append(f"check {instance['name']}")
        return self._validator.is_valid(instance)

    def iter_errors(self, instance: Any) -> Any:
        return self._validator.iter_errors(instance)

    @property
    def deferred_references(self) -> Any:
        return self._validator.deferred_references


def test_files_are_read_one_at_a_time(
    tmp_path: Path, schema: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Until now every instance was read before the first was validated: three 100 MB
    # files were in memory at once.
    events: list[str] = []
    names = [write_json(tmp_path, f"{n}.json", {"name": n}) for n in ("a", "b", "c")]
    real_compile = schemacore.compile

    def recording_read(name: str) -> bytes:
        events.append(f"read {Path(name).stem}")
        return documents.read_bytes(name)

    monkeypatch.setattr(
        schemacore, "compile", lambda schema, **kw: _Recorder(real_compile(schema, **kw), events)
    )
    monkeypatch.setattr(checking, "read_bytes", recording_read)
    assert run_main("validate", schema, *names).status == 0
    assert events == ["read a", "check a", "read b", "check b", "read c", "check c"]


# -- YAML and TOML --------------------------------------------------------------------------


def test_yaml_and_toml_instances(tmp_path: Path, schema: str) -> None:
    good_yaml = tmp_path / "good.yaml"
    good_yaml.write_text("name: Ada\nage: 36\n", encoding="utf-8")
    bad_yml = tmp_path / "bad.yml"
    bad_yml.write_text("name: Ada\nage: -1\n", encoding="utf-8")
    good_toml = tmp_path / "good.toml"
    good_toml.write_text('name = "Grace"\n', encoding="utf-8")
    bad_toml = tmp_path / "bad.toml"
    bad_toml.write_text("age = 3\n", encoding="utf-8")

    result = run_cli(
        "validate", schema, str(good_yaml), str(bad_yml), str(good_toml), str(bad_toml)
    )
    assert result.status == 1, result.err
    assert result.out_lines == [
        f"{good_yaml}: valid",
        f"{bad_yml}: /age: -1 is less than the minimum 0",
        f"{good_toml}: valid",
        f"{bad_toml}: (root): 'name' is a required property",
    ]


@pytest.mark.parametrize("suffix", ["yaml", "toml"])
def test_yaml_and_toml_schemas(tmp_path: Path, suffix: str) -> None:
    schema = tmp_path / f"schema.{suffix}"
    if suffix == "yaml":
        schema.write_text("type: object\nrequired: [name]\n", encoding="utf-8")
    else:
        schema.write_text('type = "object"\nrequired = ["name"]\n', encoding="utf-8")
    good = write_json(tmp_path, "good.json", {"name": "x"})
    bad = write_json(tmp_path, "bad.json", {})
    result = run_cli("validate", str(schema), good, bad)
    assert result.status == 1, result.err
    assert result.out_lines == [f"{good}: valid", f"{bad}: (root): 'name' is a required property"]


BILLION_LAUGHS = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{name}: &{name} [{', '.join([f'*{previous}'] * 10)}]\n"
    for previous, name in zip("abcdef", "bcdefg", strict=True)
)


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("when: 2024-01-01\n", "YAML value at /when is not JSON: a date"),
        ("when: 2024-01-01T10:00:00Z\n", "YAML value at /when is not JSON: a datetime"),
        ("1: one\n", "YAML value at (root) is not JSON: it has a key of type int"),
        ("? [a, b]\n: x\n", "invalid YAML"),  # a list key: PyYAML itself refuses it
        ("a: {null: 1}\n", "YAML value at /a is not JSON: it has a key of type NoneType"),
        ("blob: !!binary aGVsbG8=\n", "YAML value at /blob is not JSON: binary data"),
        ("s: !!set {a, b}\n", "YAML value at /s is not JSON: a value of type set"),
        ("x: [1, .nan]\n", "YAML value at /x/1 is not JSON: a number JSON cannot hold"),
        ("x: -.inf\n", "YAML value at /x is not JSON: a number JSON cannot hold"),
        ("o: !!omap [a: 1]\n", "YAML value at /o/0 is not JSON: a pair"),
        ("&a [*a]\n", "YAML value at /0 is not JSON: an alias to a value that contains it"),
        ("a/b~c: 2024-01-01\n", "YAML value at /a~1b~0c is not JSON"),
        (BILLION_LAUGHS, "YAML aliases expand it to"),
        ("a: 1\n---\nb: 2\n", "invalid YAML: expected a single document"),
        ("a: [1, 2\n", "invalid YAML"),
        ("a: " + "1" * 5000 + "\n", "invalid YAML"),
        ("- " * 5000 + "1\n", "invalid YAML"),
        ("!!python/object:os.system [echo]\n", "invalid YAML"),
    ],
)
def test_yaml_that_is_not_json_is_refused_with_the_place(
    tmp_path: Path, text: str, needle: str
) -> None:
    schema = write_json(tmp_path, "s.json", {})
    path = tmp_path / "odd.yaml"
    path.write_text(text, encoding="utf-8")
    result = run_cli("validate", schema, str(path))
    assert result.status == 2, (result.out, result.err)
    assert result.err.startswith(f"error: {path}: "), result.err
    assert needle in result.err, result.err
    # The same document as a schema is refused before anything is validated.
    as_schema = run_cli("validate", str(path), schema)
    assert as_schema.status == 2 and needle in as_schema.err, as_schema.err


def test_yaml_aliases_that_expand_modestly_are_fine(tmp_path: Path, schema: str) -> None:
    path = tmp_path / "compose.yaml"
    path.write_text(
        "defaults: &d {name: base}\nservices: [*d, *d, {<<: *d, age: 3}]\nname: top\n",
        encoding="utf-8",
    )
    result = run_cli("validate", schema, str(path))
    assert (result.status, result.out_lines) == (0, [f"{path}: valid"]), result.err


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("when = 1979-05-27\n", "TOML value at /when is not JSON: a date"),
        ("when = 1979-05-27T07:32:00Z\n", "TOML value at /when is not JSON: a datetime"),
        ("at = 07:32:00\n", "TOML value at /at is not JSON: a time"),
        ("x = [1.0, nan]\n", "TOML value at /x/1 is not JSON: a number JSON cannot hold"),
        ("x = inf\n", "TOML value at /x is not JSON"),
        ("x = [\n", "invalid TOML"),
        ("x = " + "[" * 5000 + "]" * 5000 + "\n", "TOML"),
    ],
)
def test_toml_that_is_not_json_is_refused_with_the_place(
    tmp_path: Path, text: str, needle: str
) -> None:
    schema = write_json(tmp_path, "s.json", {})
    path = tmp_path / "odd.toml"
    path.write_text(text, encoding="utf-8")
    result = run_cli("validate", schema, str(path))
    assert result.status == 2, (result.out, result.err)
    assert result.err.startswith(f"error: {path}: "), result.err
    assert needle in result.err, result.err


def test_non_utf8_toml_is_refused(tmp_path: Path) -> None:
    schema = write_json(tmp_path, "s.json", {})
    path = tmp_path / "latin1.toml"
    path.write_bytes(b'name = "\xe9"\n')
    result = run_cli("validate", schema, str(path))
    assert result.status == 2 and "invalid TOML: not UTF-8" in result.err, result.err


def test_yaml_without_pyyaml_is_a_clear_error(tmp_path: Path, schema: str) -> None:
    # A yaml module that cannot be imported, ahead of the installed PyYAML.
    blocker = tmp_path / "blocker"
    blocker.mkdir()
    (blocker / "yaml.py").write_text("raise ImportError('PyYAML is not installed')\n")
    document = tmp_path / "a.yaml"
    document.write_text("name: Ada\n", encoding="utf-8")
    good = write_json(tmp_path, "good.json", {"name": "Ada"})

    result = run_cli("validate", schema, str(document), good, pythonpath=(str(blocker),))
    assert result.status == 2
    assert result.err_lines == [
        f"error: {document}: reading YAML needs PyYAML: pip install 'schemacore[yaml]'"
    ]
    assert result.out_lines == [f"{good}: valid"]  # the run went on

    as_schema = run_cli("validate", str(document), good, pythonpath=(str(blocker),))
    assert as_schema.status == 2 and "needs PyYAML" in as_schema.err


def test_the_yaml_extra_the_message_names_exists() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extra = project["optional-dependencies"]["yaml"]
    assert any(requirement.lower().startswith("pyyaml") for requirement in extra)


def test_instances_are_not_changed(tmp_path: Path, schema: str) -> None:
    path = tmp_path / "a.yaml"
    text = "name: Ada\nage: 3\n"
    path.write_text(text, encoding="utf-8")
    assert run_main("validate", schema, str(path)).status == 0
    assert path.read_text(encoding="utf-8") == text


def test_an_unreadable_file_is_reported_for_that_file(tmp_path: Path, schema: str) -> None:
    folder = tmp_path / "a folder.json"
    folder.mkdir()
    good = write_json(tmp_path, "good.json", {"name": "Ada"})
    result = run_cli("validate", schema, str(folder), good)
    assert result.status == 2
    assert result.err.startswith(f"error: cannot read {folder}: "), result.err
    assert result.out_lines == [f"{good}: valid"]


# Fragments of hostile text in each format: nesting, aliases, tags, dates, odd numbers,
# bytes that are not UTF-8, a BOM, NaN.
_FRAGMENTS = st.sampled_from(
    [
        b"[" * 2000,
        b"]" * 2000,
        b"\n",
        b"\r\n",
        b"&a [*a]",
        b"x: &x [1, *x]",
        b"- !!binary aGVsbG8=",
        b"!!set {a}",
        b"? [1]\n: 2",
        b"1: 2",
        b"when: 2024-01-01",
        b"when = 1979-05-27",
        b"x = nan",
        b"[table]",
        b"a = [",
        b".nan",
        b"1e999",
        b"1" * 5000,
        b"NaN",
        b'"\\ud800"',
        b'"\xe9\xff"',
        b"\xef\xbb\xbf",
        b'{"name": "a"}',
        b"name: a",
        b'name = "a"',
        b"---",
        b"!!python/object:os.system [x]",
        b"{}",
        b"null",
    ]
)
_TEXT = st.lists(_FRAGMENTS, min_size=1, max_size=6).map(b"".join)


@settings(max_examples=150, deadline=None, derandomize=True, database=None)
@given(_TEXT, st.sampled_from(["jsonl", "yaml", "toml"]), st.booleans())
def test_hostile_files_of_every_format_end_in_a_verdict_or_error_lines(
    tmp_path_factory: pytest.TempPathFactory, text: bytes, suffix: str, as_schema: bool
) -> None:
    folder = tmp_path_factory.mktemp("hostile")
    odd = folder / f"odd.{suffix}"
    odd.write_bytes(text)
    plain = write_json(folder, "plain.json", {})
    names = [str(odd), plain] if as_schema else [plain, str(odd)]
    result = run_main("validate", *names)
    assert result.status in (0, 1, 2)
    assert "internal error" not in result.err, result.err
    if result.status == 2:
        assert result.err.startswith("error: "), result.err
