"""Spend review: what armed calls cost, where, and what the property lane bought."""

import streamlit as st

from lanelog.dashboard import charts, present, ui

st.title("Spend review")
f = ui.figures("weekly", "spend_by_property", "spend_by_repo", "lanes_weekly", "unresolved_units",
               "property_results")

MEASURES = {"units": "units spent", "calls_armed": "armed calls"}
measure = st.segmented_control(
    "Measure", list(MEASURES), default="units", key="spend_measure", format_func=MEASURES.get,
) or "units"
left, right = st.columns(2)
with left:
    st.subheader("By property")
    st.altair_chart(charts.stacked_weeks(f["spend_by_property"], measure, "property", MEASURES[measure], weeks=ui.axis_weeks()), key="by_property")
with right:
    st.subheader("By repo")
    st.altair_chart(charts.stacked_weeks(f["spend_by_repo"], measure, "repo", MEASURES[measure], weeks=ui.axis_weeks()), key="by_repo")

left, right = st.columns(2)
with left:
    st.subheader("Armed calls and calls the probe saved")
    st.caption(f"Patch rejects are calls the probe saved: not armed because the probe rejected the patch. "
               f"The line (armed calls per patch reject) is drawn only for weeks with at least "
               f"{charts.RATIO_MIN_REJECTS} patch rejects.")
    st.altair_chart(charts.rejects_vs_armed(f["weekly"], weeks=ui.axis_weeks()), key="spend_rejects_vs_armed")
with right:
    st.subheader("Lane outcomes per week")
    st.altair_chart(
        charts.stacked_weeks(f["lanes_weekly"], "attempts", "lane", "attempts", charts.LANE_COLOURS, weeks=ui.axis_weeks()),
        key="lanes_weekly",
    )

st.subheader("Units that bought no result")
st.caption("Units spent on attempts whose property lane ended unresolved (no hold or fail token).")
st.altair_chart(charts.unresolved_units(f["unresolved_units"], weeks=ui.axis_weeks()), key="unresolved_units")

with st.expander("Tables"):
    st.caption("Per week and property")
    st.dataframe(present.flat(f["spend_by_property"]), hide_index=True, key="spend_property_table")
    st.caption("Per week and repo")
    st.dataframe(present.flat(f["spend_by_repo"]), hide_index=True, key="spend_repo_table")
    st.caption("Lane results per property")
    st.dataframe(f["property_results"], hide_index=True, key="property_results_table")
    st.caption("Unresolved lanes per week")
    st.dataframe(present.flat(f["unresolved_units"]), hide_index=True, key="unresolved_table")
