"""Ingest runs: the logs named (files, folders, object-store URLs, an upload), each read from
where the last run stopped.

Small new logs go into batches (small_logs), every other log the one-log way
(one_log: rows and read position in one transaction per group of lines, so a run
killed at any moment leaves every line stored exactly once after the next run);
the logs below an object-store URL are fetched a window at a time (object_logs).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

import duckdb

from lanelog.errors import IngestError
from lanelog.ingest.logfile import bytes_log, expand_paths, is_object_url, open_log
from lanelog.ingest.object_logs import Listing, ingest_objects, list_objects
from lanelog.ingest.objects import StoreTimeouts
from lanelog.ingest.one_log import ingest_log
from lanelog.ingest.small_logs import Batcher
from lanelog.ingest.summary import IngestSummary, Progress, note_undated_outcomes, now, record_run
from lanelog.store import capped_memory, read_only_name

# DuckDB's share of a run's memory: with the pieces and Python around it, a run
# of any size stays under 512 MB.  The careful way stores one piece at a time and
# needs less; under the full share it was measured at 550 MB on a log of
# re-sent lines, where its own share holds it near 440 MB at the same speed.
MEMORY_LIMIT = "256MB"


def ingest_paths(
    con: duckdb.DuckDBPyConnection,
    paths: Iterable[str | os.PathLike[str]],
    *,
    progress: Progress | None = None,
    endpoint_url: str | None = None,
    timeouts: StoreTimeouts | None = None,
    listings: Mapping[str, Listing] | None = None,
) -> IngestSummary:
    """Ingest lane-log files and folders (every *.jsonl and *.jsonl.gz below them),
    and object-store URLs (a str such as s3://bucket/prefix/: every such object below it).

    A file or object that cannot be read is named in `errors`; the others are
    still ingested.  `progress`, when given, is called with the number of bytes
    each committed transaction covered, and once more (with 0) as each log
    is done, with the run's summary so far.  `endpoint_url` serves an
    S3-compatible store (else $AWS_ENDPOINT_URL, else AWS); `timeouts` are its deadlines.
    `listings` holds URLs listed before `con` was opened (list_objects), so the listing
    waited on the store without the database's lock; any other URL is listed here.
    """
    _require_writable(con)
    summary = IngestSummary()
    started = now()
    with capped_memory(con, MEMORY_LIMIT):
        batcher = Batcher(con, summary, progress)
        for given in paths:
            if is_object_url(given):
                batcher.flush()  # logs are stored in the order they are named
                url = os.fspath(given)
                listing = (listings or {}).get(url) or list_objects(url, endpoint_url, timeouts)
                ingest_objects(con, listing, batcher, summary, progress)
                continue
            for item in expand_paths([Path(given)]):
                if isinstance(item, IngestError):
                    summary.errors.append(item.message)
                    continue
                try:
                    with open_log(item) as log:
                        batcher.add(log)
                except IngestError as exc:
                    summary.errors.append(exc.message)
                if progress:
                    progress(0, summary)
        batcher.flush()
    note_undated_outcomes(con, summary)
    record_run(con, summary, started)
    return summary


def ingest_bytes(con: duckdb.DuckDBPyConnection, name: str, data: bytes) -> IngestSummary:
    """Ingest one uploaded log held in memory, by the same rules as a file."""
    _require_writable(con)
    summary = IngestSummary()
    started = now()
    try:
        with capped_memory(con, MEMORY_LIMIT), bytes_log(name, data) as log:
            ingest_log(con, log, summary, None)
    except IngestError as exc:
        summary.errors.append(exc.message)
    note_undated_outcomes(con, summary)
    record_run(con, summary, started)
    return summary


def _require_writable(con: duckdb.DuckDBPyConnection) -> None:
    name = read_only_name(con)
    if name is not None:
        raise IngestError(f"the database {name} is open read-only: ingest needs open_db(path) without read_only")
