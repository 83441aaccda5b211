"""The dashboard's only door to the database: short-lived read-only looks, cached.

Each look opens the DuckDB file read-only, runs the named `queries` functions,
and closes it at once, so `lanelog ingest` can take the file between two looks.
Results are cached by the filters, the file's on-disk signature and the session's
refresh token. While an ingest holds the file, the last figures are shown again
with a quiet note, never an exception.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import streamlit as st

import ingest
import queries
from lanelog.errors import DatabaseLocked, LanelogError
from queries import Filters

# A look waits this long for an ingest to let go before showing the last figures.
LOCK_WAIT_SECONDS = 0.5
REFRESH_KEY = "refresh_token"
LAST_KEY = "last_figures"


class NoDatabase(LanelogError):
    """There is no database file yet: the app shows how to make one."""


@dataclass(frozen=True)
class Look:
    """What one page needs from the database, and whether it is the last known copy."""

    figures: dict[str, Any]
    stale: bool


def db_path() -> Path:
    """The database the app reads: LANELOG_DB as set by `lanelog dashboard`, else the default."""
    return Path(ingest.default_db_path()).expanduser().resolve()


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


def _run_queries(con: Any, names: tuple[str, ...], filters: Filters) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in names:
        function = getattr(queries, name)
        out[name] = function(con) if name == "repos" else function(con, filters)
    return out


@st.cache_data(show_spinner=False, max_entries=512)
def _cached_look(
    db: str,
    signature: tuple[int, ...],
    token: int,
    names: tuple[str, ...],
    since: date | None,
    until: date | None,
    repo: str | None,
) -> dict[str, Any]:
    # signature and token are part of the cache key only.
    con = ingest.open_db(Path(db), read_only=True, wait=LOCK_WAIT_SECONDS)
    try:
        return _run_queries(con, names, Filters(since=since, until=until, repo=repo))
    finally:
        con.close()


def look(*names: str, filters: Filters | None = None) -> Look:
    """Run the named `queries` functions for the current filters (cached).

    Raises NoDatabase when the file does not exist; raises DatabaseLocked only when an
    ingest holds the file and this session has no earlier figures to show.
    """
    filters = filters if filters is not None else Filters()
    path = db_path()
    if not path.exists():
        raise NoDatabase(f"no database at {path}")
    key = (str(path), names, filters.since, filters.until, filters.repo)
    last: dict[tuple[Any, ...], dict[str, Any]] = st.session_state.setdefault(LAST_KEY, {})
    try:
        figures = _cached_look(
            str(path), _signature(path), refresh_token(), names,
            filters.since, filters.until, filters.repo,
        )
    except DatabaseLocked:
        if key in last:
            return Look(figures=last[key], stale=True)
        raise
    last[key] = figures
    return Look(figures=figures, stale=False)


def ingest_upload(name: str, payload: bytes) -> dict[str, Any]:
    """Ingest an uploaded lane-log file with the same rules as `lanelog ingest`."""
    path = db_path()
    con = ingest.open_db(path, read_only=False, wait=5.0)
    try:
        summary = ingest.ingest_bytes(con, name, payload)
    finally:
        con.close()
    bump_refresh()
    return {**summary.as_dict(), "errors": list(summary.errors)}
