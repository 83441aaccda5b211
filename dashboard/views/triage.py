"""Credit-bug triage: every attempt where merge credit moved on a quarantined row."""

import streamlit as st

from lanelog import queries
from lanelog.dashboard import data, health_tables, present, triage_tables, ui

st.title("Credit-bug triage")
found = ui.figures(queries.credit_bug_rows, queries.sources)
rows, sources = found["credit_bug_rows"], found["sources"]
listed = set(sources["path"][sources["in_last_listing"]])
if rows.empty:
    st.success("No credit bugs in range. A quarantine on its own is not an incident.")
    st.stop()

st.error(present.alert_text(len(rows), on_triage=True), icon=":material/crisis_alert:")
st.caption("The table cuts long values; the selected attempt below shows every value whole (time, ids, "
           "head, merge credit, file and line), and the CSV holds them whole.")
st.dataframe(triage_tables.highlighted(triage_tables.triage_shown(rows)), hide_index=True, key="credit_bug_table",
             column_config=present.fixed_columns(triage_tables.TRIAGE_WIDTHS))
st.download_button(
    "Download CSV", present.csv_bytes(triage_tables.triage_table(rows)), file_name="credit-bugs.csv", mime="text/csv",
    key="credit_bug_csv",
)

st.subheader("Selected attempt")
choice = st.selectbox(
    "Attempt", range(len(rows)), format_func=lambda i: triage_tables.row_label(rows.iloc[i]), key="raw_row",
)
row = rows.iloc[choice]
st.dataframe(triage_tables.triage_detail(row), hide_index=True, key="credit_bug_detail",
             column_config=present.fixed_columns(health_tables.DETAIL_WIDTHS))
whole = health_tables.cut_path(row["source"])
if whole is not None:
    st.caption("Source file, whole")
    st.code(whole, language=None, wrap_lines=True)
state = health_tables.still_there(row["source"], row["source"] in listed, listing_known=data.lake_dir() is None)
if state == health_tables.DEMO_GONE:
    st.caption("The source file was one of the demo's temporary logs, removed when `lanelog demo` finished, "
               "as it always does; its lines stay in the database, and the raw line is below.")
elif state == health_tables.FILE_GONE:
    st.caption("The source file is no longer at its recorded path (moved, deleted, or read on another "
               "machine); its lines stay in the database, and the raw line is below.")
elif state == health_tables.NOT_IN_BUCKET:
    st.caption("The source log was not in the bucket when ingest last listed it (deleted or moved since); "
               "its lines stay in the database, and the raw line is below.")
st.caption("Raw line")
st.code(row["raw"], language="json", wrap_lines=True)
