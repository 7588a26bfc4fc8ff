"""A schema split across files: ``$ref``s to other documents read local files, inside
the allowed roots, never the network (``--base-uri``, ``--ref-root``,
``--no-file-refs``)."""

from __future__ import annotations

import json
import os
import pickle
from pathlib import Path

import pytest

import schemacore
from schemacore.commandline import pool, references
from schemacore.commandline.documents import read_bytes
from schemacore.commandline.references import prepare

from .helpers import run_cli, run_main, write_json

DRAFT_07 = "http://json-schema.org/draft-07/schema#"
DRAFT_04 = "http://json-schema.org/draft-04/schema#"
ROOT_ID = "https://example.com/schemas/root.json"

DEFER_HINT = " (--defer-unresolved checks the documents that never reach it)"


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder that is the working directory, so the default roots are known."""
    folder = tmp_path / "work"
    folder.mkdir()
    monkeypatch.chdir(folder)
    return folder


def _instances(folder: Path) -> tuple[str, str]:
    good = write_json(folder, "good.json", {"name": "Ada", "age": 3})
    bad = write_json(folder, "bad.json", {"name": 7, "age": "x"})
    return good, bad


def _assert_checks_split_schema(schema: str, folder: Path, *flags: str) -> None:
    good, bad = _instances(folder)
    result = run_main("validate", *flags, schema, good, bad)
    assert (result.status, result.err) == (1, "")
    assert result.out_lines == [
        f"{good}: valid",
        f"{bad}: /name: integer is not of type string",
        f"{bad}: /age: string is not of type integer",
    ]


PERSON = {
    "type": "object",
    "properties": {
        "name": {"$ref": "defs.json#/$defs/name"},
        "age": {"$ref": "defs.json#/$defs/age"},
    },
}
DEFS = {"$defs": {"name": {"type": "string"}, "age": {"type": "integer"}}}


def test_a_schema_without_id_reads_sibling_files(work: Path) -> None:
    schema = write_json(work, "person.json", PERSON)
    write_json(work, "defs.json", DEFS)
    _assert_checks_split_schema(schema, work)
    # Its base is the file's location, so absolute locations name the files.
    _, bad = _instances(work)
    record = json.loads(run_main("validate", "--output", "basic", schema, bad).out)
    where = {error["absoluteKeywordLocation"] for error in record["output"]["errors"]}
    defs = (work / "defs.json").resolve().as_uri()
    assert where == {f"{defs}#/$defs/name/type", f"{defs}#/$defs/age/type"}


def test_a_schema_with_an_id_reads_its_id_folder_from_its_own_folder(work: Path) -> None:
    schema = {
        **PERSON,
        "$id": ROOT_ID,
        # Relative, and absolute under the $id's folder: the same file.
        "properties": {
            "name": {"$ref": "defs.json#/$defs/name"},
            "age": {"$ref": "https://example.com/schemas/defs.json#/$defs/age"},
        },
    }
    write_json(work, "defs.json", DEFS)
    _assert_checks_split_schema(write_json(work, "person.json", schema), work)


def test_a_schema_file_elsewhere_reads_its_own_folder(work: Path) -> None:
    folder = work.parent / "schemas"
    folder.mkdir()
    write_json(folder, "defs.json", DEFS)
    _assert_checks_split_schema(write_json(folder, "person.json", PERSON), work)


def test_nested_folders_inside_the_root(work: Path) -> None:
    (work / "sub").mkdir()
    schema = {
        "type": "object",
        "properties": {
            "name": {"$ref": "sub/defs.json#/$defs/name"},
            "age": {"$ref": "sub/age.json"},
        },
    }
    write_json(work / "sub", "defs.json", DEFS)
    # From sub/, "../" climbs back to the schema's folder, still inside the root.
    write_json(work / "sub", "age.json", {"$ref": "../shared.json"})
    write_json(work, "shared.json", {"type": "integer"})
    _assert_checks_split_schema(write_json(work, "person.json", schema), work)


def test_older_drafts_resolve_against_the_file_too(work: Path) -> None:
    write_json(work, "defs.json", {"definitions": DEFS["$defs"]})
    properties = {
        "name": {"$ref": "defs.json#/definitions/name"},
        "age": {"$ref": "defs.json#/definitions/age"},
    }
    # Draft-07 ignores everything beside a root $ref, $id included.
    draft_07 = {
        "$schema": DRAFT_07,
        "$ref": "#/definitions/person",
        "definitions": {"person": {"type": "object", "properties": properties}},
    }
    _assert_checks_split_schema(write_json(work, "d7.json", draft_07), work)
    draft_04 = {"$schema": DRAFT_04, "type": "object", "properties": properties}
    _assert_checks_split_schema(write_json(work, "d4.json", draft_04), work)
    # A relative identifier is resolved against the file's location.
    relative = {"$id": "nested/person.json", **PERSON}
    (work / "nested").mkdir()
    write_json(work / "nested", "defs.json", DEFS)
    _assert_checks_split_schema(write_json(work, "rel.json", relative), work)


def test_a_yaml_referenced_file_is_read_like_a_yaml_schema(work: Path) -> None:
    schema = {**PERSON, "properties": {"name": {"$ref": "defs.yaml#/$defs/name"}}}
    (work / "defs.yaml").write_text("$defs:\n  name:\n    type: string\n", encoding="utf-8")
    good = write_json(work, "good.json", {"name": "Ada"})
    bad = write_json(work, "bad.json", {"name": 1})
    result = run_main("validate", write_json(work, "person.json", schema), good, bad)
    assert result.status == 1
    assert result.out_lines == [f"{good}: valid", f"{bad}: /name: integer is not of type string"]
    # Its limits too: a YAML value JSON has no type for is refused with its place.
    (work / "defs.yaml").write_text("$defs:\n  name: 2024-01-01\n", encoding="utf-8")
    result = run_main("validate", str(work / "person.json"), good)
    assert result.status == 2
    assert "YAML value at /$defs/name is not JSON: a date" in result.err


def test_a_cycle_between_two_files(work: Path) -> None:
    # node.json -> list.json -> node.json: each file is read once, the recursion
    # is the instance's.
    write_json(
        work,
        "node.json",
        {
            "type": "object",
            "properties": {"value": {"type": "integer"}, "rest": {"$ref": "list.json"}},
        },
    )
    write_json(work, "list.json", {"type": "array", "items": {"$ref": "node.json"}})
    good = write_json(work, "good.json", {"value": 1, "rest": [{"value": 2, "rest": []}]})
    bad = write_json(work, "bad.json", {"value": 1, "rest": [{"value": "two"}]})
    result = run_main("validate", str(work / "node.json"), good, bad)
    assert result.status == 1
    assert result.out_lines == [
        f"{good}: valid",
        f"{bad}: /rest/0/value: string is not of type integer",
    ]


def test_each_file_is_read_once_per_run(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    schema = {
        "properties": {
            "a": {"$ref": "defs.json#/$defs/name"},
            "b": {"$ref": "./defs.json#/$defs/age"},
            "c": {"$ref": "sub/../defs.json"},
            "d": {"$ref": "link.json"},
            "e": {"$ref": "s.json#/properties/a"},
        }
    }
    write_json(work, "defs.json", DEFS)
    (work / "sub").mkdir()
    (work / "link.json").symlink_to(work / "defs.json")
    reads: list[str] = []

    def counting(name: str) -> bytes:
        reads.append(name)
        return read_bytes(name)

    monkeypatch.setattr(references, "read_bytes", counting)
    path = write_json(work, "s.json", schema)
    source = prepare(schema, path)
    schemacore.compile(source.schema, registry=source.registry)
    # Four URIs, one file: read once. The schema is not read again either.
    assert reads == [str((work / "defs.json").resolve())]
    assert run_main("validate", path, write_json(work, "i.json", {"a": "x", "b": 1})).status == 0


def test_a_reference_escaping_the_root_by_dot_dot_is_refused(work: Path) -> None:
    secret = write_json(work.parent, "secret.json", {"type": "string"})
    schema = write_json(work, "s.json", {"$ref": "../secret.json"})
    good, _ = _instances(work)
    result = run_main("validate", schema, good)
    assert (result.status, result.out) == (2, "")
    [line] = result.err_lines
    assert line.startswith("error: validation: cannot resolve reference ")
    assert f"{Path(secret).resolve()} is outside the folders referenced files are read from" in line
    assert "--ref-root DIR" in line


def test_a_reference_escaping_the_root_by_a_symlink_is_refused(work: Path) -> None:
    outside = work.parent / "outside"
    outside.mkdir()
    write_json(outside, "defs.json", DEFS)
    (work / "linked").symlink_to(outside, target_is_directory=True)
    (work / "file.json").symlink_to(outside / "defs.json")
    good, _ = _instances(work)
    for reference in ("linked/defs.json", "file.json"):
        schema = write_json(work, "s.json", {"$ref": reference})
        result = run_main("validate", schema, good)
        assert result.status == 2
        assert f"{(outside / 'defs.json').resolve()} is outside the folders" in result.err
        assert "--ref-root DIR" in result.err


def test_an_encoded_dot_dot_cannot_leave_a_mapped_folder(work: Path) -> None:
    write_json(work.parent, "secret.json", {"type": "string"})
    schema = {"$id": ROOT_ID, "$ref": "https://example.com/schemas/%2e%2e/secret.json"}
    good, _ = _instances(work)
    result = run_main("validate", write_json(work, "s.json", schema), good)
    assert result.status == 2
    assert "is outside the folders referenced files are read from" in result.err


def test_a_root_is_a_folder_not_a_prefix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # /x/data does not hold /x/data2, whose name only begins like it.
    for name in ("data", "data2", "elsewhere"):
        (tmp_path / name).mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    write_json(tmp_path / "data2", "defs.json", DEFS)
    schema = write_json(tmp_path / "data", "s.json", {"$ref": "../data2/defs.json"})
    good, _ = _instances(tmp_path)
    result = run_main("validate", schema, good)
    assert result.status == 2
    assert "outside the folders" in result.err
    assert run_main("validate", "--ref-root", str(tmp_path / "data2"), schema, good).status == 0


def test_ref_root_allows_another_folder_and_replaces_the_defaults(work: Path) -> None:
    shared = work.parent / "shared"
    shared.mkdir()
    write_json(shared, "defs.json", DEFS)
    write_json(work, "local.json", {"type": "string"})
    schema = write_json(work, "s.json", {"$ref": "../shared/defs.json#/$defs/name"})
    good = write_json(work, "good.json", "Ada")
    assert run_main("validate", schema, good).status == 2
    result = run_main("validate", "--ref-root", str(work.parent), schema, good)
    assert (result.status, result.err) == (0, "")
    # Given, the roots are those alone: the schema's own folder is not among them.
    local = write_json(work, "s2.json", {"$ref": "local.json"})
    result = run_main("validate", "--ref-root", str(shared), local, good)
    assert result.status == 2
    assert f"({shared.resolve()})" in result.err
    both = ("--ref-root", str(shared), "--ref-root", str(work))
    assert run_main("validate", *both, local, good).status == 0


def test_ref_root_must_be_a_folder(work: Path) -> None:
    good, _ = _instances(work)
    schema = write_json(work, "s.json", {})
    result = run_main("validate", "--ref-root", str(work / "missing"), schema, good)
    assert result.status == 2
    assert "--ref-root: not a folder" in result.err


def test_no_file_refs_reads_no_file(work: Path) -> None:
    # The referenced file is not JSON: it would be reported if it were read.
    (work / "defs.json").write_text("{not json", encoding="utf-8")
    schema = write_json(work, "person.json", PERSON)
    good, _ = _instances(work)
    result = run_main("validate", "--no-file-refs", schema, good)
    assert (result.status, result.out) == (2, "")
    assert result.err_lines == [
        "error: validation: cannot resolve reference 'defs.json' (at '/properties/name/$ref'): "
        "file references are off (--no-file-refs)"
        f"{DEFER_HINT}"
    ]


def test_base_uri_maps_a_uri_prefix_to_the_schemas_folder(work: Path) -> None:
    schema = {
        **PERSON,
        "properties": {
            "name": {"$ref": "https://example.org/shared/defs.json#/$defs/name"},
            "age": {"$ref": "https://EXAMPLE.org/shared/defs.json#/$defs/age"},
        },
    }
    write_json(work, "defs.json", DEFS)
    path = write_json(work, "person.json", schema)
    _assert_checks_split_schema(path, work, "--base-uri", "https://example.org/shared")
    # Unmapped, it is not fetched: the error says which flag would read it.
    good, _ = _instances(work)
    result = run_main("validate", path, good)
    assert result.status == 2
    assert result.err_lines == [
        "error: validation: cannot resolve reference 'https://example.org/shared/defs.json' "
        "(at '/properties/name/$ref'): no local file is mapped to it, and nothing is fetched "
        "from the network; to read it from the schema's folder (as defs.json), pass "
        "--base-uri https://example.org/shared/"
        f"{DEFER_HINT}"
    ]


@pytest.mark.parametrize("uri", ["defs.json", "https://example.com/#x", "https://e.com/?q=1"])
def test_base_uri_must_be_an_absolute_uri_without_query_or_fragment(work: Path, uri: str) -> None:
    good, _ = _instances(work)
    result = run_main("validate", "--base-uri", uri, write_json(work, "s.json", {}), good)
    assert result.status == 2
    assert "--base-uri: not an absolute URI" in result.err


def test_a_reference_naming_no_file_is_unresolvable(work: Path) -> None:
    good, _ = _instances(work)
    schema = write_json(work, "s.json", {"$ref": "urn:example:defs"})
    result = run_main("validate", schema, good)
    assert result.status == 2
    assert result.err_lines == [
        "error: validation: cannot resolve reference 'urn:example:defs' (at '/$ref'): it "
        "names no local file, and nothing is fetched from the network"
        f"{DEFER_HINT}"
    ]


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"{not json", "{path}: invalid JSON: Expecting property name"),
        ("folder", "cannot read {path}: Is a directory"),
    ],
)
def test_an_unreadable_referenced_file_is_an_error_naming_it(
    work: Path, content: bytes | str | None, problem: str
) -> None:
    path = work / "defs.json"
    if content == "folder":
        path.mkdir()
    elif isinstance(content, bytes):
        path.write_bytes(content)
    schema = write_json(work, "person.json", PERSON)
    good, _ = _instances(work)
    result = run_main("validate", schema, good)
    assert (result.status, result.out) == (2, "")
    [line] = result.err_lines
    uri = path.resolve().as_uri()
    assert line.startswith(f"error: validation: cannot resolve reference '{uri}': ")
    assert problem.format(path=path.resolve()) in line


def test_a_referenced_file_that_is_not_there_is_an_unresolvable_reference(work: Path) -> None:
    # Not there is not unreadable: a document that does not exist, which
    # --defer-unresolved may defer (tests/cli/test_defer_unresolved.py).
    schema = write_json(work, "person.json", PERSON)
    good, _ = _instances(work)
    result = run_main("validate", schema, good)
    assert (result.status, result.out) == (2, "")
    path = (work / "defs.json").resolve()
    assert result.err_lines == [
        f"error: validation: cannot resolve reference '{path.as_uri()}' "
        f"(at '/properties/name/$ref'): there is no file {path}{DEFER_HINT}"
    ]


def test_a_file_uri_on_another_host_is_refused(work: Path) -> None:
    good, _ = _instances(work)
    schema = write_json(work, "s.json", {"$ref": "file://server/share/defs.json"})
    result = run_main("validate", schema, good)
    assert result.status == 2
    assert "names a file on another host" in result.err


def test_a_schema_from_standard_input_resolves_against_the_working_directory(
    work: Path,
) -> None:
    write_json(work, "defs.json", DEFS)
    good, bad = _instances(work)
    stdin = json.dumps(PERSON).encode()
    result = run_cli("validate", "-", good, bad, stdin=stdin)
    assert result.status == 1
    assert result.out_lines[1] == f"{bad}: /name: integer is not of type string"


def test_a_self_contained_schema_compiles_as_written(tmp_path: Path) -> None:
    schema = {"$defs": {"a": {"type": "string"}}, "$ref": "#/$defs/a"}
    source = prepare(schema, write_json(tmp_path, "s.json", schema))
    assert source.schema is schema  # no base written in: its output is unchanged


def _split_schema(folder: Path) -> tuple[str, list[str]]:
    write_json(folder, "defs.json", DEFS)
    schema = write_json(folder, "person.json", PERSON)
    names = [
        write_json(folder, f"{i}.json", {"name": "Ada"} if i % 2 else {"name": i}) for i in range(8)
    ]
    return schema, names


def test_jobs_workers_resolve_the_same_files(work: Path) -> None:
    schema, names = _split_schema(work)
    one = run_cli("validate", schema, *names)
    two = run_cli("validate", "--jobs", "2", schema, *names)
    assert one.status == two.status == 1
    assert two.out == one.out and two.err == one.err == ""
    assert one.out_lines[0] == f"{names[0]}: /name: integer is not of type string"


def test_spawned_workers_resolve_the_same_files(
    work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Where fork is not used, each worker unpickles the validator and compiles it
    # again: the registry travels with what it read.
    schema, names = _split_schema(work)
    monkeypatch.setattr(pool, "_start_method", lambda: "spawn")
    expected = run_main("validate", schema, *names)
    result = run_main("validate", "--jobs", "2", schema, *names)
    assert (result.status, result.out, result.err) == (expected.status, expected.out, "")


def test_a_validator_pickles_without_reading_the_files_again(work: Path) -> None:
    _split_schema(work)
    source = prepare(PERSON, str(work / "person.json"))
    validator = schemacore.compile(source.schema, registry=source.registry)
    data = pickle.dumps(validator)
    os.remove(work / "defs.json")
    again = pickle.loads(data)
    assert again.is_valid({"name": "Ada"}) and not again.is_valid({"name": 1})
