"""What the armed calls cost, for the report's ``money`` section and the Spend review.

From money.sql's three queries, as plain JSON-ready dicts (no pandas), on DuckDB
or another RowSource (Spark).  A figure nobody recorded stays None, and every
row says why in ``note``: a week without usage is never shown as free.
"""

from __future__ import annotations

import math
from typing import Any

ESTIMATE = ("spend_avoided_estimate is an estimate: each week's probe rejects times that week's "
            "mean cost per armed call (over the armed calls that recorded a cost)")
NO_USAGE = "no usage recorded"
NO_COST = "no cost recorded"
MIXED = "more than one currency"
# Money is rounded once, here: two engines may add the same doubles in another order.
DIGITS = 10


def _count(value: Any) -> int | float | None:
    """Tokens and counts: whole numbers as int; None stays None."""
    if value is None or not math.isfinite(value):
        return None
    return int(value) if float(value).is_integer() else float(value)


def _money(value: Any) -> float | None:
    if value is None or not math.isfinite(value):
        return None
    return round(float(value), DIGITS)


def note(row: dict[str, Any], calls_key: str = "calls_with_usage") -> str | None:
    """Why a row shows no cost: none recorded, none priced, or costs in several currencies."""
    if row["cost"] is not None:
        return None
    if not row.get(calls_key):
        return NO_USAGE
    return NO_COST if not row.get("calls_priced") else MIXED


def _row(row: dict[str, Any], calls_key: str = "calls_with_usage") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in row.items():
        if key == "is_total":
            continue
        if key == "week":
            out[key] = value.isoformat() if value is not None else None
        elif key in ("cost", "cost_per_armed_call", "cost_per_unit", "spend_avoided_estimate"):
            out[key] = _money(value)
        elif key in ("property", "repo", "currency"):
            out[key] = value
        else:
            out[key] = _count(value)
    out["note"] = note(out, calls_key)
    return out


def money_figures(con: Any, filters: Any = None) -> dict[str, Any]:
    """Tokens and cost per week (and in total), per property and per repo, with the estimate."""
    from lanelog.queries import records

    weekly = records(con, "money_weekly", filters)
    return {
        "weeks": [_row(row) for row in weekly[:-1]],
        "totals": {key: value for key, value in _row(weekly[-1]).items() if key != "week"},
        "by_property": [_row(row, "calls") for row in records(con, "money_by_property", filters)],
        "by_repo": [_row(row) for row in records(con, "money_by_repo", filters)],
        "estimate": ESTIMATE,
    }
