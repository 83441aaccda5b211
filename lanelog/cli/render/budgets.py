"""What `check` and `report` print about money: each budget (`--budgets FILE`) and spend spike, in every form.

The figures are lanelog.queries' budget model (judge); this module only words them.  A
budget's name is a plain word and its currency three capitals (the budgets file's
checks), so they are printed as they are; a repo pattern is printed framed like any other text.
"""

from __future__ import annotations

import json
from datetime import date

from lanelog.cli.render.cells import markdown_table, md, plain
from lanelog.money import money_text
from lanelog.queries import Spend, Spike, Status, period


def _period(status: Status) -> str:
    return f"the {period(status.budget.period).noun} {status.start.isoformat()} to {status.end.isoformat()}"


def budget_line(status: Status) -> str:
    """One budget for a terminal or a cron mail; an overspent one starts with BUDGET OVER."""
    budget = status.budget
    crossed = f", past {status.crossed[-1]:.0%}" if status.crossed else ""
    head = f"BUDGET OVER {budget.name}" if status.over else f"budget {budget.name}"
    return (f"{head}: {money_text(status.spend, budget.currency)} of {money_text(budget.amount, budget.currency)} "
            f"({status.share:.0%}{crossed}) in {_period(status)}, {plain(budget.scope_text())}; "
            f"projected {money_text(status.projected, budget.currency)} by {status.end.isoformat()}")


def spike_line(spike: Spike) -> str:
    """One spend spike for a terminal or a cron mail."""
    ratio = f"{spike.spend / spike.mean:.2f} times" if spike.mean > 0 else "above nothing in"
    return (f"SPEND SPIKE in the week {spike.week.isoformat()}: {money_text(spike.spend, spike.currency)}, {ratio} "
            f"the mean of the four weeks before ({money_text(spike.mean, spike.currency)}; a spike is more than "
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


def _cells(status: Status) -> list[str]:
    currency = status.budget.currency
    return [status.budget.name, f"{status.start.isoformat()} to {status.end.isoformat()}",
            status.budget.scope_text(), money_text(status.spend, currency), money_text(status.budget.amount, currency),
            f"{status.share:.0%}", money_text(status.projected, currency)]


HEADER = ["budget", "period", "scope", "spent", "amount", "share", "projected"]


def table(statuses: list[Status]) -> str:
    """The budgets as an aligned terminal table."""
    rows = []
    for status in statuses:
        cells = _cells(status)
        cells[0], cells[2] = plain(cells[0]), plain(cells[2])
        cells[5] = ("OVER " if status.over else "") + cells[5]
        rows.append(cells)
    widths = [max(len(row[i]) for row in [HEADER, *rows]) for i in range(len(HEADER))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(cells, widths)).rstrip()
             for cells in [HEADER, ["-" * width for width in widths], *rows]]
    return "\n".join(["Budgets (the period holding the report's last day)", *lines])


def markdown(statuses: list[Status], day: date) -> str:
    """The review's budgets section."""
    rows = []
    for status in statuses:
        cells = _cells(status)
        cells[0], cells[2] = md(cells[0]), md(cells[2])
        cells[5] = f"**over: {cells[5]}**" if status.over else cells[5]
        rows.append(cells)
    table_lines = markdown_table(HEADER, rows, bold_total=False)
    table_lines[1] = "|---|---|---|---:|---:|---:|---:|"
    return "\n".join(["## Budgets", "", f"Each budget over its period holding {day.isoformat()} (UTC); the projection "
                      "is the spend so far at the same daily rate to the period's end.", "", *table_lines])
