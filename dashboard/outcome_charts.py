"""The Outcomes page's charts and tables: the agent pull requests' funnel by opening week, the cost of a
merged pull request by agent, and the pull requests still open.

Presentation only: the figures are lanelog.queries' (queries/outcomes.py); every name from a
log (an agent, a repository) is drawn as data, never markup.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Any

import altair as alt
import pandas as pd

from lanelog.dashboard.cells import fit_cell, pull_request_cell
from lanelog.dashboard.charts import ARMED, chart_height, count_axis, week_axis
from lanelog.money import money_text

# What became of the pull requests opened in a week, as of now: the funnel's outcomes, stacked to how many opened.
COHORT = (("merged", "merged"), ("closed_without_merge", "closed without merge"), ("open", "still open"))
COHORT_COLOURS = ["#59a14f", "#9aa4b1", "#a0cbe8"]
# Fits the main column of a 1000 px window; the pull request names its repository.
OPEN_WIDTHS = {"pull request": 185, "agent": 105, "attempts": 70, "last attempt": 90, "days open": 80}


def cohort_frame(outcomes: dict[str, Any]) -> pd.DataFrame:
    """week, outcome, count, opened: of the pull requests opened each week (their first attempt ran then), how
    many merged, closed without merge and are still open, as of now."""
    rows = [{"week": row["week"], "outcome": words, "count": row[key], "opened": row["opened"]}
            for row in outcomes["cohorts"] for key, words in COHORT]
    return pd.DataFrame(rows, columns=["week", "outcome", "count", "opened"])


def funnel(outcomes: dict[str, Any], weeks: list[str] | None = None) -> alt.Chart:
    """The funnel by opening week: a bar per week of the pull requests opened then, split by what became of them
    (merged, closed without merge, still open), each outcome in its colour, named in the legend."""
    data = cohort_frame(outcomes)
    outcomes_words = [words for _, words in COHORT]
    return (
        alt.Chart(data).mark_bar().encode(
            x=week_axis(data, weeks),
            y=alt.Y("count:Q", title="pull requests opened in the week", axis=count_axis(), stack="zero"),
            color=alt.Color("outcome:N", scale=alt.Scale(domain=outcomes_words, range=COHORT_COLOURS),
                            legend=alt.Legend(title=None, orient="bottom")),
            order=alt.Order("order:Q"),
            tooltip=[alt.Tooltip("week:O", title="opened in the week of"), alt.Tooltip("opened:Q", title="opened"),
                     alt.Tooltip("outcome:N", title="as of now"), alt.Tooltip("count:Q", title="pull requests")],
        ).transform_calculate(order=f"indexof({outcomes_words!r}, datum.outcome)")
        .properties(height=chart_height(legend_rows=1))
    )


def agent_cost_frame(by_agent: list[dict[str, Any]]) -> pd.DataFrame:
    """agent, cost, currency, label, merged, unknown: each agent's cost per merged pull request, in its currency
    (one whose merged pull requests armed no call cost nothing in no currency: it has no bar, as one unknown)."""
    rows = [{"agent": row["agent"] or "(unknown)", "cost": row["cost_per_merged_pr"], "currency": row["currency"],
             "label": money_text(row["cost_per_merged_pr"], row["currency"] or ""), "merged": row["merged"],
             "unknown": row["merged_cost_unknown"]}
            for row in by_agent if row["cost_per_merged_pr"] is not None and row["currency"] is not None]
    return pd.DataFrame(rows, columns=["agent", "cost", "currency", "label", "merged", "unknown"])


def agent_cost(frame: pd.DataFrame, currency: str) -> alt.LayerChart | alt.FacetChart:
    """A bar per agent of its cost per merged pull request in one currency, the amount written beside it."""
    data = frame[frame["currency"] == currency]
    y = alt.Y("agent:N", title=None, sort="-x", axis=alt.Axis(labelLimit=220))
    tooltip = [alt.Tooltip("agent:N", title="agent"), alt.Tooltip("label:N", title="per merged pull request"),
               alt.Tooltip("merged:Q", title="merged"), alt.Tooltip("unknown:Q", title="merged, cost unknown")]
    bars = alt.Chart(data).mark_bar(height=22, color=ARMED).encode(
        x=alt.X("cost:Q", title=f"cost per merged pull request ({currency})"), y=y, tooltip=tooltip)
    labels = alt.Chart(data).mark_text(align="left", dx=6, fontSize=13).encode(x="cost:Q", y=y, text="label:N")
    return alt.layer(bars, labels).properties(height=44 * len(data) + 60)


def open_table(prs: list[Any], today: date) -> pd.DataFrame:
    """The pull requests opened in range and still open (no outcome line yet), the longest waiting first; days
    open as of the end of `today` (the page's day: `dashboard --today`, else today in UTC)."""
    moment = datetime.combine(today + timedelta(days=1), time())
    waiting = sorted((pr for pr in prs if pr.state is None and pr.opened_in_scope), key=lambda pr: pr.first_ts)
    return pd.DataFrame([{
        "pull request": pull_request_cell(pr.pr_repository, pr.pr_number, OPEN_WIDTHS["pull request"]),
        "agent": fit_cell(pr.agent or "(unknown)", OPEN_WIDTHS["agent"]),
        "attempts": pr.attempts,
        "last attempt": pr.last_ts.strftime("%Y-%m-%d"),
        "days open": max(0, (moment - pr.first_ts).days),
    } for pr in waiting], columns=list(OPEN_WIDTHS))


def _rate(row: dict[str, Any]) -> str:
    return f"{row['merge_rate']:.0%} of {row['merge_rate_denominator']}" if row["merge_rate"] is not None else "-"


def _cost(row: dict[str, Any]) -> str:
    if row["cost_per_merged_pr"] is None:
        return "unknown" if row["merged"] else "-"
    unknown = f" ({row['merged_cost_unknown']} unknown)" if row["merged_cost_unknown"] else ""
    return money_text(row["cost_per_merged_pr"], row["currency"] or "") + unknown


# Each group's figures as three tables of a few columns, so each fits the main column of a 1000 px window:
# how many went which way, then those still open and how the merges went, then the cost and the narrowed patches.
GROUP_TABLES = (("pull_requests", "merged", "closed_without_merge", "open"),
                ("stale_open", "first_try_merges", "merge rate"),
                ("cost per merged PR", "rejected_then_merged"))
# The weeks' two tables, headed in short words (a row of six columns fits the expander at 1000 px): what happened
# in the week, then the merges' rate, cost and time and the pull requests open when it ended.
WEEK_TABLES = ((("pull_requests_opened", "opened"), ("attempts", "attempts"), ("lanes_held", "held"),
                ("merged", "merged"), ("closed_without_merge", "closed")),
               (("merge rate", "merge rate"), ("cost per merged PR", "cost per merged PR"),
                ("median_hours_to_merge", "hours to merge"), ("open_at_week_end", "open at end")))


def group_tables(rows: list[dict[str, Any]], key: str) -> list[pd.DataFrame]:
    """An agent's or a repository's pull requests: merged, closed, open; then stale, first try and rate; then the
    cost per merged one and those narrowed after a reject."""
    cells = [{key: row[key] or "(unknown)", "pull_requests": row["pull_requests"], "merged": row["merged"],
              "closed_without_merge": row["closed_without_merge"], "open": row["open"],
              "stale_open": row["stale_open"], "first_try_merges": row["first_try_merges"], "merge rate": _rate(row),
              "cost per merged PR": _cost(row), "rejected_then_merged": row["rejected_then_merged"]} for row in rows]
    return [pd.DataFrame(cells, columns=[key, *columns]) for columns in GROUP_TABLES]


def weeks_tables(outcomes: dict[str, Any]) -> list[pd.DataFrame]:
    """The funnel and its money, a row a week, as two tables."""
    cells = [{**row, "merge rate": _rate(row), "cost per merged PR": _cost(row)} for row in outcomes["weeks"]]
    return [pd.DataFrame(cells, columns=["week", *(key for key, _ in columns)])
            .rename(columns=dict(columns)) for columns in WEEK_TABLES]
