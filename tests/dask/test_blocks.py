"""The blocks of a JSON Lines file: whole lines, each in exactly one block, and each
block's first line number known before it is read (no Dask needed)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from schemacore.commandline.documents import LINES
from schemacore.scale._files import (
    Source,
    _read_block,
    blocks_of,
    count_newlines,
    first_lines,
)

_LINE = st.binary(max_size=12).map(lambda data: data.replace(b"\n", b"x"))


def _cut(path: Path, blocksize: int) -> list[tuple[int, bytes]]:
    """(first line, data) of every block, the first lines from the counting pass."""
    source = Source(str(path), LINES, path.stat().st_size)
    blocks = blocks_of(source, blocksize)
    numbers = first_lines([count_newlines(block) for block in blocks[:-1]])
    cut = []
    for block in blocks:
        with path.open("rb") as stream:
            cut.append((numbers[block.index], _read_block(stream, block)))
    return cut


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
# A file whose first line starts with the bytes of a BOM: they are its BOM.
@example(lines=[b"\xef\xbb\xbf{}"], final_newline=False, bom=False, blocksize=2)
@given(
    lines=st.lists(_LINE, max_size=30),
    final_newline=st.booleans(),
    bom=st.booleans(),
    blocksize=st.integers(2, 40),
)
def test_blocks_cover_every_line_once_with_its_number(
    tmp_path_factory: pytest.TempPathFactory,
    lines: list[bytes],
    final_newline: bool,
    bom: bool,
    blocksize: int,
) -> None:
    data = b"\n".join(lines) + (b"\n" if final_newline and lines else b"")
    path = tmp_path_factory.mktemp("blocks") / "data.jsonl"
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + data)
    if not bom and data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]  # a file's BOM is not read, whoever wrote it
    cut = _cut(path, blocksize)
    # Whole lines: every block that is not empty ends a line, but the one that
    # ends the file; together they are the file (less its BOM).
    filled = [block for _, block in cut if block]
    assert all(block.endswith(b"\n") for block in filled[:-1])
    assert b"".join(filled) == data
    seen: list[tuple[int, bytes]] = []
    for first, block in cut:
        parts = block.split(b"\n")
        if block.endswith(b"\n") or not block:
            parts.pop()
        seen.extend(enumerate(parts, start=first))
    expected = list(enumerate(data.split(b"\n"), start=1))
    if data.endswith(b"\n") or not data:
        expected.pop()
    assert seen == expected


def test_first_lines_add_the_counts() -> None:
    assert first_lines([]) == [1]
    # Block 1 starts after the newline at or after offset blocksize - 1: the
    # newlines counted before that offset, plus that one, plus one.
    assert first_lines([3, 0, 5]) == [1, 5, 5, 10]


def test_a_line_longer_than_a_block_is_all_in_the_block_where_it_starts() -> None:
    data = b'{"a": "' + b"x" * 50 + b'"}\n{"b": 1}\n'  # a line of 60 bytes, then 9
    blocks = blocks_of(Source("-", LINES, len(data)), 10)
    parts = [_read_block(io.BytesIO(data), block) for block in blocks]
    assert len(parts) == 7
    assert parts[0] == data[:60]
    assert parts[1:6] == [b""] * 5
    assert parts[6] == b'{"b": 1}\n'


def test_a_blocksize_below_two_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 2"):
        blocks_of(Source("x.jsonl", LINES, 10), 1)


def test_an_unknown_size_is_one_block() -> None:
    assert len(blocks_of(Source("x.jsonl", LINES, None), 10)) == 1
