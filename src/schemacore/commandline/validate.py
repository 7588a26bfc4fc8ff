"""``schemacore validate SCHEMA INSTANCE...``: its flags and its run.

Instances are read one at a time (a JSON Lines file a chunk at a time), each gets
its verdict, and a file that cannot be read or parsed is reported for that file
while the run goes on. Exit status: 0 every record valid, 1 some record invalid, 2
some file, line or record could not be read or evaluated (or a usage or schema
error, which stops the run before it starts).
"""

from __future__ import annotations

import argparse
import io
import os
from collections.abc import Generator, Iterator, Sequence
from concurrent.futures.process import BrokenProcessPool
from contextlib import closing
from pathlib import Path
from typing import Any, BinaryIO, TextIO

import schemacore

from ..errors import SchemaCoreError, SchemaError
from ..output import FORMATS
from ..resources import DEFER_HINT
from ..uri import URI
from .checking import TEXT, Checker, ChunkTask, DocumentTask, Outcome, Plan
from .documents import (
    JSON,
    LINES,
    STDIN,
    STDIN_NAME,
    InputError,
    format_of,
    load,
    read_stdin,
)
from .limitflags import add_limit_arguments, limits_from
from .lines import read_chunks
from .pool import Item, in_process, in_workers
from .progress import Progress
from .references import FileDocuments, ReferenceFileError, prepare
from .safetext import printable

__all__ = ["EXIT_ERROR", "EXIT_INVALID", "EXIT_VALID", "add_arguments", "compile_options", "run"]

EXIT_VALID = 0
EXIT_INVALID = 1
EXIT_ERROR = 2


def _jobs(text: str) -> int:
    try:
        jobs = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if jobs < 0:
        raise argparse.ArgumentTypeError("must be 0 (one per CPU) or more")
    return jobs or os.cpu_count() or 1


def _folder_uri(text: str) -> str:
    parts = URI.parse(text)
    if parts.scheme is None or parts.query is not None or parts.fragment is not None:
        raise argparse.ArgumentTypeError(
            f"not an absolute URI without a query or fragment: {text!r}"
        )
    # A prefix of folders: "https://example.com/schemas" is that folder too.
    return text if text.endswith("/") else text + "/"


def _existing_folder(text: str) -> Path:
    try:
        folder = Path(text).resolve()
        if folder.is_dir():
            return folder
    except (OSError, ValueError):
        pass
    raise argparse.ArgumentTypeError(f"not a folder: {text!r}")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags of ``validate``: each becomes an attribute of the parsed namespace."""
    parser.add_argument("schema", metavar="SCHEMA", help="schema file ('-' for stdin)")
    parser.add_argument(
        "instances", metavar="INSTANCE", nargs="+", help="instance file ('-' for stdin, once)"
    )
    parser.add_argument(
        "--format-assertion",
        action="store_true",
        help="treat 'format' as an assertion rather than an annotation",
    )
    parser.add_argument(
        "--default-dialect",
        metavar="DIALECT",
        help="the dialect of a schema that declares no $schema: 2020-12 (the default), "
        "2019-09, draft-07, draft-06, draft-04, or a meta-schema URI",
    )
    references = parser.add_argument_group(
        "references",
        "a $ref to another document reads a local file (JSON or YAML), never the "
        "network: a schema without $id has its file's location as base URI, and the "
        "folder of its absolute $id is read from the schema's folder. Files are read "
        "only inside the working directory and the schema's folder (see --ref-root)",
    )
    references.add_argument(
        "--base-uri",
        type=_folder_uri,
        metavar="URI",
        help="also read references under this URI prefix (a folder, such as "
        "https://example.com/schemas/) from the schema file's folder",
    )
    references.add_argument(
        "--ref-root",
        type=_existing_folder,
        action="append",
        metavar="DIR",
        help="read referenced files only inside DIR (repeat for more), instead of the "
        "working directory and the schema's folder; checked after resolving .. and "
        "symlinks",
    )
    references.add_argument(
        "--no-file-refs",
        action="store_true",
        help="read no referenced file: the schema must be self-contained",
    )
    references.add_argument(
        "--defer-unresolved",
        action="store_true",
        help="compile a reference that names nothing (a document, anchor or location "
        "that is not there) to fail only the documents that reach it (could not check, "
        "exit 2); the others are checked as usual. Listed once on stderr",
    )
    parser.add_argument(
        "--output",
        choices=(TEXT, *FORMATS),
        default=TEXT,
        help="text (one line per error, the default) or a standard output format, "
        "printed as one JSON object per instance (per line of a JSON Lines file)",
    )
    parser.add_argument(
        "--error-format",
        choices=(TEXT, "json"),
        default=TEXT,
        help="json: one JSON object per error on stdout (file, line, instanceLocation, "
        "keyword, keywordLocation, message, kind), nothing for valid files",
    )
    parser.add_argument(
        "--lines",
        action="store_true",
        help="read every instance as JSON Lines (one value per line), as the suffixes "
        ".jsonl and .ndjson already do",
    )
    parser.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="print nothing on stdout (the exit status is the answer; problems still go to stderr)",
    )
    parser.add_argument(
        "-j",
        "--jobs",
        type=_jobs,
        default=None,
        metavar="N",
        help="check files or batches of lines in N processes (0: one per CPU); "
        "results are printed in input order",
    )
    parser.add_argument(
        "--dask",
        metavar="SCHEDULER",
        help="check on a Dask cluster, same output in input order: local[:N] (N local "
        "worker processes, one per CPU by default) or a scheduler address "
        "(tcp://HOST:PORT); workers read the files by the names given. Needs "
        "pip install 'schemacore[dask]'; not with --jobs",
    )
    parser.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress line on stderr (shown only on a terminal, for long runs)",
    )
    add_limit_arguments(parser)


def compile_options(args: argparse.Namespace) -> dict[str, Any]:
    """Keyword arguments for ``schemacore.compile`` from the parsed flags."""
    options: dict[str, Any] = {"format_assertion": args.format_assertion}
    if args.defer_unresolved:
        options["defer_unresolved"] = True
    if args.default_dialect is not None:
        options["default_dialect"] = args.default_dialect
    limits = limits_from(args)
    if limits is not None:
        options["limits"] = limits
    return options


def run(
    args: argparse.Namespace, stdin: TextIO | None, out: TextIO | None, err: TextIO | None
) -> int:
    """Run ``validate`` with parsed ``args``; return the exit status."""
    names: list[str] = [args.schema, *args.instances]
    if names.count(STDIN) > 1:
        print("error: '-' (standard input) may be given only once", file=err)
        return EXIT_ERROR
    if args.error_format != TEXT and args.output != TEXT:
        print("error: --error-format json and --output cannot be combined", file=err)
        return EXIT_ERROR
    if args.dask is not None:
        refusal = _dask_refusal(args)
        if refusal is not None:
            print(printable(f"error: {refusal}"), file=err)
            return EXIT_ERROR
    jobs = args.jobs if args.jobs is not None else 1
    try:
        # A schema is one document, whatever its suffix says.
        schema = load(args.schema, stdin, _whole(format_of(args.schema)))
    except InputError as exc:
        print(printable(f"error: {exc}"), file=err)
        return EXIT_ERROR
    source = prepare(
        schema.value,
        args.schema,
        base_uri=args.base_uri,
        ref_roots=args.ref_root or (),
        file_refs=not args.no_file_refs,
        default_dialect=args.default_dialect,
    )
    try:
        validator = schemacore.compile(
            source.schema, registry=source.registry, **compile_options(args)
        )
    except SchemaCoreError as exc:
        # The schema's own keys and values may be in the message and its location.
        print(printable(f"error: {_compile_error(exc, source.registry)}"), file=err)
        return EXIT_ERROR
    except ReferenceFileError as exc:  # a referenced file that was not read
        print(printable(f"error: {SchemaError.error_class}: {exc}"), file=err)
        return EXIT_ERROR
    for deferred in validator.deferred_references:
        print(
            printable(
                f"warning: {args.schema}: the reference to {deferred.uri!r} "
                f"(at {deferred.schema_location!r}) names nothing: a document that "
                "reaches it is not checked"
            ),
            file=err,
        )

    plan = Plan(output=args.output, error_format=args.error_format, quiet=args.quiet)
    checker = Checker(validator, plan)
    if args.dask is not None:
        return _run_on_dask(args, validator, plan, out, err)
    items = _items(args.instances, args.lines, stdin, checker)
    parallel = jobs > 1 and (len(args.instances) > 1 or _any_lines(args))
    outcomes = (
        in_workers(validator, plan, items, jobs) if parallel else in_process(checker, items)
    )
    progress = Progress(
        err, _total_bytes(args.instances), enabled=not (args.quiet or args.no_progress)
    )
    try:
        with closing(items), closing(outcomes):
            return _print(outcomes, plan, progress, out, err)
    except BrokenProcessPool as exc:
        print(printable(f"error: a worker process stopped: {exc}"), file=err)
        return EXIT_ERROR
    finally:
        progress.erase()


def _dask_refusal(args: argparse.Namespace) -> str | None:
    """Why ``--dask`` cannot run with these flags, before anything is read."""
    if args.jobs is not None:
        return (
            "--dask and --jobs cannot be combined (the cluster's workers are the jobs: "
            "use --dask local:N)"
        )
    if STDIN in args.instances:
        return "--dask: standard input cannot be read by the cluster's workers"
    try:
        from .. import dask as on_dask
    except ImportError as exc:
        return str(exc)
    try:
        on_dask.parse_scheduler(args.dask)
    except ValueError as exc:
        return f"--dask: {exc}"
    return None


def _run_on_dask(
    args: argparse.Namespace,
    validator: schemacore.Validator,
    plan: Plan,
    out: TextIO | None,
    err: TextIO | None,
) -> int:
    """``validate --dask``: the outcomes a local run yields, checked on the cluster's
    workers and printed by the same code, in input order."""
    from distributed import KilledWorker

    from .. import dask as on_dask
    from ..scale import VersionMismatch

    progress = Progress(
        err, _total_bytes(args.instances), enabled=not (args.quiet or args.no_progress)
    )
    try:
        with on_dask.connect(args.dask) as client:
            outcomes = on_dask.iter_outcomes(
                client, validator, plan, args.instances, lines=args.lines
            )
            with closing(outcomes):
                return _print(outcomes, plan, progress, out, err)
    except (OSError, TimeoutError) as exc:
        message = f"--dask: the cluster cannot be reached ({type(exc).__name__}: {exc})"
    except VersionMismatch as exc:
        message = f"--dask: {exc}"
    except KilledWorker as exc:
        message = f"--dask: workers kept dying on a task ({exc})"
    except ValueError as exc:
        message = f"--dask: {exc}"
    finally:
        progress.erase()
    print(printable(f"error: {message}"), file=err)
    return EXIT_ERROR


def _compile_error(exc: SchemaCoreError, registry: FileDocuments) -> str:
    """What a schema that does not compile is reported as: the engine's words, but
    for a reference to a document that no file holds, the command line's own (the
    engine's message names the options of ``schemacore.compile``)."""
    missing = registry.missing
    if exc.reason == "unresolvable-reference" and missing is not None and missing in exc.message:
        where = f" (at {exc.location!r})" if exc.location else ""
        return (
            f"{exc.error_class}: cannot resolve reference {missing!r}{where}: "
            f"{registry.why_missing(missing)}{_DEFER_HINT}"
        )
    if exc.reason == "unresolvable-reference":
        # The engine's message names its own option; a command-line user has a flag.
        message = str(exc).replace(DEFER_HINT, _DEFER_HINT.strip())
        return f"{exc.error_class}: {message}"
    return f"{exc.error_class}: {exc}"


_DEFER_HINT = " (--defer-unresolved checks the documents that never reach it)"


def _print(
    outcomes: Iterator[Outcome],
    plan: Plan,
    progress: Progress,
    out: TextIO | None,
    err: TextIO | None,
) -> int:
    # print() to a stream that is None (started with it closed: >&-) prints nothing.
    write_out = out.write if out is not None else _discard
    write_err = err.write if err is not None else _discard
    invalid = failed = 0
    file_records = file_invalid = file_failed = 0
    summaries = not plan.quiet and plan.output == TEXT and plan.error_format == TEXT
    for outcome in outcomes:
        if outcome.lines:
            progress.erase()
            for to_stderr, text in outcome.lines:
                if to_stderr:
                    write_err(text + "\n")
                elif not plan.quiet:
                    write_out(text + "\n")
        file_records += outcome.records
        file_invalid += outcome.invalid
        file_failed += outcome.failed
        if outcome.summarize and summaries:
            progress.erase()
            write_out(_summary(outcome.name, file_records, file_invalid, file_failed) + "\n")
        if outcome.ends_file:
            invalid += file_invalid
            failed += file_failed
            file_records = file_invalid = file_failed = 0
        progress.advance(outcome.records, outcome.invalid + outcome.failed, outcome.nbytes)
    if failed:
        return EXIT_ERROR
    return EXIT_INVALID if invalid else EXIT_VALID


def _discard(text: str) -> int:
    return 0


def _summary(name: str, records: int, invalid: int, failed: int) -> str:
    name = printable(name)
    counted = f"{records:,} record{'' if records == 1 else 's'}"
    if not invalid and not failed:
        return f"{name}: valid ({counted})"
    parts = [f"{records - invalid - failed:,} valid", f"{invalid:,} invalid"]
    if failed:
        parts.append(f"{failed:,} not checked")
    return f"{name}: {counted}: {', '.join(parts)}"


def _whole(fmt: str) -> str:
    return JSON if fmt == LINES else fmt


def _any_lines(args: argparse.Namespace) -> bool:
    return bool(args.lines) or any(format_of(name) == LINES for name in args.instances)


def _items(
    names: Sequence[str], lines: bool, stdin: TextIO | None, checker: Checker
) -> Generator[Item, None, None]:
    """What to check, file by file, reading nothing before it is needed."""
    for name in names:
        fmt = LINES if lines else format_of(name)
        if fmt == LINES:
            yield from _line_items(name, stdin, checker)
        elif name == STDIN:
            try:
                yield DocumentTask(STDIN_NAME, fmt, read_stdin(stdin))
            except InputError as exc:
                yield checker.failure(STDIN_NAME, None, exc)
        else:
            yield DocumentTask(name, fmt)


def _line_items(name: str, stdin: TextIO | None, checker: Checker) -> Generator[Item, None, None]:
    shown = STDIN_NAME if name == STDIN else name
    try:
        stream = _binary_stdin(stdin) if name == STDIN else _open(name)
    except InputError as exc:
        yield checker.failure(shown, None, exc)
        return
    line = 1
    try:
        for chunk in read_chunks(stream):
            yield ChunkTask(shown, chunk)
            line = chunk.first_line + chunk.data.count(b"\n")
    except OSError as exc:
        problem = InputError.unreadable(shown, str(exc.strerror or exc))
        yield checker.failure(shown, line, problem, ends_file=False)
    finally:
        if name != STDIN:
            stream.close()
    yield Outcome(shown, summarize=True)


def _open(name: str) -> BinaryIO:
    try:
        return open(name, "rb")
    except OSError as exc:
        raise InputError.unreadable(name, str(exc.strerror or exc)) from exc
    except ValueError as exc:  # a name with a NUL (main(argv) only)
        raise InputError(f"cannot read {name!r}: {exc}", f"cannot read: {exc}") from exc


def _binary_stdin(stdin: TextIO | None) -> BinaryIO:
    if getattr(stdin, "read", None) is None:  # started with stdin closed (<&-)
        raise InputError("cannot read standard input: it is closed", "cannot read: closed")
    assert stdin is not None
    buffer = getattr(stdin, "buffer", None)
    if buffer is not None:
        return buffer  # type: ignore[no-any-return]
    # A text stream without bytes under it (a test's StringIO).
    return io.BytesIO(stdin.read().encode("utf-8", "surrogateescape"))


def _total_bytes(names: Sequence[str]) -> int | None:
    """The size of all the input, for the progress bar (None when unknown)."""
    total = 0
    for name in names:
        if name == STDIN:
            return None
        try:
            total += os.stat(name).st_size
        except (OSError, ValueError):
            continue
    return total
