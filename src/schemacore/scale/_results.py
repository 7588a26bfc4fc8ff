"""Per-record results in the command line's words, and their counts.

Checking is done by the command line's own checker
(``schemacore.commandline.checking.Checker``), with ``--error-format json``: each
error is the JSON object the command line prints for it. A block of JSON Lines is
checked in one call, as the command line checks a chunk, and its error records are
then handed to the records they name by their ``line``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

import schemacore

from ..commandline.checking import Checker, ChunkTask, Outcome, Plan
from ..commandline.lines import Chunk, is_blank, split_lines
from ..commandline.safetext import json_text
from ._shared import SharedValidator

__all__ = [
    "ERROR_PLAN",
    "FileCounts",
    "Record",
    "Result",
    "Summary",
    "check_texts",
    "check_values",
    "results_of_chunk",
    "results_of_document",
    "results_of_failure",
]

# What every result is rendered with: the records of --error-format json.
ERROR_PLAN = Plan(error_format="json")

# The kinds of record that say the value was checked and failed; any other kind
# ("input", or the class of an error that stopped the evaluation) says it was not.
_VERDICT_KINDS = frozenset({"invalid", "stopped"})

Status = Literal["valid", "invalid", "not checked"]


@dataclass(frozen=True, slots=True)
class Record:
    """A value to check, with the place it came from (for :func:`check_values` and
    ``schemacore.dask.validate_bag``): the results name ``file`` and ``line``."""

    file: str | None
    line: int | None
    instance: Any


class Result(NamedTuple):
    """The verdict on one record: a line of a JSON Lines file, a whole document, or
    a value (a named tuple, cheap to make by the million and to send)."""

    #: The file as it was named (None for a value without a place).
    file: str | None
    #: The line number, counting from 1 as an editor does (blank lines keep their
    #: numbers); None for a whole document.
    line: int | None
    #: Whether it was checked and is valid.
    valid: bool
    #: False when it could not be read or evaluated (the command line's exit
    #: status 2); ``valid`` is then False and ``errors`` says why.
    checked: bool = True
    #: The records ``schemacore validate --error-format json`` prints for it, as
    #: dicts (``file``, ``line``, ``instanceLocation``, ``keyword``,
    #: ``keywordLocation``, ``message``, ``kind``).
    errors: tuple[dict[str, Any], ...] = ()
    #: For a record that failed, its text as read (a JSON Lines line, or a value
    #: written as JSON); None otherwise, and for a whole document.
    text: str | None = None

    @property
    def status(self) -> Status:
        """``"valid"``, ``"invalid"`` or ``"not checked"``."""
        if not self.checked:
            return "not checked"
        return "valid" if self.valid else "invalid"

    def to_dict(self) -> dict[str, Any]:
        """The result as a JSON object (what ``write_failures`` writes, one a line)."""
        return {
            "file": self.file,
            "line": self.line,
            "status": self.status,
            "errors": list(self.errors),
            "text": self.text,
        }

    def to_json(self) -> str:
        """:meth:`to_dict` as one line of JSON, made safe for a terminal as the
        command line's output is."""
        return json_text(self.to_dict())


@dataclass(frozen=True, slots=True)
class FileCounts:
    """How many records of a file were valid, invalid, or could not be checked."""

    valid: int = 0
    invalid: int = 0
    not_checked: int = 0

    @property
    def checked(self) -> int:
        """The records given a verdict, valid or invalid."""
        return self.valid + self.invalid

    @property
    def records(self) -> int:
        """Every record, checked or not."""
        return self.valid + self.invalid + self.not_checked

    def __add__(self, other: FileCounts) -> FileCounts:
        return FileCounts(
            self.valid + other.valid,
            self.invalid + other.invalid,
            self.not_checked + other.not_checked,
        )


class Summary(Mapping[str | None, FileCounts]):
    """File -> :class:`FileCounts`, in the order the files were given, with the
    totals and the exit status the command line would have."""

    __slots__ = ("_files",)

    def __init__(self, files: Mapping[str | None, FileCounts] | None = None) -> None:
        self._files: dict[str | None, FileCounts] = dict(files or {})

    @classmethod
    def of(cls, results: Iterable[Result]) -> Summary:
        """The counts of ``results``."""
        counting: dict[str | None, list[int]] = {}
        for result in results:
            slot = counting.get(result.file)
            if slot is None:
                slot = counting[result.file] = [0, 0, 0]
            slot[0 if result.valid else 1 if result.checked else 2] += 1
        return cls({name: FileCounts(*counts) for name, counts in counting.items()})

    def __add__(self, other: Summary) -> Summary:
        merged = dict(self._files)
        for name, counts in other.items():
            found = merged.get(name)
            merged[name] = counts if found is None else found + counts
        return Summary(merged)

    def __getitem__(self, name: str | None) -> FileCounts:
        return self._files[name]

    def __iter__(self) -> Iterator[str | None]:
        return iter(self._files)

    def __len__(self) -> int:
        return len(self._files)

    @property
    def total(self) -> FileCounts:
        """The counts of every file together."""
        total = FileCounts()
        for counts in self._files.values():
            total = total + counts
        return total

    @property
    def exit_status(self) -> int:
        """The exit status ``schemacore validate`` would have (2 when some record
        could not be checked, else 1 when some record is invalid, else 0)."""
        total = self.total
        if total.not_checked:
            return 2
        return 1 if total.invalid else 0

    def __reduce__(self) -> tuple[Any, ...]:
        return (Summary, (self._files,))

    def __repr__(self) -> str:
        return f"Summary({self._files!r})"


def _records_by_line(outcome: Outcome) -> dict[int | None, list[dict[str, Any]]]:
    """The --error-format json records of ``outcome``, by the line they name."""
    by_line: dict[int | None, list[dict[str, Any]]] = {}
    for to_stderr, text in outcome.lines:
        if not to_stderr:
            record: dict[str, Any] = json.loads(text)
            by_line.setdefault(record["line"], []).append(record)
    return by_line


def _failed(
    file: str | None, line: int | None, records: list[dict[str, Any]], text: str | None
) -> Result:
    checked = any(record["kind"] in _VERDICT_KINDS for record in records)
    return Result(file, line, False, checked, tuple(records), text)


def results_of_chunk(
    checker: Checker, name: str, data: bytes, first_line: int
) -> tuple[list[Result], Outcome]:
    """Check whole lines of JSON Lines (``data``, its first line numbered
    ``first_line``) with ``checker`` (whose plan must be :data:`ERROR_PLAN`): a
    result for each line that is not blank, and the checker's outcome."""
    outcome = checker.chunk(ChunkTask(name, Chunk(data, first_line)))
    by_line = _records_by_line(outcome) if outcome.invalid or outcome.failed else {}
    results: list[Result] = []
    append = results.append
    number = first_line
    for line in split_lines(data):
        if not is_blank(line):
            records = by_line.get(number)
            if records is None:
                append(Result(name, number, True))
            else:
                append(_failed(name, number, records, line.decode("utf-8", "backslashreplace")))
        number += 1
    _agree(results, outcome)
    return results, outcome


def results_of_document(name: str, outcome: Outcome) -> list[Result]:
    """The result of a whole document, from the outcome of checking it."""
    records = _records_by_line(outcome).get(None)
    results = [Result(name, None, True) if records is None else _failed(name, None, records, None)]
    _agree(results, outcome)
    return results


def results_of_failure(outcome: Outcome) -> list[Result]:
    """The results of an outcome that says a file (or a line of it) could not be
    read: one, not checked, for each place it names (none for an empty outcome)."""
    return [
        Result(outcome.name, line, False, False, tuple(records))
        for line, records in _records_by_line(outcome).items()
    ]


def _agree(results: list[Result], outcome: Outcome) -> None:
    """Each failed value has records of its own: the checker's counts must match."""
    invalid = sum(1 for result in results if result.checked and not result.valid)
    failed = sum(1 for result in results if not result.checked)
    if (invalid, failed) != (outcome.invalid, outcome.failed):
        raise RuntimeError(
            f"internal error: {outcome.name}: results count {invalid} invalid and "
            f"{failed} not checked, the checker {outcome.invalid} and {outcome.failed}"
        )


def _validator_of(validator: schemacore.Validator | SharedValidator) -> schemacore.Validator:
    return validator.validator() if isinstance(validator, SharedValidator) else validator


def check_texts(
    validator: schemacore.Validator | SharedValidator,
    texts: Iterable[str | bytes],
    *,
    file: str | None = None,
    lines: Iterable[int] | None = None,
) -> list[Result]:
    """Check JSON texts, each read as a line of JSON Lines is (by the command line's
    reader, UTF-8): a result for each text that is not blank, in order.

    Args:
        validator: the validator, or a :class:`SharedValidator` (compiled once per
            process).
        texts: one JSON value each, with no line break (``\\n``) in it.
        file: what the results name as their file.
        lines: the number each text's result names as its line (default 1, 2, ...).

    Raises:
        ValueError: a text holds a line break.
    """
    encoded: list[bytes] = []
    for text in texts:
        data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
        if b"\n" in data:
            raise ValueError("check_texts takes one JSON text per line: a text holds '\\n'")
        encoded.append(data)
    checker = Checker(_validator_of(validator), ERROR_PLAN)
    results, _ = results_of_chunk(checker, file or "", b"\n".join(encoded) + b"\n", 1)
    if lines is None and file is not None:
        return results
    numbers = list(range(1, len(encoded) + 1)) if lines is None else [int(n) for n in lines]
    if len(numbers) != len(encoded):
        raise ValueError(f"{len(encoded)} texts but {len(numbers)} line numbers")
    return [_renamed(result, file, numbers[result.line - 1]) for result in results if result.line]


def check_values(
    validator: schemacore.Validator | SharedValidator, values: Iterable[Any]
) -> list[Result]:
    """Check values (JSON values, or :class:`Record` for values with a place): each
    is written as one line of JSON and checked as the command line checks a line of
    JSON Lines, so verdicts and errors are the command line's. A value JSON cannot
    hold (NaN, a set) is not checked."""
    places: list[tuple[str | None, int | None]] = []
    texts: list[bytes] = []
    unwritable: dict[int, str] = {}
    for value in values:
        if type(value) is Record:
            places.append((value.file, value.line))
            value = value.instance
        else:
            places.append((None, None))
        try:
            # ASCII: a lone surrogate in a string is written as its escape, which
            # the reader reads back as the same string.
            texts.append(json.dumps(value, allow_nan=False).encode("ascii"))
        except (TypeError, ValueError, RecursionError) as exc:
            unwritable[len(texts)] = f"not a JSON value: {exc}"
            texts.append(b"null")  # a placeholder, replaced below
    checker = Checker(_validator_of(validator), ERROR_PLAN)
    results, _ = results_of_chunk(checker, "", b"\n".join(texts) + b"\n", 1)
    named: list[Result] = []
    for index, result in enumerate(results):
        file, line = places[index]
        problem = unwritable.get(index)
        if problem is None:
            named.append(_renamed(result, file, line))
        else:
            record = _input_record(file, line, problem)
            named.append(Result(file, line, False, False, (record,), None))
    return named


def _renamed(result: Result, file: str | None, line: int | None) -> Result:
    if result.valid:
        return Result(file, line, True)
    errors = tuple({**record, "file": file, "line": line} for record in result.errors)
    return Result(file, line, False, result.checked, errors, result.text)


def _input_record(file: str | None, line: int | None, message: str) -> dict[str, Any]:
    """A record of a value that could not be read, in the command line's shape."""
    return {
        "file": file,
        "line": line,
        "instanceLocation": None,
        "keyword": None,
        "keywordLocation": None,
        "message": message,
        "kind": "input",
    }
