"""The dashboard's only door to the database: short-lived read-only looks, cached.

Each look runs the named `queries` functions; results are cached one query at a
time by the filters, the file's on-disk signature and the session's refresh token.
Only a cache miss opens the DuckDB file, read-only, and it is closed when the look
ends, so `lanelog ingest` can take the file between two looks. While an ingest holds
the file, the last figures are shown again with a quiet note, never an exception.

A lake is read through one store.LakeReader per process: its signature is its state
file, and a cache miss gets a connection of its own on the lake as that state lists it,
listed and opened once per state (one filesystem client, one listing, what DuckDB read
of the files kept for the next look).  A look that fails is made once more on a new listing.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path
from typing import Any, TypeVar

import streamlit as st

from lanelog import ingest, queries, store
from lanelog.errors import DashboardError, DatabaseLocked
from lanelog.queries import Filters, Source, choose_source
from lanelog.store import redacted

# A look waits this long for an ingest to let go before showing the last figures.
LOCK_WAIT_SECONDS = 0.5
REFRESH_KEY = "refresh_token"
LAST_KEY = "last_figures"
LAKE_VARIABLE = "LANELOG_LAKE"
# Where the object store's client sends its requests when the environment says (store/bucket.py
# reads these): a lake's reader is kept per endpoint too, never reused for another store.
ENDPOINT_VARIABLES = ("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL")
T = TypeVar("T")
# What a page asks a look for: a figure of lanelog.queries (or below) on a connection and the filters.
View = Callable[[Any, Filters], Any]


def latest_replay(con: Any, filters: Filters) -> dict[str, Any] | None:
    """The newest replay stored by `lanelog replay --db` (the sidebar's filters do not apply to it)."""
    return store.latest_replay(con)


def replay_list(con: Any, filters: Filters) -> list[dict[str, Any]]:
    """Every stored replay's row, newest first (the What-if page's choice)."""
    return store.replay_listing(con)


class NoDatabase(DashboardError):
    """There is no database file yet: the app shows how to make one."""


@dataclass(frozen=True)
class Look:
    """What one page needs from the database, and whether it is the last known copy."""

    figures: dict[str, Any]
    stale: bool


def source() -> Source:
    """What the app reads, by the rule `report` and `check` follow (lanelog.queries.source): the lake
    LANELOG_LAKE names (`dashboard --lake`), else the database file (LANELOG_DB), made absolute."""
    chosen = choose_source(lake=os.environ.get(LAKE_VARIABLE) or None)
    return replace(chosen, db=chosen.db.expanduser().resolve())


def db_path() -> Path:
    """The database file: the one the app reads, or, on a lake, the one the hints name."""
    return source().db


def lake_dir() -> str | None:
    """The Parquet lake the app reads instead of a database: LANELOG_LAKE, set by `dashboard --lake`."""
    return source().lake


def source_name() -> str:
    """What the app reads, as the user named it: the lake's folder or URL (s3://...), else the database file."""
    return source().name


def shown_name() -> str:
    """source_name() as a page shows it: without the value of any credential in the environment."""
    return redacted(source_name())


def source_exists() -> bool:
    """Whether there is something to read yet: a lake with its state file, or the database file."""
    chosen = source()
    if chosen.lake is not None:
        return _reader(chosen).stamp() is not None
    return chosen.exists()


@st.cache_resource(show_spinner=False, max_entries=8)
def _lake_reader(lake: str, endpoint_url: str | None, endpoints: tuple[str | None, ...]) -> store.LakeReader:
    # endpoints only keys the cache.
    return store.LakeReader(lake, endpoint_url)


def _reader(chosen: Source) -> store.LakeReader:
    """The process's reader of the chosen lake (one client, one listing and one opening per state)."""
    assert chosen.lake is not None
    return _lake_reader(chosen.lake, chosen.endpoint_url, tuple(os.environ.get(name) for name in ENDPOINT_VARIABLES))


def _signature(chosen: Source) -> tuple[Any, ...] | None:
    """Changes whenever an ingest commits or an export runs, so a rerun after it misses the cache;
    None when there is nothing to read yet."""
    if chosen.lake is not None:
        # A lake (a folder or a bucket) is known to change by its state file, which every export rewrites.
        stamp = _reader(chosen).stamp()
        return None if stamp is None else (stamp,)
    if not chosen.db.exists():
        return None
    parts: list[int] = []
    for candidate in (chosen.db, Path(f"{chosen.db}.wal")):
        try:
            stat = candidate.stat()
        except FileNotFoundError:
            parts.extend((0, 0))
        else:
            parts.extend((stat.st_mtime_ns, stat.st_size))
    return tuple(parts)


def refresh_token() -> int:
    return int(st.session_state.get(REFRESH_KEY, 0))


def bump_refresh() -> None:
    """Forget cached figures for this session: the Refresh button and the uploader call it."""
    st.session_state[REFRESH_KEY] = refresh_token() + 1


class _Connection:
    """A read-only connection opened only if some query misses the cache, closed after the look.

    On a lake, a connection on it as the look's signature (its state) lists it.
    """

    def __init__(self, chosen: Source, signature: tuple[Any, ...]) -> None:
        self.source = chosen
        self.signature = signature
        self.con: Any = None

    def get(self) -> Any:
        if self.con is None:
            if self.source.lake is not None:
                self.con = _reader(self.source).connect(self.signature[0])
            else:
                self.con = self.source.connect(wait=LOCK_WAIT_SECONDS)
        return self.con

    def close(self) -> None:
        if self.con is not None:
            self.con.close()
            self.con = None


def _read(chosen: Source, signature: tuple[Any, ...], read: Callable[[_Connection], T]) -> T:
    """read(connection), the connection opened on the first cache miss and closed after.

    On a lake, a read that fails drops the opened lake and is made once more on a new listing
    of it: an export may have replaced a file since the listing (a read of it is refused, never
    mixed); a second failure stands.
    """
    if chosen.lake is None:
        return _read_once(chosen, signature, read)
    try:
        return _read_once(chosen, signature, read)
    except Exception:
        _reader(chosen).forget()
    try:
        return _read_once(chosen, signature, read)
    except Exception:
        _reader(chosen).forget()
        raise


def _read_once(chosen: Source, signature: tuple[Any, ...], read: Callable[[_Connection], T]) -> T:
    connection = _Connection(chosen, signature)
    try:
        return read(connection)
    finally:
        connection.close()


@st.cache_data(show_spinner=False, max_entries=1024)
def _cached_query(
    db: str,
    signature: tuple[Any, ...],
    token: int,
    name: str,
    since: date | None,
    until: date | None,
    repo: str | None,
    _view: View,
    _connection: _Connection,
) -> Any:
    # db, signature, token and the view's name key the cache; the leading underscores keep
    # the view and the connection out of the key.
    figures = _view(_connection.get(), Filters(since=since, until=until, repo=repo))
    _ANSWERED.add((db, signature), (token, name, since, until, repo))
    return figures


class _Answered:
    """The queries this process has answered, by source and state: a look whose queries are all
    among them is answered from the cache, and reads nothing (so no reading status is drawn)."""

    STATES = 8  # the latest states remembered

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_state: dict[tuple[Any, ...], set[tuple[Any, ...]]] = {}

    def add(self, state: tuple[Any, ...], query: tuple[Any, ...]) -> None:
        with self._lock:
            self._by_state.setdefault(state, set()).add(query)
            while len(self._by_state) > self.STATES:
                del self._by_state[next(iter(self._by_state))]

    def all(self, state: tuple[Any, ...], queries: list[tuple[Any, ...]]) -> bool:
        with self._lock:
            return set(queries) <= self._by_state.get(state, set())


_ANSWERED = _Answered()


def _name(view: View) -> str:
    """A view's name: the key of its figures in a look, and of its cache entries."""
    return view.__name__


def look(*views: View, filters: Filters | None = None,
         reading: Callable[[], AbstractContextManager[Any]] | None = None) -> Look:
    """Run these views (lanelog.queries' figures, or this module's) for the filters (cached), by their names.

    reading: a status drawn while the look reads a lake, when some query is not in the cache yet.
    Raises NoDatabase when the file does not exist; raises DatabaseLocked only when an
    ingest holds the file and this session has no earlier figures to show.
    """
    filters = filters if filters is not None else Filters()
    chosen = source()
    signature = _signature(chosen)
    if signature is None:
        raise NoDatabase(f"no database at {chosen.name}")
    names = tuple(_name(view) for view in views)
    key = (chosen.name, names, filters.since, filters.until, filters.repo)
    last: dict[tuple[Any, ...], dict[str, Any]] = st.session_state.setdefault(LAST_KEY, {})
    token = refresh_token()
    answered = _ANSWERED.all((chosen.name, signature),
                             [(token, name, filters.since, filters.until, filters.repo) for name in names])
    try:
        with reading() if reading is not None and chosen.lake is not None and not answered else nullcontext():
            figures = _read(chosen, signature, lambda connection: {
                _name(view): _cached_query(chosen.name, signature, token, _name(view), filters.since, filters.until,
                                           filters.repo, view, connection)
                for view in views
            })
    except DatabaseLocked:
        if key in last:
            return Look(figures=last[key], stale=True)
        raise
    last[key] = figures
    return Look(figures=figures, stale=False)


@st.cache_data(show_spinner=False, max_entries=64)
def _cached_replay(db: str, signature: tuple[Any, ...], token: int, replay_id: int,
                   _connection: _Connection) -> dict[str, Any] | None:
    return store.replay_by_id(_connection.get(), replay_id)


def replay(replay_id: int) -> dict[str, Any] | None:
    """One stored replay (cached like `look`); None when no replay has that id.

    Raises NoDatabase when there is nothing to read, DatabaseLocked while an ingest holds the file.
    """
    chosen = source()
    signature = _signature(chosen)
    if signature is None:
        raise NoDatabase(f"no database at {chosen.name}")
    return _read(chosen, signature, lambda connection: _cached_replay(chosen.name, signature, refresh_token(),
                                                                      int(replay_id), connection))


BUDGETS_VARIABLE = "LANELOG_BUDGETS"


def budgets_file() -> Path | None:
    """The budgets file `lanelog dashboard --budgets FILE` passed (LANELOG_BUDGETS), else None."""
    named = os.environ.get(BUDGETS_VARIABLE)
    return Path(named) if named else None


@st.cache_data(show_spinner=False, max_entries=64)
def _cached_budgets(db: str, signature: tuple[Any, ...], token: int, text: str, name: str, today: date,
                    span: tuple[date, date] | None, _connection: _Connection) -> dict[str, Any]:
    con = _connection.get()
    budgets = queries.parse_budgets(text, name)
    found = queries.judge(con, budgets, today)
    weekly = queries.weekly_spend(con, budgets, *span) if span is not None else {}
    return {"statuses": [status.as_dict() for status in found.statuses], "warnings": found.warnings,
            "weekly": {name: {week.isoformat(): float(cost) for week, cost in weeks.items()}
                       for name, weeks in weekly.items()}}


def budgets(today: date, span: tuple[date, date] | None = None) -> dict[str, Any] | None:
    """Each budget of the budgets file judged over the period holding `today` (cached like `look`),
    the scopes that match nothing, and with `span` (first and last day) each budget's spend per
    week within it ("weekly": name -> {Monday: cost}); None when the app was given no budgets file.

    The file is read again on every look, so an edit shows at the next rerun; an unusable
    file raises BudgetInvalid naming its line and key.
    """
    path = budgets_file()
    if path is None:
        return None
    text = queries.read_budget_text(path)  # as `check --budgets` reads it: a regular file, bounded, UTF-8
    chosen = source()
    signature = _signature(chosen)
    if signature is None:
        raise NoDatabase(f"no database at {chosen.name}")
    return _read(chosen, signature, lambda connection: _cached_budgets(chosen.name, signature, refresh_token(), text,
                                                                       str(path), today, span, connection))


def ingest_upload(name: str, payload: bytes) -> dict[str, Any]:
    """Ingest an uploaded lane-log file with the same rules as `lanelog ingest`."""
    chosen = source()
    if chosen.lake is not None:
        raise DashboardError("a lake is read-only here: ingest into the database, then `lanelog export`")
    con = store.open_db(chosen.db, read_only=False, wait=5.0)
    try:
        summary = ingest.ingest_bytes(con, name, payload)
    finally:
        con.close()
    bump_refresh()
    return {**summary.as_dict(), "errors": list(summary.errors)}
