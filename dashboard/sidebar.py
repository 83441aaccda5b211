"""The sidebar: filters kept in the URL, the uploader, and a refresh.

The week range and repo widgets are bound to the query string, so a view can be
shared by its URL. The range defaults to the last RECENT_WEEKS weeks that hold
attempts; "Whole history" sets it to every dated week (then no date filter applies),
and that choice, like any range other than the default, is kept in the URL.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pandas as pd
import streamlit as st

from lanelog import queries
from lanelog.dashboard import access, cells, data, ui
from lanelog.dashboard.launch import UPLOAD_LIMIT_MB
from lanelog.errors import LanelogError
from lanelog.queries import Filters, supported_week

ALL_REPOS = "All repositories"
RECENT_WEEKS = 12


def held_weeks(report: dict[str, Any]) -> list[date]:
    """The dated weeks with attempts, in order, inside the supported range (see queries.figures)."""
    return sorted(day for day in (date.fromisoformat(row["week"]) for row in report["weeks"] if row["week"])
                  if supported_week(day))


def _dated_span(report: dict[str, Any], last: int | None = None) -> tuple[date, date] | None:
    """Monday of the first dated week (of the `last` weeks with attempts, if given) to Sunday
    of the last one, or None without dated weeks."""
    mondays = held_weeks(report)
    if not mondays:
        return None
    return (mondays[-last:] if last else mondays)[0], mondays[-1] + timedelta(days=6)


def _whole_history(span: tuple[date, date]) -> None:
    st.session_state["weeks"] = span


def _valid_weeks(values: list[str]) -> bool:
    """One or two YYYY-MM-DD days in order: what the week range widget can hold."""
    try:
        days = [date.fromisoformat(value) for value in values]
    except ValueError:
        return False
    return len(days) in (1, 2) and all(len(value) == 10 for value in values) and days == sorted(days)


def _drop_bad_query_values(repos: list[str]) -> list[str]:
    """Remove filter values from the URL that the widgets cannot hold; say which filters fell back.

    A shared or hand-edited URL is untrusted: a reversed or malformed week range, or an
    unknown repository, gives the default filters and a quiet note, never an error.
    """
    notes = []
    weeks = st.query_params.get_all("weeks")
    if weeks and not _valid_weeks(weeks):
        del st.query_params["weeks"]
        st.session_state.pop("weeks", None)
        notes.append("The week range in the address is not a range of days in order, so the default weeks are shown.")
    repo = st.query_params.get_all("repo")
    if repo and (len(repo) != 1 or repo[0] not in (ALL_REPOS, *repos)):
        del st.query_params["repo"]
        st.session_state.pop("repo", None)
        notes.append("The repository in the address is not in this database, so every repository is shown.")
    return notes


def filters(report: dict[str, Any], repos: list[str]) -> Filters:
    """Draw the filter widgets and return the Filters they select."""
    notes = _drop_bad_query_values(repos)
    since = until = None
    span, recent = _dated_span(report), _dated_span(report, last=RECENT_WEEKS)
    if span is not None and recent is not None:
        picked = st.sidebar.date_input(
            "Weeks", value=recent, key="weeks", bind="query-params", format="YYYY-MM-DD",
            help=f"Weeks touching this range (Monday to Sunday, UTC); by default the last {RECENT_WEEKS} "
                 "weeks with attempts. Undated attempts always count.",
        )
        chosen = tuple(pd.Timestamp(day).date() for day in picked) if isinstance(picked, (tuple, list)) else ()
        if list(chosen) != sorted(chosen) or len(chosen) > 2:
            chosen = ()  # the widget kept a value from the address that is no range: all weeks
        if chosen and chosen != span:
            since, until = chosen[0], chosen[-1] if len(chosen) > 1 else None
        if recent != span:
            st.sidebar.button(
                "Whole history", key="whole_history", on_click=_whole_history, args=(span,),
                disabled=not since and not until,
                help=f"Every week from {span[0].isoformat()} to {span[1].isoformat()}; kept in the address.",
            )
    repo = st.sidebar.selectbox(
        "Repository", [ALL_REPOS, *repos], key="repo", bind="query-params",
    )
    for note in notes:
        st.sidebar.caption(note)
    return Filters(since=since, until=until, repo=None if repo == ALL_REPOS else repo)


def refresh() -> None:
    if st.sidebar.button("Refresh", key="refresh", help="Read the database again (after an ingest)."):
        data.bump_refresh()


def uploader() -> None:
    """Ingest an uploaded lane log with the rules of `lanelog ingest` (not into a lake: it is read-only)."""
    if data.lake_dir() or not access.may_upload():
        return
    with st.sidebar.expander("Upload a lane log"):
        upload = st.file_uploader(
            f"JSONL file, up to {UPLOAD_LIMIT_MB} MB", type=["jsonl"], key="upload",
            max_upload_size=UPLOAD_LIMIT_MB,
        )
        if upload is None or not st.button("Ingest the file", key="ingest_upload"):
            return
        try:
            summary = data.ingest_upload(upload.name, upload.getvalue())
        except LanelogError as error:
            st.error("The file was not ingested.")
            st.text(str(error))
            return
        added, rejected = summary["attempts_added"], summary["rejected"]
        if rejected and not added:
            st.warning(f"No attempts added: {rejected} lines were not JSON objects (see Data health).")
        else:
            st.success(
                f"{added} attempts added, {summary['duplicates']} duplicates, {rejected} rejected lines."
            )
        for message in summary["errors"]:
            st.text(message)


def database_caption() -> None:
    st.sidebar.caption("Parquet lake" if data.lake_dir() else "Database")
    st.sidebar.text(cells.path_lines(data.shown_name()))


def render(guidance: bool = True) -> bool:
    """The whole sidebar. Returns False when there is no lane-log data yet (guidance shown if asked)."""
    refresh()
    empty = True
    if data.source_exists():
        base = ui.figures(queries.report, queries.repos, filters=Filters(), note=False)
        report, repos = base["report"], base["repos"]
        empty = report["totals"]["attempts"] == 0 and report["rejected_lines"] == 0
        if not empty:
            st.session_state[ui.HELD_WEEKS_KEY] = [day.isoformat() for day in held_weeks(report)]
            st.session_state[ui.FILTERS_KEY] = filters(report, repos)
    uploader()
    database_caption()
    if empty and guidance:
        ui.show_guidance(data.shown_name())
    return not empty
