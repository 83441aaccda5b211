"""Quarantine: freeze hygiene. A live freeze is expected; it is never drawn as an alert."""

from datetime import UTC, datetime

import streamlit as st

from lanelog import queries
from lanelog.dashboard import cells, charts, present, ui

st.title("Quarantine")
f = ui.figures(queries.freezes, queries.freeze_summary, queries.freeze_owners)
if f["freeze_summary"].empty:
    st.info("No quarantined tests in range: no attempt listed a frozen (quarantined) test.")
    st.stop()
st.subheader("Who to ask, and what is about to lapse")
if f["freeze_owners"].empty:
    st.caption("No line in range records its freezes' owners (lines written before lanelog recorded them).")
else:
    st.caption("Owner and expiry as the latest line that listed each freeze recorded them (from flaky.yaml).")
    ui.table(present.freeze_hygiene(f["freeze_owners"], datetime.now(UTC).date()), key="freeze_owners_table")
st.subheader("Attempts each freeze touched per week")
st.altair_chart(charts.freeze_heatmap(f["freezes"], weeks=ui.axis_weeks()), key="freezes",
                height=charts.heatmap_height(f["freezes"]))
if not charts.heatmap_counts_fit(f["freezes"], ui.axis_weeks()):
    st.caption(f"Over {charts.HEATMAP_COUNTS_UP_TO} weeks a cell is too narrow for its count: point at a cell "
               "for it, or narrow the weeks.")
st.subheader("Freezes")
st.caption("Held: attempts the freeze was live on. Reported expired: attempts that listed the freeze "
           "as expired (a dead row that no longer suppresses the test). Times are UTC.")
st.dataframe(present.freeze_table(f["freeze_summary"]), hide_index=True, key="freeze_summary_table",
             height=cells.table_height(len(f["freeze_summary"])),
             column_config=present.fixed_columns(present.FREEZE_WIDTHS))
ui.more_rows(len(f["freeze_summary"]), noun="freezes")
