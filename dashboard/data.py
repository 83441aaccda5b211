"""The dashboard's only door to the database: short-lived read-only looks, cached.

Each look runs the named `queries` functions; results are cached one query at a
time by the filters, the file's on-disk signature and the session's refresh token.
Only a cache miss opens the DuckDB file, read-only, and it is closed when the look
ends, so `lanelog ingest` can take the file between two looks. While an ingest holds
the file, the last figures are shown again with a quiet note, never an exception.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import streamlit as st

from lanelog import ingest, queries, store
from lanelog.errors import DashboardError, DatabaseLocked
from lanelog.queries import Filters
from lanelog.store import replays

# A look waits this long for an ingest to let go before showing the last figures.
LOCK_WAIT_SECONDS = 0.5
REFRESH_KEY = "refresh_token"
LAST_KEY = "last_figures"
LAKE_VARIABLE = "LANELOG_LAKE"


def _latest_replay(con: Any, filters: Filters) -> dict[str, Any] | None:
    """The newest replay stored by `lanelog replay --db` (the sidebar's filters do not apply to it)."""
    return replays.latest(con)


# Figures read from tables other than the lane log's: looked up before `queries`.
STORED = {"latest_replay": _latest_replay}


class NoDatabase(DashboardError):
    """There is no database file yet: the app shows how to make one."""


@dataclass(frozen=True)
class Look:
    """What one page needs from the database, and whether it is the last known copy."""

    figures: dict[str, Any]
    stale: bool


def db_path() -> Path:
    """The database the app reads: LANELOG_DB as set by `lanelog dashboard`, else the default."""
    return Path(store.default_db_path()).expanduser().resolve()


def lake_dir() -> str | None:
    """The Parquet lake the app reads instead of a database: LANELOG_LAKE, set by `dashboard --lake`."""
    return os.environ.get(LAKE_VARIABLE) or None


def source_path() -> Path:
    """What the app reads: the lake when one is set, else the database file."""
    lake = lake_dir()
    return Path(lake) if lake else db_path()


def source_name() -> str:
    """What the app reads, as the user named it: the lake's folder or URL (s3://...), else the database file."""
    return lake_dir() or str(db_path())


def source_exists() -> bool:
    """Whether there is something to read yet: a lake with its state file, or the database file."""
    lake = lake_dir()
    return store.lake_stamp(lake) is not None if lake else db_path().exists()


def _signature(path: Path) -> tuple[int, ...]:
    """Changes whenever an ingest commits, so a rerun after it misses the cache."""
    parts: list[int] = []
    for candidate in (path, Path(f"{path}.wal")):
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
    """A read-only connection opened only if some query misses the cache, closed after the look."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.con: Any = None

    def get(self) -> Any:
        lake = lake_dir()
        if self.con is None and lake:
            self.con = store.open_lake(lake)  # as named: a URL is no Path
        if self.con is None:
            self.con = store.open_db(self.path, read_only=True, wait=LOCK_WAIT_SECONDS)
        return self.con

    def close(self) -> None:
        if self.con is not None:
            self.con.close()
            self.con = None


@st.cache_data(show_spinner=False, max_entries=1024)
def _cached_query(
    db: str,
    signature: tuple[Any, ...],
    token: int,
    name: str,
    since: date | None,
    until: date | None,
    repo: str | None,
    _connection: _Connection,
) -> Any:
    # db, signature and token only key the cache; the leading underscore keeps the
    # connection out of the key.
    function: Callable[..., Any] = STORED.get(name) or getattr(queries, name)
    if name == "repos":
        return function(_connection.get())
    return function(_connection.get(), Filters(since=since, until=until, repo=repo))


def look(*names: str, filters: Filters | None = None) -> Look:
    """Run the named `queries` functions for the current filters (cached).

    Raises NoDatabase when the file does not exist; raises DatabaseLocked only when an
    ingest holds the file and this session has no earlier figures to show.
    """
    filters = filters if filters is not None else Filters()
    path, lake = source_path(), lake_dir()
    # A lake (a folder or a bucket) is known to change by its state file, which every export rewrites.
    stamp = store.lake_stamp(lake) if lake else None
    if (lake and stamp is None) or (not lake and not path.exists()):
        raise NoDatabase(f"no database at {source_name()}")
    key = (source_name(), names, filters.since, filters.until, filters.repo)
    last: dict[tuple[Any, ...], dict[str, Any]] = st.session_state.setdefault(LAST_KEY, {})
    signature, token = ((stamp,) if stamp else _signature(path)), refresh_token()
    connection = _Connection(path)
    try:
        figures = {
            name: _cached_query(source_name(), signature, token, name, filters.since, filters.until, filters.repo,
                                connection)
            for name in names
        }
    except DatabaseLocked:
        if key in last:
            return Look(figures=last[key], stale=True)
        raise
    finally:
        connection.close()
    last[key] = figures
    return Look(figures=figures, stale=False)


def ingest_upload(name: str, payload: bytes) -> dict[str, Any]:
    """Ingest an uploaded lane-log file with the same rules as `lanelog ingest`."""
    if lake_dir():
        raise DashboardError("a lake is read-only here: ingest into the database, then `lanelog export`")
    path = db_path()
    con = store.open_db(path, read_only=False, wait=5.0)
    try:
        summary = ingest.ingest_bytes(con, name, payload)
    finally:
        con.close()
    bump_refresh()
    return {**summary.as_dict(), "errors": list(summary.errors)}
