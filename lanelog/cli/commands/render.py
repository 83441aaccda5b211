"""Text forms of the figures: the terminal table, the markdown review, CSV, and check lines.

Everything here works on the plain dicts of ``queries.report`` and ``queries.check``.
Text from the logs (ids, repos, file names) is untrusted: control characters are
escaped for the terminal, and markdown special characters are escaped so a log
can never inject a link, HTML or a table cell into a pasted review.
"""

from __future__ import annotations

import csv
import io
import json
from datetime import date, datetime
from typing import Any

from lanelog.evidence_text import MARKDOWN_SPECIAL
from lanelog.framing import framed
from lanelog.queries import FIGURES, LABELS, Filters, compare_latest
from lanelog.reasons import kind
from lanelog.spreadsheet import defused

HEADINGS = LABELS
TOP_REASONS = 5
# A rejected line has no week and no repository, so no filter applies to its count,
# whether the figures come from a database or a lake.
REJECTED_SCOPE = "every line read, whatever the filters"


def counted(count: int, noun: str, nouns: str | None = None) -> str:
    """"1 armed call", "2 armed calls": a count with its noun in the number it takes."""
    return f"{count} {noun if count == 1 else nouns or noun + 's'}"


def plain(value: Any) -> str:
    """A value as one terminal-safe line: control characters, separators and bidi marks escaped (framing.py)."""
    if value is None:
        return "-"
    if isinstance(value, datetime):
        return value.isoformat() + "Z"
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, list):
        return "[" + ", ".join(plain(item) for item in value) + "]"
    return framed(str(value))


def md(value: Any) -> str:
    """A value as markdown text that renders literally."""
    return MARKDOWN_SPECIAL.sub(r"\\\1", plain(value))


def cell(key: str, value: Any) -> str:
    """A figure as a table shows it: an undated week in words, a ratio with two decimals."""
    if key == "week":
        return value or "undated"
    if key == "armed_per_reject":
        return "-" if value is None else f"{value:.2f}"
    return plain(value)


def _rows(report: dict[str, Any]) -> list[list[str]]:
    keys = list(HEADINGS)
    rows = [[cell(key, week[key]) for key in keys] for week in report["weeks"]]
    rows.append(["total"] + [cell(key, report["totals"][key]) for key in keys[1:]])
    return rows


def table(report: dict[str, Any]) -> str:
    """The weekly figures as an aligned terminal table, totals last."""
    header = list(HEADINGS.values())
    rows = _rows(report)
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        return "  ".join(
            cell.ljust(width) if i == 0 else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(cells, widths))
        )

    out = [line(header), line(["-" * width for width in widths])]
    out += [line(row) for row in rows[:-1]] + [line(rows[-1])]
    out.append(f"rejected lines (not JSON objects, {REJECTED_SCOPE}): {report['rejected_lines']}")
    if "shadow" in report:
        from lanelog.cli.commands import render_shadow  # (it builds on this module's cells)

        out += render_shadow.table_lines(report["shadow"])
    return "\n".join(out)


def aligned(header: list[str], rows: list[list[str]]) -> list[str]:
    """An aligned terminal table: the first column left, the others right."""
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        return "  ".join(cell.ljust(width) if i == 0 else cell.rjust(width)
                         for i, (cell, width) in enumerate(zip(cells, widths)))

    return [line(header), line(["-" * width for width in widths]), *(line(row) for row in rows)]


# The money columns of the CSV (queries/money.sql), after the figures', per week; `costs` is
# each currency's total (GBP 0.25; USD 0.625) of a week priced in several, else empty.
CSV_MONEY = ("calls_with_usage", "calls_priced", "input_tokens", "output_tokens", "cost", "currency",
             "cost_per_armed_call", "spend_avoided_estimate", "costs")


def csv_text(report: dict[str, Any]) -> str:
    """One CSV row per week (the undated bucket has an empty week); no total row; CRLF line ends.

    The figures' columns, then the money's, then (with a shadow in scope) the shadow's,
    a set per shadow policy (render_shadow.py);
    a figure nobody recorded is an empty cell, and a text cell (a currency, from the
    logs) is defused so a spreadsheet never runs it as a formula.
    """
    money = {week["week"]: week for week in report.get("money", {}).get("weeks", [])}
    shadow = report.get("shadow")
    from lanelog.cli.commands import render_shadow  # (it builds on this module's cells)
    buffer = io.StringIO(newline="")
    # Rows end in CRLF (RFC 4180), so the writer quotes every field holding a carriage return
    # or a line feed: no text from a log can start a row of its own.
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow([*HEADINGS, *CSV_MONEY, *(render_shadow.csv_columns(shadow) if shadow is not None else ())])
    for week in report["weeks"]:
        cells = [week[key] for key in HEADINGS]
        cells += [_csv_money(money.get(week["week"], {}), key) for key in CSV_MONEY]
        if shadow is not None:
            cells += render_shadow.csv_cells(shadow, week["week"])
        writer.writerow(["" if cell is None else defused(cell) if isinstance(cell, str) else cell
                         for cell in cells])
    return buffer.getvalue()


def _csv_money(row: dict[str, Any], key: str) -> Any:
    if key == "costs":
        costs = row.get("costs")
        return "; ".join(f"{entry['currency']} {entry['cost']!r}" for entry in costs) if costs else None
    return row.get(key)


def _change(delta: int | float | None) -> str:
    if delta is None:
        return "-"
    return f"{delta:+g}" if isinstance(delta, float) else f"{delta:+d}"


def _week_over_week(weeks: list[dict[str, Any]]) -> list[str]:
    comparison = compare_latest(weeks)
    latest, before = comparison.latest, comparison.before
    if latest is None or before is None:
        return ["Fewer than two dated weeks in range: no change to show."]
    out = [
        f"{comparison.heading()}:",
        "",
        f"| figure | {before['week']} | {latest['week']} | change |",
        "|---|---:|---:|---:|",
    ]
    for key in FIGURES:
        out.append(f"| {HEADINGS[key]} | {plain(before[key])} | {plain(latest[key])} | "
                   f"{_change(comparison.change(key))} |")
    return out


def _scope_line(filters: Filters) -> str:
    """Which weeks and repositories the review covers, in plain words."""
    since, until = filters.since, filters.until
    if since and until:
        weeks = f"the weeks from the one holding {since.isoformat()} to the one holding {until.isoformat()}"
    elif since:
        weeks = f"the week holding {since.isoformat()} and every week after it"
    elif until:
        weeks = f"every week up to the one holding {until.isoformat()}"
    else:
        weeks = "every week"
    repo = f"repository {md(filters.repo)}" if filters.repo else "every repository"
    return (f"Scope: {weeks} (whole weeks, Monday to Sunday, UTC), {repo}; "
            "attempts without a usable date always included.")


def markdown(report: dict[str, Any], credit_bugs: list[dict[str, Any]],
             reasons: list[dict[str, Any]], filters: Filters) -> str:
    """The weekly spend review, ready to paste: figures, change, credit bugs, top reasons."""
    header = [HEADINGS[key] for key in HEADINGS]
    out = ["# Weekly spend review", "", _scope_line(filters), "", "## Figures", "",
           "| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]
    for cells in _rows(report):
        cells[0] = f"**{cells[0]}**" if cells[0] == "total" else cells[0]
        out.append("| " + " | ".join(cells) + " |")
    out += ["", f"Rejected lines (not JSON objects, {REJECTED_SCOPE}): {report['rejected_lines']}.",
            "", "## Week over week", "", *_week_over_week(report["weeks"]),
            "", "## Patch rejects and armed calls", "", *_gate_lines(report["totals"], reasons),
            "", "## Credit bugs", ""]
    if not credit_bugs:
        out.append("None in range. Quarantined attempts without merge credit are expected, "
                   "not incidents.")
    for bug in credit_bugs:
        out.append(
            f"- **{md(bug['attempt_id'])}** at {md(bug['ts'])}, repo {md(bug['repo'])}, "
            f"head {md(bug['head'])}, producer {md(bug['producer'])}: merge credit "
            f"{md(bug['merge_credit'])} with quarantine {md(bug['quarantine'])} "
            f"({md(bug['source'])}:{bug['line_no']})"
        )
    out += ["", "## Top reject reasons", ""]
    counts: dict[str | None, int] = {}
    for row in reasons:
        counts[row["reason"]] = counts.get(row["reason"], 0) + row["attempts"]
    top = sorted(counts.items(), key=lambda item: (-item[1], item[0] is None, item[0] or ""))
    if not top:
        out.append("No probe rejects in range.")
    else:
        out += ["| reason | kind | probe rejects |", "|---|---|---:|"]
        out += [f"| {md(reason) if reason else '(none recorded)'} | {kind(reason) if reason else 'patch'} | {n} |"
                for reason, n in top[:TOP_REASONS]]
    if "shadow" in report:
        from lanelog.cli.commands import render_shadow  # (it builds on this module's cells)

        out += render_shadow.markdown_lines(report["shadow"])
    return "\n".join(out)


def _gate_lines(totals: dict[str, Any], reasons: list[dict[str, Any]]) -> list[str]:
    """The gate at work (patch rejects against armed calls), and setup rejects flagged as CI to fix."""
    out = [f"{counted(totals['patch_rejects'], 'patch reject')} (the gate at work) against "
           f"{counted(totals['calls_armed'], 'armed call')}."]
    if totals["armed_per_reject"] is not None:
        out[0] += f" {HEADINGS['armed_per_reject'].capitalize()}: {totals['armed_per_reject']:.2f}."
    if not totals["setup_rejects"]:
        return out + ["", "No setup rejects: every job could judge its patch."]
    setup: dict[str, int] = {}
    for row in reasons:
        if row["reason"] and kind(row["reason"]) == "setup":
            setup[row["reason"]] = setup.get(row["reason"], 0) + row["attempts"]
    listed = ", ".join(f"{md(reason)} {n}" for reason, n in sorted(setup.items(), key=lambda item: (-item[1], item[0])))
    return out + ["", f"**CI problem: {counted(totals['setup_rejects'], 'setup reject')}** ({listed}). These "
                      "jobs could not judge their patch (no checkout, a missing ref, an unusable policy or "
                      "flaky list): fix the CI set-up; they are not the gate at work, and not in the ratio."]


def _jsonable(row: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in row.items():
        if isinstance(value, datetime):
            value = value.isoformat() + "Z"
        elif isinstance(value, date):
            value = value.isoformat()
        elif key == "merge_credit" and value is not None:
            value = json.loads(value)
        out[key] = value
    return out


def check_json_lines(found: dict[str, Any]) -> list[str]:
    """`check --format json`: one object a line, credit bugs then warnings, each with its kind."""
    lines = [json.dumps({"kind": "credit_bug", **_jsonable(row)}) for row in found["credit_bugs"]]
    lines += [json.dumps({"kind": "warning", **_jsonable(row)}) for row in found["warnings"]]
    return lines


def check_lines(found: dict[str, Any]) -> list[str]:
    """`check` for a terminal or a cron mail: each credit bug with its raw line, then warnings."""
    lines: list[str] = []
    for bug in found["credit_bugs"]:
        lines.append(
            f"CREDIT BUG {plain(bug['ts'])} attempt {plain(bug['attempt_id'])} "
            f"repo {plain(bug['repo'])} head {plain(bug['head'])} "
            f"producer {plain(bug['producer'])} quarantine {plain(bug['quarantine'])} "
            f"merge_credit {plain(bug['merge_credit'])} at {plain(bug['source'])}:{bug['line_no']}"
        )
        lines.append(f"  raw: {plain(bug['raw'])}")
    for warning in found["warnings"]:
        lines.append(
            f"warning: {warning['rule']} {plain(warning['ts'])} attempt "
            f"{plain(warning['attempt_id'])} repo {plain(warning['repo'])} at "
            f"{plain(warning['source'])}:{warning['line_no']}: {plain(warning['detail'])}"
        )
    return lines
