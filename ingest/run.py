"""Ingest runs: read each log from where the last run stopped, one transaction per group of lines.

Rows and the read position commit together, so a run killed at any moment
leaves every line stored exactly once after the next run, and loses at most
the group it was storing.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import pyarrow as pa

from lanelog.errors import IngestError, StoreError
from lanelog.ingest import batch as batching
from lanelog.ingest.batch import Fallback, RepeatsStored, Small, SourceIndex, classify, store_batch
from lanelog.ingest.chunks import Piece, Reader
from lanelog.ingest.identity import TAIL_BYTES, Resume, digest, locate
from lanelog.ingest.lines import Lines
from lanelog.ingest.load import Handover, Outcome, statement, store_lines, store_stream
from lanelog.ingest.logfile import LogStream, bytes_log, expand_paths, is_object_url, open_log, shown
from lanelog.ingest.objects import Fetched, Listed, ObjectStore, windows
from lanelog.store.db import capped_memory, read_only_name, transaction

# Called with the bytes a committed transaction covered (0 when a log is done) and the
# run's summary so far (its files and lines read), so a caller can show rates.
Progress = Callable[[int, "IngestSummary"], None]

# DuckDB's share of a run's memory: with the pieces and Python around it, a run
# of any size stays under 512 MB.  The careful way stores one piece at a time and
# needs less; under the full share it was measured at 550 MB on a log of
# re-sent lines, where its own share holds it near 440 MB at the same speed.
MEMORY_LIMIT = "256MB"
# The first lines of a new log whose attempt_ids are looked up: one scan of the
# stored ids (75 ms over 10M attempts), to know a log of re-sent lines at once.
SAMPLE_LINES = 64
CAREFUL_MEMORY_LIMIT = "128MB"


def _counted(count: int, noun: str) -> str:
    """"1 line", "2 lines": the summary reads as English at any count."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


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
    # Logs none of whose lines read in this run was a JSON object (a README, a CSV), with
    # their rejected lines: stored as any other's, and the command says what they are.
    not_lane_logs: list[tuple[str, int]] = field(default_factory=list)

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
            f"{_counted(self.files, 'file')}, {_counted(self.lines_read, 'line')} read: "
            f"{_counted(self.attempts_added, 'attempt')} added, {_counted(self.duplicates, 'duplicate')}, "
            f"{self.rejected} rejected, {self.pending} pending"
        )

    def add(self, outcome: Outcome) -> None:
        """Count what one transaction's lines became."""
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
    endpoint_url: str | None = None,
) -> IngestSummary:
    """Ingest lane-log files and folders (every *.jsonl and *.jsonl.gz below them),
    and object-store URLs (a str such as s3://bucket/prefix/: every such object below it).

    A file or object that cannot be read is named in `errors`; the others are
    still ingested.  `progress`, when given, is called with the number of bytes
    each committed transaction covered, and once more (with 0) as each log
    is done, with the run's summary so far.  `endpoint_url` serves an
    S3-compatible store (else $AWS_ENDPOINT_URL, else AWS).
    """
    _require_writable(con)
    summary = IngestSummary()
    started = _now()
    with capped_memory(con, MEMORY_LIMIT):
        batcher = _Batcher(con, summary, progress)
        for given in paths:
            if is_object_url(given):
                batcher.flush()  # logs are stored in the order they are named
                _ingest_objects(con, os.fspath(given), batcher, summary, progress, endpoint_url)
                continue
            for item in expand_paths([Path(given)]):
                if isinstance(item, IngestError):
                    summary.errors.append(item.message)
                    continue
                try:
                    with open_log(item) as log:
                        _ingest_one(con, batcher, log, summary, progress)
                except IngestError as exc:
                    summary.errors.append(exc.message)
                if progress:
                    progress(0, summary)
        batcher.flush()
    _record_run(con, summary, started)
    return summary


def _ingest_one(con: duckdb.DuckDBPyConnection, batcher: _Batcher, log: LogStream, summary: IngestSummary,
                progress: Progress | None) -> None:
    """A log into the batch of small logs, or (the batch stored first, to keep the order) the one-log way."""
    if not batcher.take(log):
        batcher.flush()
        _ingest_log(con, log, summary, progress)


def _ingest_objects(con: duckdb.DuckDBPyConnection, url: str, batcher: _Batcher, summary: IngestSummary,
                    progress: Progress | None, endpoint_url: str | None) -> None:
    """Every log object below `url` not read to its end before: fetched a window at a time, each
    window's small logs stored as batches, and the objects it settled recorded (objects_read).

    A store that cannot be listed or read at all ends this URL with one error; what was
    stored before stays, and the next run goes on from there.
    """
    try:
        store = ObjectStore(url, endpoint_url)
        listed = store.listing()
    except IngestError as exc:
        summary.errors.append(exc.message)
        return
    _forget_unlisted(con, store.prefix, listed)
    read_before = {row[0]: (row[1], row[2]) for row in statement("objects_below").rows(con, prefix=store.prefix)}
    new = []
    for obj in listed:
        if read_before.get(obj.url) == (obj.etag, obj.size):
            summary.files += 1  # read to its end before, and listed unchanged: not fetched
        else:
            new.append(obj)
    for window in windows(new):
        small = [obj for obj in window if obj.small]
        fetched: dict[str, Fetched] = dict(zip((obj.url for obj in small), store.fetch(small)))
        settled, fatal = [], None
        for obj in window:
            got = fetched.get(obj.url)
            if got is not None and got.error is not None:
                if got.fatal:
                    fatal = fatal or got.error
                else:
                    summary.errors.append(got.error.message)
                continue
            if fatal is not None:
                continue  # the store went away: the objects after it are read next run
            try:
                with (bytes_log(obj.url, got.data or b"") if got is not None else store.open(obj)) as log:
                    _ingest_one(con, batcher, log, summary, progress)
                settled.append(obj)
            except IngestError as exc:
                summary.errors.append(exc.message)
            if progress:
                progress(0, summary)
        batcher.flush()
        _record_objects(con, [obj for obj in settled if obj.url not in batcher.failed])
        if fatal is not None:
            summary.errors.append(fatal.message)
            return


def _forget_unlisted(con: duckdb.DuckDBPyConnection, prefix: str, listed: list[Listed]) -> None:
    """Forget the objects read before at `prefix` that this listing no longer holds (deleted or
    moved since), so objects_read says which logs the bucket held when it was last listed."""
    table = pa.table({"url": pa.array([obj.url for obj in listed], pa.string())})
    con.register("lane_listed", table)
    try:
        with transaction(con):
            statement("forget_unlisted").run(con, prefix=prefix, below=prefix.rstrip("/") + "/")
    finally:
        con.unregister("lane_listed")


def _record_objects(con: duckdb.DuckDBPyConnection, objects: list[Listed]) -> None:
    """Record objects read to their end, after their lines committed: a kill between the two
    only costs the next run a fetch (the object's content is then known as stored)."""
    if not objects:
        return
    table = pa.table({
        "url": [obj.url for obj in objects],
        "etag": [obj.etag for obj in objects],
        "size": pa.array([obj.size for obj in objects], pa.int64()),
        "now": pa.array([_now()] * len(objects), pa.timestamp("us")),
    })
    con.register("lane_objects", table)
    try:
        with transaction(con):
            statement("record_objects").run(con)
    finally:
        con.unregister("lane_objects")


class _Batcher:
    """Small new logs gathered into batches stored in one transaction each (ingest/batch.py)."""

    def __init__(self, con: duckdb.DuckDBPyConnection, summary: IngestSummary, progress: Progress | None) -> None:
        self.con, self.summary, self.progress = con, summary, progress
        self.index: SourceIndex | None = None
        self.batch: list[Small] = []
        self.heads: set[bytes] = set()
        self.first_lines: set[bytes] = set()
        self.size = 0
        self.resent = False
        self.failed: set[str] = set()  # names of logs whose batch could not be stored

    def take(self, log: LogStream) -> bool:
        """True when the log is dealt with: unchanged, or held for the batch; False: the one-log way."""
        if self.index is None:
            self.index = SourceIndex.read(self.con)
        found = classify(self.index, log)
        if isinstance(found, Small) and batching.first_line(found.data) in self.first_lines:
            # It may continue a log of this batch (that log's lines, then more): store the
            # batch, then settle this log against it as the one-log way would (identity.locate).
            self.flush()
            self.index = SourceIndex.read(self.con)
            found = classify(self.index, log)
        if found == "unchanged":
            self.summary.files += 1
            return True
        if not isinstance(found, Small) or found.head in self.heads:
            return False  # a copy of a log in this batch is settled once the batch is stored
        self.summary.files += 1  # read and settled; its lines count once the batch is stored
        self.batch.append(found)
        self.heads.add(found.head)
        self.first_lines.add(batching.first_line(found.data))
        self.size += len(found.data)
        if len(self.batch) >= batching.BATCH_LOGS or self.size >= batching.BATCH_BYTES:
            self.flush()
        return True

    def flush(self) -> None:
        """Store the batch held; on a Fallback, each of its logs goes the one-log way."""
        batch, self.batch, self.heads, self.first_lines, self.size = self.batch, [], set(), set(), 0
        self.index = None  # sources change: read them again for the next batch
        if not batch:
            return
        try:
            try:
                outcomes = store_batch(self.con, batch, leave_out_stored=self.resent)
            except RepeatsStored:
                outcomes = store_batch(self.con, batch, leave_out_stored=True)
        except Fallback:
            self.summary.files -= len(batch)  # the one-log way counts each again
            for small in batch:
                try:
                    with bytes_log(small.name, small.data) if small.held else open_log(Path(small.name)) as log:
                        _ingest_log(self.con, log, self.summary, self.progress)
                except IngestError as exc:
                    self.summary.errors.append(exc.message)
                    self.failed.add(small.name)
            return
        except StoreError as exc:
            self.failed.update(small.name for small in batch)
            self.summary.errors.append(f"{len(batch)} small logs from {shown(batch[0].name)}: the database could "
                                       f"not store them ({exc})")
            return
        # Logs re-sent in one batch are likely in the next: leave stored ids out at once while they are.
        self.resent = any(outcome.duplicates for outcome in outcomes)
        for outcome in outcomes:
            self.summary.add(outcome)
        if self.progress:
            self.progress(sum(len(small.data) for small in batch), self.summary)


def ingest_bytes(con: duckdb.DuckDBPyConnection, name: str, data: bytes) -> IngestSummary:
    """Ingest one uploaded log held in memory, by the same rules as a file."""
    _require_writable(con)
    summary = IngestSummary()
    started = _now()
    try:
        with capped_memory(con, MEMORY_LIMIT), bytes_log(name, data) as log:
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
            "now": _now(),
        }


def _require_writable(con: duckdb.DuckDBPyConnection) -> None:
    name = read_only_name(con)
    if name is not None:
        raise IngestError(f"the database {name} is open read-only: ingest needs open_db(path) without read_only")


def _ingest_log(
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
    became = Outcome()  # what this log's lines became in this run
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
            outcome = Outcome()
            if piece.lines is not None:
                outcome = store_lines(con, source_id, piece.lines, provisional=True)
            if piece.lines is not None and piece.lines.too_long:
                # Too long to hold (chunks.MAX_LINE_BYTES): pending, and read past again next run.
                params = source.params(bytes_seen=source.position, seen=b"")
            else:
                params = source.params(bytes_seen=source.position + piece.size, seen=piece.data())
            _still_the_same_log(source)
            statement("update_source").run(con, **params)
        summary.add(outcome)
        became.add(outcome)
    if became.rejected and not (became.attempts or became.duplicates):
        summary.not_lane_logs.append((log.shown, became.rejected))


def _store_group(con: duckdb.DuckDBPyConnection, source: _Source, first: Piece, pieces: Reader) -> Outcome:
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
                outcome = store_stream(con, source_id, _group(source, first, pieces),
                                       leave_out_stored=leave_out)
                if isinstance(outcome, Handover):
                    raise _RolledBack(outcome)
                _end(con, source, outcome)
            source.resent = outcome.duplicates > 0
            return outcome
        except _RolledBack as handover:
            careful = handover.args[0] is Handover.CAREFUL or leave_out
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
    con.register("lane_sample", lines.head(SAMPLE_LINES))
    try:
        return bool(statement("sample_stored").rows(con)[0][0])
    finally:
        con.unregister("lane_sample")


def _store_carefully(con: duckdb.DuckDBPyConnection, source: _Source, runs: Iterator[Lines]) -> Outcome:
    """Store runs of lines piece by piece, each piece with its read position in a transaction of its own.

    One transaction over a whole group kept every piece's staging table until it
    committed (670 MB on a log of 1M re-sent lines).
    """
    outcome = Outcome()
    with capped_memory(con, CAREFUL_MEMORY_LIMIT):
        for lines in runs:
            with transaction(con):
                source_id = _begin(con, source)
                stored = store_lines(con, source_id, lines, provisional=False)
                _end(con, source, stored)
            outcome.add(stored)
    return outcome


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
    """A transaction's first work: drop the attempt an earlier run stored from
    a provisional last line (it is being read again), and give a new log its row.
    Returns the log's source id."""
    if source.stale_provisional:
        statement("delete_provisional").run(con, source_id=source.source_id)
        source.stale_provisional = False
    if source.source_id is None:
        source.source_id = int(statement("new_source").rows(con, path=source.log.shown, now=_now())[0][0])
    return source.source_id


def _end(con: duckdb.DuckDBPyConnection, source: _Source, outcome: Outcome) -> None:
    """A group's last work: the log's new read position, after its complete lines."""
    _still_the_same_log(source)
    source.duplicates += outcome.duplicates
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


def _record_run(con: duckdb.DuckDBPyConnection, summary: IngestSummary, started: datetime) -> None:
    """One ingest_runs row for a run that read something or failed to; a run
    that found nothing new writes nothing, so it costs almost nothing."""
    if not (summary.lines_read or summary.errors):
        return
    statement("record_run").run(
        con,
        started_at=started,
        finished_at=_now(),
        files=summary.files,
        lines_read=summary.lines_read,
        attempts_added=summary.attempts_added,
        duplicates=summary.duplicates,
        rejected=summary.rejected,
        pending=summary.pending,
    )


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)
