"""One document, one verdict: the exit status is the same whatever the flags print,
and a limit met while reporting an invalid document's errors ends the listing with
an entry naming where it was met, never the verdict."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest

import schemacore
from schemacore.commandline.checking import Checker, DocumentTask, Plan
from schemacore.output import FORMATS

from .helpers import run_main, write_json

# Recursion through "b" counts against max_instance_depth; "a" is checked first.
RECURSIVE = {
    "type": "object",
    "properties": {"a": {"type": "string"}, "b": {"$ref": "#/$defs/r"}},
    "$defs": {"r": {"type": "array", "items": {"$ref": "#/$defs/r"}}},
}
# A schema applying itself twice to a child: is_valid answers (it remembers each
# answer), the walks an output format needs grow exponentially and stop at a limit.
TWICE = {
    "$defs": {
        "t": {
            "type": "object",
            "properties": {"l": {"$ref": "#/$defs/t"}},
            "allOf": [{"properties": {"l": {"$ref": "#/$defs/t"}}}],
        }
    },
    "$ref": "#/$defs/t",
}


def _deep(levels: int) -> str:
    return "[" * levels + "]" * levels


def _chain(levels: int, end: str = "{}") -> str:
    return '{"l": ' * levels + end + "}" * levels


# (schema, the document's JSON text, the exit status every path must give)
DOCUMENTS: dict[str, tuple[Any, str, int]] = {
    "mismatch before the limit": (RECURSIVE, f'{{"a": 1, "b": {_deep(400)}}}', 1),
    "mismatch written after the deep part": (RECURSIVE, f'{{"b": {_deep(400)}, "a": 1}}', 1),
    "no mismatch before the limit": (RECURSIVE, f'{{"a": "x", "b": {_deep(400)}}}', 2),
    "mismatch deep inside, within the limit": (RECURSIVE, '{"a": "x", "b": [[[1]]]}', 1),
    "valid within the limit": (RECURSIVE, f'{{"a": "x", "b": {_deep(20)}}}', 0),
    "valid, its annotation walk stopped": (TWICE, _chain(12), 0),
    "invalid, its walks growing": (TWICE, _chain(12, '{"l": {"l": 5}}'), 1),
}
# A low bound on repeated applications, so that the walks of TWICE stop early.
REPEATS = ["--max-inplace-applications", "200"]

OUTPUT_FLAGS: list[list[str]] = [
    [],
    ["-q"],
    *(["--output", fmt] for fmt in FORMATS),
    ["--error-format", "json"],
    ["--error-format", "json", "-q"],
]
# Worker processes cost a start each: the paths that render differently.
JOBS_FLAGS: list[list[str]] = [[], ["-q"], ["--output", "basic"], ["--error-format", "json"]]


@pytest.mark.parametrize("case", list(DOCUMENTS))
def test_the_same_document_through_every_output_flag_gives_the_same_exit_status(
    tmp_path: Path, case: str
) -> None:
    schema, text, expected = DOCUMENTS[case]
    schema_file = write_json(tmp_path, "schema.json", schema)
    document = tmp_path / "doc.json"
    document.write_text(text, encoding="utf-8")
    lines = tmp_path / "doc.jsonl"
    lines.write_text(text + "\n", encoding="utf-8")
    statuses: dict[str, int] = {}
    for flags in OUTPUT_FLAGS:
        for name in (document, lines):
            argv = ["validate", *REPEATS, *flags, schema_file, str(name)]
            statuses[" ".join([*flags, name.suffix])] = run_main(*argv).status
    for flags in JOBS_FLAGS:
        argv = ["validate", *REPEATS, "-j", "2", *flags, schema_file, str(document), str(lines)]
        statuses[" ".join(["--jobs 2", *flags])] = run_main(*argv).status
    assert statuses == dict.fromkeys(statuses, expected)


def _where_the_walk_stops(schema: Any, text: str) -> str:
    """The instance location the engine's evaluation walk names for its limit."""
    with pytest.raises(schemacore.ExecutionFailure) as failure:
        schemacore.compile(schema).evaluate(json.loads(text)).output("list")
    return failure.value.location


@pytest.fixture
def stopped(tmp_path: Path) -> tuple[str, str, str]:
    """The schema file, a document invalid at /a and nested past the limit at /b,
    and where the limit is met."""
    schema, text, _ = DOCUMENTS["mismatch before the limit"]
    document = tmp_path / "doc.json"
    document.write_text(text, encoding="utf-8")
    where = _where_the_walk_stops(schema, text)
    assert where.startswith("/b/0/0") and where.count("/0") > 250, where
    return write_json(tmp_path, "schema.json", schema), str(document), where


LIMIT = (
    "execution_failure: validation recursed deeper than max_instance_depth=256 "
    "(through the schema at #/$defs/r/items/$ref)"
)


def test_an_invalid_document_lists_its_errors_and_where_a_limit_stopped_the_listing(
    stopped: tuple[str, str, str],
) -> None:
    schema, document, where = stopped
    result = run_main("validate", schema, document)
    assert (result.status, result.err) == (1, "")
    assert result.out_lines == [
        f"{document}: /a: integer is not of type string",
        f"{document}: {where}: report stopped here: {LIMIT}",
    ]


def test_the_json_error_listing_ends_with_a_stopped_record_at_the_limit(
    stopped: tuple[str, str, str],
) -> None:
    schema, document, where = stopped
    result = run_main("validate", "--error-format", "json", schema, document)
    assert (result.status, result.err) == (1, "")
    assert [json.loads(line) for line in result.out_lines] == [
        {
            "file": document,
            "line": None,
            "instanceLocation": "/a",
            "keyword": "type",
            "keywordLocation": "/properties/a/type",
            "message": "integer is not of type string",
            "kind": "invalid",
        },
        {
            "file": document,
            "line": None,
            "instanceLocation": where,
            "keyword": None,
            "keywordLocation": None,
            "message": f"report stopped here: {LIMIT}",
            "kind": "stopped",
        },
    ]


@pytest.mark.parametrize("fmt", [fmt for fmt in FORMATS if fmt != "flag"])
def test_an_output_record_stopped_at_a_limit_is_whole_and_says_where(
    stopped: tuple[str, str, str], fmt: str
) -> None:
    schema, document, where = stopped
    result = run_main("validate", "--output", fmt, schema, document)
    assert (result.status, result.err) == (1, "")
    [line] = result.out_lines
    record = json.loads(line)
    assert record["instance"] == document
    assert record["output"] == {
        "valid": False,
        "errors": [
            {
                "valid": False,
                "keywordLocation": "/properties/a/type",
                "absoluteKeywordLocation": "#/properties/a/type",
                "instanceLocation": "/a",
                "error": "integer is not of type string",
            }
        ],
    }
    assert record["stopped"]["instanceLocation"] == where
    assert record["stopped"]["limit"] == "max_instance_depth"
    assert record["stopped"]["schemaLocation"].startswith("#/$defs/r")
    assert record["stopped"]["error"].startswith("report stopped here: execution_failure: ")


def test_a_jsonl_record_stopped_at_a_limit_counts_as_invalid(tmp_path: Path) -> None:
    schema, text, _ = DOCUMENTS["mismatch before the limit"]
    data = tmp_path / "data.jsonl"
    data.write_text(f'{{"a": "ok"}}\n{text}\n', encoding="utf-8")
    result = run_main("validate", write_json(tmp_path, "s.json", schema), str(data))
    assert (result.status, result.err) == (1, "")
    assert result.out_lines[0] == f"{data}:2: /a: integer is not of type string"
    assert result.out_lines[1].startswith(f"{data}:2: /b/0/0/")
    assert result.out_lines[2] == f"{data}: 2 records: 1 valid, 1 invalid"


def test_a_document_with_no_mismatch_before_the_limit_is_not_checked_on_every_path(
    tmp_path: Path,
) -> None:
    schema, text, _ = DOCUMENTS["no mismatch before the limit"]
    schema_file = write_json(tmp_path, "schema.json", schema)
    document = tmp_path / "doc.json"
    document.write_text(text, encoding="utf-8")
    for flags in OUTPUT_FLAGS:
        result = run_main("validate", *flags, schema_file, str(document))
        assert result.status == 2, flags
        assert result.err_lines == [f"error: {document}: {LIMIT}"], flags
        if "--error-format" not in flags:
            assert result.out == "", flags


def test_a_limit_the_engine_cannot_place_is_listed_at_an_unknown_location(
    tmp_path: Path,
) -> None:
    # is_valid finds the missing "b"; the error walk lists it, then meets the long
    # string, a limit the engine reports with its schema location only.
    schema = {"properties": {"a": {"pattern": "^x+$"}}, "required": ["b"]}
    document = write_json(tmp_path, "doc.json", {"a": "x" * 20})
    result = run_main(
        "validate", "--max-pattern-input", "10", write_json(tmp_path, "s.json", schema), document
    )
    assert (result.status, result.err) == (1, "")
    assert len(result.out_lines) == 2
    assert result.out_lines[0] == f"{document}: (root): 'b' is a required property"
    assert result.out_lines[1].startswith(
        f"{document}: (location unknown): report stopped here: execution_failure: "
    )


class _StopsAtOnce:
    """A validator whose is_valid finds a mismatch and whose error walk meets a limit
    before it yields any error."""

    def is_valid(self, instance: Any) -> bool:
        return False

    def iter_errors(self, instance: Any) -> Iterator[schemacore.ValidationError]:
        raise schemacore.ExecutionFailure("took too long", location="/q", limit="time_budget")
        yield  # a generator, as the engine's is


@pytest.mark.parametrize("error_format", ["text", "json"])
def test_a_listing_stopped_before_any_error_still_says_the_value_is_invalid(
    error_format: str,
) -> None:
    checker = Checker(cast(schemacore.Validator, _StopsAtOnce()), Plan(error_format=error_format))
    outcome = checker.run(DocumentTask("doc.json", "json", b"{}"))
    assert (outcome.invalid, outcome.failed) == (1, 0)
    texts = [text for to_stderr, text in outcome.lines if not to_stderr]
    if error_format == "text":
        assert texts == [
            "doc.json: (root): the instance is invalid",
            "doc.json: /q: report stopped here: execution_failure: took too long",
        ]
    else:
        records = [json.loads(text) for text in texts]
        assert [(r["kind"], r["instanceLocation"], r["message"]) for r in records] == [
            ("invalid", "", "the instance is invalid"),
            ("stopped", "/q", "report stopped here: execution_failure: took too long"),
        ]
