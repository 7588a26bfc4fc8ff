"""Files on a cluster: what to read, in blocks of whole lines, and checking them
where they are read.

The client names files and learns their sizes (metadata only); workers read them, by
path or by fsspec URL. A JSON Lines file of ``size`` bytes is cut into
``n = ceil(size / blocksize)`` blocks. Block ``k`` starts at offset 0 for ``k == 0``,
else just after the first ``\\n`` at or after offset ``k * blocksize - 1``; it ends
where block ``k + 1`` starts (the end of the file for the last). Every line is then
in exactly one block, whatever the block size, and the number of a block's first line
is 1 + the newlines before it:

- for ``k >= 1`` that is the newlines in ``[0, k * blocksize - 1)``, plus the one that
  ends the line before the block; so a first pass counts the newlines of the ranges
  ``[j * blocksize - 1, (j + 1) * blocksize - 1)`` (from 0 for ``j == 0``) for every
  block but the last, on the workers, and block ``k`` starts at line
  ``2 + counts[0] + ... + counts[k - 1]``.

The functions run on workers; each returns what the command line's checker found,
so the results are those of ``schemacore validate`` on the same file.
"""

from __future__ import annotations

import importlib
import math
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from glob import glob
from typing import Any, BinaryIO, cast

from ..commandline.checking import Checker, ChunkTask, DocumentTask, Outcome, Plan
from ..commandline.documents import LINES, InputError, format_of
from ..commandline.lines import Chunk
from ._results import (
    ERROR_PLAN,
    Result,
    results_of_chunk,
    results_of_document,
    results_of_failure,
)
from ._shared import SharedValidator

__all__ = [
    "DEFAULT_BLOCKSIZE",
    "Block",
    "Source",
    "block_outcome",
    "block_results",
    "blocks_of",
    "count_newlines",
    "document_outcome",
    "document_results",
    "first_lines",
    "is_url",
    "no_match",
    "sources",
]

# About 45,000 records of 190 bytes: a task of a few tenths of a second, small enough
# that a retried one costs little and the last ones do not keep workers idle.
DEFAULT_BLOCKSIZE = 8 * 1024 * 1024

_BOM = b"\xef\xbb\xbf"
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*://")
_MAGIC = re.compile(r"[*?[]")


def is_url(name: str) -> bool:
    """Whether ``name`` is a URL for fsspec (``s3://...``, ``file://...``) rather than
    a local path."""
    return _URL.match(name) is not None


@dataclass(frozen=True, slots=True)
class Source:
    """One file to check: its name as given, its format, and its size when the
    client could learn it (None: read it as one block)."""

    name: str
    fmt: str
    size: int | None
    storage_options: Mapping[str, Any] = field(default_factory=dict, compare=False)


@dataclass(frozen=True, slots=True)
class Block:
    """Block ``index`` of ``count`` of a JSON Lines source (see the module's doc)."""

    source: Source
    index: int
    count: int
    blocksize: int

    @property
    def last(self) -> bool:
        return self.index == self.count - 1


def _fsspec() -> Any:
    # fsspec ships no type information; it comes with Dask, and only URLs need it.
    return importlib.import_module("fsspec")


def _size(name: str, storage_options: Mapping[str, Any]) -> int | None:
    """The size of a file (metadata only), None when the client cannot tell."""
    try:
        if not is_url(name):
            return os.stat(name).st_size
        fs, path = _fsspec().core.url_to_fs(name, **storage_options)
        return int(fs.size(path))
    except Exception:  # the worker reading it will say what is wrong
        return None


def _expand(name: str, storage_options: Mapping[str, Any]) -> list[str]:
    """The files a glob pattern matches, sorted (as names the same kind of path)."""
    if not is_url(name):
        return sorted(glob(name))
    fs, path = _fsspec().core.url_to_fs(name, **storage_options)
    return sorted(str(fs.unstrip_protocol(found)) for found in fs.glob(path))


def sources(
    names: Sequence[str],
    *,
    lines: bool = False,
    expand: bool = True,
    storage_options: Mapping[str, Any] | None = None,
) -> Iterator[Source | str]:
    """The files ``names`` name, in order, with their formats (JSON Lines for every
    file when ``lines``, else by suffix as the command line decides) and sizes. A
    glob pattern (when ``expand``) stands for the files it matches, sorted; a
    pattern that matches nothing is yielded as itself, a string."""
    options = dict(storage_options or {})
    for name in names:
        if expand and _MAGIC.search(name) is not None:
            matched = _expand(name, options)
            if not matched:
                yield name
            found: Sequence[str] = matched
        else:
            found = (name,)
        for each in found:
            fmt = LINES if lines else format_of(each)
            yield Source(each, fmt, _size(each, options), options)


def no_match(pattern: str) -> Result:
    """The result of a glob pattern that matches no file: not checked."""
    reason = "cannot read: no file matches this pattern"
    record = {
        "file": pattern,
        "line": None,
        "instanceLocation": None,
        "keyword": None,
        "keywordLocation": None,
        "message": reason,
        "kind": "input",
    }
    return Result(pattern, None, False, False, (record,))


def blocks_of(source: Source, blocksize: int) -> list[Block]:
    """The blocks of a JSON Lines source (one when its size is unknown)."""
    if blocksize < 2:
        raise ValueError("blocksize must be at least 2 bytes")
    count = 1 if not source.size else math.ceil(source.size / blocksize)
    return [Block(source, index, count, blocksize) for index in range(count)]


def first_lines(counts: Sequence[int]) -> list[int]:
    """The first line number of each block, from :func:`count_newlines` of every
    block but the last."""
    numbers = [1]
    before = 0
    for count in counts:
        before += count
        numbers.append(before + 2)
    return numbers


def _unreadable(name: str, exc: BaseException) -> InputError:
    """The command line's words for a file it cannot open or read."""
    if isinstance(exc, OSError):
        return InputError.unreadable(name, str(exc.strerror or exc))
    if isinstance(exc, ValueError):  # a name with a NUL
        return InputError(f"cannot read {name!r}: {exc}", f"cannot read: {exc}")
    return InputError.unreadable(name, f"{type(exc).__name__}: {exc}")


@contextmanager
def _opened(source: Source) -> Iterator[BinaryIO]:
    """The file, open for reading bytes; InputError when it cannot be opened."""
    try:
        if is_url(source.name):
            handle = cast(BinaryIO, _fsspec().open(source.name, "rb", **source.storage_options))
            stream = cast(BinaryIO, cast(Any, handle).__enter__())
        else:
            handle = stream = open(source.name, "rb")  # noqa: SIM115 (closed below)
    except (OSError, ValueError) as exc:
        raise _unreadable(source.name, exc) from exc
    try:
        yield stream
    finally:
        cast(Any, handle).__exit__(None, None, None)


def count_newlines(block: Block) -> int:
    """The newlines in the counting range of ``block`` (see the module's doc);
    0 when the file cannot be read (its first block reports that)."""
    size = block.blocksize
    start = max(0, block.index * size - 1)
    end = (block.index + 1) * size - 1
    try:
        with _opened(block.source) as stream:
            stream.seek(start)
            found = 0
            remaining = end - start
            while remaining > 0:
                data = stream.read(min(remaining, 1 << 20))
                if not data:
                    break
                found += data.count(b"\n")
                remaining -= len(data)
            return found
    except (InputError, OSError):
        return 0


def _read_block(stream: BinaryIO, block: Block) -> bytes:
    """The bytes of ``block``: whole lines, the BOM of the file left out."""
    size = block.blocksize
    start = 0
    if block.index:
        stream.seek(block.index * size - 1)
        stream.readline()  # to just after the first newline at or after the offset
        start = stream.tell()
    if block.last:
        data = stream.read()
    else:
        end = (block.index + 1) * size - 1
        # Up to ``end``, then up to and with the first newline at or after it: where
        # the next block starts. A block that starts past ``end`` is empty (a line
        # longer than a block is all in the block where it starts).
        data = stream.read(end - start) + stream.readline() if start <= end else b""
    if block.index == 0 and data.startswith(_BOM):
        data = data[len(_BOM) :]
    return data


@dataclass(frozen=True, slots=True)
class _Read:
    """A block's data; or, when its file could not be opened (said by the first
    block only, once) or read, the outcome the command line has for that."""

    data: bytes = b""
    problem: Outcome | None = None
    opened: bool = True


def _read(checker: Checker, block: Block, first_line: int) -> _Read:
    name = block.source.name
    try:
        with _opened(block.source) as stream:
            try:
                return _Read(_read_block(stream, block))
            except (OSError, ValueError) as exc:
                failure = checker.failure(name, first_line, _unreadable(name, exc), ends_file=False)
                return _Read(problem=failure)
    except InputError as exc:
        if block.index:
            return _Read(problem=Outcome(name, ends_file=block.last), opened=False)
        return _Read(problem=checker.failure(name, None, exc), opened=False)


def block_outcome(shared: SharedValidator, plan: Plan, block: Block, first_line: int) -> Outcome:
    """Check a block of JSON Lines as the command line checks a chunk of a file,
    printing per ``plan``: its outcome (for ``schemacore validate --dask``). The
    last block's outcome ends the file, and unless the file could not be opened,
    says to print its summary, as the command line's last outcome of a file does."""
    checker = Checker(shared.validator(), plan)
    read = _read(checker, block, first_line)
    if read.problem is not None:
        outcome = read.problem
    else:
        outcome = checker.chunk(ChunkTask(block.source.name, Chunk(read.data, first_line)))
    if block.last and read.opened:
        outcome.ends_file = outcome.summarize = True
    return outcome


def block_results(shared: SharedValidator, block: Block, first_line: int) -> list[Result]:
    """Check a block of JSON Lines: a result for each line that is not blank."""
    checker = Checker(shared.validator(), ERROR_PLAN)
    read = _read(checker, block, first_line)
    if read.problem is not None:
        return results_of_failure(read.problem)
    results, _ = results_of_chunk(checker, block.source.name, read.data, first_line)
    return results


def _document(checker: Checker, source: Source) -> Outcome:
    if not is_url(source.name):
        # The command line's own reading, and so its own words when it fails.
        return checker.document(DocumentTask(source.name, source.fmt))
    try:
        with _opened(source) as stream:
            try:
                data = stream.read()
            except (OSError, ValueError) as exc:
                raise _unreadable(source.name, exc) from exc
    except InputError as exc:
        # As the command line counts a whole file it cannot read: one record.
        outcome = checker.failure(source.name, None, exc)
        outcome.records = 1
        return outcome
    return checker.document(DocumentTask(source.name, source.fmt, data))


def document_outcome(shared: SharedValidator, plan: Plan, source: Source) -> Outcome:
    """Check a whole document (JSON, YAML, TOML), printing per ``plan``."""
    return _document(Checker(shared.validator(), plan), source)


def document_results(shared: SharedValidator, source: Source) -> list[Result]:
    """Check a whole document: its one result."""
    outcome = _document(Checker(shared.validator(), ERROR_PLAN), source)
    return results_of_document(source.name, outcome)
