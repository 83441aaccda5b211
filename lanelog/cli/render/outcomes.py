"""Text forms of the report's ``outcomes`` section: what became of the agent pull requests, and what
the money bought, as the terminal table, the markdown review and the CSV's columns.

The figures and their rules are lanelog.queries' (queries/outcomes.py); a rate says its
denominator, a cost per merged pull request how many merged ones had no known cost.
"""

from __future__ import annotations

from typing import Any

from lanelog.cli.render.cells import aligned, markdown_table, md, plain
from lanelog.money import money_text
from lanelog.queries import RULE_WORDS

# The weekly funnel and its money, in the order the table shows them.
COLUMNS = (
    ("week", "week"),
    ("pull_requests_opened", "opened"),
    ("attempts", "attempts"),
    ("calls_armed", "armed calls"),
    ("lanes_held", "held"),
    ("merged", "merged"),
    ("first_try_merges", "at first try"),
    ("closed_without_merge", "closed unmerged"),
    ("open_at_week_end", "open at week's end"),
    ("merge_rate", "merge rate"),
    ("cost_per_merged_pr", "cost per merged PR"),
    ("median_hours_to_merge", "hours to merge"),
)
# The CSV's outcome columns, after the money's, per week; the cohort's are of the pull requests opened in the week.
CSV_COLUMNS = ("pull_requests_opened", "merged", "merged_cost_known", "cost_coverage", "closed_without_merge",
               "open_at_week_end", "stale_open", "merge_rate", "merge_rate_denominator", "first_try_merges",
               "first_try_rate", "cost_per_merged_pr", "merged_cost_unknown", "spend_closed_without_merge",
               "median_hours_to_merge", "rejected_then_merged", "merge_credit_bugs", "reviewed_exceptions",
               "cohort_merged", "cohort_closed_without_merge", "cohort_open")
# The cohorts' table: the pull requests opened each week, and what became of them as of now.
COHORT_COLUMNS = (("week", "opened in the week of"), ("opened", "opened"), ("merged", "merged"),
                  ("closed_without_merge", "closed unmerged"), ("open", "open now"))
GROUPS = (("agent", "agent", "by_agent"), ("repo", "repository", "by_repo"))
COHORT_HEADING = "By the week they opened (what became of them, as of now)"


def _rate(row: dict[str, Any]) -> str:
    if row["merge_rate"] is None:
        return "-"
    return f"{row['merge_rate']:.0%} of {row['merge_rate_denominator']}"


def _cost(row: dict[str, Any], escape: Any) -> str:
    if row["costs_in_several_currencies"]:
        return "several currencies"
    if row["cost_per_merged_pr"] is None:
        return "-" if not row["merged"] else "unknown"
    unknown = f" ({row['merged_cost_unknown']} unknown)" if row["merged_cost_unknown"] else ""
    return money_text(row["cost_per_merged_pr"], escape(row["currency"])) + unknown


def _cell(key: str, row: dict[str, Any], escape: Any) -> str:
    if key == "week":
        return row.get("week") or "total"
    if key == "merge_rate":
        return _rate(row)
    if key == "cost_per_merged_pr":
        return _cost(row, escape)
    value = row.get(key)
    return "-" if value is None else escape(value)


def _rows(outcomes: dict[str, Any], escape: Any) -> list[list[str]]:
    rows = [[_cell(key, week, escape) for key, _ in COLUMNS] for week in outcomes["weeks"]]
    # The total has no week's end: its open pull requests are open now, in the sentences below.
    totals = {**outcomes["totals"], "pull_requests_opened": outcomes["totals"]["pull_requests"],
              "open_at_week_end": None}
    return rows + [["total"] + [_cell(key, totals, escape) for key, _ in COLUMNS[1:]]]


GROUP_COLUMNS = (("pull_requests", "pull requests"), ("merged", "merged"), ("first_try_merges", "at first try"),
                 ("closed_without_merge", "closed unmerged"), ("open", "open now"), ("stale_open", "stale"),
                 ("merge_rate", "merge rate"), ("cost_per_merged_pr", "cost per merged PR"),
                 ("rejected_then_merged", "rejected, then merged"))


def _cohort_rows(outcomes: dict[str, Any], escape: Any) -> list[list[str]]:
    return [[escape(row[key]) for key, _ in COHORT_COLUMNS] for row in outcomes.get("cohorts", [])]


def _share(value: float | None, of: int, noun: str) -> str:
    return f"{value:.0%} of {of} {noun}" if value is not None else f"none {noun}"


def _group_rows(rows: list[dict[str, Any]], key: str, escape: Any) -> list[list[str]]:
    return [[escape(row[key]) if row[key] is not None else "(unknown)"]
            + [_cell(name, row, escape) for name, _ in GROUP_COLUMNS] for row in rows]


def _sentences(outcomes: dict[str, Any], escape: Any) -> list[str]:
    totals = outcomes["totals"]
    bugs, exceptions = totals["merge_credit_bugs"], totals["reviewed_exceptions"]
    out = [f"Merged at the first try (one routed attempt): {totals['first_try_merges']}, "
           f"{_share(totals['first_try_rate'], totals['merged'], 'merged')} in range; their cost known for "
           f"{totals['merged_cost_known']}, {_share(totals['cost_coverage'], totals['merged'], 'merged')}.",
           f"Open now (no outcome line yet): {totals['open']}, of which {totals['stale_open']} stale (first attempt "
           f"{outcomes['stale_days']} days or more before the report's last day).",
           f"{totals['rejected_then_merged']} pull request(s) rejected by the probe at first were merged after a "
           "later attempt."]
    if totals["spend_closed_without_merge"] is not None:
        out.append(f"Spent on pull requests closed without merge: "
                   f"{money_text(totals['spend_closed_without_merge'], escape(totals['currency']))}"
                   + (f" ({totals['closed_cost_unknown']} of unknown cost)." if totals["closed_cost_unknown"] else "."))
    out.append(f"{bugs} merge(s) over a live quarantine nobody said may go (credit bugs), {exceptions} reviewed "
               "exception(s).")
    contradicting = outcomes.get("contradicting_times") or []
    if contradicting:
        named = ", ".join(f"{escape(pr['pr_repository'])}#{pr['pr_number']} (closed {escape(pr['closed_at'])}, "
                          f"first attempt {escape(pr['first_attempt_at'])})" for pr in contradicting)
        out.append(f"{len(contradicting)} pull request(s) closed before their first attempt, times that contradict "
                   f"each other, are left out of the median hours to merge: {named}.")
    return out


def table(outcomes: dict[str, Any]) -> str:
    """The agent pull requests' funnel per week, then by agent and repository, for a terminal."""
    out = ["Agent pull requests (what became of them)", *aligned([words for _, words in COLUMNS],
                                                                 _rows(outcomes, plain))]
    for key, words, section in GROUPS:
        if outcomes[section]:
            out += ["", f"By {words}", *aligned([words, *(name for _, name in GROUP_COLUMNS)],
                                                 _group_rows(outcomes[section], key, plain))]
    if outcomes.get("cohorts"):
        out += ["", COHORT_HEADING, *aligned([words for _, words in COHORT_COLUMNS], _cohort_rows(outcomes, plain))]
    return "\n".join([*out, "", *_sentences(outcomes, plain), f"({RULE_WORDS})"])


def markdown(outcomes: dict[str, Any]) -> str:
    """The review's section: the funnel per week, then by agent and by repository, then the rules."""
    out = ["## Agent pull requests", "", *markdown_table([words for _, words in COLUMNS], _rows(outcomes, md))]
    for key, words, section in GROUPS:
        if outcomes[section]:
            out += ["", f"### By {words}", "",
                    *markdown_table([words, *(name for _, name in GROUP_COLUMNS)],
                                    _group_rows(outcomes[section], key, md), bold_total=False)]
    if outcomes.get("cohorts"):
        out += ["", f"### {COHORT_HEADING}", "",
                *markdown_table([words for _, words in COHORT_COLUMNS], _cohort_rows(outcomes, md), bold_total=False)]
    return "\n".join([*out, "", *_sentences(outcomes, md), "", f"_{RULE_WORDS}._"])


def csv_cells(outcomes: dict[str, Any] | None, week: str | None) -> list[Any]:
    """One week's outcome cells, in CSV_COLUMNS' order (empty where the week has none)."""
    found: dict[str, Any] = next((row for row in (outcomes or {}).get("weeks", []) if row["week"] == week), {})
    cohort: dict[str, Any] = next((row for row in (outcomes or {}).get("cohorts", []) if row["week"] == week), {})
    found = {**found, **{f"cohort_{key}": cohort.get(key) for key in ("merged", "closed_without_merge", "open")}}
    return [found.get(key) for key in CSV_COLUMNS]
