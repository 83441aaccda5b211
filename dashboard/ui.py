"""Streamlit helpers shared by the pages: getting figures, guidance, notes.

Log content (test ids, file names, messages, raw lines) is only ever drawn with
st.text, st.code, dataframes or charts, never as markdown or HTML.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from lanelog.dashboard import data, present
from lanelog.errors import DatabaseLocked, LanelogError
from lanelog.queries import Filters

FILTERS_KEY = "filters"


def show_guidance(path: str) -> None:
    """What an empty or missing database shows instead of figures."""
    st.info("No lane-log data here yet. Load a lane log, or make demo data with the real router:")
    st.code("lanelog ingest lane-log.jsonl\nlanelog demo", language="bash")
    st.caption("Database file:")
    st.text(path)
    st.caption("Or upload a lane-log JSONL file in the sidebar.")


def figures(*names: str, filters: Filters | None = None, note: bool = True) -> dict[str, Any]:
    """The named query results for this page, or a stop with guidance or a quiet note."""
    try:
        result = data.look(*names, filters=filters if filters is not None else current_filters())
    except data.NoDatabase:
        show_guidance(data.source_name())
        st.stop()
    except DatabaseLocked:
        st.info("Ingest in progress: the figures show when it finishes (press Refresh).")
        st.stop()
    except LanelogError as error:
        st.error("The database cannot be read.")
        st.text(str(error))
        st.stop()
    if result.stale and note:
        st.caption("ingest in progress: showing the last figures")
    return result.figures


def current_filters() -> Filters:
    return st.session_state.get(FILTERS_KEY, Filters())


def table(frame: pd.DataFrame, key: str, widths: dict[str, int] | None = None) -> None:
    """A table of query rows as plain text cells, or "none" when there are no rows.

    `widths` fixes column widths in pixels, for tables of long text that must fit the page.
    """
    if frame.empty:
        st.text("none")
    else:
        st.dataframe(present.flat(frame), hide_index=True, key=key,
                     column_config=present.fixed_columns(widths) if widths else None)
