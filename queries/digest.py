"""The weekly digest's figures: one week against the week before, and where its money went.

Made from `lanelog report`'s figures (queries.review) as plain JSON-ready data: the
`--notify-format json` event is this dict, and the Slack message and the markdown review
word it (lanelog.cli.render).  The week is the latest dated week of the report; the week
before is the report's dated week before it, or, when the report covers one week
(`--week`), the figures of the week before it asked apart (``before``).
"""

from __future__ import annotations

from typing import Any

from lanelog.money import exact
from lanelog.queries.figures import CREDIT_COUNTS, FIGURES

TOP = 3  # repositories and properties listed by money


def _dated(report: dict[str, Any] | None) -> list[dict[str, Any]]:
    return [row for row in (report or {}).get("weeks", []) if row["week"] is not None]


def _money_row(report: dict[str, Any] | None, week: str | None) -> dict[str, Any]:
    return next((row for row in (report or {}).get("money", {}).get("weeks", []) if row["week"] == week), {})


def _change(now: Any, then: Any) -> int | float | None:
    if now is None or then is None:
        return None
    delta = exact(now) - exact(then)
    return int(delta) if delta == delta.to_integral_value() else float(delta)


def _money_section(now: dict[str, Any], then: dict[str, Any]) -> dict[str, Any]:
    """The week's cost beside the week before's, compared only in one and the same currency."""
    same = now.get("currency") is not None and now.get("currency") == then.get("currency")
    return {"currency": now.get("currency"), "cost": now.get("cost"), "costs": now.get("costs"),
            "note": now.get("note"), "before": then.get("cost") if same else None,
            "before_currency": then.get("currency"),
            "change": _change(now.get("cost"), then.get("cost")) if same else None,
            "spend_avoided_estimate": now.get("spend_avoided_estimate")}


def _top(rows: list[dict[str, Any]], key: str, week: str) -> list[dict[str, Any]]:
    """The week's groups with a cost, dearest first (a tie by name), at most TOP."""
    priced = [row for row in rows if row["week"] == week and row.get("cost") is not None]
    ranked = sorted(priced, key=lambda row: (-exact(row["cost"]), str(row[key])))
    return [{key: row[key], "cost": row["cost"], "currency": row["currency"]} for row in ranked[:TOP]]


# The week's outcome figures the digest shows (queries/outcomes.py's rules), from the report's outcomes weeks.
OUTCOME_KEYS = ("merged", "closed_without_merge", "merge_rate", "merge_rate_denominator", "cost_per_merged_pr",
                "merged_cost_unknown", "currency")


def _outcomes(report: dict[str, Any] | None, week: str | None) -> dict[str, Any]:
    """The pull requests merged and closed in the week, its merge rate and cost per merged pull request
    (a week with no outcome: none merged, no rate, no cost)."""
    weeks: list[dict[str, Any]] = (report or {}).get("outcomes", {}).get("weeks", [])
    row = next((row for row in weeks if row["week"] == week), {})
    return {key: row.get(key, 0 if key in ("merged", "closed_without_merge", "merge_rate_denominator",
                                           "merged_cost_unknown") else None) for key in OUTCOME_KEYS}


def weekly_digest(figures: dict[str, Any], before: dict[str, Any] | None = None,
                  budgets: list[dict[str, Any]] | None = None) -> dict[str, Any] | None:
    """The digest of the report's latest dated week; None when the report holds no dated week."""
    dated = _dated(figures)
    if not dated:
        return None
    latest = dated[-1]
    earlier = _dated(before) or dated[:-1]
    previous = earlier[-1] if earlier else None
    then = previous or {}
    money = figures.get("money", {})
    return {
        "week": latest["week"], "week_before": previous["week"] if previous else None,
        "figures": {key: {"value": latest[key], "before": then.get(key), "change": _change(latest[key], then.get(key))}
                    for key in (*FIGURES, *CREDIT_COUNTS) if key in latest},
        "credit_bug_merges": [merge for merge in figures.get("credit_bug_merges", [])
                              if merge["week"] == latest["week"]],
        "outcomes": {**_outcomes(figures, latest["week"]),
                     "merged_before": _outcomes(before or figures, then.get("week"))["merged"] if previous else None},
        "money": _money_section(_money_row(figures, latest["week"]), _money_row(before or figures, then.get("week"))),
        "top_repositories": _top(money.get("by_repo", []), "repo", latest["week"]),
        "top_properties": _top(money.get("by_property", []), "property", latest["week"]),
        "budgets": list(budgets or []),
    }
