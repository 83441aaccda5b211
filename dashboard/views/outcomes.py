"""Outcomes: what became of the agent pull requests, and what a merged one cost, by agent."""

import pandas as pd
import streamlit as st

from lanelog import queries
from lanelog.dashboard import budget_section, cells, outcome_charts, present, ui
from lanelog.money import amount_text, money_text

st.title("Outcomes")
found = ui.figures(queries.outcome_figures, queries.pull_requests)
outcomes, prs = found["outcome_figures"], found["pull_requests"]
totals = outcomes["totals"]
if not totals["pull_requests"]:
    st.info("No attempt in range names its pull request, so there is nothing to follow to a merge. "
            "`lanelog route` names it under GitHub Actions (or with --pull-request), and "
            "`lanelog outcome` records what became of it when it closes (docs/router.md).")
    st.stop()

weeks = [row["week"] for row in outcomes["weeks"]]
span = (f"the week of {weeks[0]}" if weeks[0] == weeks[-1] else f"weeks {weeks[0]} to {weeks[-1]}") if weeks else ""
st.caption(f"Merged, closed, the merge rate, the cost and the time to merge: of the pull requests that closed in "
           f"range ({span}). Open now: those opened in range with no outcome line yet, as of the latest line "
           "ingested." if weeks else
           "Open now: no outcome line yet, as of the latest line ingested.")
columns = [*st.columns(3), *st.columns(3)]
columns[0].metric("Merged in range", totals["merged"], help="Agent pull requests merged in range.")
columns[1].metric("Closed unmerged in range", totals["closed_without_merge"])
columns[2].metric("Open now", totals["open"], help="Opened in range, no outcome line yet: the pull request has "
                  f"not closed. {totals['stale_open']} of them stale: first attempt {outcomes['stale_days']} days or "
                  "more before today, or the range's last day.")
rate = f"{totals['merge_rate']:.0%}" if totals["merge_rate"] is not None else "none closed"
columns[3].metric("Merge rate in range", rate, help=f"Of the {totals['merge_rate_denominator']} closed in range: "
                  "merged over merged and closed without merge; open ones are in neither.")
# The currency in the label, so the amount fits a third of a 1000 px window; no help icon, so the label
# takes the whole third: the caption below says what it counts.
cost = amount_text(totals["cost_per_merged_pr"]) if totals["cost_per_merged_pr"] is not None else "unknown"
columns[4].metric(f"Cost per merged PR ({totals['currency']})" if totals["currency"] else "Cost per merged PR", cost)
hours = totals["median_hours_to_merge"]
columns[5].metric("Median time to merge", f"{hours:.1f} h" if hours is not None else "-",
                  help="From a pull request's first routed attempt to its merge, of those merged in range.")
notes = ["Cost per merged PR: what every attempt of the merged pull requests cost, over those whose cost is known"
         + ("; their costs are in several currencies, so no mean is made." if totals["costs_in_several_currencies"]
            else ".")]
notes += [f"{totals['merged_cost_unknown']} merged pull request(s) have no known cost (an armed call recorded "
         "none): they are counted apart, never as free."] if totals["merged_cost_unknown"] else []
if totals["merged"]:
    notes.append(f"{totals['first_try_merges']} of the {totals['merged']} merged in range "
                 f"({totals['first_try_rate']:.0%}) merged at the first try (one routed attempt); the cost of "
                 f"{totals['merged_cost_known']} ({totals['cost_coverage']:.0%}) is known.")
notes.append(f"{totals['rejected_then_merged']} pull request(s) the probe rejected at first were merged after a "
             "later attempt.")
if totals["spend_closed_without_merge"] is not None:
    notes.append(f"Spent on pull requests closed without merge: "
                 f"{money_text(totals['spend_closed_without_merge'], totals['currency'] or '')}"
                 + (f" ({totals['closed_cost_unknown']} more of unknown cost)." if totals["closed_cost_unknown"]
                    else "."))
notes.append(f"Merged over a live quarantine: {totals['merge_credit_bugs']} credit bug(s), nobody said they may go "
             f"(Credit-bug triage lists them), and {totals['reviewed_exceptions']} reviewed exception(s).")
st.caption(" ".join(notes))  # numbers, and a currency ingest keeps only as three capital letters
if outcomes["contradicting_times"]:
    st.warning(f"{len(outcomes['contradicting_times'])} pull request(s) closed before their first attempt: their "
               "times contradict each other (a wrong clock, a line stamped by hand), so the median time to merge "
               "leaves them out. They are listed below.", icon=":material/schedule:")
    ui.table(pd.DataFrame(outcomes["contradicting_times"]), key="contradicting_times")

st.subheader("From attempt to merge, by the week pull requests opened")
if outcomes["cohorts"]:
    st.altair_chart(outcome_charts.funnel(outcomes, weeks=ui.axis_weeks()), key="outcome_funnel")
    st.caption("Each bar is the pull requests whose first routed attempt ran in that week, split by what became "
               "of those same pull requests as of now: merged, closed without merge, or still open. A merge "
               "counts in the week its pull request opened, not the week it closed.")
else:
    st.info("No agent pull request opened in range: the ones counted above opened earlier.")

agents = outcome_charts.agent_cost_frame(outcomes["by_agent"])
st.subheader("Cost per merged pull request, by agent")
if agents.empty:
    st.info("No merged pull request in range has a known cost yet.")
for currency in sorted(set(agents["currency"])):
    st.altair_chart(outcome_charts.agent_cost(agents, currency), key=f"agent_cost_{currency}")
st.caption("An agent whose merged pull requests recorded no cost is left out of the chart; the table below "
           "lists every agent.")
for number, table in enumerate(outcome_charts.group_tables(outcomes["by_agent"], "agent")):
    ui.table(present.worded(table), key=f"by_agent_table_{number}")

st.subheader("Open pull requests waiting, opened in range")
today = budget_section.budget_day()
waiting = outcome_charts.open_table(prs, today)
if waiting.empty:
    st.success("Every agent pull request opened in range has closed.")
else:
    st.caption(f"The pull requests opened in range with no outcome line yet: they have not closed. Days open as "
               f"of {today.isoformat()} (UTC), the longest waiting first; one opened before the range is not "
               "listed (widen the range to see it).")
    st.dataframe(waiting, hide_index=True, key="open_pull_requests", height=cells.table_height(len(waiting)),
                 column_config=present.fixed_columns(outcome_charts.OPEN_WIDTHS))
    ui.more_rows(len(waiting), noun="pull requests")

with st.expander("By repository, and the weeks as a table"):
    for number, table in enumerate(outcome_charts.group_tables(outcomes["by_repo"], "repo")):
        ui.table(present.worded(table), key=f"by_repo_table_{number}")
    st.caption("A week's merged and closed pull requests are those that closed in it; opened, those whose first "
               "attempt ran in it; open at end, every one opened by then and not closed by the week's end.")
    for number, table in enumerate(outcome_charts.weeks_tables(outcomes)):
        ui.table(present.worded(table), key=f"outcome_weeks_table_{number}")
