"""Streamlit helpers shared by the pages: getting figures, guidance, notes, and the page guard.

Log content (test ids, file names, messages, raw lines) is only ever drawn with
st.text, st.code, dataframes or charts, never as markdown or HTML.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import date
from typing import Any

import pandas as pd
import streamlit as st

from lanelog.dashboard import cells, charts, data, present
from lanelog.errors import DatabaseLocked, LanelogError
from lanelog.queries import Filters
from lanelog.times import monday

FILTERS_KEY = "filters"
# The Mondays that hold attempts in the whole database (every repository), set by the sidebar.
HELD_WEEKS_KEY = "held_weeks"


def source_option() -> str:
    """The user's own `--db FILE` or `--lake DIR`, quoted for a shell, for every command a hint gives."""
    lake = data.lake_dir()
    return f"--lake {shlex.quote(lake)}" if lake else f"--db {shlex.quote(str(data.db_path()))}"


def ingest_commands() -> str:
    """How to fill what the app reads: ingest and demo into the database, or export into the lake."""
    db = f"--db {shlex.quote(str(data.db_path()))}"
    if data.lake_dir():
        return f"lanelog ingest {db} lane-log.jsonl\nlanelog export {db} {source_option()}"
    return f"lanelog ingest {db} lane-log.jsonl\nlanelog demo {db}"


def show_guidance(path: str) -> None:
    """What an empty or missing database shows instead of figures."""
    st.info("No lane-log data here yet. Load a lane log, or make demo data with the real router:")
    st.code(ingest_commands(), language="bash", wrap_lines=True)
    st.caption("Parquet lake:" if data.lake_dir() else "Database file:")
    st.text(path)
    if not data.lake_dir():
        st.caption("Or upload a lane-log JSONL file in the sidebar.")


def show_failure(error: Exception) -> None:
    """A lanelog error or a failed query, as a message and what to do: never a traceback."""
    if isinstance(error, LanelogError):
        st.error("The figures cannot be read from this source.", icon=":material/error:")
        st.text(error.message)
    else:  # a query that failed below lanelog's own checks: name it, plainly
        st.error("A query failed while drawing this page.", icon=":material/error:")
        st.text(f"{type(error).__name__}: {error}")
    st.caption("What to do: check the same source from a terminal, which names the file and what it holds; "
               "a database made by another lanelog version, or a file that is not a lanelog database, "
               "is named there with the command that fixes it.")
    st.code(f"lanelog report {source_option()}", language="bash", wrap_lines=True)


def guarded(draw: Callable[[], Any]) -> None:
    """Run the sidebar or a page; any error becomes a message with what to do.

    Streamlit's own stop and rerun are BaseExceptions, not Exceptions, so they pass through.
    """
    try:
        draw()
    except Exception as error:  # the one place a page's failure is turned into words
        show_failure(error)
        st.stop()


@contextmanager
def reading() -> Iterator[None]:
    """While a look reads the lake: a status that says so, drawn at once where the figures will be,
    and gone when they come (or the look fails).  The lake's name is plain text, without the value
    of any credential in the environment.
    """
    holder = st.empty()
    status = holder.container().status("Reading the lake: the figures show when its files are read.",
                                       state="running", expanded=True)
    status.text(data.shown_name())
    try:
        yield
    finally:
        holder.empty()


def figures(*views: data.View, filters: Filters | None = None, note: bool = True) -> dict[str, Any]:
    """These views' results for this page, by their names, or a stop with guidance or a quiet note."""
    try:
        result = data.look(*views, filters=filters if filters is not None else current_filters(), reading=reading)
    except data.NoDatabase:
        show_guidance(data.shown_name())
        st.stop()
    except DatabaseLocked:
        st.info("Ingest in progress: the figures show when it finishes (press Refresh).")
        st.stop()
    if result.stale and note:
        st.caption("ingest in progress: showing the last figures")
    return result.figures


def current_filters() -> Filters:
    return st.session_state.get(FILTERS_KEY, Filters())


def chart_columns() -> list[Any]:
    """Two columns for a pair of weekly charts, or the whole main column for each when the
    range holds more weeks than half of it draws as readable bars."""
    weeks = axis_weeks()
    if weeks is not None and len(weeks) > charts.HALF_WIDTH_WEEKS:
        return [st.container(), st.container()]
    return list(st.columns(2))


def axis_weeks() -> list[str] | None:
    """The weeks every weekly chart of a page draws: each Monday of the selected range, clipped
    to the weeks that hold attempts (None before the sidebar has read any)."""
    held = st.session_state.get(HELD_WEEKS_KEY)
    if not held:
        return None
    chosen = current_filters()
    first, last = date.fromisoformat(held[0]), date.fromisoformat(held[-1])
    if chosen.since is not None:
        first = max(first, monday(chosen.since))
    if chosen.until is not None:
        last = min(last, monday(chosen.until))
    return charts.week_range(first, last, held)


def more_rows(rows: int, total: int | None = None, noun: str = "rows") -> None:
    """Under a table that holds more rows than it shows: how many, and how to see the others."""
    text = cells.more_rows_text(rows, total, noun)
    if text is not None:
        st.caption(text)


def table(frame: pd.DataFrame, key: str, widths: dict[str, int] | None = None, total: int | None = None) -> None:
    """A table of query rows as plain text cells, or "none" when there are no rows; under it, when it holds
    more rows than it shows (or lists the first of `total`), how many and how to see them.

    `widths` fixes column widths in pixels, for tables of long text that must fit the page.
    """
    if frame.empty:
        st.text("none")
    else:
        st.dataframe(present.flat(frame), hide_index=True, key=key, height=cells.table_height(len(frame)),
                     column_config=present.fixed_columns(widths) if widths else None)
        more_rows(len(frame), total)
