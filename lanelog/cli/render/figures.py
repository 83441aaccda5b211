"""Text forms of the weekly figures: the terminal table, the markdown review and CSV.

Everything here works on the plain dicts of ``queries.report``; the cells are
render/cells.py's, so every value from a log is escaped for its form.
"""

from __future__ import annotations

import csv
import io
from typing import Any

from lanelog.cli.render import outcomes as outcome_forms
from lanelog.cli.render import shadow as shadow_forms
from lanelog.cli.render.cells import (
    aligned,
    cell,
    change,
    cost_cell,
    counted,
    markdown_table,
    md,
    md_link,
    merged_when,
    money_change,
    plain,
)
from lanelog.queries import LABELS, WEEKLY, Comparison, CreditBugs, Filters, split_words
from lanelog.reasons import kind
from lanelog.spreadsheet import defused

HEADINGS = LABELS
TOP_REASONS = 5
# A rejected line has no week and no repository, so no filter applies to its count,
# whether the figures come from a database or a lake.
REJECTED_SCOPE = "every line read, whatever the filters"


def _rows(report: dict[str, Any]) -> list[list[str]]:
    keys = list(HEADINGS)
    rows = [[cell(key, week[key]) for key in keys] for week in report["weeks"]]
    rows.append(["total"] + [cell(key, report["totals"][key]) for key in keys[1:]])
    return rows


def table(report: dict[str, Any]) -> str:
    """The weekly figures as an aligned terminal table, totals last."""
    out = aligned(list(HEADINGS.values()), _rows(report))
    out.append(f"rejected lines (not JSON objects, {REJECTED_SCOPE}): {report['rejected_lines']}")
    if "shadow" in report:
        out += shadow_forms.table_lines(report["shadow"])
    return "\n".join(out)


# The figures' columns of the CSV, by the JSON's keys: every weekly figure (queries.WEEKLY), the seed's
# credit_bugs (lines) and the merges apart before the one count.
CSV_FIGURES = ("week", *(figure.key for figure in WEEKLY))
# The money columns of the CSV (queries/money.sql), after the figures', per week; `costs` is
# each currency's total (GBP 0.25; USD 0.625) of a week priced in several, else empty.
CSV_MONEY = ("calls_with_usage", "calls_priced", "input_tokens", "output_tokens", "cost", "currency",
             "cost_per_armed_call", "spend_avoided_estimate", "costs")


def csv_text(report: dict[str, Any]) -> str:
    """One CSV row per week (the undated bucket has an empty week); no total row; CRLF line ends.

    The figures' columns, then the money's, then (with an agent pull request in scope) the outcomes'
    (render/outcomes.py: a week a pull request closed in with no attempt has a row whose figure cells
    are empty), then (with a shadow in scope) the shadow's, a set per shadow policy (render/shadow.py);
    a figure nobody recorded is an empty cell, and a text cell (a currency, from the
    logs) is defused so a spreadsheet never runs it as a formula.
    """
    money = {week["week"]: week for week in report.get("money", {}).get("weeks", [])}
    shadow = report.get("shadow")
    outcomes = report.get("outcomes") if (report.get("outcomes") or {}).get("weeks") else None
    buffer = io.StringIO(newline="")
    # Rows end in CRLF (RFC 4180), so the writer quotes every field holding a carriage return
    # or a line feed: no text from a log can start a row of its own.
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow([*CSV_FIGURES, *CSV_MONEY, *(outcome_forms.CSV_COLUMNS if outcomes is not None else ()),
                     *(shadow_forms.csv_columns(shadow) if shadow is not None else ())])
    for week in _csv_weeks(report["weeks"], outcomes):
        cells = [week.get(key) for key in CSV_FIGURES]
        cells += [_csv_money(money.get(week["week"], {}), key) for key in CSV_MONEY]
        if outcomes is not None:
            cells += outcome_forms.csv_cells(outcomes, week["week"])
        if shadow is not None:
            cells += shadow_forms.csv_cells(shadow, week["week"])
        writer.writerow(["" if cell is None else defused(cell) if isinstance(cell, str) else cell
                         for cell in cells])
    return buffer.getvalue()


def _csv_weeks(weeks: list[dict[str, Any]], outcomes: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The report's weeks, and any week only a pull request's close fell in (dated, in order; undated last)."""
    known = {week["week"] for week in weeks}
    extra = [{"week": row["week"]} for row in (outcomes or {}).get("weeks", []) if row["week"] not in known]
    if not extra:
        return weeks
    dated = sorted([week for week in weeks if week["week"] is not None] + extra, key=lambda week: week["week"])
    return dated + [week for week in weeks if week["week"] is None]


def _csv_money(row: dict[str, Any], key: str) -> Any:
    if key == "costs":
        costs = row.get("costs")
        return "; ".join(f"{entry['currency']} {entry['cost']!r}" for entry in costs) if costs else None
    return row.get(key)


def _week_over_week(digest: dict[str, Any] | None) -> list[str]:
    """The latest week against the week before: every figure, then the money (queries/digest.py)."""
    if digest is None or digest["week_before"] is None:
        return ["Fewer than two dated weeks in range: no change to show."]
    before, latest = digest["week_before"], digest["week"]
    heading = Comparison({"week": latest}, {"week": before}).heading()
    out = [f"{heading}:", "", f"| figure | {before} | {latest} | change |", "|---|---:|---:|---:|"]
    for key in HEADINGS:
        row = digest["figures"].get(key)
        if row is None:
            continue
        out.append(f"| {HEADINGS[key]} | {plain(row['before'])} | {plain(row['value'])} | {change(row['change'])} |")
    money = digest["money"]
    out.append(f"| cost | {cost_cell(money['before'], money['before_currency'], md)} | "
               f"{cost_cell(money['cost'], money['currency'], md, money.get('note'))} | "
               f"{money_change(money['change'], money['currency'], md)} |")
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


def markdown(report: dict[str, Any], credit: CreditBugs | None,
             reasons: list[dict[str, Any]], filters: Filters, digest: dict[str, Any] | None = None) -> str:
    """The weekly spend review, ready to paste: figures, change (the digest's), credit bugs, top reasons."""
    out = ["# Weekly spend review", "", _scope_line(filters), "", "## Figures", "",
           *markdown_table(list(HEADINGS.values()), _rows(report))]
    out += ["", f"Rejected lines (not JSON objects, {REJECTED_SCOPE}): {report['rejected_lines']}.",
            "", "## Week over week", "", *_week_over_week(digest),
            "", "## Patch rejects and armed calls", "", *_gate_lines(report["totals"], reasons),
            "", *_credit_lines(credit)]
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
        out += shadow_forms.markdown_lines(report["shadow"])
    return "\n".join(out)


def _credit_lines(credit: CreditBugs | None) -> list[str]:
    """The credit-bug section: the one count in its heading, its split named, every bug of both kinds."""
    total = credit.total if credit is not None else 0
    out = [f"## Credit bugs ({total})", ""]
    if credit is None or not total:
        return out + ["None in range. Quarantined attempts without merge credit are expected, not incidents."]
    out += [f"{split_words(credit.counts()).capitalize()}.", ""]
    for merge in credit.merges:
        how = "auto-merge" if merge["auto_merge"] else f"merged by {md(merge['merged_by'])}"
        out.append(f"- **{md(merge['pr_repository'])}#{merge['pr_number']}** ({md_link(merge['pr_url'])}), "
                   f"{how} {merged_when(merge, md)} over quarantine {md(merge['quarantine'])}: "
                   + ("nobody said the quarantine may go" if merge["person_merged"]
                      else "always a credit bug, whatever anyone said"))
    for bug in credit.lines:
        out.append(
            f"- **{md(bug['attempt_id'])}** at {md(bug['ts'])}, repo {md(bug['repo'])}, "
            f"head {md(bug['head'])}, producer {md(bug['producer'])}: merge credit "
            f"{md(bug['merge_credit'])} with quarantine {md(bug['quarantine'])} "
            f"({md(bug['source'])}:{bug['line_no']})"
        )
    return out


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
