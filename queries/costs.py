"""What the armed calls cost, for the report's ``money`` section and the Spend review.

From the ``figures`` query and money.sql's, as plain JSON-ready dicts (no pandas), on DuckDB
or another RowSource (Spark).  A figure nobody recorded stays None, and every
row says why in ``note``: a week without usage is never shown as free.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from lanelog.money import money_value
from lanelog.queries.engine import records
from lanelog.queries.filters import Filters
from lanelog.queries.named import SQL

if TYPE_CHECKING:
    from lanelog.queries.engine import Readable

ESTIMATE = ("spend_avoided_estimate is an estimate: each week's patch rejects times that week's "
            "mean cost per armed call (over the armed calls that recorded a cost)")
# The same definition in a reader's words, for every page, table and review that shows the figure.
ESTIMATE_WORDS = ("Spend avoided is an estimate: each week's patch rejects (setup rejects saved nothing) times "
                  "that week's mean cost per armed call (over the armed calls that recorded a cost)")
NO_USAGE = "no usage recorded"
NO_COST = "no cost recorded"
MIXED = "more than one currency"


def _count(value: Any) -> int | float | None:
    """Tokens and counts: whole numbers as int; None stays None."""
    if value is None or not math.isfinite(value):
        return None
    return int(value) if float(value).is_integer() else float(value)


MONEY = ("cost", "cost_per_armed_call", "cost_per_unit", "spend_avoided_estimate")
Costs = dict[tuple[str, str | None, str | None], list[dict[str, Any]]]


def note(row: dict[str, Any], calls_key: str = "calls_with_usage") -> str | None:
    """Why a row shows no cost: none recorded, none priced, or costs in several currencies."""
    if row["cost"] is not None:
        return None
    if row.get("costs"):
        return MIXED
    if not row.get(calls_key):
        return NO_USAGE
    return NO_COST if not row.get("calls_priced") else MIXED


def _costs(rows: list[dict[str, Any]]) -> Costs:
    """money_currencies' totals by group: (scope, week, repo or property) to [{currency, cost}]."""
    out: Costs = {}
    for row in rows:
        scope = row["scope"]
        week = row["week"].isoformat() if scope != "total" and row["week"] is not None else None
        name = row["repo"] if scope == "repo" else row["property"] if scope == "property" else None
        out.setdefault((scope, week, name), []).append({"currency": row["currency"], "cost": money_value(row["cost"])})
    return out


def _row(row: dict[str, Any], costs: Costs, scope: str, calls_key: str = "calls_with_usage") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in row.items():
        if key == "is_total":
            continue
        if key == "week":
            out[key] = value.isoformat() if value is not None else None
        elif key in MONEY:
            out[key] = money_value(value)
        elif key in ("property", "repo", "currency"):
            out[key] = value
        else:
            out[key] = _count(value)
    name = out.get("repo") if scope == "repo" else out.get("property") if scope == "property" else None
    currencies = costs.get((scope, out.get("week"), name), [])
    if len(currencies) > 1:
        # A sum across currencies means nothing: each currency's total instead, and no price per call.
        out.update({key: None for key in MONEY if key in out}, currency=None, costs=currencies)
    out["note"] = note(out, calls_key)
    return out


# The keys of a week's and of a repo's money, in the order the report lists them.
WEEK_KEYS = ("week", "attempts", "probe_rejects", "patch_rejects", "calls_armed", "units", "calls_with_usage",
             "calls_priced", "input_tokens", "output_tokens", "currency", "cost", "cost_per_armed_call",
             "cost_per_unit", "spend_avoided_estimate")
REPO_KEYS = ("week", "repo", "calls_armed", "calls_with_usage", "calls_priced", "input_tokens", "output_tokens",
             "currency", "cost")


def money_figures(engine: Readable, filters: Filters | None = None,
                  figures: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Tokens and cost per week (and in total), per property and per repo, with the estimate.

    A group priced in more than one currency has no cost (note "more than one currency")
    and a ``costs`` list of each currency's total; other groups have no ``costs`` key.
    figures: the rows of the ``figures`` query for the same scope, when the caller has them.
    """
    rows = figures if figures is not None else records(engine, SQL.figures, filters)
    weekly = [{key: row[key] for key in WEEK_KEYS} for row in rows if not row["by_repo"] and not row["is_total"]]
    total = next({key: row[key] for key in WEEK_KEYS} for row in rows if row["is_total"])
    costs = _costs(records(engine, SQL.money_currencies, filters))
    return {
        "weeks": [_row(row, costs, "week") for row in weekly],
        "totals": {key: value for key, value in _row(total, costs, "total").items() if key != "week"},
        "by_property": [_row(row, costs, "property", "calls")
                        for row in records(engine, SQL.money_by_property, filters)],
        "by_repo": [_row({key: row[key] for key in REPO_KEYS}, costs, "repo") for row in rows if row["by_repo"]],
        "estimate": ESTIMATE,
    }
