"""Reading one whole document (a JSON, YAML or TOML file, or standard input) strictly.

Whatever is read must be a JSON value: YAML and TOML can spell things JSON has no type
for (dates, binary data, sets, keys that are not strings, NaN), and such a document is
refused here with the place and the kind of value, never handed to the engine.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

__all__ = [
    "JSON",
    "LINES",
    "STDIN",
    "STDIN_NAME",
    "TOML",
    "YAML",
    "Document",
    "InputError",
    "finite_float",
    "format_of",
    "load",
    "parse",
    "parse_json",
    "read_bytes",
    "read_stdin",
    "reject_constant",
]

STDIN = "-"
STDIN_NAME = "<stdin>"

JSON = "json"
LINES = "lines"
YAML = "yaml"
TOML = "toml"

_SUFFIXES = {".jsonl": LINES, ".ndjson": LINES, ".yaml": YAML, ".yml": YAML, ".toml": TOML}

# Values that aliases add to a YAML document beyond the values written out: past this
# a few lines (the "billion laughs") would make the validator walk billions of values.
MAX_ALIAS_EXPANSION = 1_000_000
# Characters (of strings, keys and integers' digits) that aliases add to a YAML document
# beyond the length of its text: an alias is a few characters whatever it repeats, so
# without this a 100 KB file of aliases to one long string holds gigabytes of text
# within the value limit.
MAX_ALIAS_CHARACTERS = 10_000_000


def format_of(name: str) -> str:
    """The format a file's name says it holds (JSON unless its suffix says otherwise)."""
    if name == STDIN:
        return JSON
    return _SUFFIXES.get(Path(name).suffix.lower(), JSON)


class InputError(Exception):
    """A file (or one line of it) could not be read, or is not a JSON value.

    ``str(error)`` names the file; ``reason`` says what is wrong without the name.
    """

    def __init__(self, message: str, reason: str | None = None) -> None:
        super().__init__(message)
        self.reason = reason if reason is not None else message

    def __reduce__(self) -> tuple[type[InputError], tuple[str, str]]:
        # Exceptions pickle their args only, and reason is not one of them.
        return (type(self), (str(self), self.reason))

    @classmethod
    def invalid(cls, name: str, reason: str) -> InputError:
        return cls(f"{name}: {reason}", reason)

    @classmethod
    def unreadable(cls, name: str, why: str) -> InputError:
        return cls(f"cannot read {name}: {why}", f"cannot read: {why}")


@dataclass(frozen=True)
class Document:
    name: str
    value: Any


def reject_constant(token: str) -> Any:
    """Refuse NaN and Infinity (a json parse_constant hook)."""
    # Python's json module accepts NaN and Infinity, which are not JSON.
    raise ValueError(f"{token} is not valid JSON")


def finite_float(token: str) -> float:
    """A JSON number token as a float, refusing those past the range of a double."""
    # 1e999 is JSON syntax, but Python reads it as inf, which no JSON value is.
    value = float(token)
    if value in (math.inf, -math.inf):
        raise ValueError("a number is outside the range of a double")
    return value


def parse_json(name: str, text: str | bytes) -> Document:
    """Parse one JSON text (bytes in UTF-8, -16 or -32, as RFC 8259 allows)."""
    try:
        value = json.loads(text, parse_constant=reject_constant, parse_float=finite_float)
    except (ValueError, UnicodeDecodeError) as exc:
        # JSONDecodeError is a ValueError, and so is an integer literal longer than
        # sys.get_int_max_str_digits().
        raise InputError.invalid(name, f"invalid JSON: {exc}") from exc
    except RecursionError:
        # The decoder recurses once per nesting level ([[[[...).
        raise InputError.invalid(name, "invalid JSON: nested too deeply to read") from None
    return Document(name, value)


def read_stdin(stdin: TextIO | None) -> str | bytes:
    """All of standard input, as bytes when the stream has them."""
    # Bytes when there are any: a text stdin would decode non-UTF-8 input with the
    # locale's error handler (surrogateescape) instead of refusing it.
    if getattr(stdin, "read", None) is None:  # started with stdin closed (<&-)
        raise InputError("cannot read standard input: it is closed", "cannot read: closed")
    assert stdin is not None
    try:
        buffer = getattr(stdin, "buffer", None)
        data: str | bytes = buffer.read() if buffer is not None else stdin.read()
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read standard input: {exc}", f"cannot read: {exc}") from exc
    return data


def read_bytes(name: str) -> bytes:
    """The bytes of a file, or an InputError saying why they cannot be had."""
    try:
        return Path(name).read_bytes()
    except OSError as exc:
        raise InputError.unreadable(name, str(exc.strerror or exc)) from exc
    except ValueError as exc:  # a name Path refuses, e.g. with a NUL (main(argv) only)
        raise InputError(f"cannot read {name!r}: {exc}", f"cannot read: {exc}") from exc


def load(name: str, stdin: TextIO | None, fmt: str | None = None) -> Document:
    """Read and parse the whole document ``name`` ('-' for standard input)."""
    if fmt is None:
        fmt = format_of(name)
    if name == STDIN:
        return parse(STDIN_NAME, read_stdin(stdin), fmt)
    return parse(name, read_bytes(name), fmt)


def parse(name: str, data: str | bytes, fmt: str) -> Document:
    """Parse ``data`` as ``fmt`` (YAML, TOML, else JSON) into a JSON value."""
    if fmt == YAML:
        return Document(name, _checked(name, "YAML", _parse_yaml(name, data), len(data)))
    if fmt == TOML:
        return Document(name, _checked(name, "TOML", _parse_toml(name, data), len(data)))
    return parse_json(name, data)


def _parse_yaml(name: str, data: str | bytes) -> Any:
    try:
        import yaml
    except ImportError:
        raise InputError.invalid(
            name, "reading YAML needs PyYAML: pip install 'schemacore[yaml]'"
        ) from None
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        return yaml.load(data, Loader=loader)
    except yaml.MarkedYAMLError as exc:
        # The problem and its place only: the error's context quotes the document.
        mark = exc.problem_mark
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        problem = ": ".join(filter(None, (exc.context, exc.problem))) or "malformed"
        raise InputError.invalid(name, f"invalid YAML: {problem}{where}") from None
    except yaml.YAMLError as exc:
        raise InputError.invalid(name, f"invalid YAML: {exc}") from None
    except ValueError as exc:  # an integer past sys.get_int_max_str_digits()
        raise InputError.invalid(name, f"invalid YAML: {exc}") from None
    except RecursionError:
        raise InputError.invalid(name, "invalid YAML: nested too deeply to read") from None


def _parse_toml(name: str, data: str | bytes) -> Any:
    import tomllib

    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        return tomllib.loads(text)
    except UnicodeDecodeError as exc:
        raise InputError.invalid(name, f"invalid TOML: not UTF-8: {exc}") from None
    except (tomllib.TOMLDecodeError, ValueError) as exc:
        raise InputError.invalid(name, f"invalid TOML: {exc}") from None
    except RecursionError:
        raise InputError.invalid(name, "invalid TOML: nested too deeply to read") from None


_SCALARS = (str, int, bool, type(None))

# Where a value is, as a linked list from the value up to the root: (token, parent).
_Place = tuple[str, "_Place"] | None


def _pointer(place: _Place) -> str:
    tokens: list[str] = []
    while place is not None:
        token, place = place
        tokens.append(token)
    escaped = (token.replace("~", "~0").replace("/", "~1") for token in reversed(tokens))
    return "".join("/" + token for token in escaped) or "(root)"


def _checked(name: str, source: str, value: Any, length: int) -> Any:
    """``value`` unchanged if it is a JSON value, else an InputError naming the place.

    Iterative (a deep document cannot overflow the stack); a container reached twice
    (a YAML alias) is walked once, its expanded size remembered, and a cycle is
    refused. The expanded size is counted in values and in characters, so that
    neither many aliased containers nor aliased long scalars get past the limits;
    ``length`` is the size of the text the document was read from.
    """
    # id of a finished container -> (values, characters) in it, aliases expanded
    sizes: dict[int, tuple[int, int]] = {}
    children_of: dict[int, tuple[list[Any], int]] = {}  # and the characters of its keys
    on_path: set[int] = set()
    # (value, place, entered): a container is popped twice, before and after its children.
    stack: list[tuple[Any, _Place, bool]] = [(value, None, False)]
    written = 0  # values as written out, each alias counting one
    while stack:
        item, place, entered = stack.pop()
        kind = type(item)
        if kind in _SCALARS:
            written += 1
            continue
        if kind is float:
            if not math.isfinite(item):
                _refuse(name, source, place, "a number JSON cannot hold (NaN or infinite)")
            written += 1
            continue
        if kind is not dict and kind is not list:
            _refuse(name, source, place, _describe(item))
        key = id(item)
        if entered:
            on_path.discard(key)
            children, chars = children_of.pop(key)
            values = 1
            for child in children:
                size = sizes.get(id(child))
                if size is None:  # a scalar: every occurrence counts, aliased or not
                    values += 1
                    chars += _characters(child)
                else:
                    values += size[0]
                    chars += size[1]
            sizes[key] = (values, chars)
            continue
        if key in on_path:
            _refuse(name, source, place, "an alias to a value that contains it (a cycle)")
        if key in sizes:
            continue  # an alias to a value already checked
        written += 1
        on_path.add(key)
        stack.append((item, place, True))
        if kind is dict:
            for child_key in item:
                if type(child_key) is not str:
                    _refuse(
                        name,
                        source,
                        place,
                        f"it has a key of type {type(child_key).__name__}, "
                        "and JSON keys are strings",
                    )
            children = list(item.values())
            keys = sum(len(child_key) for child_key in item)
            stack.extend((child, (child_key, place), False) for child_key, child in item.items())
        else:
            children = list(item)
            keys = 0
            stack.extend((child, (str(index), place), False) for index, child in enumerate(item))
        children_of[key] = (children, keys)
    expanded, characters = sizes.get(id(value), (1, _characters(value)))
    if expanded - written > MAX_ALIAS_EXPANSION:
        raise InputError.invalid(
            name,
            f"{source} aliases expand it to {expanded:,} values "
            f"(more than {MAX_ALIAS_EXPANSION:,} beyond those written out)",
        )
    # Written out, no scalar is longer than its text (escapes and folding only
    # shorten), so what passes the text's length came from aliases.
    if characters - length > MAX_ALIAS_CHARACTERS:
        raise InputError.invalid(
            name,
            f"{source} aliases expand it to {characters:,} characters of strings, keys "
            f"and integers (more than {MAX_ALIAS_CHARACTERS:,} beyond its own length, "
            f"{length:,})",
        )
    return value


def _characters(scalar: Any) -> int:
    """The characters of a scalar that checking it reads: a string's length, an
    integer's digits, one for anything else."""
    kind = type(scalar)
    if kind is str:
        return len(scalar)
    if kind is int:
        magnitude = abs(scalar)
        if magnitude.bit_length() <= _EXACT_BITS:
            return len(str(magnitude))
        # YAML can write a longer one (0x and thousands of digits): about its
        # digits, without the conversion Python refuses past its digit limit.
        return int(magnitude.bit_length() * _DIGITS_PER_BIT) + 1
    return 1


# Integers of at most this many bits have fewer digits (603) than Python's lowest
# limit on converting one to text (sys.set_int_max_str_digits allows 640).
_EXACT_BITS = 2_000
_DIGITS_PER_BIT = math.log10(2)


def _describe(value: Any) -> str:
    kind = type(value).__name__
    if kind in ("date", "datetime", "time"):
        return f"a {kind}, which JSON has no type for (quote it to make it a string)"
    if kind == "bytes":
        return "binary data, which JSON has no type for"
    if kind == "tuple":
        return "a pair (from !!omap or !!pairs), which JSON has no type for"
    return f"a value of type {kind}, which JSON has no type for"


def _refuse(name: str, source: str, place: _Place, problem: str) -> None:
    raise InputError.invalid(name, f"{source} value at {_pointer(place)} is not JSON: {problem}")
