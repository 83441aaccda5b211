"""Data health: what was read, what could not be used, what has no week."""

import streamlit as st

from dashboard import present, ui

st.title("Data health")
f = ui.figures("sources", "rejected_lines", "type_anomalies", "undated")

st.subheader("Files ingested")
st.dataframe(present.flat(f["sources"]), hide_index=True, key="sources_table")

st.subheader("Rejected lines")
st.caption("Lines that were not JSON objects, kept byte for byte; shown as text.")
if f["rejected_lines"].empty:
    st.text("none")
else:
    st.dataframe(present.flat(f["rejected_lines"]), hide_index=True, key="rejected_table")

st.subheader("Type anomalies")
st.caption("Fields whose JSON type was unexpected; the rows are kept and counted by the seed's truthiness.")
if f["type_anomalies"].empty:
    st.text("none")
else:
    st.dataframe(f["type_anomalies"], hide_index=True, key="anomalies_table")

st.subheader("Undated attempts")
st.caption("Attempts without a usable ts: always in scope, counted in their own bucket.")
if f["undated"].empty:
    st.text("none")
else:
    st.dataframe(present.flat(f["undated"]), hide_index=True, key="undated_table")
