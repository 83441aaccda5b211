"""Probe: why patches were rejected before any call, week by week, setup rejects apart."""

import streamlit as st

from lanelog import queries
from lanelog.dashboard import charts, hook_section, present, ui
from lanelog.reasons import words as reason_words

st.title("Probe")
reasons = ui.figures(queries.reject_reasons)["reject_reasons"]
if reasons.empty:
    st.info("No probe rejects in range.")
    hook_section.show()
    st.stop()
st.caption("The bars count reasons given: a reject that lists several reasons counts once under each, "
           "so a week's stack can stand higher than its probe rejects (the table below counts rejects).")
setup, patch = present.split_reasons(reasons)
st.subheader("Patch rejects: the gate at work")
if patch.empty:
    st.info("No patch rejects in range.")
else:
    st.altair_chart(charts.stacked_weeks(patch, "attempts", "reason", "reasons given", legend_columns=3,
                                         weeks=ui.axis_weeks()), key="patch_reasons")
st.subheader("Setup rejects: CI to fix")
if setup.empty:
    st.success("No setup rejects in range: every job could judge its patch.")
else:
    st.caption("CI could not judge these patches: no checkout, a missing ref, an unusable policy or "
               "flaky list, or an unexpected failure. They say nothing about the patches.")
    st.altair_chart(charts.stacked_weeks(setup, "attempts", "reason", "reasons given", legend_columns=3,
                                         weeks=ui.axis_weeks()), key="setup_reasons")
st.subheader("What each reason means")
# Plain text rows, not a table: a meaning wraps at any width, and a reason read from a
# log is never drawn as markdown.
table = present.reason_table(reasons)
WIDTHS = [4, 2, 7]
for kind, rows in table.groupby("kind", sort=False):
    heading = st.columns(WIDTHS)
    heading[0].caption("Setup reason: CI to fix" if kind == "setup" else "Patch reason: the gate at work")
    heading[1].caption("probe rejects")
    heading[2].caption("meaning")
    for reason, count, meaning in rows[["reason", "probe rejects", "meaning"]].itertuples(index=False):
        left, middle, right = st.columns(WIDTHS, vertical_alignment="top")
        left.text(reason_words(reason))  # as the legends above say it
        middle.text(str(count))
        right.text(meaning if reason == present.NO_REASON else f"{meaning} (logged as {reason})")
hook_section.show()
