"""JSON Lines (NDJSON): one JSON value per line, UTF-8, read a chunk of lines at a time.

A chunk is about ``CHUNK_BYTES`` of whole lines, so memory is bounded by the chunk and
the longest line, whatever the size of the file. Lines end at ``\\n`` (a ``\\r``
before it is JSON whitespace); a line holding only JSON whitespace is not a record and
is skipped, keeping its number, so ``file:line`` always names the line an editor
shows. A UTF-8 byte order mark at the start of the file is skipped.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

from .documents import InputError, finite_float, reject_constant

__all__ = ["CHUNK_BYTES", "Chunk", "decode_line", "is_blank", "read_chunks", "split_lines"]

CHUNK_BYTES = 1 << 20

_BOM = b"\xef\xbb\xbf"
_JSON_WHITESPACE = b" \t\r"


# One decoder for every line: json.loads with hooks would build one per call.
_DECODER = json.JSONDecoder(parse_constant=reject_constant, parse_float=finite_float)


@dataclass(frozen=True, slots=True)
class Chunk:
    """Whole lines of a file, the first of them numbered ``first_line`` (from 1)."""

    data: bytes
    first_line: int


def read_chunks(stream: BinaryIO, chunk_bytes: int | None = None) -> Iterator[Chunk]:
    """Split ``stream`` into chunks of whole lines, about ``chunk_bytes`` each
    (``CHUNK_BYTES`` when None, read at the call: tests make it small)."""
    if chunk_bytes is None:
        chunk_bytes = CHUNK_BYTES
    line = 1
    first = True
    while True:
        data = stream.read(chunk_bytes)
        if not data:
            return
        if not data.endswith(b"\n"):
            data += stream.readline()  # finish the line the read stopped inside
        if first and data.startswith(_BOM):
            data = data[len(_BOM) :]
        first = False
        yield Chunk(data, line)
        line += data.count(b"\n")


def split_lines(data: bytes) -> list[bytes]:
    """The lines of a chunk, without their ``\\n``; no empty line after the last one."""
    lines = data.split(b"\n")
    if lines and not lines[-1]:
        lines.pop()
    return lines


def is_blank(line: bytes) -> bool:
    """Whether ``line`` holds only JSON whitespace (or nothing): not a record."""
    return not line.strip(_JSON_WHITESPACE)


def decode_line(line: bytes) -> Any:
    """The JSON value on one line, or an InputError (whose reason has no name in it)."""
    try:
        return _DECODER.decode(line.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise InputError(f"invalid JSON: not UTF-8: {exc}") from None
    except json.JSONDecodeError as exc:
        # The decoder's "line 1 column 5 (char 4)" would contradict file:line.
        raise InputError(f"invalid JSON: {exc.msg} (column {exc.colno})") from None
    except ValueError as exc:  # NaN, 1e999, an integer of too many digits
        raise InputError(f"invalid JSON: {exc}") from None
    except RecursionError:
        raise InputError("invalid JSON: nested too deeply to read") from None
