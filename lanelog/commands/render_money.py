"""Text forms of the report's ``money`` section: the terminal table and the markdown review.

A cost is shown with its currency, a week without one says why (never 0), and
the spend avoided is called an estimate wherever it shows.
"""

from __future__ import annotations

from typing import Any

from lanelog.commands.render import md, plain

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
    ("probe_rejects", "probe rejects"),
    ("spend_avoided_estimate", "spend avoided (estimate)"),
)
MONEY_KEYS = ("cost", "cost_per_armed_call", "cost_per_unit", "spend_avoided_estimate")
TOP = 5


def amount(value: float | None, currency: str | None) -> str:
    """0.0021 USD; at least two decimals, at most six."""
    if value is None:
        return "-"
    text = f"{value:,.6f}".rstrip("0")
    whole, _, decimals = text.partition(".")
    return f"{whole}.{decimals.ljust(2, '0')} {plain(currency)}"


def _cell(key: str, row: dict[str, Any], escape: Any) -> str:
    value = row.get(key)
    if key == "week":
        return value or "undated"
    if key == "cost" and value is None:
        return escape(row["note"] or "-")
    if key in MONEY_KEYS:
        return amount(value, row.get("currency"))
    return plain(value)


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
    return "\n".join(["Money (armed calls' recorded usage)", *lines, f"({money['estimate']})"])


def markdown(money: dict[str, Any]) -> str:
    """The review's money section: per week, then where it went by property and by repo."""
    header = [words for _, words in COLUMNS]
    out = ["## Money", "", "| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]
    for row in _rows(money, md):
        row[0] = f"**{row[0]}**" if row[0] == "total" else row[0]
        out.append("| " + " | ".join(row) + " |")
    out += ["", f"_{md(money['estimate'])}._"]
    for title, key, rows in (("property", "property", money["by_property"]),
                             ("repository", "repo", money["by_repo"])):
        out += ["", f"### Cost by {title}", ""]
        spent = _by(rows, key)
        if not spent:
            out.append("No cost recorded in range.")
            continue
        out += [f"| {title} | input tokens | output tokens | cost |", "|---|---:|---:|---:|"]
        out += [f"| {md(name) if name is not None else '(none)'} | {plain(tokens_in)} | "
                f"{plain(tokens_out)} | {amount(cost, currency)} |"
                for name, tokens_in, tokens_out, cost, currency in spent[:TOP]]
    return "\n".join(out)


def _by(rows: list[dict[str, Any]], key: str) -> list[tuple[Any, ...]]:
    """Each name's tokens and cost over the weeks (one currency per name, else left out), largest first."""
    sums: dict[Any, list[Any]] = {}
    for row in rows:
        if row["cost"] is None:
            continue
        entry = sums.setdefault(row[key], [0, 0, 0.0, row["currency"]])
        if entry[3] != row["currency"]:
            entry[3] = None
        entry[0] += row["input_tokens"] or 0
        entry[1] += row["output_tokens"] or 0
        entry[2] += row["cost"]
    found = [(name, *values) for name, values in sums.items() if values[3] is not None]
    return sorted(found, key=lambda item: (-item[3], str(item[0])))
