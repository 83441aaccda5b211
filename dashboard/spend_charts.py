"""The Spend review's money charts: cost per week against the budgets, and each budget's share used.

Presentation only: the figures are the report's money section (queries/costs.py) and
the budgets' status (queries/budgets.py).  A week without a recorded cost is no bar,
never a bar of zero cost, and a cost is drawn only in its own currency.
"""

from __future__ import annotations

import itertools
import json
from datetime import date
from typing import Any

import altair as alt
import pandas as pd

from lanelog.dashboard.charts import ALERT, ARMED, NEUTRAL, chart_height, week_axis
from lanelog.money import amount_text, money_text
from lanelog.queries import period

COST = "cost per week"
SPENT, PAST, OVER = "spent so far", "spent so far, past an alert threshold", "spent so far, over the amount"
PROJECTED, THRESHOLD = "projected by the period's end", "alert threshold"
AMBER = "#e7a33e"
# A budget's dashed line: hues far from the bars' blue and from each other (no red: a line is no alert).
BUDGET_COLOURS = ["#f28e2b", "#59a14f", "#b07aa1", "#499894", "#9d7660", "#79706e", "#d37295", "#b6992d"]
# A budget row of the share chart, and the room its axis and legend take.
BUDGET_ROW = 44
# The share axis reaches at least a little past 100%, at most this far (a bar beyond is cut, its label says all).
MAX_SHARE_AXIS = 3.0


def _literal(text: str) -> str:
    """A Vega expression's string literal of `text` (JSON's quoting is the expression language's)."""
    return json.dumps(text)


def weekly_cost_frame(money: dict[str, Any]) -> pd.DataFrame:
    """week, currency, cost: each week's recorded cost in each currency (several when a week mixes them)."""
    rows = []
    for row in money["weeks"]:
        week = row["week"] or "undated"
        priced = row.get("costs") or ([{"currency": row["currency"], "cost": row["cost"]}]
                                      if row.get("cost") is not None else [])
        rows += [{"week": week, "currency": entry["currency"], "cost": entry["cost"]} for entry in priced]
    return pd.DataFrame(rows, columns=["week", "currency", "cost"])


def weekly_amount(budget: dict[str, Any], today: date) -> float:
    """What a budget allows a week: its amount spread over its period's days (queries.Period.weekly_share)."""
    return float(budget["amount"]) * period(budget["period"]).weekly_share(today)


def budget_line_label(budget: dict[str, Any], today: date) -> str:
    """A budget's line in the legend: its name and what it allows (its scope is in its sentence above)."""
    noun = period(budget["period"]).noun
    allows = f"{money_text(budget['amount'], budget['currency'])} a {noun}"
    if noun != "week":
        allows += f" (≈ {amount_text(weekly_amount(budget, today))} a week)"
    return f"budget {budget['name']}: {allows}"


def scoped_cost_frame(status: dict[str, Any], weekly: dict[str, float]) -> pd.DataFrame:
    """week, currency, cost: a scoped budget's own spend per week (what it is judged on)."""
    return pd.DataFrame([{"week": week, "currency": status["currency"], "cost": cost}
                         for week, cost in sorted(weekly.items())], columns=["week", "currency", "cost"])


def weekly_cost(costs: pd.DataFrame, budgets: list[dict[str, Any]], currency: str, today: date,
                weeks: list[str] | None = None, bars: str = COST) -> alt.LayerChart | alt.FacetChart:
    """Bars of one currency's cost per week (named `bars` in the legend), each budget in that currency a
    dashed line at what it allows a week."""
    data = costs[costs["currency"] == currency].assign(
        amount=lambda rows: [amount_text(cost) for cost in rows["cost"]])
    lines: list[dict[str, Any]] = [{"line": budget_line_label(budget, today), "allowed": weekly_amount(budget, today),
                                    "amount": amount_text(weekly_amount(budget, today))}
                                   for budget in budgets if budget["currency"] == currency]
    series: list[str] = [f"{bars} ({currency})", *[str(line["line"]) for line in lines]]
    colours = alt.Scale(domain=series, range=[ARMED, *itertools.islice(itertools.cycle(BUDGET_COLOURS), len(lines))])
    # A legend only beside a budget's line: alone, the bars' entry would stand under the axis like a stray title.
    legend = alt.Legend(title=None, orient="bottom", columns=1, labelLimit=440, symbolType="stroke") if lines else None
    columns = alt.Chart(data).transform_calculate(series=_literal(f"{bars} ({currency})")).mark_bar().encode(
        x=week_axis(data, weeks),
        y=alt.Y("cost:Q", title=f"cost ({currency})"),
        color=alt.Color("series:N", scale=colours, legend=legend),
        tooltip=[alt.Tooltip("week:O", title="week"), alt.Tooltip("amount:N", title=f"cost ({currency})")],
    )
    layers: list[Any] = [columns]
    if lines:
        rules = alt.Chart(pd.DataFrame(lines)).mark_rule(strokeDash=[6, 4], strokeWidth=2).encode(
            y=alt.Y("allowed:Q"),
            color=alt.Color("line:N", scale=colours, legend=legend),
            tooltip=[alt.Tooltip("line:N", title="budget"),
                     alt.Tooltip("amount:N", title=f"allowed a week ({currency})")],
        )
        layers.append(rules)
    return alt.layer(*layers).properties(height=chart_height(legend_rows=len(series) if lines else -1))


def share_frame(statuses: list[dict[str, Any]]) -> pd.DataFrame:
    """One row per budget: its label, share used, projected share, and which colour its bar takes."""
    rows = []
    for status in statuses:
        crossed = status["crossed"]
        state = OVER if status["over"] else PAST if crossed else SPENT
        rows.append({
            "budget": status["name"], "share": status["share"],
            "projected_share": status["projected"] / status["amount"], "state": state,
            "text": f"{status['share']:.0%}", "label_at": max(status["share"], status["projected"] / status["amount"]),
            "spent": f"{money_text(status['spend'], status['currency'])} of "
                     f"{money_text(status['amount'], status['currency'])}",
            "period": f"{status['period']} {status['start']} to {status['end']}",
            "projected": money_text(status["projected"], status["currency"]),
        })
    return pd.DataFrame(rows)


def budget_shares(statuses: list[dict[str, Any]]) -> alt.LayerChart | alt.FacetChart:
    """A bar per budget of the share of its amount spent this period, the projection, and its thresholds."""
    frame = share_frame(statuses)
    states = [state for state in (SPENT, PAST, OVER) if state in set(frame["state"])]
    domain = [*states, PROJECTED, THRESHOLD]
    colours = alt.Scale(domain=domain, range=[{SPENT: NEUTRAL, PAST: AMBER, OVER: ALERT}[s] for s in states]
                        + ["#333333", "#555555"])
    widest = max(float(frame["share"].max()), float(frame["projected_share"].max())) * 1.05
    top = min(MAX_SHARE_AXIS, max(1.1, widest))
    x_scale = alt.Scale(domain=[0, top], clamp=True)
    legend = alt.Legend(title=None, orient="bottom", columns=1, labelLimit=360)
    y = alt.Y("budget:N", title=None, sort=list(frame["budget"]), axis=alt.Axis(labelLimit=200))
    tooltip = [alt.Tooltip("budget:N", title="budget"), alt.Tooltip("spent:N", title="spent"),
               alt.Tooltip("projected:N", title=PROJECTED), alt.Tooltip("period:N", title="period")]
    bars = alt.Chart(frame).mark_bar(height=22).encode(
        x=alt.X("share:Q", scale=x_scale, title="share of the amount spent this period",
                axis=alt.Axis(format="%", tickCount=6)),
        y=y, color=alt.Color("state:N", scale=colours, legend=legend), tooltip=tooltip)
    # The share used, written past the bar or the projection, whichever reaches further.
    labels = alt.Chart(frame).mark_text(align="left", dx=10, fontSize=13).encode(
        x=alt.X("label_at:Q", scale=x_scale), y=y, text="text:N")
    projected = alt.Chart(frame).transform_calculate(series=_literal(PROJECTED)).mark_point(
        shape="diamond", size=120, filled=True).encode(
        x=alt.X("projected_share:Q", scale=x_scale), y=y,
        color=alt.Color("series:N", scale=colours, legend=legend), tooltip=tooltip)
    marks = pd.DataFrame([{"budget": status["name"], "threshold": threshold}
                          for status in statuses for threshold in status["thresholds"]])
    thresholds = alt.Chart(marks).transform_calculate(series=_literal(THRESHOLD)).mark_tick(
        thickness=2, size=30).encode(
        x=alt.X("threshold:Q", scale=x_scale), y=y,
        color=alt.Color("series:N", scale=colours, legend=legend),
        tooltip=[alt.Tooltip("budget:N", title="budget"), alt.Tooltip("threshold:Q", format=".0%", title=THRESHOLD)])
    return alt.layer(bars, thresholds, projected, labels).properties(
        height=BUDGET_ROW * len(frame) + 60 + 22 * len(domain))
