"""Budgets judged on recorded spend, and spend spikes: the figures `check`, `report` and the pages share.

A budget is judged over the period that holds ``today`` (UTC): its ISO week, from
Monday, or its calendar month.  Its spend is the cost the armed calls' usage
recorded in the budget's currency (another currency never counts against it), on
the repositories and the property its scope names.  The projection is the
period's spend so far at the same rate to its end: spend × days in the period ÷
days gone (today counted as a whole day).

A spike is a week whose spend in a currency is more than ``factor`` times the mean
of the four weeks before it, and at least ``minimum``.  The week holding today and
the week before it are judged, so a spike is seen while it happens and, once its
week is over, with the whole week's spend; four weeks without any recorded cost
give no baseline, and no spike.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from lanelog.queries.budget_file import Budget, glob_match

DIGITS = 10  # money rounded once, as queries/costs.py rounds it
SPIKE_FACTOR = 2.0
SPIKE_MINIMUM = 1.0
SPIKE_BASELINE_WEEKS = 4


def monday(day: date) -> date:
    """The Monday of the ISO week holding ``day``."""
    return day - timedelta(days=day.weekday())


def period_of(period: str, today: date) -> tuple[date, date]:
    """The first and the last day of the week or month that holds ``today``."""
    if period == "week":
        start = monday(today)
        return start, start + timedelta(days=6)
    start = today.replace(day=1)
    following = (start + timedelta(days=32)).replace(day=1)
    return start, following - timedelta(days=1)


def _money(value: float) -> float:
    return round(value, DIGITS)


@dataclass(frozen=True)
class Status:
    """One budget over its current period: what it spent, its share of the amount, the projection."""

    budget: Budget
    start: date
    end: date
    today: date
    spend: float
    calls: int

    @property
    def share(self) -> float:
        return self.spend / self.budget.amount

    @property
    def projected(self) -> float:
        """The period's spend at this period's rate so far."""
        gone = (self.today - self.start).days + 1
        return self.spend * ((self.end - self.start).days + 1) / gone

    @property
    def crossed(self) -> tuple[float, ...]:
        """The thresholds the spend has reached (share >= threshold)."""
        return tuple(threshold for threshold in self.budget.thresholds if self.share >= threshold)

    @property
    def over(self) -> bool:
        """More spent than the amount: `check` exits 1."""
        return self.spend > self.budget.amount

    def as_dict(self) -> dict[str, Any]:
        """The JSON form `check --format json`, `report --format json` and the pages share."""
        budget = self.budget
        return {
            "name": budget.name, "amount": budget.amount, "currency": budget.currency,
            "period": budget.period, "repo": budget.repo, "property": budget.property,
            "thresholds": list(budget.thresholds), "scope": budget.scope_text(),
            "start": self.start.isoformat(), "end": self.end.isoformat(), "today": self.today.isoformat(),
            "spend": _money(self.spend), "calls": self.calls, "share": _money(self.share),
            "projected": _money(self.projected), "crossed": list(self.crossed), "over": self.over,
        }


def _spend_rows(con: Any, first: date, last: date) -> list[dict[str, Any]]:
    from lanelog.queries import records

    return records(con, "budget_spend", first_day=first, last_day=last)


def budget_status(con: Any, budgets: Sequence[Budget], today: date) -> list[Status]:
    """Each budget judged over the period that holds ``today``, in the file's order."""
    if not budgets:
        return []
    periods = {budget.name: period_of(budget.period, today) for budget in budgets}
    rows = _spend_rows(con, min(start for start, _ in periods.values()), today)
    out = []
    for budget in budgets:
        start, end = periods[budget.name]
        counted = [row for row in rows if row["day"] >= start and row["currency"] == budget.currency
                   and budget.counts(row["repo"], row["property"])]
        out.append(Status(budget, start, end, today, spend=math.fsum(row["cost"] for row in counted),
                          calls=sum(row["calls"] for row in counted)))
    return out


def scope_warnings(con: Any, budgets: Sequence[Budget]) -> list[str]:
    """A budget whose repo pattern or property id matches nothing the database holds: a warning
    (it may be a typo, or a repository that has not run yet), never an error."""
    from lanelog.queries import records, repos

    if not any(budget.repo is not None or budget.property is not None for budget in budgets):
        return []
    names = repos(con)
    properties = {row["property"] for row in records(con, "property_names")}
    warnings = []
    for budget in budgets:
        if budget.repo is not None and not any(glob_match(budget.repo, name) for name in names):
            warnings.append(f"{budget.where}: budget {budget.name}: repo {budget.repo!r} matches no "
                            "repository in the database, so it counts nothing yet")
        if budget.property is not None and budget.property not in properties:
            warnings.append(f"{budget.where}: budget {budget.name}: property {budget.property!r} is named "
                            "by no attempt in the database, so it counts nothing yet")
    return warnings


@dataclass(frozen=True)
class Spike:
    """A week whose spend in one currency is more than ``factor`` times the mean of the four before."""

    week: date
    currency: str
    spend: float
    mean: float
    factor: float

    @property
    def key(self) -> str:
        """What identifies the spike across runs: its week and currency."""
        return f"spike:{self.week.isoformat()}:{self.currency}"

    def as_dict(self) -> dict[str, Any]:
        return {"week": self.week.isoformat(), "currency": self.currency, "spend": _money(self.spend),
                "mean_before": _money(self.mean), "factor": self.factor,
                "ratio": _money(self.spend / self.mean) if self.mean > 0 else None}


def _weekly(rows: Iterable[dict[str, Any]]) -> dict[tuple[date, str], tuple[float, int]]:
    """Cost and priced calls per (Monday, currency)."""
    out: dict[tuple[date, str], tuple[float, int]] = {}
    for row in rows:
        key = (monday(row["day"]), row["currency"])
        cost, calls = out.get(key, (0.0, 0))
        out[key] = (cost + row["cost"], calls + row["calls"])
    return out


def spikes(con: Any, today: date, factor: float = SPIKE_FACTOR, minimum: float = SPIKE_MINIMUM) -> list[Spike]:
    """The spikes of the week holding ``today`` and of the week before it, per currency."""
    this_week = monday(today)
    judged = [this_week - timedelta(days=7), this_week]
    first = judged[0] - timedelta(days=7 * SPIKE_BASELINE_WEEKS)
    weekly = _weekly(_spend_rows(con, first, today))
    found = []
    for week in judged:
        for currency in sorted({currency for _, currency in weekly}):
            spend, _ = weekly.get((week, currency), (0.0, 0))
            before = [weekly.get((week - timedelta(days=7 * back), currency), (0.0, 0))
                      for back in range(1, SPIKE_BASELINE_WEEKS + 1)]
            if not any(calls for _, calls in before):
                continue  # no baseline: a first week of spend is no spike
            mean = math.fsum(cost for cost, _ in before) / SPIKE_BASELINE_WEEKS
            if spend >= minimum and spend > factor * mean:
                found.append(Spike(week, currency, spend, mean, factor))
    return found
