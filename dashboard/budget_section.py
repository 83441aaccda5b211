"""The budgets on the pages: the Spend review's share chart and weekly cost against them, the Overview's note.

The budgets file comes from `lanelog dashboard --budgets FILE`; each budget is judged
over the period that holds today (UTC), or the day `--today` names, whatever the
sidebar's weeks are: a budget is about the money going out now.
"""

from __future__ import annotations

import os
import re
from datetime import date, timedelta
from typing import Any

import streamlit as st

from lanelog.dashboard import data, spend_charts
from lanelog.errors import BudgetInvalid, DatabaseLocked
from lanelog.money import money_text
from lanelog.queries import PERIODS, period, today_or_now

TODAY_VARIABLE = "LANELOG_TODAY"
# The Overview names a budget that has spent this share of its amount.
NOTE_SHARE = 0.8
# Markdown's punctuation: a budget's name or a repo pattern shown in an alert box is text, never markup.
MARKUP = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$])")


def as_text(text: str) -> str:
    """Text for st.warning and st.error, which render markdown: every markup character escaped."""
    return MARKUP.sub(r"\\\1", text)


def budget_day() -> date:
    """The day budgets are judged on: LANELOG_TODAY (`dashboard --today`), else today in UTC."""
    named = os.environ.get(TODAY_VARIABLE)
    return today_or_now(date.fromisoformat(named) if named else None)


def judged(weeks: list[str] | None = None) -> dict[str, Any] | None:
    """The budgets' status and warnings (and with `weeks`, the page's week labels, each budget's spend in
    each of them), None without a budgets file; a file that cannot be used, or a database an ingest
    holds, is said on the page and gives None too."""
    dated = sorted(week for week in weeks or [] if week != "undated")
    span = (date.fromisoformat(dated[0]), date.fromisoformat(dated[-1]) + timedelta(days=6)) if dated else None
    try:
        return data.budgets(budget_day(), span)
    except BudgetInvalid as error:
        st.error("The budgets file cannot be used.", icon=":material/error:")
        st.text(error.message)
        st.caption("Fix the line the message names; `lanelog check --budgets FILE` reads it the same way.")
    except DatabaseLocked:
        st.caption("ingest in progress: the budgets show when it finishes (press Refresh)")
    return None


def sentence(status: dict[str, Any]) -> str:
    """"svc (repositories svc-*): 8.50 USD of 10.00 USD this week (85%), 14.88 USD projected by Sunday
    2026-10-18"."""
    currency = status["currency"]
    end = date.fromisoformat(status["end"])
    scope = f" ({status['scope']})" if status["scope"] != "all spend" else ""
    return (f"{status['name']}{scope}: {money_text(status['spend'], currency)} of "
            f"{money_text(status['amount'], currency)} this {period(status['period']).noun} "
            f"({status['share']:.0%}), {money_text(status['projected'], currency)} projected by "
            f"{end.strftime('%A')} {end.isoformat()}")


def show_budgets(found: dict[str, Any]) -> None:
    """The Spend review's budgets: a bar of each one's share used, its threshold marks and projection."""
    statuses = found["statuses"]
    st.subheader("Budgets")
    for warning in found["warnings"]:
        st.warning(as_text(warning), icon=":material/search_off:")
    st.altair_chart(spend_charts.budget_shares(statuses), key="budget_shares")
    periods = " or ".join(f"a {period.described}" for period in PERIODS.values())
    st.caption(f"Each budget over its period that holds {budget_day().isoformat()}: {periods}, whatever weeks "
               "the sidebar picks. Only spend in the budget's own currency counts. The projection is the spend "
               "so far at the same daily rate to the period's end.")
    for status in statuses:
        st.text(sentence(status))


def scoped(status: dict[str, Any]) -> bool:
    """Whether a budget counts only some spend (a repository pattern or a property)."""
    return status["repo"] is not None or status["property"] is not None


def show_weekly_cost(money: dict[str, Any], found: dict[str, Any] | None, weeks: list[str] | None) -> None:
    """Cost per week in each currency, each budget of all spend in that currency a dashed line at what it
    allows a week; each scoped budget drawn over its own spend below (show_scoped_budgets)."""
    costs = spend_charts.weekly_cost_frame(money)
    statuses = [status for status in found["statuses"] if not scoped(status)] if found else []
    currencies = sorted(set(costs["currency"]))
    st.subheader("Cost per week")
    if not currencies:
        st.info("No armed call in range recorded a cost, so there is no cost to draw. A runner reports "
                "what its call used, or the policy's `prices` table prices its tokens.")
    for currency in currencies:
        if len(currencies) > 1:
            st.caption(f"In {currency}")
        st.altair_chart(spend_charts.weekly_cost(costs, statuses, currency, budget_day(), weeks=weeks),
                        key=f"weekly_cost_{currency}")
    unspent = sorted({status["currency"] for status in statuses} - set(currencies))
    for currency in unspent:  # a budget in a currency nothing was priced in: no chart of nothing
        named = ", ".join(status["name"] for status in statuses if status["currency"] == currency)
        st.caption(f"No cost recorded in {currency} in range, the currency of budget(s) {named}.")
    if currencies and statuses:
        st.caption("A week without a recorded cost has no bar. A budget of a longer period than a week is "
                   "drawn as its amount spread over the period's days, seven of them a week.")
    elif currencies:
        st.caption("A week without a recorded cost has no bar. No budgets are set: `lanelog dashboard "
                   "--budgets FILE` draws each budget's line here and its share used above (docs/report.md).")


def show_scoped_budgets(found: dict[str, Any] | None, weeks: list[str] | None) -> None:
    """Each scoped budget over the spend it is judged on, week by week; one whose scope matched no spend
    in these weeks is listed, not drawn (a line over nothing would stretch the axis and say nothing)."""
    statuses = [status for status in found["statuses"] if scoped(status)] if found else []
    if not statuses:
        return
    st.subheader("Scoped budgets")
    unmatched = []
    for status in statuses:
        weekly = found["weekly"].get(status["name"], {}) if found else {}
        if not weekly:
            unmatched.append(f"{status['name']} ({status['scope']})")
            continue
        st.caption(f"Budget {status['name']}: {status['scope']}, in {status['currency']}")
        frame = spend_charts.scoped_cost_frame(status, weekly)
        st.altair_chart(spend_charts.weekly_cost(frame, [status], status["currency"], budget_day(), weeks=weeks,
                                                 bars="cost in its scope per week"),
                        key=f"scoped_budget_{status['name']}")
    if unmatched:
        st.caption("No spend in these weeks in the scope of " + "; ".join(unmatched) + ": nothing to draw.")


def overview_note() -> None:
    """The Overview names each budget that has spent NOTE_SHARE of its amount or more (silent without budgets)."""
    try:
        found = data.budgets(budget_day())
    except (BudgetInvalid, DatabaseLocked):
        return  # the Spend review says why; the Overview stays on its figures
    for status in (found or {}).get("statuses", []):
        if status["share"] >= NOTE_SHARE:
            icon = ":material/money_off:" if status["over"] else ":material/savings:"
            name, _, figures = sentence(status).partition(": ")
            state = "is over its amount" if status["over"] else "is nearly spent"
            text = as_text(f"Budget {name} {state}: {figures}. See the Spend review.")
            (st.error if status["over"] else st.warning)(text, icon=icon)
