"""Budgets judged on recorded spend, and spend spikes: the figures `check`, `report` and the pages share.

A budget is judged over the period that holds ``today`` (UTC), as the period table
says (queries/periods.py: an ISO week from Monday, or a calendar month).  Its spend is the cost the armed calls' usage
recorded in the budget's currency (another currency never counts against it), on
the repositories and the property its scope names.  The projection is the
period's spend so far at the same rate to its end: spend × days in the period ÷
days gone (today counted as a whole day).

Money is exact: each cost comes from the database as a decimal (to ten places, as the queries
sum it), amounts, thresholds and factors are read as the decimals they were written as
(lanelog.money.exact), so three calls of 0.10 against a budget of 0.30 spend it, never more.

A spike is a week whose spend in a currency is more than ``factor`` times the mean
of the four weeks before it, and at least ``minimum``.  The week holding today and
the week before it are judged, so a spike is seen while it happens and, once its
week is over, with the whole week's spend; four weeks without any recorded cost
give no baseline, and no spike.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from lanelog.money import exact, money_value
from lanelog.queries.budget_file import Budget, glob_match
from lanelog.queries.engine import BUDGETS, SPIKES, engine_of, records
from lanelog.queries.named import SQL
from lanelog.queries.periods import period
from lanelog.times import monday

if TYPE_CHECKING:
    from lanelog.queries.engine import Readable

SPIKE_FACTOR = 2.0
SPIKE_MINIMUM = 1.0
SPIKE_BASELINE_WEEKS = 4


@dataclass(frozen=True)
class Status:
    """One budget over its current period: what it spent, its share of the amount, the projection."""

    budget: Budget
    start: date
    end: date
    today: date
    spend: Decimal
    calls: int

    @property
    def share(self) -> Decimal:
        return self.spend / exact(self.budget.amount)

    @property
    def projected(self) -> Decimal:
        """The period's spend at this period's rate so far."""
        gone = (self.today - self.start).days + 1
        return self.spend * ((self.end - self.start).days + 1) / gone

    @property
    def crossed(self) -> tuple[float, ...]:
        """The thresholds the spend has reached (share >= threshold, exactly)."""
        return tuple(threshold for threshold in self.budget.thresholds if self.share >= exact(threshold))

    @property
    def over(self) -> bool:
        """More spent than the amount: `check` exits 1."""
        return self.spend > exact(self.budget.amount)

    def as_dict(self) -> dict[str, Any]:
        """The JSON form `check --format json`, `report --format json` and the pages share."""
        budget = self.budget
        return {
            "name": budget.name, "amount": budget.amount, "currency": budget.currency,
            "period": budget.period, "repo": budget.repo, "property": budget.property,
            "thresholds": list(budget.thresholds), "scope": budget.scope_text(),
            "start": self.start.isoformat(), "end": self.end.isoformat(), "today": self.today.isoformat(),
            "spend": money_value(self.spend), "calls": self.calls, "share": money_value(self.share),
            "projected": money_value(self.projected), "crossed": list(self.crossed), "over": self.over,
        }


def _spend_rows(source: Readable, first: date, last: date) -> list[dict[str, Any]]:
    return records(source, SQL.budget_spend, first_day=first, last_day=last)


def budget_status(source: Readable, budgets: Sequence[Budget], today: date) -> list[Status]:
    """Each budget judged over the period that holds ``today``, in the file's order."""
    if not budgets:
        return []
    periods = {budget.name: period(budget.period).bounds(today) for budget in budgets}
    rows = _spend_rows(source, min(start for start, _ in periods.values()), today)
    out = []
    for budget in budgets:
        start, end = periods[budget.name]
        counted = [row for row in rows if row["day"] >= start and row["currency"] == budget.currency
                   and budget.counts(row["repo"], row["property"])]
        out.append(Status(budget, start, end, today, spend=sum((exact(row["cost"]) for row in counted), Decimal(0)),
                          calls=sum(row["calls"] for row in counted)))
    return out


def weekly_spend(source: Readable, budgets: Sequence[Budget], first: date,
                 last: date) -> dict[str, dict[date, Decimal]]:
    """Each budget's spend per week (by Monday) from `first` to `last`: what it is judged on, in its
    currency and scope, week by week (the Spend review draws a scoped budget over it)."""
    if not budgets:
        return {}
    rows = _spend_rows(source, monday(first), last)
    out: dict[str, dict[date, Decimal]] = {budget.name: {} for budget in budgets}
    for budget in budgets:
        weeks = out[budget.name]
        for row in rows:
            if row["currency"] == budget.currency and budget.counts(row["repo"], row["property"]):
                week = monday(row["day"])
                weeks[week] = weeks.get(week, Decimal(0)) + exact(row["cost"])
    return out


def scope_warnings(source: Readable, budgets: Sequence[Budget]) -> list[str]:
    """A budget whose repo pattern or property id matches nothing the database holds: a warning
    (it may be a typo, or a repository that has not run yet), never an error."""
    if not any(budget.repo is not None or budget.property is not None for budget in budgets):
        return []
    names = [row["repo"] for row in records(source, SQL.repo_names)]
    properties = {row["property"] for row in records(source, SQL.property_names)}
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
    spend: Decimal
    mean: Decimal
    factor: float

    @property
    def key(self) -> str:
        """What identifies the spike across runs: its week and currency."""
        return f"spike:{self.week.isoformat()}:{self.currency}"

    def as_dict(self) -> dict[str, Any]:
        return {"week": self.week.isoformat(), "currency": self.currency, "spend": money_value(self.spend),
                "mean_before": money_value(self.mean), "factor": self.factor,
                "ratio": money_value(self.spend / self.mean) if self.mean > 0 else None}


NONE = (Decimal(0), 0)  # a week without a priced call


def _weekly(rows: Iterable[dict[str, Any]]) -> dict[tuple[date, str], tuple[Decimal, int]]:
    """Cost and priced calls per (Monday, currency)."""
    out: dict[tuple[date, str], tuple[Decimal, int]] = {}
    for row in rows:
        key = (monday(row["day"]), row["currency"])
        cost, calls = out.get(key, NONE)
        out[key] = (cost + exact(row["cost"]), calls + row["calls"])
    return out


def spikes(source: Readable, today: date, factor: float = SPIKE_FACTOR, minimum: float = SPIKE_MINIMUM) -> list[Spike]:
    """The spikes of the week holding ``today`` and of the week before it, per currency."""
    this_week = monday(today)
    judged = [this_week - timedelta(days=7), this_week]
    first = judged[0] - timedelta(days=7 * SPIKE_BASELINE_WEEKS)
    weekly = _weekly(_spend_rows(source, first, today))
    found = []
    for week in judged:
        for currency in sorted({currency for _, currency in weekly}):
            spend, _ = weekly.get((week, currency), NONE)
            before = [weekly.get((week - timedelta(days=7 * back), currency), NONE)
                      for back in range(1, SPIKE_BASELINE_WEEKS + 1)]
            if not any(calls for _, calls in before):
                continue  # no baseline: a first week of spend is no spike
            mean = sum((cost for cost, _ in before), Decimal(0)) / SPIKE_BASELINE_WEEKS
            if spend >= exact(minimum) and spend > exact(factor) * mean:
                found.append(Spike(week, currency, spend, mean, factor))
    return found


@dataclass(frozen=True)
class SpikeRule:
    """What makes a week a spend spike: more than ``factor`` times the mean of the four before, and ``minimum``."""

    factor: float = SPIKE_FACTOR
    minimum: float = SPIKE_MINIMUM


@dataclass
class Spend:
    """The budgets judged, the scopes that match nothing, and the spikes found."""

    statuses: list[Status] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    spikes: list[Spike] = field(default_factory=list)

    @property
    def over(self) -> list[Status]:
        """The budgets that spent more than their amount: `check` exits 1."""
        return [status for status in self.statuses if status.over]


def judge(source: Readable, budgets: Sequence[Budget], today: date, spike_rule: SpikeRule | None = None) -> Spend:
    """The budgets over the periods holding ``today``, and the spikes when a rule is given.

    The one judge `check`, `report` and the dashboard's pages call.  Budgets and spikes
    are judged where the engine can (BUDGETS, SPIKES: DuckDB); budgets asked of another
    engine are refused, spikes are left out.
    """
    engine = engine_of(source)
    found = Spend()
    if budgets:
        engine.require(BUDGETS, "--budgets")
        found.statuses = budget_status(engine, budgets, today)
        found.warnings = scope_warnings(engine, budgets)
    if spike_rule is not None and engine.can(SPIKES):
        found.spikes = spikes(engine, today, spike_rule.factor, spike_rule.minimum)
    return found
