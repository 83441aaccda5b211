"""Many small logs in few transactions: the shape CI produces (a log per job, a line or a few each).

Going one log at a time, a one-line log cost about 50 ms: two lookups of its
identity, a new source row, the INSERT (planned again for each log), a duplicate
check and a commit. Here the identity of every log in a batch is settled in
memory against one read of `sources` (the same rules as identity.locate), an
unchanged log costs no database work at all, and the new logs of a batch are
stored by one INSERT, their source rows (identity and read position) by another,
in one transaction: a kill -9 at any moment leaves each log either wholly stored
with its position or not at all.

Only the plain case takes this way: a new plain-file log of at most
SMALL_LOG_BYTES whose every line is complete, valid UTF-8 and looks like a JSON
object (an attempt, or an outcome line: the log an outcome job writes holds one,
stored in the same transaction by outcome_lines). Anything else (a log seen
before that grew, gzip, a provisional last line, a line that may be no object, a
copy of a log in the same batch) goes the one-log way, which has the rules for
it. A batch whose attempts repeat stored ids (logs re-sent) is stored again
leaving those out, as are the batches after it while they find such ids. A batch
with a line broken in its middle (or one that looked like an outcome line and is
none), or whose attempts repeat an attempt_id among themselves or a provisional
line's, is rolled back and each of its logs goes the one-log way. A log whose
first line is the first line of a log held for the batch may continue that log
(identity.continues): the batch is stored first and the log is settled against
it, as a second run would settle it, so one run and two store the same rows
(first_line).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from datetime import UTC, datetime

import duckdb
import numpy as np
import pyarrow as pa

from lanelog.errors import StoreError
from lanelog.files import open_regular
from lanelog.ingest.identity import FINGERPRINT_BYTES, TAIL_BYTES, continues, digest
from lanelog.ingest.lines import (
    LINES_SCHEMA,
    Lines,
    arrow_table,
    int32_array,
    int64_array,
    split_lines,
    text_array,
    timestamp_array,
)
from lanelog.ingest.load import BROKEN_LINE, STREAM, Handover, Tally, duplicates_handover
from lanelog.ingest.logfile import LogStream, shown
from lanelog.ingest.outcome_lines import Outcomes, store_outcomes
from lanelog.ingest.statements import attempt_rows, statement
from lanelog.store import arrow_view, settings, transaction

SMALL_LOG_BYTES = 1 << 20
BATCH_LOGS = 2000
BATCH_BYTES = 64 << 20
EMPTY_DIGEST = digest(b"")
BATCH_SCHEMA = pa.schema([("source_id", pa.int32()), *LINES_SCHEMA])


@dataclass
class Small:
    """A small new log read whole, ready to be stored in a batch."""

    name: str
    data: bytes
    lines: Lines
    head: bytes
    held: bool = False  # held in memory (an object): nothing to read again before the commit


@dataclass
class Stored:
    """A stored log as identity.locate reads it: (source_id, bytes_read, tail, bytes_seen, seen), and its path."""

    source_id: int
    bytes_read: int
    tail_fingerprint: str
    bytes_seen: int
    seen_fingerprint: str
    path: str
    fingerprint: str
    fingerprint_bytes: int


@dataclass
class SourceIndex:
    """Every stored log's identity, read once: fingerprint -> stored logs, longest read first."""

    by_fingerprint: dict[str, list[Stored]] = field(default_factory=dict)
    by_path: dict[str, list[Stored]] = field(default_factory=dict)
    lengths: list[int] = field(default_factory=list)

    @classmethod
    def read(cls, con: duckdb.DuckDBPyConnection) -> SourceIndex:
        index = cls()
        rows = statement("all_sources").rows(con)
        for fingerprint, length, source_id, bytes_read, tail, bytes_seen, seen, path in rows:
            stored = Stored(source_id, bytes_read, tail, bytes_seen, seen, path, fingerprint, length)
            index.by_fingerprint.setdefault(fingerprint, []).append(stored)
            index.by_path.setdefault(path, []).append(stored)
        index.lengths = sorted({row[1] for row in rows})
        return index

    def read_whole_before(self, name: str, data: bytes) -> bool:
        """The usual re-run: this path's log was read to its end, with nothing after, and holds
        the same bytes now (its fingerprint and its last bytes). Two digests, not one per length."""
        for stored in self.by_path.get(name, ()):
            if (stored.bytes_read == stored.bytes_seen == len(data)
                    and stored.fingerprint_bytes == min(len(data), FINGERPRINT_BYTES)
                    and digest(data[:FINGERPRINT_BYTES]) == stored.fingerprint
                    and digest(data[-TAIL_BYTES:]) == stored.tail_fingerprint):
                return True
        return False

    def candidates(self, head: bytes) -> list[Stored]:
        """Stored logs whose fingerprinted first bytes agree with this head (identity._candidates)."""
        found: list[Stored] = []
        hasher = hashlib.sha256()
        done = 0
        for length in self.lengths:
            if length > len(head):
                break
            hasher.update(head[done:length])
            done = length
            found += self.by_fingerprint.get(hasher.copy().hexdigest(), [])
        return sorted(found, key=lambda stored: (-stored.bytes_read, stored.source_id))


def classify(index: SourceIndex, log: LogStream) -> Small | str | None:
    """"unchanged" for a stored log with nothing new, a Small for a batchable new log,
    or None: the log goes the one-log way."""
    if log.size is None or not 0 < log.size <= SMALL_LOG_BYTES:
        return None
    data = log.read_at(0, log.size + 1)
    if len(data) != log.size:
        return None  # it grew or shrank while read
    if index.read_whole_before(log.shown, data):
        return "unchanged"
    head = data[:FINGERPRINT_BYTES]
    for stored in index.candidates(head):
        found = continues(lambda offset, size: data[offset:offset + size], stored.bytes_read,
                          stored.tail_fingerprint, stored.bytes_seen, stored.seen_fingerprint)
        if found is not None:
            return "unchanged" if found[1] else None
    if not data.endswith(b"\n"):
        return None  # a provisional last line
    lines = split_lines(memoryview(data), base_offset=0, first_line_no=1, complete=True)
    if lines.invalid_utf8 or lines.unsure or lines.empty:
        return None
    return Small(name=log.name, data=data, lines=lines, head=head, held=log.held)


def first_line(data: bytes) -> bytes:
    """A small log's first line (to its newline; at most FINGERPRINT_BYTES): a log that
    continues another (identity.continues) starts with it."""
    end = data.find(b"\n", 0, FINGERPRINT_BYTES)
    return data[:end + 1] if end >= 0 else data[:FINGERPRINT_BYTES]


class Fallback(Exception):
    """The batch must not stay: it was rolled back, and its logs go the one-log way."""


class RepeatsStored(Exception):
    """The batch's attempts repeat stored ids, and nothing else is in the way: it was
    rolled back, and storing it again leaving stored ids out settles it."""


def store_batch(con: duckdb.DuckDBPyConnection, batch: list[Small], *, leave_out_stored: bool = False) -> list[Tally]:
    """Store a batch of small new logs and their source rows in one transaction.

    With `leave_out_stored` (logs of re-sent lines), attempts whose attempt_id
    is stored are left out by the INSERT and counted as duplicates.  Raises
    RepeatsStored, without it, when attempts repeat stored ids; Fallback (after
    the rollback) when a line was no attempt or outcome line, or an attempt_id
    repeats within the batch or is held by a provisional line.
    """
    with transaction(con):
        ids = [row[0] for row in statement("new_source_ids").rows(con, n=len(batch))]
        stored = _insert_attempts(con, ids, batch, leave_out_stored=leave_out_stored)
        outcomes = store_outcomes(con, [(source_id, n, small.lines.offset(n), small.lines.raw(n))
                                        for source_id, small in zip(ids, batch) for n in small.lines.outcomes],
                                  provisional=False)
        if outcomes.count != sum(len(small.lines.outcomes) for small in batch):
            raise Fallback  # a line that looked like an outcome line and is none
        expected = sum(small.lines.count for small in batch) - outcomes.count
        if stored != expected and not leave_out_stored:
            raise Fallback  # a line broken in its middle
        if stored:
            handover = duplicates_handover(con, ids[0], ids[-1], 1, leave_out_stored=leave_out_stored)
            if handover is Handover.CAREFUL:
                raise Fallback
            if handover is Handover.STORED_IDS:
                raise RepeatsStored
        tallies = _tallies(con, ids, batch, outcomes, all_stored=stored == expected)
        now = datetime.now(UTC).replace(tzinfo=None)
        with arrow_view(con, "lane_sources", _source_rows(ids, batch, tallies, now)):
            statement("insert_sources").run(con)
        for small in batch:
            if not _still_holds(small):
                raise Fallback
    return tallies


def _insert_attempts(con: duckdb.DuckDBPyConnection, ids: list[int], batch: list[Small], *,
                     leave_out_stored: bool) -> int:
    """One INSERT of the batch's attempts (each line with its log's source id): how many it stored."""
    tables = []
    for source_id, small in zip(ids, batch):
        table = small.lines.table
        column = int32_array(np.full(table.num_rows, source_id))
        tables.append(pa.Table.from_arrays([column, *table.columns], schema=BATCH_SCHEMA))
    insert = "insert_new_attempts_batch" if leave_out_stored else "insert_attempts_batch"
    try:
        with arrow_view(con, "lane_lines", pa.concat_tables(tables)):
            attempt_rows(con)
            with settings(con, STREAM):
                return int(statement(insert).rows(con, provisional=False)[0][0])
    except StoreError as exc:
        if leave_out_stored and BROKEN_LINE in str(exc):
            raise Fallback from None  # (the failed statement rolled the transaction back)
        raise


def _tallies(con: duckdb.DuckDBPyConnection, ids: list[int], batch: list[Small], outcomes: Outcomes, *,
             all_stored: bool) -> list[Tally]:
    """What each log's lines became: every line an attempt or an outcome line (classify), so
    each one not stored was left out as a duplicate."""
    attempts = {} if all_stored else dict(statement("batch_stored").rows(con, first_source=ids[0]))
    tallies = []
    for source_id, small in zip(ids, batch):
        count = small.lines.count
        added = count - len(outcomes.of(source_id)) if all_stored else attempts.get(source_id, 0)
        kept = outcomes.stored[source_id]
        tallies.append(Tally(lines=count, attempts=added, outcomes=kept, duplicates=count - added - kept))
    return tallies


def _source_rows(ids: list[int], batch: list[Small], tallies: list[Tally], now: datetime) -> pa.Table:
    """Each log's identity and read position: all of it read, no provisional line."""
    return arrow_table(
        source_id=int32_array(ids),
        path=text_array([shown(small.name) for small in batch]),
        fingerprint=text_array([digest(small.head) for small in batch]),
        fingerprint_bytes=int32_array([len(small.head) for small in batch]),
        bytes_read=int64_array([len(small.data) for small in batch]),
        tail_fingerprint=text_array([digest(small.data[-TAIL_BYTES:]) for small in batch]),
        bytes_seen=int64_array([len(small.data) for small in batch]),
        seen_fingerprint=text_array([EMPTY_DIGEST] * len(batch)),
        lines_read=int64_array([small.lines.count for small in batch]),
        duplicates=int64_array([tally.duplicates for tally in tallies]),
        now=timestamp_array([now] * len(batch)),
    )


def _still_holds(small: Small) -> bool:
    """Whether the file still holds what was read (it may have been rewritten since)."""
    if small.held:
        return True
    try:
        fd = open_regular(small.name)
    except OSError:  # gone, unreadable, or no regular file now
        return False
    try:
        return os.pread(fd, len(small.data) + 1, 0) == small.data
    except OSError:
        return False
    finally:
        os.close(fd)
