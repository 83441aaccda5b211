"""Overview: the latest week against the one before, rejects against armed calls, credit bugs."""

import streamlit as st

from lanelog import queries
from lanelog.dashboard import budget_section, charts, present, ui

st.title("Overview")
found = ui.figures(queries.report, queries.money)
# The rows `lanelog report --format json` prints: its one credit-bug count (credit_bugs_total) counts the
# lines with merge credit on a quarantined attempt and the merges over a live quarantine.
report, money = found["report"], found["money"]
weekly = present.weeks_frame(report)
totals = report["totals"]

if totals["credit_bugs_total"]:
    st.error(present.alert_text(totals["credit_bugs"], merges=totals["merge_credit_bugs"]),
             icon=":material/crisis_alert:")
if totals["setup_rejects"]:
    st.warning(present.setup_text(totals["setup_rejects"]), icon=":material/build:")
budget_section.overview_note()

comparison = queries.compare_latest(report["weeks"])
latest = comparison.latest
if latest is None:
    st.info("No attempts in this range.")
    st.stop()
if comparison.before is None and latest["week"] is not None:  # the week before, though outside the range
    earlier = ui.figures(queries.report, queries.money, filters=ui.current_filters().week_before(latest["week"]),
                         note=False)
    comparison = queries.compare_latest(report["weeks"], earlier["report"]["weeks"])
    money = {**money, "weeks": [*earlier["money"]["weeks"], *money["weeks"]]}
st.subheader(present.unbroken(comparison.heading()))
# Four counts, then units, quarantined and the cost three to a row: more in a row cut a label or the
# cost short in a 1000 px window.
columns = [*st.columns(4), *st.columns(3)]
for column, (key, label) in zip(columns, present.METRICS):
    column.metric(label, present.number(latest[key]), delta=present.delta(comparison, key),
                  delta_color=present.delta_colour(key))
columns[len(present.METRICS)].metric(
    "Quarantined", present.number(latest["quarantined"]), delta=present.delta(comparison, "quarantined"),
    delta_color="off",
    help="Attempts with a live freeze. A freeze is expected; it alerts only if it moved the merge bit.")
label, cost, change = present.week_cost(money, comparison)
columns[len(present.METRICS) + 1].metric(label, cost, delta=change, delta_color="off",
                                         help=present.week_cost_note(money, comparison))
st.caption(present.range_caption(report))
st.caption("Every attempt in range, by the producer that wrote its line: probe rejects, armed calls, "
           "and neither (passed the probe without an armed call).")
ui.table(present.producers_table(ui.figures(queries.producers)["producers"]), key="producers_table")

left, right = ui.chart_columns()
with left:
    st.subheader("Patch rejects and armed calls")
    st.altair_chart(charts.rejects_vs_armed(weekly, weeks=ui.axis_weeks()), key="rejects_vs_armed")
    st.caption(f"The line (armed calls per patch reject) joins weeks next to each other with at least "
               f"{charts.RATIO_MIN_REJECTS} patch rejects; a hollow point is a week with fewer (a rough figure, "
               "never joined), and an empty week is an empty band. Setup rejects are not in the bars or the "
               "line: CI could not judge those patches.")
with right:
    st.subheader("Credit bugs per week")
    if totals["credit_bugs_total"]:
        st.altair_chart(charts.credit_bug_weeks(weekly, weeks=ui.axis_weeks()), key="credit_bug_weeks")
        st.caption("Both kinds: a line with merge credit on a quarantined attempt, and a pull request merged "
                   "over a live quarantine nobody said may go (in the week it merged).")
    else:
        st.success("No credit bugs in range. A quarantine on its own is not an incident.")

with st.expander("Weekly figures"):
    # Two static tables of a few columns each: their headers wrap, so every figure fits the
    # main column of a 1000 px window in words.
    for keys in present.WEEKLY_TABLES:
        st.table(present.weekly_table(weekly, keys))
