"""The ``schemacore`` command line.

``schemacore validate SCHEMA INSTANCE...`` validates JSON, JSON Lines, YAML and TOML
files against a schema (``schemacore.commandline.validate``);
``schemacore example`` validates the bundled example tool arguments;
``schemacore admit TOOLS.json`` admits a tool catalog through the runtime layer;
``schemacore check-args TOOLS.json TOOL ARGS.json`` checks one call's arguments.

Exit status of ``validate``: 0 every instance is valid; 1 some instance is invalid;
2 usage error, a schema that does not compile, or any unreadable or malformed file
(or line) or instance that could not be checked (a limit was hit before any mismatch
was found): such a file is reported and the run goes on with the next. The status
is the same whatever the flags print. ``admit``: 0
the batch was admitted (quarantined tools are listed), 1 it was refused, 2 usage or
input error. ``check-args``: 0 valid, 1 the arguments were refused, 2 usage or input
error or a tool that is not admitted. Results go to stdout, problems with the command
itself to stderr. A problem is never reported as a traceback (whose exit status, 1,
would read as a verdict): it is one ``error: ...`` line on stderr and status 2. When
stdout is closed early (``schemacore validate ... | head -1``) the command stops
quietly with status 2.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any, NoReturn, TextIO

import schemacore

from . import runtime
from .commandline import validate as validate_command
from .commandline.documents import JSON, STDIN, load
from .commandline.documents import Document as _Document
from .commandline.documents import InputError as _InputError
from .commandline.documents import parse_json as _parse
from .commandline.documents import read_stdin as _read_stdin
from .commandline.safetext import json_text as _json_text
from .commandline.safetext import printable as _printable
from .commandline.safetext import printable_lines as _printable_lines
from .errors import SchemaCoreError
from .pointer import parse_pointer, resolve_pointer
from .runtime.dialects import dialect_name, parse_dialects

__all__ = ["main"]

EXIT_VALID = 0
EXIT_INVALID = 1
EXIT_ERROR = 2


def _load(name: str, stdin: TextIO) -> _Document:
    return load(name, stdin, JSON)


def _report(
    document: _Document, validator: schemacore.Validator, out: TextIO, output: str = "text"
) -> bool:
    """Print the errors of one instance (or that it is valid); return its validity.

    ``output`` other than "text" prints the instance's evaluation in that standard
    output format, as one JSON object per line: {"instance": name, "output": ...}.
    """
    if output != "text":
        evaluation = validator.evaluate(document.value)
        line = {"instance": document.name, "output": evaluation.output(output)}
        print(_json_text(line), file=out)
        return evaluation.valid
    errors = list(validator.iter_errors(document.value))
    if not errors:
        print(_printable(f"{document.name}: valid"), file=out)
        return True
    for error in errors:
        where = error.instance_location or "(root)"
        print(_printable(f"{document.name}: {where}: {error.message}"), file=out)
    return False


def _compile(schema: Any, format_assertion: bool, err: TextIO) -> schemacore.Validator | None:
    try:
        return schemacore.compile(schema, format_assertion=format_assertion)
    except SchemaCoreError as exc:
        print(_printable(f"error: {exc.error_class}: {exc}"), file=err)
        return None


_EXAMPLE_PACKAGE = "schemacore"
_EXAMPLE_FOLDER = "examples"
_EXAMPLE_SCHEMA = "tool_args.schema.json"


def _example_document(name: str) -> _Document:
    resource = resources.files(_EXAMPLE_PACKAGE).joinpath(_EXAMPLE_FOLDER, name)
    return _parse(name, resource.read_bytes())


def _run_example(out: TextIO, err: TextIO) -> int:
    schema = _example_document(_EXAMPLE_SCHEMA)
    title = schema.value.get("title", "") if isinstance(schema.value, dict) else ""
    print(_printable(f"schema: {_EXAMPLE_SCHEMA}" + (f" ({title})" if title else "")), file=out)
    validator = _compile(schema.value, False, err)
    if validator is None:
        return EXIT_ERROR

    valid_ok = _report(_example_document("valid.json"), validator, out)
    invalid_ok = not _report(_example_document("invalid.json"), validator, out)
    if valid_ok and invalid_ok:
        print("example: results as expected", file=out)
        return EXIT_VALID
    if not valid_ok:
        print("error: valid.json was rejected", file=err)
    if not invalid_ok:
        print("error: invalid.json was accepted", file=err)
    return EXIT_INVALID


def _print_diagnostic(
    label: str,
    diagnostic: runtime.Diagnostic,
    tools: Sequence[Any],
    dialects: Sequence[str],
    out: TextIO,
) -> None:
    error = diagnostic.error
    tool = diagnostic.tool if diagnostic.tool is not None else "(unnamed)"
    where = f"#{diagnostic.index} {tool}" if diagnostic.index is not None else "(batch)"
    field = f" {diagnostic.field}" if diagnostic.field else ""
    path = f" at {error.path!r}" if error.path else ""
    message = error.message
    draft = _unlisted_draft(diagnostic, tools, dialects)
    if draft is not None:
        # The runtime's message names its API (dialects=); here the flag does that.
        spelled = f"draft {draft}" if draft[0].isdigit() else draft  # draft 2019-09
        message = (
            f"the schema declares {spelled}, a dialect not admitted here (reinterpreting "
            "it under 2020-12 rules could change what it accepts); pass --dialect "
            f"{draft} to admit it under its own rules"
        )
    text = f"{label}: {where}{field}: {error.error_class}: {error.code}{path}: {message}"
    print(_printable(text), file=out)


def _unlisted_draft(
    diagnostic: runtime.Diagnostic, tools: Sequence[Any], dialects: Sequence[str]
) -> str | None:
    """The short name of the draft a dialect refusal is about, when it is not among
    ``dialects`` and ``--dialect`` can admit it: read from the ``$schema`` the
    refusal points at, never from its message."""
    if diagnostic.code != "schema-dialect-unsupported" or diagnostic.index is None:
        return None
    try:
        schema = tools[diagnostic.index][diagnostic.field]
        declared = resolve_pointer(schema, parse_pointer(diagnostic.error.path))
    except (LookupError, TypeError):  # PointerError is a LookupError
        return None
    name = dialect_name(declared) if isinstance(declared, str) else None
    return name if name is not None and name not in parse_dialects(dialects) else None


def _dialects(given: Sequence[str] | None) -> tuple[str, ...]:
    """The dialects ``--dialect`` admits, as given, and 2020-12, which always is."""
    listed = tuple(given or ())
    if not any(item == "2020-12" or dialect_name(item) == "2020-12" for item in listed):
        listed += ("2020-12",)
    return listed


def _load_tools(name: str, stdin: TextIO, err: TextIO) -> list[Any] | None:
    try:
        document = _load(name, stdin)
        return runtime.tools_from_listing(document.value)
    except _InputError as exc:
        print(_printable(f"error: {exc}"), file=err)
    except runtime.BoundaryError as exc:
        print(_printable(f"error: {name}: {exc.code}: {exc.message}"), file=err)
    return None


def _omitted_by_reason(diagnostics: Sequence[runtime.Diagnostic]) -> list[dict[str, Any]]:
    """How many tools each (field, error class, code) left out, first seen first."""
    tools: dict[tuple[str, str, str], set[int | None]] = {}
    for d in diagnostics:
        tools.setdefault((d.field, d.error_class, d.code), set()).add(d.index)
    return [
        {"field": field, "errorClass": error_class, "code": code, "tools": len(indexes)}
        for (field, error_class, code), indexes in tools.items()
    ]


def _run_admit(args: argparse.Namespace, stdin: TextIO, out: TextIO, err: TextIO) -> int:
    tools = _load_tools(args.tools, stdin, err)
    if tools is None:
        return EXIT_ERROR
    as_json = args.json or args.output == "json"
    dialects = _dialects(args.dialect)
    report: dict[str, Any] = {
        "file": args.tools,
        "mode": args.mode,
        "dialects": list(dialects),
        "tools": len(tools),
    }
    try:
        bundle = runtime.ToolCatalog().admit_batch(tools, mode=args.mode, dialects=dialects)
    except (TypeError, ValueError) as exc:
        print(_printable(f"error: {exc}"), file=err)
        return EXIT_ERROR
    except runtime.AdmissionRejected as exc:
        report |= {"admitted": [], "quarantined": [], "leftOut": [], "refused": True}
        report["rejected"] = [d.to_dict() for d in exc.rejected]
        if as_json:
            print(_json_text(report, indent=2), file=out)
        else:
            print(_printable(f"{args.tools}: {exc}"), file=out)
            for diagnostic in exc.rejected:
                _print_diagnostic("rejected", diagnostic, tools, dialects, out)
        return EXIT_INVALID
    # Quarantine mode quarantines; isolate mode leaves out: the report keeps them apart.
    label = "left out" if args.mode == "isolate" else "quarantined"
    omitted = [d.to_dict() for d in bundle.rejected]
    report |= {"admitted": list(bundle.accepted), "refused": False, "rejected": []}
    report["quarantined"] = omitted if args.mode != "isolate" else []
    report["leftOut"] = omitted if args.mode == "isolate" else []
    report["omittedByReason"] = _omitted_by_reason(bundle.rejected)
    if as_json:
        print(_json_text(report, indent=2), file=out)
        return EXIT_VALID
    count = len({d.index for d in bundle.rejected})
    print(
        _printable(
            f"{args.tools}: admitted {len(bundle.accepted)} of {len(tools)} tools "
            f"({args.mode} mode; {count} {label})"
        ),
        file=out,
    )
    for reason in report["omittedByReason"]:
        text = (
            f"  {label}: {reason['tools']} x {reason['field']} {reason['errorClass']} "
            f"{reason['code']}"
        )
        print(_printable(text), file=out)
    for diagnostic in bundle.rejected:
        _print_diagnostic(label, diagnostic, tools, dialects, out)
    return EXIT_VALID


def _read_text(name: str, stdin: TextIO) -> str | bytes:
    if name == STDIN:
        return _read_stdin(stdin)
    try:
        return Path(name).read_bytes()
    except OSError as exc:
        raise _InputError(f"cannot read {name}: {exc.strerror or exc}") from exc
    except ValueError as exc:
        raise _InputError(f"cannot read {name!r}: {exc}") from exc


def _run_check_args(args: argparse.Namespace, stdin: TextIO, out: TextIO, err: TextIO) -> int:
    if [args.tools, args.arguments].count(STDIN) > 1:
        print("error: '-' (standard input) may be given only once", file=err)
        return EXIT_ERROR
    tools = _load_tools(args.tools, stdin, err)
    if tools is None:
        return EXIT_ERROR
    entry = next(
        (tool for tool in tools if isinstance(tool, dict) and tool.get("name") == args.tool), None
    )
    if entry is None:
        print(_printable(f"error: {args.tools}: no tool named {args.tool!r}"), file=err)
        return EXIT_ERROR
    dialects = _dialects(args.dialect)
    try:
        batch = runtime.ToolCatalog().admit_batch([entry], dialects=dialects)
    except (TypeError, ValueError) as exc:
        print(_printable(f"error: {exc}"), file=err)
        return EXIT_ERROR
    except runtime.AdmissionRejected as exc:
        for diagnostic in exc.rejected:
            _print_diagnostic("error: tool not admitted", diagnostic, [entry], dialects, err)
        return EXIT_ERROR
    admitted = batch.registry[args.tool]
    try:
        arguments: Any = runtime.parse_tool_args(_read_text(args.arguments, stdin))
    except _InputError as exc:
        print(_printable(f"error: {exc}"), file=err)
        return EXIT_ERROR
    except runtime.BoundaryError as exc:
        result: Any = runtime.tool_error_result(args.tool, exc)
    else:
        verdict = runtime.validate_tool_args(arguments, admitted)
        if verdict.ok:
            if args.json:
                print(_json_text({"ok": True, "tool": args.tool}), file=out)
            else:
                print(_printable(f"{args.tool}: arguments valid"), file=out)
            return EXIT_VALID
        result = runtime.tool_error_result(args.tool, verdict)
    if args.json:
        print(_json_text(result, indent=2), file=out)
    else:
        # Several lines by design (a heading, one line per issue): each made printable.
        print(_printable_lines(result["content"][0]["text"]), file=out)
    return EXIT_INVALID


# --dialect of admit and check-args.
_DIALECT_FLAG: dict[str, Any] = {
    "action": "append",
    "metavar": "DIALECT",
    "help": "a dialect to admit besides 2020-12, which always is (2019-09, draft-07, "
    "draft-06, draft-04 or a meta-schema URI; repeat for more): a tool declaring it is "
    "validated under its own rules",
}


class _Parser(argparse.ArgumentParser):
    """argparse, its error messages made printable: they quote arguments as given
    ("unrecognized arguments: ..."), and an argument may hold any character."""

    def error(self, message: str) -> NoReturn:
        super().error(_printable(message))


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="schemacore",
        description="Validate JSON documents against a JSON Schema (Draft 2020-12).",
        epilog="exit status: 0 all valid, 1 some invalid, 2 usage, input or schema error",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {schemacore.__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    validate = commands.add_parser(
        "validate",
        help="validate JSON instance files against a schema file",
        description="Validate JSON instance files against a schema file. A $ref to "
        "another document reads a local file (JSON or YAML) inside the allowed "
        "folders; nothing is fetched from the network.",
    )
    validate_command.add_arguments(validate)

    commands.add_parser(
        "example",
        help="validate the bundled example tool arguments",
        description="Validate the bundled create_calendar_event example: "
        "valid.json must pass and invalid.json must fail.",
    )

    admit = commands.add_parser(
        "admit",
        help="admit a tool catalog (MCP tools/list result or list of tools)",
        description="Admit a batch of MCP tools through the runtime layer. Strict mode "
        "refuses the batch on any problem; quarantine mode omits only tools whose "
        "schemas use an unsupported dialect or capability; isolate mode leaves out "
        "each tool with a problem (and the tools depending on it) and admits the rest. "
        "Exit status: 0 admitted, 1 refused, 2 usage or input error.",
    )
    admit.add_argument("tools", metavar="TOOLS.json", help="tools file ('-' for stdin)")
    admit.add_argument("--mode", choices=("strict", "quarantine", "isolate"), default="strict")
    admit.add_argument("--dialect", **_DIALECT_FLAG)
    admit.add_argument("--output", choices=("text", "json"), default="text")
    admit.add_argument("--json", action="store_true", help="the same as --output json")

    check = commands.add_parser(
        "check-args",
        help="check one tool call's arguments against the tool's input schema",
        description="Admit TOOL from TOOLS.json, parse ARGS.json strictly and report "
        "value-safe issues as a model would see them. Exit status: 0 valid, 1 refused, "
        "2 usage or input error or a tool that is not admitted.",
    )
    check.add_argument("tools", metavar="TOOLS.json", help="tools file ('-' for stdin)")
    check.add_argument("tool", metavar="TOOL", help="the tool's name")
    check.add_argument("arguments", metavar="ARGS.json", help="arguments file ('-' for stdin)")
    check.add_argument("--dialect", **_DIALECT_FLAG)
    check.add_argument("--json", action="store_true", help="print the MCP isError result")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); return the
    exit status instead of exiting, so it can be called from tests and scripts."""
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        # argparse exits on --help/--version (0) and on usage errors (2).
        if exc.code is None:
            return EXIT_VALID
        return exc.code if isinstance(exc.code, int) else EXIT_ERROR
    for stream in (sys.stdout, sys.stderr):
        # Names, locations and messages may hold lone surrogates (JSON can spell
        # them) or characters the terminal's encoding lacks: escape, never fail.
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")
    try:
        status = _dispatch(args)
        # A closed pipe shows here when the output was buffered; stdout is None
        # when the command was started with it closed (>&-).
        flush = getattr(sys.stdout, "flush", None)
        if flush is not None:
            flush()
        return status
    except BrokenPipeError:
        _discard_stdout()
        return EXIT_ERROR
    except Exception as exc:  # a bug: still one line and status 2, never a verdict
        print(_printable(f"error: internal error: {type(exc).__name__}: {exc}"), file=sys.stderr)
        return EXIT_ERROR


def _dispatch(args: argparse.Namespace) -> int:
    if args.command == "example":
        return _run_example(sys.stdout, sys.stderr)
    if args.command == "admit":
        return _run_admit(args, sys.stdin, sys.stdout, sys.stderr)
    if args.command == "check-args":
        return _run_check_args(args, sys.stdin, sys.stdout, sys.stderr)
    return validate_command.run(args, sys.stdin, sys.stdout, sys.stderr)


def _discard_stdout() -> None:
    """Point stdout at the null device: the reader is gone, and the interpreter's
    final flush of what is still buffered must not fail again at exit."""
    try:
        descriptor = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return  # not a file (a test's StringIO): nothing is flushed at exit
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, descriptor)
    finally:
        os.close(null)
