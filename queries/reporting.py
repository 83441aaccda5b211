"""The report's JSON contract (`lanelog report --format json`) and the seed's alert (`lanelog check`).

Plain JSON-ready dicts on any engine, never pandas, so the CLI stays fast.  Weeks are
Mondays (UTC); ``week`` is None for the undated bucket, which always comes after the
dated weeks and is never filtered out by dates.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING, Any

from lanelog.queries.budget_file import Budget
from lanelog.queries.budgets import Spend, SpikeRule, judge
from lanelog.queries.costs import money_figures
from lanelog.queries.credit import CreditBugs, credit_bugs, merge_bugs, with_merge_counts
from lanelog.queries.digest import weekly_digest
from lanelog.queries.engine import engine_of, records, together
from lanelog.queries.figures import WEEKLY
from lanelog.queries.filters import Filters
from lanelog.queries.hooks import hook_report
from lanelog.queries.named import SQL
from lanelog.queries.outcomes import STALE_DAYS, merge_verdicts, outcome_figures, pull_requests, stale_before
from lanelog.queries.shadow import shadow_report

if TYPE_CHECKING:
    from lanelog.queries.engine import Readable

# The queries report() reads, and its money and outcomes sections' (queries/costs.py, queries/outcomes.py).
REPORT_QUERIES = (SQL.figures, SQL.rejected_line_count, SQL.shadow_figures, SQL.shadow_errors, SQL.pull_request_rows,
                  SQL.hook_figures, SQL.hook_sessions)
MONEY_QUERIES = (SQL.money_currencies, SQL.money_by_property, SQL.outcome_weeks, SQL.outcome_groups)


def _number(value: float | None) -> int | float | None:
    """JSON-ready units: whole numbers as int; a sum too large for a double as null."""
    if value is None or not math.isfinite(value):
        return None
    return int(value) if float(value).is_integer() else float(value)


def _figures(row: dict[str, Any]) -> dict[str, Any]:
    """A week's weekly figures (queries.WEEKLY, those of the figures block), a number as JSON holds it."""
    return {figure.key: _number(row[figure.key]) if figure.format == "number" else row[figure.key]
            for figure in WEEKLY if figure.source == "figures"}


def _total_row(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return next(row for row in rows if row["is_total"])


def totals(engine: Readable, filters: Filters | None = None) -> dict[str, Any]:
    """The figures over every week in scope, the undated bucket included, the merge credit bugs counted too."""
    out = _figures(_total_row(records(engine, SQL.figures, filters)))
    with_merge_counts([], out, merge_bugs(merge_verdicts(engine, filters)))
    return out


def report(engine: Readable, filters: Filters | None = None, *, with_money: bool = False,
           stale_days: int = STALE_DAYS, today: date | None = None) -> dict[str, Any]:
    """The JSON contract of ``lanelog report --format json`` (see docs/report.md).

    with_money: the report's ``money`` and ``outcomes`` sections too, last, from the same pass over the
    attempts (on Spark, one job); a pull request still open is stale `stale_days` after its first attempt,
    counted to the report's last day (its --until, else `today`: queries.outcomes.stale_before).
    """
    together(engine, filters, REPORT_QUERIES + (MONEY_QUERIES if with_money else ()),
             stale_before=stale_before(filters, today, stale_days))
    rows = records(engine, SQL.figures, filters)
    weeks = [
        {"week": row["week"].isoformat() if row["week"] else None, **_figures(row)}
        for row in rows if not row["is_total"] and not row["by_repo"]
    ]
    rejected = records(engine, SQL.rejected_line_count)[0]["rejected_lines"]
    everyone = pull_requests(engine, filters)  # read once: Spark answers a query asked together once
    merges = merge_bugs(merge_verdicts(engine, filters, everyone))
    out: dict[str, Any] = {"weeks": weeks, "totals": _figures(_total_row(rows)), "rejected_lines": rejected}
    with_merge_counts(out["weeks"], out["totals"], merges)
    out["credit_bug_merges"] = [_merge_named(merge) for merge in merges]
    shadow = shadow_report(engine, filters)
    if shadow is not None:
        out["shadow"] = shadow
    hooks = hook_report(engine, filters)
    if hooks is not None:
        out["hooks"] = hooks
    if with_money:
        out["money"] = money_figures(engine, filters, rows)
        out["outcomes"] = outcome_figures(engine, filters, everyone, stale_days, today)
    return out


def _merge_named(merge: dict[str, Any]) -> dict[str, Any]:
    """A merge credit bug as the report names it: its pull request, address and week."""
    return {"pr_repository": merge["pr_repository"], "pr_number": merge["pr_number"], "pr_url": merge["pr_url"],
            "week": merge["week"].isoformat() if merge["week"] is not None else None}


def money(engine: Readable, filters: Filters | None = None) -> dict[str, Any]:
    """The report's money section: tokens and cost per week, property and repo (queries/costs.py)."""
    return money_figures(engine, filters)




@dataclass
class Review:
    """What the weekly review shows: the report (with money), the budgets judged, and for its
    markdown the credit bugs and reject reasons; ``jobs``: the jobs it took, where the engine counts them."""

    figures: dict[str, Any]
    spend: Spend
    credit: CreditBugs | None = None
    reasons: list[dict[str, Any]] = field(default_factory=list)
    jobs: int | None = None
    before: dict[str, Any] | None = None  # the report of the week before, when one week was asked

    def digest(self) -> dict[str, Any] | None:
        """The week against the week before, and where its money went (queries/digest.py)."""
        return weekly_digest(self.figures, self.before, [status.as_dict() for status in self.spend.statuses])


def review(engine: Readable, filters: Filters, budgets: Sequence[Budget], day: date, *,
           with_rows: bool = False, before: Filters | None = None, stale_days: int = STALE_DAYS) -> Review:
    """`lanelog report`'s figures: the report with money, each budget judged on `day`, and, with_rows,
    the credit-bug and reject-reason rows the markdown review lists; with `before` (the week before a
    report of one week), that week's report too, for the week-over-week change.  A pull request open
    `stale_days` after its first attempt, counted to the report's last day (--until, else `day`), is stale."""
    found = Review(report(engine, filters, with_money=True, stale_days=stale_days, today=day),
                   judge(engine, budgets, day))
    if before is not None:
        found.before = report(engine, before, with_money=True, stale_days=stale_days, today=day)
    if budgets:
        found.figures["budgets"] = [status.as_dict() for status in found.spend.statuses]
    if with_rows:
        found.credit = credit_bugs(engine, filters)
        found.reasons = records(engine, SQL.reject_reasons, filters)
    found.jobs = engine_of(engine).jobs_run()
    return found


@dataclass
class Checked:
    """What `lanelog check` found: credit bugs of both kinds (the alert), the audit's warnings, the totals
    checked, and the budgets and spikes judged."""

    credit: CreditBugs
    warnings: list[dict[str, Any]]
    totals: dict[str, Any]
    spend: Spend


def checked(engine: Readable, filters: Filters, budgets: Sequence[Budget], today: date,
            spike_rule: SpikeRule | None = None) -> Checked:
    """`lanelog check`'s findings: the seed's alert and audit, and the money judged on `today`."""
    return Checked(credit_bugs(engine, filters), records(engine, SQL.audit, filters), totals(engine, filters),
                   judge(engine, budgets, today, spike_rule))
