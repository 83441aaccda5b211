"""Reading a log in chunks from the committed position, each staged for one transaction.

A chunk ends at its last newline; the bytes after the last newline of the
log are the provisional last line, staged on its own.  Memory is bounded by
the chunk size, or by the longest line when one is longer.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import duckdb

from ingest.identity import TAIL_BYTES
from ingest.lines import split_lines
from ingest.load import Staged, stage_lines
from ingest.logfile import LogStream

CHUNK_BYTES = 32 * 1024 * 1024


@dataclass
class Piece:
    """What one transaction stores, and how far it moves the read position."""

    staged: Staged
    size: int  # bytes covered
    lines: int  # physical lines, blank ones included
    complete: bool  # False: the provisional last line, read again next run
    tail: bytes  # complete: its last TAIL_BYTES bytes; provisional: all of it


def read_pieces(
    log: LogStream, cursor: duckdb.DuckDBPyConnection, position: int, first_line_no: int
) -> Iterator[Piece]:
    """The complete chunks from position on, then the provisional last line (maybe empty).

    Staging runs on `cursor`, which only reads.  Each piece holds copies, so
    the read buffer is reused for the next chunk.
    """
    # A small append gets a small buffer: one byte more than is left, so
    # that reading it all is seen as the end without another read.
    left = None if log.size is None else max(log.size - position, 0) + 1
    buffer = bytearray(min(CHUNK_BYTES, left or CHUNK_BYTES))
    line_no = first_line_no
    while True:
        got = log.readinto_at(position, memoryview(buffer))
        at_end = got < len(buffer)
        cut = buffer.rfind(b"\n", 0, got) + 1
        if cut == 0 and not at_end:
            buffer = bytearray(2 * len(buffer))  # one line longer than the buffer: hold all of it
            continue
        view = memoryview(buffer)
        if cut:
            lines = split_lines(view[:cut], base_offset=position, first_line_no=line_no, complete=True)
            yield Piece(
                staged=stage_lines(cursor, lines),
                size=cut,
                lines=lines.count,
                complete=True,
                tail=bytes(view[max(0, cut - TAIL_BYTES) : cut]),
            )
            position += cut
            line_no += lines.count
        if at_end:
            rest = view[cut:got]
            staged = Staged.nothing()
            if rest:
                lines = split_lines(rest, base_offset=position, first_line_no=line_no, complete=False)
                staged = stage_lines(cursor, lines)
            yield Piece(staged=staged, size=len(rest), lines=staged.lines, complete=False, tail=bytes(rest))
            return
