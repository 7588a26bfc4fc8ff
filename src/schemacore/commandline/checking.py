"""Checking one document, or one chunk of JSON Lines, and rendering what was found.

This is the work a worker process does: it returns an :class:`Outcome` holding the
lines to print (already rendered) and the counts, so the main process only writes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import schemacore

from ..errors import SchemaCoreError
from .documents import STDIN, STDIN_NAME, InputError, parse, read_bytes
from .lines import Chunk, decode_line, is_blank, split_lines

__all__ = ["Checker", "ChunkTask", "DocumentTask", "Outcome", "Plan"]

TEXT = "text"


@dataclass(frozen=True, slots=True)
class Plan:
    """What to print; the same in every worker.

    ``output`` is "text" or a standard output format (one JSON object per record);
    ``error_format`` "text" or "json" (one JSON object per error); ``quiet`` prints
    nothing on stdout.
    """

    output: str = TEXT
    error_format: str = TEXT
    quiet: bool = False


@dataclass(frozen=True, slots=True)
class DocumentTask:
    """A whole document: the file ``name``, or ``data`` already read (stdin)."""

    name: str
    fmt: str
    data: str | bytes | None = None


@dataclass(frozen=True, slots=True)
class ChunkTask:
    """Whole lines of the JSON Lines file ``name``."""

    name: str
    chunk: Chunk


@dataclass(slots=True)
class Outcome:
    """What checking a document or chunk found, in input order.

    ``lines`` are (to_stderr, text) pairs. ``records`` counts the values checked or
    attempted, ``invalid`` those that failed the schema, ``failed`` those that could
    not be read or evaluated. ``ends_file`` marks the last outcome of a file, and
    ``summarize`` the end of a JSON Lines file, whose counts are then printed.
    """

    name: str
    records: int = 0
    invalid: int = 0
    failed: int = 0
    nbytes: int = 0
    ends_file: bool = True
    summarize: bool = False
    lines: list[tuple[bool, str]] = field(default_factory=list)


class Checker:
    """Checks documents and chunks against one validator, rendering per ``plan``."""

    def __init__(self, validator: schemacore.Validator, plan: Plan) -> None:
        self._validator = validator
        self._plan = plan
        # Errors are rendered only when something will print them.
        self._wants_errors = not plan.quiet and plan.output == TEXT
        self._evaluates = not plan.quiet and plan.output != TEXT

    def run(self, task: DocumentTask | ChunkTask) -> Outcome:
        if isinstance(task, ChunkTask):
            return self.chunk(task)
        return self.document(task)

    def document(self, task: DocumentTask) -> Outcome:
        name = STDIN_NAME if task.name == STDIN else task.name
        outcome = Outcome(name)
        outcome.records = 1
        try:
            data = read_bytes(task.name) if task.data is None else task.data
            outcome.nbytes = len(data)
            value = parse(name, data, task.fmt).value
        except InputError as exc:
            outcome.failed = 1
            self._problem(outcome, "input", name, None, str(exc), exc.reason)
            return outcome
        self._check(outcome, value, name, None)
        return outcome

    def chunk(self, task: ChunkTask) -> Outcome:
        outcome = Outcome(task.name, nbytes=len(task.chunk.data), ends_file=False)
        number = task.chunk.first_line
        for line in split_lines(task.chunk.data):
            if not is_blank(line):
                outcome.records += 1
                try:
                    value = decode_line(line)
                except InputError as exc:
                    outcome.failed += 1
                    where = f"{task.name}:{number}"
                    self._problem(outcome, "input", task.name, number, f"{where}: {exc}", str(exc))
                else:
                    self._check(outcome, value, task.name, number)
            number += 1
        return outcome

    def failure(
        self, name: str, line: int | None, exc: InputError, *, ends_file: bool = True
    ) -> Outcome:
        """The outcome of a file (or a line of one) the main process could not read."""
        outcome = Outcome(name, records=0, failed=1, ends_file=ends_file)
        text = str(exc) if line is None else f"{name}:{line}: {exc.reason}"
        self._problem(outcome, "input", name, line, text, exc.reason)
        return outcome

    def _check(self, outcome: Outcome, value: Any, name: str, line: int | None) -> None:
        where = name if line is None else f"{name}:{line}"
        validator = self._validator
        try:
            if self._evaluates:
                evaluation = validator.evaluate(value)
                valid = evaluation.valid
                outcome.lines.append((False, _output_record(where, evaluation, self._plan.output)))
            else:
                valid = validator.is_valid(value)
                if not valid and self._wants_errors:
                    self._report_errors(outcome, value, name, line, where)
        except SchemaCoreError as exc:
            # Not a verdict: the value could not be evaluated (e.g. a limit was hit).
            outcome.failed += 1
            reason = f"{exc.error_class}: {exc}"
            self._problem(outcome, exc.error_class, name, line, f"{where}: {reason}", reason)
            return
        if not valid:
            outcome.invalid += 1
        elif line is None and self._wants_errors and self._plan.error_format == TEXT:
            outcome.lines.append((False, f"{where}: valid"))

    def _report_errors(
        self, outcome: Outcome, value: Any, name: str, line: int | None, where: str
    ) -> None:
        errors = list(self._validator.iter_errors(value))
        if not errors:  # is_valid said no: never let that pass in silence
            outcome.lines.append((False, f"{where}: (root): the instance is invalid"))
            return
        as_json = self._plan.error_format == "json"
        for error in errors:
            if as_json:
                record = _record(
                    name,
                    line,
                    "invalid",
                    error.message,
                    error.instance_location,
                    error.keyword,
                    error.keyword_location,
                )
                outcome.lines.append((False, record))
            else:
                location = error.instance_location or "(root)"
                outcome.lines.append((False, f"{where}: {location}: {error.message}"))

    def _problem(
        self, outcome: Outcome, kind: str, name: str, line: int | None, text: str, reason: str
    ) -> None:
        """A value that could not be read or evaluated: one ``error:`` line on stderr,
        and with ``--error-format json`` a record on stdout too."""
        outcome.lines.append((True, f"error: {text}"))
        if self._plan.error_format == "json" and not self._plan.quiet:
            outcome.lines.append((False, _record(name, line, kind, reason)))


def _output_record(where: str, evaluation: schemacore.Evaluation, fmt: str) -> str:
    """``{"instance": where, "output": <the output in fmt>}`` as one JSON line.

    Written from the output's units as they come (``Evaluation.iter_json``: no output
    object, no walk the format does not need; flag is is_valid's answer alone), and
    kept whole until the record is done: a record whose evaluation fails part way
    (a limit) is one ``error:`` line, never half a JSON object on stdout.
    """
    head = f'{{"instance": {json.dumps(where, ensure_ascii=False)}, "output": '
    return "".join([head, *evaluation.iter_json(fmt, ensure_ascii=False), "}"])


def _record(
    name: str,
    line: int | None,
    kind: str,
    message: str,
    instance_location: str | None = None,
    keyword: str | None = None,
    keyword_location: str | None = None,
) -> str:
    return json.dumps(
        {
            "file": name,
            "line": line,
            "instanceLocation": instance_location,
            "keyword": keyword,
            "keywordLocation": keyword_location,
            "message": message,
            "kind": kind,
        },
        ensure_ascii=False,
    )
