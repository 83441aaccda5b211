"""Ingest runs: read each log from where the last run stopped, one transaction per chunk.

Rows and the read position commit together, so a run killed at any moment
leaves every line stored exactly once after the next run.  Write
transactions stay short (one chunk each), so a waiting reader gets in soon.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import duckdb

from ingest.identity import TAIL_BYTES, Resume, digest, locate
from ingest.lines import split_lines
from ingest.load import Outcome, run, store_lines
from ingest.logfile import LogStream, bytes_log, expand_paths, open_log
from lanelog.errors import IngestError

CHUNK_BYTES = 32 * 1024 * 1024

Progress = Callable[[int], None]


@dataclass
class IngestSummary:
    """What one run did.  Every non-blank line read ends in exactly one of
    attempts_added, duplicates, rejected or pending."""

    files: int = 0
    lines_read: int = 0
    attempts_added: int = 0
    duplicates: int = 0
    rejected: int = 0
    pending: int = 0
    errors: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, int]:
        """The JSON summary of `lanelog ingest --json`."""
        return {
            "files": self.files,
            "lines_read": self.lines_read,
            "attempts_added": self.attempts_added,
            "duplicates": self.duplicates,
            "rejected": self.rejected,
            "pending": self.pending,
        }

    def line(self) -> str:
        """The one-line summary for people."""
        return (
            f"{self.files} file{'s' if self.files != 1 else ''}, "
            f"{self.lines_read} lines read: {self.attempts_added} attempts added, "
            f"{self.duplicates} duplicates, {self.rejected} rejected, {self.pending} pending"
        )

    def _count(self, outcome: Outcome) -> None:
        self.lines_read += outcome.lines
        self.attempts_added += outcome.attempts
        self.duplicates += outcome.duplicates
        self.rejected += outcome.rejected
        self.pending += outcome.pending


def ingest_paths(
    con: duckdb.DuckDBPyConnection,
    paths: Iterable[str | os.PathLike[str]],
    *,
    progress: Progress | None = None,
) -> IngestSummary:
    """Ingest lane-log files and folders (every *.jsonl and *.jsonl.gz below them).

    A file that cannot be read is named in `errors`; the others are still
    ingested.  `progress`, when given, is called with the number of bytes
    each committed chunk covered.
    """
    summary = IngestSummary()
    started = _now()
    for item in expand_paths([Path(p) for p in paths]):
        if isinstance(item, IngestError):
            summary.errors.append(item.message)
            continue
        try:
            with open_log(item) as log:
                _ingest_log(con, log, summary, progress)
        except IngestError as exc:
            summary.errors.append(exc.message)
    _record_run(con, summary, started)
    return summary


def ingest_bytes(con: duckdb.DuckDBPyConnection, name: str, data: bytes) -> IngestSummary:
    """Ingest one uploaded log held in memory, by the same rules as a file."""
    summary = IngestSummary()
    started = _now()
    try:
        with bytes_log(name, data) as log:
            _ingest_log(con, log, summary, None)
    except IngestError as exc:
        summary.errors.append(exc.message)
    _record_run(con, summary, started)
    return summary


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

    def params(self, *, bytes_seen: int, seen: bytes) -> dict[str, object]:
        head = self.resume.head
        return {
            "source_id": self.source_id,
            "path": self.log.name,
            "fingerprint": digest(head),
            "fingerprint_bytes": len(head),
            "bytes_read": self.position,
            "tail_fingerprint": digest(self.tail),
            "bytes_seen": bytes_seen,
            "seen_fingerprint": digest(seen),
            "lines_read": self.lines_read,
            "duplicates": self.duplicates,
            "now": _now(),
        }


def _ingest_log(
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
    # A small append gets a small buffer: one byte more than is left, so
    # that reading it all is seen as the end without another read.
    left = None if log.size is None else max(log.size - source.position, 0) + 1
    buffer = bytearray(min(CHUNK_BYTES, left or CHUNK_BYTES))
    while True:
        got = log.readinto_at(source.position, memoryview(buffer))
        at_end = got < len(buffer)
        cut = buffer.rfind(b"\n", 0, got) + 1
        if cut == 0 and not at_end:
            # One line longer than the buffer: hold all of it.
            buffer = bytearray(2 * len(buffer))
            continue
        view = memoryview(buffer)
        if cut:
            _commit(con, source, summary, view[:cut], complete=True)
            if progress:
                progress(cut)
        if at_end:
            if got > cut or source.stale_provisional:
                _commit(con, source, summary, view[cut:got], complete=False)
            return


def _commit(
    con: duckdb.DuckDBPyConnection,
    source: _Source,
    summary: IngestSummary,
    data: memoryview,
    *,
    complete: bool,
) -> None:
    """One transaction: the lines in data and the new read position.

    complete: data is whole lines.  Otherwise data is the provisional last
    line (possibly empty): stored if it is an attempt, pending if not, and
    read again next run either way.
    """
    lines = split_lines(
        data,
        base_offset=source.position,
        first_line_no=source.lines_read + 1,
        complete=complete,
    ) if data else None
    con.execute("BEGIN TRANSACTION")
    try:
        if source.stale_provisional:
            run(con, "delete_provisional", {"source_id": source.source_id})
        if source.source_id is None:
            source.source_id = run(con, "new_source", {"path": source.log.name, "now": _now()})[0][0]
        outcome = (
            store_lines(con, source.source_id, lines, provisional=not complete)
            if lines
            else Outcome()
        )
        if complete:
            source.position += len(data)
            source.lines_read += lines.count
            source.duplicates += outcome.duplicates
            source.tail = (
                bytes(data[-TAIL_BYTES:])
                if len(data) >= TAIL_BYTES
                else (source.tail + bytes(data))[-TAIL_BYTES:]
            )
            params = source.params(bytes_seen=source.position, seen=b"")
        else:
            params = source.params(bytes_seen=source.position + len(data), seen=bytes(data))
        run(con, "update_source", params)
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    source.stale_provisional = False
    summary._count(outcome)


def _record_run(con: duckdb.DuckDBPyConnection, summary: IngestSummary, started: datetime) -> None:
    run(
        con,
        "record_run",
        {
            "started_at": started,
            "finished_at": _now(),
            "files": summary.files,
            "lines_read": summary.lines_read,
            "attempts_added": summary.attempts_added,
            "duplicates": summary.duplicates,
            "rejected": summary.rejected,
            "pending": summary.pending,
        },
    )


def _now() -> datetime:
    return datetime.now(timezone.utc).replace(tzinfo=None)
