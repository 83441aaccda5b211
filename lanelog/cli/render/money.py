"""Text forms of the report's ``money`` section: the terminal table and the markdown review.

A cost is shown with its currency, a week without one says why (never 0), and
the spend avoided is called an estimate wherever it shows.
"""

from __future__ import annotations

from typing import Any

from lanelog.cli.render.cells import md, plain
from lanelog.money import money_text
from lanelog.queries import ESTIMATE_WORDS

COLUMNS = (
    ("week", "week"),
    ("calls_armed", "armed calls"),
    ("units", "units"),
    ("calls_with_usage", "with usage"),
    ("input_tokens", "input tokens"),
    ("output_tokens", "output tokens"),
    ("cost", "cost"),
    ("cost_per_armed_call", "cost per armed call"),
    ("cost_per_unit", "cost per unit"),
    ("patch_rejects", "patch rejects"),
    ("spend_avoided_estimate", "spend avoided (estimate)"),
)
MONEY_KEYS = ("cost", "cost_per_armed_call", "cost_per_unit", "spend_avoided_estimate")
TOP = 5


def amount(value: float | None, currency: str | None, escape: Any = plain) -> str:
    """0.0021 USD, 12.50 USD (lanelog.money); the currency escaped as the other cells."""
    if value is None:
        return "-"
    return money_text(value, escape(currency))


def amounts(costs: list[dict[str, Any]], escape: Any = plain) -> str:
    """Each currency's total of a group priced in several: 0.25 GBP + 0.50 USD."""
    return " + ".join(amount(entry["cost"], entry["currency"], escape) for entry in costs)


def _cell(key: str, row: dict[str, Any], escape: Any) -> str:
    value = row.get(key)
    if key == "week":
        return value or "undated"
    if key == "cost" and value is None:
        return amounts(row["costs"], escape) if row.get("costs") else escape(row["note"] or "-")
    if key in MONEY_KEYS:
        return amount(value, row.get("currency"), escape)
    return escape(value)


def _rows(money: dict[str, Any], escape: Any) -> list[list[str]]:
    rows = [[_cell(key, week, escape) for key, _ in COLUMNS] for week in money["weeks"]]
    rows.append(["total"] + [_cell(key, money["totals"], escape) for key, _ in COLUMNS[1:]])
    return rows


def table(money: dict[str, Any]) -> str:
    """The money per week as an aligned terminal table, totals last, and the estimate's words."""
    header = [words for _, words in COLUMNS]
    rows = _rows(money, plain)
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(width) if i == 0 else cell.rjust(width)
                       for i, (cell, width) in enumerate(zip(cells, widths)))
             for cells in [header, ["-" * width for width in widths], *rows]]
    return "\n".join(["Money (armed calls' recorded usage)", *lines, f"({ESTIMATE_WORDS})"])


def markdown(money: dict[str, Any]) -> str:
    """The review's money section: per week, then where it went by property and by repo."""
    header = [words for _, words in COLUMNS]
    out = ["## Money", "", "| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]
    for row in _rows(money, md):
        row[0] = f"**{row[0]}**" if row[0] == "total" else row[0]
        out.append("| " + " | ".join(row) + " |")
    out += ["", f"_{ESTIMATE_WORDS}._"]
    for title, key, rows in (("property", "property", money["by_property"]),
                             ("repository", "repo", money["by_repo"])):
        out += ["", f"### Cost by {title}", ""]
        spent = _by(rows, key)
        if not spent:
            out.append("No cost recorded in range.")
            continue
        out += [f"| {title} | input tokens | output tokens | cost |", "|---|---:|---:|---:|"]
        out += [f"| {md(name) if name is not None else '(none)'} | {plain(tokens_in)} | "
                f"{plain(tokens_out)} | {amounts(costs, md)} |"
                for name, tokens_in, tokens_out, costs in spent[:TOP]]
    return "\n".join(out)


def _by(rows: list[dict[str, Any]], key: str) -> list[tuple[Any, ...]]:
    """Each name's tokens and cost over the weeks, a total per currency, largest first."""
    sums: dict[Any, tuple[list[int | float], dict[str, float]]] = {}
    for row in rows:
        priced = row.get("costs") or ([{"currency": row["currency"], "cost": row["cost"]}]
                                      if row["cost"] is not None else [])
        if not priced:
            continue
        tokens, by_currency = sums.setdefault(row[key], ([0, 0], {}))
        tokens[0] += row["input_tokens"] or 0
        tokens[1] += row["output_tokens"] or 0
        for entry in priced:
            by_currency[entry["currency"]] = by_currency.get(entry["currency"], 0.0) + (entry["cost"] or 0.0)
    found = [(name, tokens[0], tokens[1],
              [{"currency": currency, "cost": cost} for currency, cost in sorted(by_currency.items())])
             for name, (tokens, by_currency) in sums.items()]
    return sorted(found, key=lambda item: (-max(entry["cost"] for entry in item[3]), str(item[0])))
