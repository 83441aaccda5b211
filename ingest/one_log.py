"""The one-log way: a log read from where the last run stopped, one transaction per group of lines.

Rows and the read position commit together, so a run killed at any moment
leaves every line stored exactly once after the next run, and loses at most
the group it was storing.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

import duckdb

from lanelog.errors import IngestError, StoreError
from lanelog.ingest.chunks import Piece, Reader
from lanelog.ingest.identity import TAIL_BYTES, Resume, digest, locate
from lanelog.ingest.lines import Lines
from lanelog.ingest.load import Handover, Tally, store_lines, store_stream
from lanelog.ingest.logfile import LogStream
from lanelog.ingest.statements import statement
from lanelog.ingest.summary import IngestSummary, Progress, now
from lanelog.store import arrow_view, capped_memory, transaction

# The first lines of a new log whose attempt_ids are looked up: one scan of the
# stored ids (75 ms over 10M attempts), to know a log of re-sent lines at once.
SAMPLE_LINES = 64
CAREFUL_MEMORY_LIMIT = "128MB"


@dataclass
class _Source:
    """One log's stored state, advanced by each transaction of this run."""

    log: LogStream
    resume: Resume
    source_id: int | None
    position: int
    lines_read: int
    duplicates: int
    tail: bytes
    stale_provisional: bool
    resent: bool = False  # its last group's lines were stored already: leave stored ids out at once

    def params(self, *, bytes_seen: int, seen: bytes) -> dict[str, object]:
        head = self.resume.head
        return {
            "source_id": self.source_id,
            "path": self.log.shown,
            "fingerprint": digest(head),
            "fingerprint_bytes": len(head),
            "bytes_read": self.position,
            "tail_fingerprint": digest(self.tail),
            "bytes_seen": bytes_seen,
            "seen_fingerprint": digest(seen),
            "lines_read": self.lines_read,
            "duplicates": self.duplicates,
            "now": now(),
        }


def ingest_log(
    con: duckdb.DuckDBPyConnection,
    log: LogStream,
    summary: IngestSummary,
    progress: Progress | None,
) -> None:
    """Ingest one log; a database failure is reported as this log's error."""
    try:
        _ingest_log_unguarded(con, log, summary, progress)
    except (StoreError, duckdb.Error) as exc:  # (duckdb's own: from register() and the like)
        raise IngestError(f"{log.shown}: the database could not store it ({exc})") from exc


def _ingest_log_unguarded(
    con: duckdb.DuckDBPyConnection,
    log: LogStream,
    summary: IngestSummary,
    progress: Progress | None,
) -> None:
    resume = locate(con, log)
    summary.files += 1
    if not resume.head or resume.unchanged:
        return
    source = _Source(
        log=log,
        resume=resume,
        source_id=resume.source_id,
        position=resume.bytes_read,
        lines_read=resume.lines_read,
        duplicates=resume.duplicates,
        tail=resume.tail,
        stale_provisional=resume.has_provisional,
    )
    pieces = Reader(log, source.position, source.lines_read + 1)
    became = Tally()  # what this log's lines became in this run
    try:
        piece = next(pieces)
        while piece.complete:
            position = source.position
            group = _store_group(con, source, piece, pieces)
            summary.add(group)
            became.add(group)
            if progress:
                progress(source.position - position, summary)
            piece = next(pieces)
    finally:
        pieces.close()
    if piece.size or source.stale_provisional:
        with transaction(con):
            source_id = _begin(con, source)
            tally = Tally()
            if piece.lines is not None:
                tally = store_lines(con, source_id, piece.lines, provisional=True)
            if piece.lines is not None and piece.lines.too_long:
                # Too long to hold (chunks.MAX_LINE_BYTES): pending, and read past again next run.
                params = source.params(bytes_seen=source.position, seen=b"")
            else:
                params = source.params(bytes_seen=source.position + piece.size, seen=piece.data())
            _still_the_same_log(source)
            statement("update_source").run(con, **params)
        summary.add(tally)
        became.add(tally)
    if became.rejected and not (became.attempts or became.outcomes or became.duplicates):
        summary.not_lane_logs.append((log.shown, became.rejected))


def _store_group(con: duckdb.DuckDBPyConnection, source: _Source, first: Piece, pieces: Reader) -> Tally:
    """One transaction: a group of complete pieces (from `first` on) and the new read position.

    A new log whose first lines are stored already (a rotated log sent again,
    artifacts joined by hand), or a log whose last group was, is stored
    leaving stored ids out (load.store_stream with leave_out_stored).  A group
    found to repeat stored ids is stored again that way; what neither way
    settles, the careful way.
    """
    before = replace(source)
    if source.source_id is None and first.lines is not None:
        source.resent = before.resent = _holds_stored(con, first.lines)
    leave_out = source.resent
    while True:
        try:
            with transaction(con):
                source_id = _begin(con, source)
                tally = store_stream(con, source_id, _group(source, first, pieces),
                                     leave_out_stored=leave_out)
                if isinstance(tally, Handover):
                    raise _RolledBack(tally)
                _end(con, source, tally)
            source.resent = tally.duplicates > 0
            return tally
        except _RolledBack as handover:
            careful = handover.args[0] in (Handover.CAREFUL, Handover.MEMORY) or leave_out
        # Read the group again (the stream is gone, and may have stopped before its end).
        source.__dict__.update(before.__dict__)
        pieces.restart(source.position, source.lines_read + 1)
        first = next(pieces)
        if careful:
            return _store_carefully(con, source, _group(source, first, pieces))
        leave_out = True


class _RolledBack(Exception):
    """Raised to roll a group's transaction back, with the Handover that says why."""


def _holds_stored(con: duckdb.DuckDBPyConnection, lines: Lines) -> bool:
    """Whether one of the first SAMPLE_LINES lines has an attempt_id stored from a complete line."""
    with arrow_view(con, "lane_sample", lines.head(SAMPLE_LINES)):
        return bool(statement("sample_stored").rows(con)[0][0])


def _store_carefully(con: duckdb.DuckDBPyConnection, source: _Source, runs: Iterator[Lines]) -> Tally:
    """Store runs of lines piece by piece, each piece with its read position in a transaction of its own.

    One transaction over a whole group kept every piece's staging table until it
    committed (670 MB on a log of 1M re-sent lines).
    """
    tally = Tally()
    with capped_memory(con, CAREFUL_MEMORY_LIMIT):
        for lines in runs:
            with transaction(con):
                source_id = _begin(con, source)
                stored = store_lines(con, source_id, lines, provisional=False)
                _end(con, source, stored)
            tally.add(stored)
    return tally


def _group(source: _Source, piece: Piece, pieces: Iterator[Piece]) -> Iterator[Lines]:
    """The lines of a group's pieces, moving the log's read position past each."""
    while True:
        if not piece.complete:  # read again, the group ends sooner: the file was cut short
            _still_the_same_log(source)
            raise IngestError(f"{source.log.shown}: shorter than when it was read; run ingest again")
        assert piece.lines is not None  # only the provisional last piece can be empty
        source.position += piece.size
        source.lines_read += piece.lines.count
        source.tail = (source.tail + piece.data(TAIL_BYTES))[-TAIL_BYTES:]
        yield piece.lines
        if piece.ends_group:
            return
        piece = next(pieces)


def _begin(con: duckdb.DuckDBPyConnection, source: _Source) -> int:
    """A transaction's first work: drop the attempt or outcome an earlier run stored
    from a provisional last line (it is being read again), and give a new log its row.
    Returns the log's source id."""
    if source.stale_provisional:
        statement("delete_provisional").run(con, source_id=source.source_id)
        statement("delete_provisional_outcome").run(con, source_id=source.source_id)
        source.stale_provisional = False
    if source.source_id is None:
        source.source_id = int(statement("new_source").rows(con, path=source.log.shown, now=now())[0][0])
    return source.source_id


def _end(con: duckdb.DuckDBPyConnection, source: _Source, tally: Tally) -> None:
    """A group's last work: the log's new read position, after its complete lines."""
    _still_the_same_log(source)
    source.duplicates += tally.duplicates
    statement("update_source").run(con, **source.params(bytes_seen=source.position, seen=b""))


def _still_the_same_log(source: _Source) -> None:
    """Fail the transaction (it rolls back) if the file no longer holds what was read.

    A log truncated and rewritten while a run reads it would otherwise leave rows
    of the new content under the old content's fingerprint.  The check reads the
    file's first bytes and the bytes just before the new read position again:
    what earlier transactions committed was checked the same way, so it stays.
    """
    log = source.log
    if log.holds(0, source.resume.head) and log.holds(source.position - len(source.tail), source.tail):
        return
    raise IngestError(
        f"{log.shown}: changed while it was read (truncated or rewritten); the lines stored "
        "before the change are kept, and the next run reads the new content as a new log"
    )
