"""Reading a log in chunks from the committed position.

A chunk ends at a newline: the last one within CHUNK_BYTES, or the one that
ends ROW_GROUP_LINES lines, whichever comes first.  DuckDB writes a full row
group of a transaction straight to the file; a partial one goes through the
write-ahead log and is rewritten by each later checkpoint, which costs more
CPU, memory and file space.  The bytes after the log's last newline are the
provisional last line, handed over on their own.  Memory is bounded by the
chunk size, or by the longest line when one is longer.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from ingest.lines import NEWLINE, Lines, split_lines
from ingest.logfile import LogStream

CHUNK_BYTES = 32 * 1024 * 1024
ROW_GROUP_LINES = 122_880  # DuckDB's row group size


@dataclass
class Piece:
    """What one transaction stores, and how far it moves the read position."""

    lines: Lines | None  # None: an empty provisional last line
    size: int  # bytes covered
    complete: bool  # False: the provisional last line, read again next run

    def data(self, last: int | None = None) -> bytes:
        """A copy of the piece's bytes, or of its `last` bytes only."""
        if self.lines is None:
            return b""
        return bytes(self.lines.data if last is None else self.lines.data[-last:])


def read_pieces(log: LogStream, position: int, first_line_no: int) -> Iterator[Piece]:
    """The complete chunks from position on, then the provisional last line (maybe empty).

    A piece's lines point into the read buffer: use each before taking the next.
    """
    # A small append gets a small buffer: one byte more than is left, so
    # that reading it all is seen as the end without another read.
    left = None if log.size is None else max(log.size - position, 0) + 1
    buffer = bytearray(min(CHUNK_BYTES, left or CHUNK_BYTES))
    line_no = first_line_no
    while True:
        got = log.readinto_at(position, memoryview(buffer))
        at_end = got < len(buffer)
        cut = _cut(buffer, got)
        if cut == 0 and not at_end:
            buffer = bytearray(2 * len(buffer))  # one line longer than the buffer: hold all of it
            continue
        view = memoryview(buffer)
        if cut:
            lines = split_lines(view[:cut], base_offset=position, first_line_no=line_no, complete=True)
            yield Piece(lines=lines, size=cut, complete=True)
            position += cut
            line_no += lines.count
        if at_end and buffer.find(b"\n", cut, got) < 0:
            rest = view[cut:got]
            lines = (
                split_lines(rest, base_offset=position, first_line_no=line_no, complete=False)
                if rest
                else None
            )
            yield Piece(lines=lines, size=len(rest), complete=False)
            return


def _cut(buffer: bytearray, got: int) -> int:
    """Where a chunk of the first `got` bytes of buffer ends: just after a newline, or 0."""
    if buffer.count(b"\n", 0, got) <= ROW_GROUP_LINES:
        return buffer.rfind(b"\n", 0, got) + 1
    newlines = np.flatnonzero(np.frombuffer(buffer, dtype=np.uint8, count=got) == NEWLINE)
    return int(newlines[ROW_GROUP_LINES - 1]) + 1
