"""Logs in an object store: every log object below a URL not read to its end before,
and the record of the objects read (objects_read).

A URL is listed before the database is opened (list_objects), so a store that is slow
to answer holds no lock that an ingest or a dashboard is waiting for; the fetches of a
window then each have the store's request deadline (ingest/objects.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import duckdb

from lanelog.errors import IngestError
from lanelog.ingest.lines import arrow_table, int64_array, text_array, timestamp_array
from lanelog.ingest.logfile import bytes_log
from lanelog.ingest.objects import Fetched, Listed, ObjectStore, StoreSilent, StoreTimeouts, windows
from lanelog.ingest.small_logs import Batcher
from lanelog.ingest.statements import statement
from lanelog.ingest.summary import IngestSummary, Progress, now
from lanelog.store import arrow_view, transaction


@dataclass
class Listing:
    """One object-store URL as listed: its store and log objects, or the error that ended it."""

    url: str
    store: ObjectStore | None = None
    objects: list[Listed] = field(default_factory=list)
    error: IngestError | None = None


def list_objects(url: str, endpoint_url: str | None = None, timeouts: StoreTimeouts | None = None) -> Listing:
    """The log objects below `url`, listed within the listing deadline; needs no database."""
    try:
        store = ObjectStore(url, endpoint_url, timeouts)
        return Listing(url, store, store.listing())
    except IngestError as exc:
        return Listing(url, error=exc)


def ingest_objects(con: duckdb.DuckDBPyConnection, listing: Listing, batcher: Batcher, summary: IngestSummary,
                   progress: Progress | None) -> None:
    """Every log object of the listing not read to its end before: fetched a window at a time, each
    window's small logs stored as batches, and the objects it settled recorded (objects_read).

    A store that cannot be listed or read at all, or does not answer within a deadline,
    ends this URL with one error; what was stored before stays, and the next run goes on
    from there.
    """
    if listing.error is not None or listing.store is None:
        summary.errors.append(listing.error.message if listing.error else f"{listing.url}: not listed")
        return
    store, listed = listing.store, listing.objects
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
                    batcher.add(log)
                settled.append(obj)
            except StoreSilent as exc:  # the store stopped answering in the middle of an object
                fatal = exc
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
    table = arrow_table(url=text_array([obj.url for obj in listed]))
    with arrow_view(con, "lane_listed", table), transaction(con):
        statement("forget_unlisted").run(con, prefix=prefix, below=prefix.rstrip("/") + "/")


def _record_objects(con: duckdb.DuckDBPyConnection, objects: list[Listed]) -> None:
    """Record objects read to their end, after their lines committed: a kill between the two
    only costs the next run a fetch (the object's content is then known as stored)."""
    if not objects:
        return
    table = arrow_table(
        url=text_array([obj.url for obj in objects]),
        etag=text_array([obj.etag for obj in objects]),
        size=int64_array([obj.size for obj in objects]),
        now=timestamp_array([now()] * len(objects)),
    )
    with arrow_view(con, "lane_objects", table), transaction(con):
        statement("record_objects").run(con)
