"""The Spend review's money section: cost per week in its currency, with units beside.

Drawn from `queries.money` (the report's money section), so the page and
`lanelog report` show the same figures.  A week without usage says so and is
never drawn as a zero cost; the spend avoided is labelled an estimate.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from lanelog.dashboard import cells, charts, present, ui
from lanelog.money import amount_text, is_currency, money_text
from lanelog.queries import ESTIMATE_WORDS

WEEK_COLUMNS = {
    "week": "week",
    "calls_armed": "armed calls",
    "units": "units",
    "input_tokens": "input tokens",
    "output_tokens": "output tokens",
    "cost": "cost",
    "cost_per_armed_call": "per armed call",
    "cost_per_unit": "per unit",
    "patch_rejects": "patch rejects",
    "spend_avoided_estimate": "avoided (estimate)",
}
MONEY = ("cost", "cost_per_armed_call", "cost_per_unit", "spend_avoided_estimate")
# The week table is shown as two, counts then money, each narrow enough for the main column
# of a 1000 px window (as the weekly figures are): no table scrolls sideways.
COUNT_WIDTHS = {"week": 85, "armed calls": 90, "units": 70, "input tokens": 115, "output tokens": 115}
MONEY_WIDTHS = {"week": 80, "cost": 95, "per armed call": 100, "per unit": 90, "avoided (estimate)": 125}
BY_WIDTHS = {"week": 80, "property": 150, "repository": 150, "tokens in": 75, "tokens out": 80, "cost": 100}


def currency_of(row: dict[str, Any]) -> str:
    currency = row.get("currency")
    # A currency from a log line is shown only when it is one (it is untrusted text).
    return currency if is_currency(currency) else "(currency?)"


def amount(value: float | None, row: dict[str, Any]) -> str:
    """0.0021 USD, 12.50 USD (lanelog.money); None as the row's note ("no usage recorded"), never as 0."""
    if value is None:
        return row.get("note") or "-"
    return money_text(value, currency_of(row))


def cost_text(row: dict[str, Any]) -> str:
    """The row's cost; priced in several currencies, each one's total (0.25 GBP + 0.50 USD)."""
    if row.get("cost") is None and row.get("costs"):
        return " + ".join(amount(entry["cost"], entry) for entry in row["costs"])
    return amount(row.get("cost"), row)


def _count(value: Any) -> str:
    return "-" if value is None else f"{value:,}"


def week_table(money: dict[str, Any]) -> pd.DataFrame:
    """One text row per week (and the total), money in its currency: what the table shows."""
    rows = []
    for row in [*money["weeks"], {**money["totals"], "week": "total"}]:
        cells = {}
        for key, words in WEEK_COLUMNS.items():
            value = row.get(key)
            if key == "week":
                cells[words] = value or "undated"
            elif key in MONEY:
                cells[words] = cost_text(row) if key == "cost" else amount(value, row) if value is not None else "-"
            else:
                cells[words] = _count(value)
        rows.append(cells)
    return pd.DataFrame(rows, columns=list(WEEK_COLUMNS.values()))


def by_table(rows: list[dict[str, Any]], key: str) -> pd.DataFrame:
    out = [{"week": row["week"] or "undated", key: row[key] if row[key] is not None else "(none)",
            "tokens in": _count(row["input_tokens"]), "tokens out": _count(row["output_tokens"]),
            "cost": cost_text(row)} for row in rows]
    return pd.DataFrame(out, columns=["week", key, "tokens in", "tokens out", "cost"])


def show_money(money: dict[str, Any]) -> None:
    """The money section's figures: the latest week's cost and estimate (its tables: money_tables)."""
    st.subheader("What the armed calls cost")
    dated = [row for row in money["weeks"] if row["week"] is not None]
    latest = dated[-1] if dated else None
    if latest is None:
        st.caption("No dated week in range.")
    else:
        st.caption(f"Week of {latest['week']}, from the usage the property runs recorded.")
        show_week_money(latest)
    st.caption(f"{ESTIMATE_WORDS}. A week without usage shows \"no usage recorded\", not a zero cost.")


def show_week_money(latest: dict[str, Any]) -> None:
    """The week's cost, spend avoided, cost per armed call and per unit, two by two, the currency in each
    label so the amounts fit a narrow window; a week with no cost, or costs in several currencies, in words."""
    if latest.get("cost") is None:
        if latest.get("costs"):
            st.info(f"The armed calls cost {cost_text(latest)} this week, in more than one currency: no cost per "
                    "call or unit, and no spend avoided, is worked out across currencies.")
        else:
            st.info(f"This week: {latest.get('note') or 'no usage recorded'}, so there is no cost to show "
                    "(never a zero cost).")
        return
    currency = currency_of(latest)

    def plain(value: float | None) -> str:
        return amount_text(value) if value is not None else "-"

    top, bottom = st.columns(2), st.columns(2)
    top[0].metric(f"Cost ({currency})", plain(latest["cost"]))
    top[1].metric(f"Spend avoided, estimate ({currency})", plain(latest["spend_avoided_estimate"]))
    bottom[0].metric(f"Cost per armed call ({currency})", plain(latest["cost_per_armed_call"]))
    bottom[1].metric(f"Cost per unit ({currency}; {_count(latest['units'])} units)", plain(latest["cost_per_unit"]))


def money_tables(money: dict[str, Any]) -> None:
    """The money section's tables: cost per week, then per week and property, per week and repository."""
    weeks = week_table(money)
    st.caption("Armed calls, units and tokens per week")
    st.dataframe(weeks[list(COUNT_WIDTHS)], hide_index=True, key="money_weeks_table",
                 height=cells.table_height(len(weeks)), column_config=present.fixed_columns(COUNT_WIDTHS))
    ui.more_rows(len(weeks), noun="rows (weeks and the total)")
    st.caption("Cost per week, in the currency the runs reported: in all, per armed call, per unit, "
               "and the spend the probe avoided (an estimate)")
    st.dataframe(weeks[list(MONEY_WIDTHS)], hide_index=True, key="money_costs_table",
                 height=cells.table_height(len(weeks)), column_config=present.fixed_columns(MONEY_WIDTHS))
    ui.more_rows(len(weeks), noun="rows (weeks and the total)")
    for key, words in (("property", "property"), ("repo", "repository")):
        rows = by_table(money[f"by_{key}"], key).rename(columns={key: words})
        st.caption(f"Cost per week and {words}")
        st.dataframe(rows, hide_index=True, key=f"money_{key}_table", height=cells.table_height(len(rows)),
                     column_config=present.fixed_columns({name: BY_WIDTHS[name] for name in rows.columns}))
        ui.more_rows(len(rows))


def cost_frame(rows: list[dict[str, Any]], part: str) -> pd.DataFrame:
    """week, part, cost, currency: each week's cost per property or repository (the money section's
    by_property or by_repo rows), a row priced in several currencies as one row per currency."""
    out = []
    for row in rows:
        priced = row.get("costs") or ([{"currency": row["currency"], "cost": row["cost"]}]
                                      if row.get("cost") is not None else [])
        out += [{"week": row["week"], part: row[part], "cost": entry["cost"], "currency": currency_of(entry)}
                for entry in priced]
    return pd.DataFrame(out, columns=["week", part, "cost", "currency"])


def show_cost_by(money: dict[str, Any], weeks: list[str] | None) -> None:
    """Cost per week by property and by repository, a pair of charts per currency (a cost is drawn
    only in its own currency); a week without a recorded cost has no bar, never a bar of 0."""
    frames = {"property": cost_frame(money["by_property"], "property"), "repo": cost_frame(money["by_repo"], "repo")}
    currencies = sorted(set(frames["property"]["currency"]) | set(frames["repo"]["currency"]))
    if not currencies:
        st.info("No armed call in range recorded a cost: there is no money to split by property or repository.")
        return
    for currency in currencies:
        left, right = ui.chart_columns()
        for column, (part, words) in zip((left, right), (("property", "property"), ("repo", "repository"))):
            with column:
                st.subheader(f"Cost by {words}" + (f" ({currency})" if len(currencies) > 1 else ""))
                data = frames[part][frames[part]["currency"] == currency]
                st.altair_chart(charts.stacked_weeks(data, "cost", part, f"cost ({currency})", weeks=weeks, money=True),
                                key=f"cost_by_{part}_{currency}")
    st.caption("What the armed calls cost, by the property they ran and by the repository, in the currency the "
               "runs reported. A week without a recorded cost has no bar.")
