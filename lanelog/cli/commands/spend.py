"""What `check` and `report` say about money: the budgets (`--budgets FILE`) and spend spikes.

The figures are lanelog.queries.budgets'; this module reads the file for the commands,
judges it on an open connection, and words the result for every --format.  A budget's
name is a plain word and its currency three capitals (the file's checks), so they are
printed as they are; a repo pattern is printed framed like any other text.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import click

from lanelog.cli.commands.render import md, plain
from lanelog.queries.budget_file import Budget, read_budgets
from lanelog.queries.budgets import Spike, Status, budget_status, scope_warnings, spikes

PERIOD_WORDS = {"week": "week", "month": "month"}


@dataclass
class Spend:
    """The budgets judged, the scopes that match nothing, and the spikes found."""

    statuses: list[Status] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    spikes: list[Spike] = field(default_factory=list)

    @property
    def over(self) -> list[Status]:
        return [status for status in self.statuses if status.over]


def today_or_now(today: date | None) -> date:
    """--today, else today in UTC."""
    return today if today is not None else datetime.now(UTC).date()


def read(path: Path | None, engine: str) -> list[Budget]:
    """The budgets of --budgets FILE (none without it), read before any database is opened."""
    if path is None:
        return []
    if engine == "spark":
        raise click.UsageError("--budgets is judged with DuckDB: leave out --engine spark (a --lake is read "
                               "with DuckDB by default)")
    return read_budgets(path)


def judge(con: Any, budgets: list[Budget], today: date, *, spike_factor: float | None = None,
          spike_minimum: float = 0.0) -> Spend:
    """The budgets over the periods holding ``today``; spikes too when a factor is given."""
    found = Spend()
    if budgets:
        found.statuses = budget_status(con, budgets, today)
        found.warnings = scope_warnings(con, budgets)
    if spike_factor is not None:
        found.spikes = spikes(con, today, spike_factor, spike_minimum)
    return found


def money(value: float, currency: str) -> str:
    """12.50 USD, 0.0021 USD: cents from 1 up, up to six decimals below it (a call's cost)."""
    text = f"{value:,.2f}" if abs(value) >= 1 else f"{value:,.6f}".rstrip("0")
    whole, _, decimals = text.partition(".")
    return f"{whole}.{decimals.ljust(2, '0')} {currency}"


def _period(status: Status) -> str:
    return f"the {PERIOD_WORDS[status.budget.period]} {status.start.isoformat()} to {status.end.isoformat()}"


def budget_line(status: Status) -> str:
    """One budget for a terminal or a cron mail; an overspent one starts with BUDGET OVER."""
    budget = status.budget
    crossed = f", past {status.crossed[-1]:.0%}" if status.crossed else ""
    head = f"BUDGET OVER {budget.name}" if status.over else f"budget {budget.name}"
    return (f"{head}: {money(status.spend, budget.currency)} of {money(budget.amount, budget.currency)} "
            f"({status.share:.0%}{crossed}) in {_period(status)}, {plain(budget.scope_text())}; "
            f"projected {money(status.projected, budget.currency)} by {status.end.isoformat()}")


def spike_line(spike: Spike) -> str:
    ratio = f"{spike.spend / spike.mean:.2f} times" if spike.mean > 0 else "above nothing in"
    return (f"SPEND SPIKE in the week {spike.week.isoformat()}: {money(spike.spend, spike.currency)}, {ratio} "
            f"the mean of the four weeks before ({money(spike.mean, spike.currency)}; a spike is more than "
            f"{spike.factor:g} times it)")


def check_lines(found: Spend) -> list[str]:
    """`check`'s text lines: each budget, each scope that matches nothing, each spike."""
    return ([budget_line(status) for status in found.statuses]
            + [f"warning: {plain(warning)}" for warning in found.warnings]
            + [spike_line(spike) for spike in found.spikes])


def check_json_lines(found: Spend) -> list[str]:
    """`check --format json`: a line per budget, per scope warning and per spike, each with its kind."""
    return ([json.dumps({"kind": "budget", **status.as_dict()}) for status in found.statuses]
            + [json.dumps({"kind": "warning", "rule": "budget_scope", "detail": warning})
               for warning in found.warnings]
            + [json.dumps({"kind": "spike", **spike.as_dict()}) for spike in found.spikes])


def summary(found: Spend) -> str:
    """What the check's summary line adds: the budgets over, and the spikes."""
    out = ""
    if found.statuses:
        over = found.over
        out += f"; {len(found.statuses)} budget(s), {len(over)} over"
        out += f" ({', '.join(status.budget.name for status in over)})" if over else ""
    if found.spikes:
        out += f"; {len(found.spikes)} spend spike(s)"
    return out


def report_day(week: tuple[date, date] | None, today: date) -> date:
    """The day a report judges its budgets on: the last day of --week, else today."""
    return week[1] if week is not None else today


def week_of(text: str, today: date) -> tuple[date, date]:
    """--week LAST (the week before the one holding today) or a date's week: its Monday and Sunday."""
    if text.upper() == "LAST":
        day = today - timedelta(days=7)
    else:
        try:
            day = date.fromisoformat(text)
        except ValueError:
            raise click.BadParameter(f"{text!r}: give LAST or a day (YYYY-MM-DD)", param_hint="--week") from None
    monday = day - timedelta(days=day.weekday())
    return monday, monday + timedelta(days=6)


def report_rows(statuses: list[Status]) -> list[dict[str, Any]]:
    """The report's ``budgets`` section (`--format json`): each budget's status."""
    return [status.as_dict() for status in statuses]


def table(statuses: list[Status]) -> str:
    """The budgets as an aligned terminal table."""
    header = ["budget", "period", "scope", "spent", "amount", "share", "projected"]
    rows = [[plain(status.budget.name), f"{status.start.isoformat()} to {status.end.isoformat()}",
             plain(status.budget.scope_text()), money(status.spend, status.budget.currency),
             money(status.budget.amount, status.budget.currency),
             ("OVER " if status.over else "") + f"{status.share:.0%}",
             money(status.projected, status.budget.currency)] for status in statuses]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(cells, widths)).rstrip()
             for cells in [header, ["-" * width for width in widths], *rows]]
    return "\n".join(["Budgets (the period holding the report's last day)", *lines])


def markdown(statuses: list[Status], day: date) -> str:
    """The review's budgets section."""
    out = ["## Budgets", "", f"Each budget over its period holding {day.isoformat()} (UTC); the projection "
           "is the spend so far at the same daily rate to the period's end.", "",
           "| budget | period | scope | spent | amount | share | projected |", "|---|---|---|---:|---:|---:|---:|"]
    for status in statuses:
        currency = status.budget.currency
        share = f"**over: {status.share:.0%}**" if status.over else f"{status.share:.0%}"
        out.append(f"| {md(status.budget.name)} | {status.start.isoformat()} to {status.end.isoformat()} | "
                   f"{md(status.budget.scope_text())} | {money(status.spend, currency)} | "
                   f"{money(status.budget.amount, currency)} | {share} | {money(status.projected, currency)} |")
    return "\n".join(out)
