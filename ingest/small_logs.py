"""Small new logs gathered into batches stored in one transaction each (ingest/batch.py)."""

from __future__ import annotations

from pathlib import Path

import duckdb

from lanelog.errors import IngestError, StoreError
from lanelog.ingest import batch as batching
from lanelog.ingest.batch import Fallback, RepeatsStored, Small, SourceIndex, classify, store_batch
from lanelog.ingest.logfile import LogStream, bytes_log, open_log, shown
from lanelog.ingest.one_log import ingest_log
from lanelog.ingest.summary import IngestSummary, Progress


class Batcher:
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

    def add(self, log: LogStream) -> None:
        """A log into the batch, or (the batch stored first, to keep the order) the one-log way."""
        if not self.take(log):
            self.flush()
            ingest_log(self.con, log, self.summary, self.progress)

    def flush(self) -> None:
        """Store the batch held; on a Fallback, each of its logs goes the one-log way."""
        batch, self.batch, self.heads, self.first_lines, self.size = self.batch, [], set(), set(), 0
        self.index = None  # sources change: read them again for the next batch
        if not batch:
            return
        try:
            try:
                tallies = store_batch(self.con, batch, leave_out_stored=self.resent)
            except RepeatsStored:
                tallies = store_batch(self.con, batch, leave_out_stored=True)
        except Fallback:
            self.summary.files -= len(batch)  # the one-log way counts each again
            for small in batch:
                try:
                    with bytes_log(small.name, small.data) if small.held else open_log(Path(small.name)) as log:
                        ingest_log(self.con, log, self.summary, self.progress)
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
        self.resent = any(tally.duplicates for tally in tallies)
        for tally in tallies:
            self.summary.add(tally)
        if self.progress:
            self.progress(sum(len(small.data) for small in batch), self.summary)
