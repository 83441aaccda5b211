"""Credit-bug triage: every attempt where merge credit moved on a quarantined row."""

import streamlit as st

from lanelog.dashboard import present, ui

st.title("Credit-bug triage")
rows = ui.figures("credit_bug_rows")["credit_bug_rows"]
if rows.empty:
    st.success("No credit bugs in range. A quarantine on its own is not an incident.")
    st.stop()

st.error(present.alert_text(len(rows), on_triage=True), icon=":material/crisis_alert:")
table = present.triage_table(rows)
st.dataframe(present.highlighted(table), hide_index=True, key="credit_bug_table",
             column_config=present.TRIAGE_WIDTHS)
st.download_button(
    "Download CSV", present.csv_bytes(table), file_name="credit-bugs.csv", mime="text/csv", key="credit_bug_csv",
)

st.subheader("Raw line")
choice = st.selectbox(
    "Attempt", range(len(rows)), format_func=lambda i: present.row_label(rows.iloc[i]), key="raw_row",
)
st.code(rows.iloc[choice]["raw"], language="json", wrap_lines=True)
