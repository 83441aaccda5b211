"""Probe: why patches were rejected before any call, week by week."""

import streamlit as st

from lanelog.dashboard import charts, present, ui

st.title("Probe")
reasons = ui.figures("reject_reasons")["reject_reasons"]
if reasons.empty:
    st.info("No probe rejects in range.")
    st.stop()
st.subheader("Reject reasons per week")
st.caption("An attempt with several reasons counts once under each.")
st.altair_chart(charts.stacked_weeks(reasons, "attempts", "reason", "attempts"), key="reject_reasons")
st.dataframe(present.flat(reasons), hide_index=True, key="reject_reasons_table")
