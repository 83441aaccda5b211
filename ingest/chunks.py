"""Reading a log in pieces from the committed position, grouped into transactions.

A piece ends at a newline: the last one within CHUNK_BYTES, or the one that
ends a group of GROUP_ROW_GROUPS * ROW_GROUP_LINES lines, whichever comes
first.  A group is one transaction, stored by one statement: DuckDB writes
the row groups of a transaction that holds at least one full row group
straight to the file, compressed, each core its own; a smaller transaction
goes through the write-ahead log and is rewritten by each later checkpoint,
which on long lines costs more than the parse.  The bytes after the log's
last newline are the provisional last line, handed over on their own.

Each piece has a buffer of its own, as DuckDB may still be reading one piece
while the next is read.  Memory is bounded by a few pieces (or the longest
line when one is longer than a piece) plus what DuckDB holds.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from typing import cast

import numpy as np

from lanelog import lane_line
from lanelog.ingest.identity import TAIL_BYTES
from lanelog.ingest.lines import LONG_LINE_HEAD, NEWLINE, Lines, LongLine, long_line, split_lines
from lanelog.ingest.logfile import LogStream

CHUNK_BYTES = 8 * 1024 * 1024
# The longest line read as text, terminator included (lanelog/lane_line.py's rule, which a
# piece is as long as).  A lane-log line is a few KiB; a longer one is not held (DuckDB's
# JSON parse of a 60 MB line needed more than a run's memory share, failing its whole log
# on every run), but read past, rejected as too_long with its first bytes kept.  No buffer
# is larger, so whether a line is too long depends on the line alone; and a small log
# (batch.SMALL_LOG_BYTES), read whole, is shorter.
MAX_LINE_BYTES = lane_line.MAX_LINE_BYTES
# The first read of a run, doubled at each piece up to CHUNK_BYTES: DuckDB waits
# for the first two pieces (a piece is handed over once the next is read), and
# two full ones took 0.05 s to read and split while both cores idled.
FIRST_READ_BYTES = 1024 * 1024
ROW_GROUP_LINES = 122_880  # DuckDB's row group size
# Row groups of lines per transaction: four for each core.  Each transaction
# costs a statement's start and drain, a duplicate check and a commit whatever
# its size; at 8, 1M short lines took 1.50 s against 1.60 s at 4, and router
# lines 4.8 s against 4.9 s, with a lower peak.  (The careful way stores a
# piece at a time, so its memory does not grow with the group.)
GROUP_ROW_GROUPS = 8


@dataclass
class Piece:
    """One read of lines, and how far it moves the read position."""

    lines: Lines | None  # None: an empty provisional last line
    size: int  # bytes covered
    complete: bool  # False: the provisional last line, read again next run
    ends_group: bool  # the last piece of its transaction

    def data(self, last: int | None = None) -> bytes:
        """A copy of the piece's bytes, or of its `last` bytes only."""
        if self.lines is None:
            return b""
        return bytes(self.lines.data if last is None else self.lines.data[-last:])


def group_lines() -> int:
    """The lines of one transaction (the last one of a run may have fewer)."""
    return GROUP_ROW_GROUPS * ROW_GROUP_LINES


def read_pieces(log: LogStream, position: int, first_line_no: int) -> Generator[Piece, None, None]:
    """The complete pieces from position on, then the provisional last line (maybe empty).

    Whether a complete piece is the last of its transaction is known only once
    the next read has been made: when that read finds nothing but an unfinished
    line (one that started before a read boundary), the piece before it ends the
    group.  So each piece is handed over after the next one has been read.
    """
    previous = None
    for piece in _pieces(log, position, first_line_no):
        if previous is not None:
            previous.ends_group = previous.ends_group or not piece.complete
            yield previous
        previous = piece
    if previous is not None:
        yield previous


class Reader:
    """The pieces of a log from a position on (read_pieces), read one piece ahead
    by a thread of its own, and read again from an earlier position when a
    transaction has to be stored another way: whoever reads on after it then
    goes on from where that transaction ended, however far the failed attempt
    had read.

    Reading and splitting the next piece (the file read, numpy and Arrow let
    go of the GIL for most of it) overlaps DuckDB's work on the pieces before
    it, where it held up every core's next batch.  The thread only reads: it
    never touches the database, and the log is read by no one else meanwhile
    (LogStream.holds reads past the file position).
    """

    _done: bool  # the reading thread handed over its end or an error

    def __init__(self, log: LogStream, position: int, first_line_no: int) -> None:
        self._log = log
        self._start(position, first_line_no)

    def __iter__(self) -> Reader:
        return self

    def __next__(self) -> Piece:
        if self._done:
            raise StopIteration
        kind, value = self._queue.get()
        if kind is _PIECE:
            return cast(Piece, value)
        self._done = True
        if kind is _END:
            raise StopIteration
        raise cast(BaseException, value)

    def restart(self, position: int, first_line_no: int) -> None:
        """Read from position on, line first_line_no there, dropping what was read ahead."""
        self.close()
        self._start(position, first_line_no)

    def close(self) -> None:
        """Stop the thread and wait for it: the log may be read again, or closed, afterwards."""
        self._stop.set()
        while self._thread.is_alive():
            try:
                self._queue.get(timeout=0.05)  # a piece it may be waiting to hand over
            except queue.Empty:
                pass
        self._thread.join()
        self._done = True

    def _start(self, position: int, first_line_no: int) -> None:
        self._queue: queue.Queue[tuple[object, object]] = queue.Queue(maxsize=READ_AHEAD)
        self._stop = threading.Event()
        self._done = False
        pieces = read_pieces(self._log, position, first_line_no)
        self._thread = threading.Thread(target=self._read, args=(pieces,), name="lanelog-read-ahead", daemon=True)
        self._thread.start()

    def _read(self, pieces: Generator[Piece, None, None]) -> None:
        try:
            for piece in pieces:
                if not self._hand_over(_PIECE, piece):
                    return
            self._hand_over(_END, None)
        except BaseException as exc:  # raised in the reading thread, by __next__
            self._hand_over(_ERROR, exc)
        finally:
            pieces.close()

    def _hand_over(self, kind: object, value: object) -> bool:
        while not self._stop.is_set():
            try:
                self._queue.put((kind, value), timeout=0.05)
                return True
            except queue.Full:
                pass
        return False


# What the reading thread hands over, and how many pieces it may hold ready.
_PIECE, _END, _ERROR = object(), object(), object()
READ_AHEAD = 1


@dataclass
class _Group:
    """The transaction being read: the lines it still takes and the bytes it holds."""

    left: int
    size: int = 0
    extended: bool = False  # it was given the log's last lines (_takes_the_rest)

    def add(self, lines: int, size: int) -> bool:
        """Count a piece into the group; True when that ends it (the next piece starts another)."""
        self.left -= lines
        self.size += size
        if self.left:
            return False
        self.left, self.size, self.extended = group_lines(), 0, False
        return True


def _pieces(log: LogStream, position: int, first_line_no: int) -> Iterator[Piece]:
    """The pieces as they are read; a complete piece may not know it ends its group.

    The log is read forward only: the bytes after a piece's last newline are
    carried over into the next buffer, never read again.
    """
    size = min(FIRST_READ_BYTES, _full_size(log, position))
    line_no = first_line_no
    group = _Group(left=group_lines())
    carry = b""
    at_end = False
    while True:
        buffer = bytearray(size)
        buffer[: len(carry)] = carry
        got = len(carry)
        if not at_end:
            got += log.readinto_at(position + got, memoryview(buffer)[got:])
            at_end = got < size
        newlines = np.flatnonzero(np.frombuffer(buffer, dtype=np.uint8, count=got) == NEWLINE)
        taken = min(group.left, len(newlines))  # the lines of this piece
        cut = int(newlines[taken - 1]) + 1 if taken else 0
        if taken == group.left and not group.extended and _takes_the_rest(log, position + cut, group.size + cut):
            group.extended = True
            group.left += ROW_GROUP_LINES
            taken = min(group.left, len(newlines))
            cut = int(newlines[taken - 1]) + 1
        if cut == 0 and not at_end and size < MAX_LINE_BYTES:
            size = min(2 * size, MAX_LINE_BYTES)  # one line longer than the buffer: hold all of it
            carry = bytes(buffer[:got])
            continue
        if cut == 0 and not at_end:  # a line longer than MAX_LINE_BYTES: read past it, keeping its ends
            long, ending, complete = _past_long_line(log, position, line_no, buffer)
            ends = group.add(1, long.size)
            yield Piece(lines=long_line(long, ending), size=long.size, complete=complete,
                        ends_group=ends or not complete)
            if not complete:
                return
            position += long.size
            line_no += 1
            carry = b""
            continue
        view = memoryview(buffer)
        last = at_end and taken == len(newlines)  # no newline after the cut: the rest is the last line
        if cut:
            lines = split_lines(view[:cut], base_offset=position, first_line_no=line_no, complete=True,
                                newlines=newlines[:taken])
            ends = group.add(lines.count, cut)
            yield Piece(lines=lines, size=cut, complete=True, ends_group=ends or last)
            position += cut
            line_no += lines.count
            size = max(size, min(2 * size, _full_size(log, position)))
        if last:
            yield _last_piece(view[cut:got], position, line_no)
            return
        carry = bytes(buffer[cut:got])


def _last_piece(rest: memoryview, position: int, line_no: int) -> Piece:
    """What follows the log's last newline: one provisional line (a writer may be mid-line), or nothing."""
    provisional = split_lines(rest, base_offset=position, first_line_no=line_no, complete=False) if rest else None
    return Piece(lines=provisional, size=len(rest), complete=False, ends_group=True)


def _takes_the_rest(log: LogStream, end: int, group_bytes: int) -> bool:
    """Whether a group ending at `end` should take the log's last lines too: when
    what is left is less than a row group's worth at the group's line size.  A
    transaction of its own for them would cost a statement, a duplicate check and
    a commit, and a part row group goes through the write-ahead log and is
    rewritten at the next checkpoint.  The group gets one row group more of lines
    (if the rest has more, they still make a group of their own)."""
    if log.size is None:
        return False
    left = log.size - end
    return 0 < left and left * GROUP_ROW_GROUPS < group_bytes


def _full_size(log: LogStream, position: int) -> int:
    """The buffer for reading on from position: a piece's size, or for a small
    append one byte more than is left, so that reading it all is seen as the end
    without another read."""
    left = None if log.size is None else max(log.size - position, 0) + 1
    return min(CHUNK_BYTES, MAX_LINE_BYTES, left or CHUNK_BYTES)


def _past_long_line(log: LogStream, position: int, line_no: int, buffer: bytearray) -> tuple[LongLine, bytes, bool]:
    """Read on past a line that starts at `position` and fills `buffer` without a
    newline: the line, its last TAIL_BYTES bytes (terminator included) and whether it
    is complete (False: the log ends inside it).  Memory stays at one buffer."""
    head = bytes(buffer[:LONG_LINE_HEAD])
    ending = bytes(buffer[-TAIL_BYTES:])
    offset = position + len(buffer)
    view = memoryview(buffer)
    while True:
        got = log.readinto_at(offset, view)
        newline = buffer.find(b"\n", 0, got)
        if newline >= 0:
            ending = (ending + bytes(view[: newline + 1]))[-TAIL_BYTES:]
            return LongLine(line_no, position, offset + newline + 1 - position, head), ending, True
        ending = (ending + bytes(view[max(0, got - TAIL_BYTES) : got]))[-TAIL_BYTES:]
        offset += got
        if got < len(buffer):
            return LongLine(line_no, position, offset - position, head), ending, False
