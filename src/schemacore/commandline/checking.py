"""Checking one document, or one chunk of JSON Lines, and rendering what was found.

This is the work a worker process does: it returns an :class:`Outcome` holding the
lines to print (already rendered) and the counts, so the main process only writes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import schemacore

from ..errors import ExecutionFailure, SchemaCoreError
from .documents import STDIN, STDIN_NAME, InputError, parse, read_bytes
from .lines import Chunk, decode_line, is_blank, split_lines
from .safetext import escape_json, json_text, printable

__all__ = ["Checker", "ChunkTask", "DocumentTask", "Outcome", "Plan"]

TEXT = "text"
# The kind of the --error-format json record saying where a limit ended the listing
# of an invalid value's errors.
STOPPED = "stopped"
_UNKNOWN_PLACE = "(location unknown)"


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
        # The verdict is is_valid's, whatever is printed (evaluate() is one is_valid
        # call): a mismatch it found stands even when reporting the errors meets a
        # limit further on. Only when is_valid itself cannot finish is there none.
        try:
            if self._evaluates:
                evaluation = validator.evaluate(value)
                valid = evaluation.valid
            else:
                valid = validator.is_valid(value)
        except SchemaCoreError as exc:
            # Not a verdict: the value could not be evaluated (e.g. a limit was hit).
            outcome.failed += 1
            reason = f"{exc.error_class}: {exc}"
            self._problem(outcome, exc.error_class, name, line, f"{where}: {reason}", reason)
            return
        if self._evaluates:
            outcome.lines.append((False, self._output_line(where, value, evaluation)))
        elif not valid and self._wants_errors:
            self._report_errors(outcome, value, name, line, where)
        if not valid:
            outcome.invalid += 1
        elif line is None and self._wants_errors and self._plan.error_format == TEXT:
            outcome.lines.append((False, printable(f"{where}: valid")))

    def _report_errors(
        self, outcome: Outcome, value: Any, name: str, line: int | None, where: str
    ) -> None:
        errors, stop = self._errors_until_stopped(value)
        as_json = self._plan.error_format == "json"
        lines = outcome.lines
        if not errors:  # is_valid said no: never let that pass in silence
            message = "the instance is invalid"
            if as_json:
                lines.append((False, _record(name, line, "invalid", message, "")))
            else:
                lines.append((False, printable(f"{where}: (root): {message}")))
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
                lines.append((False, record))
            else:
                location = error.instance_location or "(root)"
                lines.append((False, printable(f"{where}: {location}: {error.message}")))
        if stop is None:
            return
        # The listing ends where the limit was met; the verdict stands.
        stopped_at = self._where_stopped(value, stop)
        message = _stopped_message(stop)
        if as_json:
            lines.append((False, _record(name, line, STOPPED, message, stopped_at)))
        else:
            shown = _UNKNOWN_PLACE if stopped_at is None else stopped_at or "(root)"
            lines.append((False, printable(f"{where}: {shown}: {message}")))

    def _errors_until_stopped(
        self, value: Any
    ) -> tuple[list[schemacore.ValidationError], SchemaCoreError | None]:
        """The errors ``iter_errors`` yields before it meets a limit, and the failure
        it met (None when it finished)."""
        errors: list[schemacore.ValidationError] = []
        try:
            errors.extend(self._validator.iter_errors(value))
        except SchemaCoreError as exc:
            return errors, exc
        return errors, None

    def _where_stopped(self, value: Any, stop: SchemaCoreError) -> str | None:
        """The instance location where ``stop`` was met, None when it cannot be told.

        The error path checks each subtree with is_valid before walking it, and a
        limit met inside that check carries no location; the evaluation walk, which
        keeps the path at hand, names it when it meets the same limit.
        """
        if stop.location:
            return stop.location
        try:
            self._validator.evaluate(value).output("list")
        except ExecutionFailure as again:
            same = isinstance(stop, ExecutionFailure) and again.limit == stop.limit
            if same and again.location:
                return again.location
        except SchemaCoreError:
            pass
        return None

    def _output_line(self, where: str, value: Any, evaluation: schemacore.Evaluation) -> str:
        """The record of ``--output FORMAT``, whole even when the walk the format
        needs meets a limit after is_valid gave the verdict: then it holds the
        verdict, the errors found before the limit (as basic units) and, under
        ``stopped``, where the limit was met."""
        try:
            return _output_record(where, evaluation, self._plan.output)
        except SchemaCoreError as stop:
            output: dict[str, Any] = {"valid": evaluation.valid}
            if not evaluation.valid:
                errors, _ = self._errors_until_stopped(value)
                output["errors"] = [_basic_error(error) for error in errors]
            failure = stop if isinstance(stop, ExecutionFailure) else None
            stopped = {
                "instanceLocation": self._where_stopped(value, stop),
                "schemaLocation": (failure.schema_location or None) if failure else None,
                "limit": failure.limit if failure else None,
                "error": _stopped_message(stop),
            }
            return json_text({"instance": where, "output": output, "stopped": stopped})

    def _problem(
        self, outcome: Outcome, kind: str, name: str, line: int | None, text: str, reason: str
    ) -> None:
        """A value that could not be read or evaluated: one ``error:`` line on stderr,
        and with ``--error-format json`` a record on stdout too."""
        outcome.lines.append((True, printable(f"error: {text}")))
        if self._plan.error_format == "json" and not self._plan.quiet:
            outcome.lines.append((False, _record(name, line, kind, reason)))


def _output_record(where: str, evaluation: schemacore.Evaluation, fmt: str) -> str:
    """``{"instance": where, "output": <the output in fmt>}`` as one JSON line.

    Written from the output's units as they come (``Evaluation.iter_json``: no output
    object, no walk the format does not need; flag is is_valid's answer alone), and
    kept whole until the record is done: a walk that fails part way (a limit) raises
    before anything is printed, never leaving half a JSON object on stdout.
    """
    head = f'{{"instance": {json.dumps(where, ensure_ascii=False)}, "output": '
    return escape_json("".join([head, *evaluation.iter_json(fmt, ensure_ascii=False), "}"]))


def _record(
    name: str,
    line: int | None,
    kind: str,
    message: str,
    instance_location: str | None = None,
    keyword: str | None = None,
    keyword_location: str | None = None,
) -> str:
    return json_text(
        {
            "file": name,
            "line": line,
            "instanceLocation": instance_location,
            "keyword": keyword,
            "keywordLocation": keyword_location,
            "message": message,
            "kind": kind,
        }
    )


def _stopped_message(stop: SchemaCoreError) -> str:
    # The message alone: the location is a field of its own wherever this is shown.
    return f"report stopped here: {stop.error_class}: {stop.message}"


def _basic_error(error: schemacore.ValidationError) -> dict[str, Any]:
    """An error as a unit of the basic output format."""
    return {
        "valid": False,
        "keywordLocation": error.keyword_location,
        "absoluteKeywordLocation": error.absolute_keyword_location,
        "instanceLocation": error.instance_location,
        "error": error.message,
    }
