"""Spend review: the budgets, what armed calls cost, where, and what the property lane bought.

Charts first; every table is folded below them.
"""

import streamlit as st

from lanelog import queries
from lanelog.dashboard import budget_section, charts, present, ui
from lanelog.dashboard.money import money_tables, show_cost_by, show_money

st.title("Spend review")
money = ui.figures(queries.money, note=False)["money"]
f = ui.figures(queries.weekly, queries.spend_by_property, queries.spend_by_repo, queries.lanes_weekly,
               queries.unresolved_units, queries.property_results)
weeks = ui.axis_weeks()
budgets = budget_section.judged(weeks or [row["week"] for row in money["weeks"] if row["week"]])
if budgets is not None:
    budget_section.show_budgets(budgets)
show_money(money)
budget_section.show_weekly_cost(money, budgets, weeks)
budget_section.show_scoped_budgets(budgets, weeks)

MEASURES = {"units": "units spent", "calls_armed": "armed calls", "cost": "cost"}
measure = st.segmented_control(
    "Measure", list(MEASURES), default="units", key="spend_measure", format_func=MEASURES.__getitem__,
) or "units"
if f["spend_by_property"].empty:
    st.info("No armed calls in range: nothing was spent.")
elif measure == "cost":
    show_cost_by(money, weeks)
else:
    left, right = ui.chart_columns()
    with left:
        st.subheader("By property")
        st.altair_chart(charts.stacked_weeks(f["spend_by_property"], measure, "property", MEASURES[measure],
                                             weeks=weeks), key="by_property")
    with right:
        st.subheader("By repository")
        st.altair_chart(charts.stacked_weeks(f["spend_by_repo"], measure, "repo", MEASURES[measure],
                                             weeks=weeks), key="by_repo")

lanes_ran = int(f["unresolved_units"]["lanes_run"].sum())
left, right = ui.chart_columns()
with left:
    st.subheader("Armed calls and calls the probe saved")
    st.caption(f"Patch rejects are calls the probe saved: not armed because the probe rejected the patch. "
               f"The line (armed calls per patch reject) joins weeks next to each other with at least "
               f"{charts.RATIO_MIN_REJECTS} patch rejects; a hollow point is a week with fewer.")
    st.altair_chart(charts.rejects_vs_armed(f["weekly"], weeks=weeks), key="spend_rejects_vs_armed")
with right:
    st.subheader("Lane outcomes per week")
    if lanes_ran:
        st.caption("Every attempt by its property lane's outcome. \"no call armed\": the line records an "
                   "outcome but armed no call, so no lane ran (a producer that copies routed lines).")
        st.altair_chart(
            charts.stacked_weeks(present.lane_words(f["lanes_weekly"]), "attempts", "lane", "attempts",
                                 charts.LANE_COLOURS, weeks=weeks),
            key="lanes_weekly",
        )
    else:
        st.info("No property lane ran in range: no armed call recorded a hold, fail or unresolved result, "
                "so there are no outcomes to draw. A lane runs only when the probe passes and a call is armed.")

st.subheader("Units that bought no result")
if lanes_ran:
    st.caption("Units spent on armed calls whose property lane ended unresolved (no hold or fail token).")
    st.altair_chart(charts.unresolved_units(f["unresolved_units"], weeks=weeks), key="unresolved_units")
else:
    st.caption("None: no property lane ran in range.")

with st.expander("Tables"):
    money_tables(money)
    st.caption("Units per week and property")
    ui.table(present.worded(f["spend_by_property"]), key="spend_property_table")
    st.caption("Units per week and repository")
    ui.table(present.worded(f["spend_by_repo"]), key="spend_repo_table")
    st.caption("Lane results per property")
    ui.table(present.worded(f["property_results"]), key="property_results_table")
    st.caption("Lanes run and unresolved, per week")
    ui.table(present.worded(f["unresolved_units"], shares=("unresolved_share",)), key="unresolved_table")
