"""What became of each agent pull request, and what the money bought: the report's ``outcomes``.

From queries/outcomes.sql's rows (one per pull request some routed attempt names), as plain
JSON-ready dicts on any engine.  The rules, stated once here and in docs/report.md:

- A pull request is merged, closed without merge, or open (no outcome line yet), by its latest
  outcome line (a merge line before any other); it falls in the week it closed, and was opened in the
  week of its first attempt.  A close ingest could not date is in no week and never open; its merge
  is judged in every range.
  ``open`` is open now; a week's ``open_at_week_end`` counts every pull request open when the week
  ended; ``stale_open`` those open now whose first attempt ran ``--stale-days`` days or more before
  the report's last day; ``cohorts`` what became of the pull requests opened each week.
- ``merge_rate`` is merged / (merged + closed_without_merge), its denominator given beside it:
  a pull request still open is in neither.
- ``cost_per_merged_pr`` is what all the attempts of the pull requests merged in the week cost,
  over those merged whose cost is known; one whose armed calls did not all record a cost (or
  recorded two currencies) is counted in ``merged_cost_unknown``, never as costing nothing.  Every
  figure is counted in SQL (outcomes.sql's ``outcome_groups``, per week closed, agent, repository and
  in total, and ``outcome_weeks``, per week and opening week), so both engines count alike; here they
  are only put in the report's shape.
- A merge whose times contradict each other (closed or merged before its first attempt) is left out
  of ``median_hours_to_merge`` and named in ``contradicting_times``.
- A merge gives the pull request's last routed attempt merge credit, the verdict taken at the merge:
  the last attempt up to it (an attempt routed after the merge changes nothing).  It is a **credit
  bug** when that attempt had a live quarantine, unless a person other than the pull request's author
  said otherwise: an approving review submitted by the merge, of the commit that merged (the
  outcome's head; a review with no commit, or an outcome with no head: submitted after the
  attempt), or the label ``lanelog:accept-quarantine`` set by a
  person by the merge, not through an app, and still on the pull request at the merge; those are
  **reviewed exceptions**.  A review dismissed or superseded, submitted after the merge, or of an
  older commit never counts.  A merge by auto-merge, by a bot or by the author over a live
  quarantine is always a credit bug (``person_merged`` false: no approval would have changed it).
  A person is an account of type User whose login does not end in ``[bot]``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from typing import TYPE_CHECKING, Any

from lanelog.money import money_value
from lanelog.queries.engine import records
from lanelog.queries.filters import Filters
from lanelog.queries.named import SQL
from lanelog.queries.periods import today_or_now
from lanelog.times import monday

if TYPE_CHECKING:
    from lanelog.queries.engine import Readable

MERGE_RATE_RULE = ("merge_rate is merged / (merged + closed_without_merge); pull requests still open are in "
                   "neither, and merge_rate_denominator says how many closed")
# The two rules in the review's words (the text and markdown forms name no JSON key).
RULE_WORDS = ("Merge rate is merged / (merged + closed unmerged): a pull request still open is in neither. "
              "Cost per merged PR is what every attempt of the merged pull requests cost, over those whose cost "
              "is known; one whose armed calls did not all record a cost is counted as unknown, never as costing "
              "nothing")
COST_RULE = ("cost_per_merged_pr is what every attempt of the pull requests merged in the week cost, over "
             "those whose cost is known; merged_cost_unknown counts those whose armed calls did not all "
             "record a cost in one currency, never as costing nothing")
# How long a pull request may stay open from its first attempt before it is stale (`report --stale-days`).
STALE_DAYS = 14


@dataclass(frozen=True)
class PullRequest:
    """One agent pull request: its attempts' figures and its latest outcome (queries/outcomes.sql)."""

    row: dict[str, Any]

    def __getattr__(self, key: str) -> Any:
        # Only a column's name is looked up in the row: never `row` itself, nor a dunder that pickle or copy
        # asks for before the row is there (a cached page keeps these).
        if key == "row" or key.startswith("__"):
            raise AttributeError(key)
        try:
            return self.row[key]
        except KeyError:
            raise AttributeError(key) from None

    @property
    def closed_week(self) -> date | None:
        return monday(self.row["closed_ts"].date()) if self.row["closed_ts"] is not None else None

    def verdict(self) -> str | None:
        """credit_bug, reviewed_exception, or None (not merged over a live quarantine): outcomes.sql's judgement."""
        return self.row["verdict"]  # type: ignore[no-any-return]

    def people_said(self) -> list[str]:
        """Who said the quarantine may go (outcomes.sql's said_by): people's approvals of the merged commit, the
        accept label set by one, each by the merge."""
        return list(self.row["said_by"] or [])


def pull_requests(source: Readable, filters: Filters | None = None) -> list[PullRequest]:
    """Every agent pull request of the repository (all weeks: a merge counts all its attempts), each saying
    whether it opened and closed in scope."""
    return [PullRequest(row) for row in records(source, SQL.pull_request_rows, filters)]


def stale_before(filters: Filters | None, today: date | None = None, days: int = STALE_DAYS) -> date:
    """The day a pull request still open must have first been tried before to be stale: `days` before the
    report's last day (--until, else today)."""
    last = filters.until if filters is not None and filters.until is not None else today_or_now(today)
    return last - timedelta(days=days)


# The figures of a group no pull request is counted in (outcome_groups has no row for it).
_NONE: dict[str, Any] = {
    "pull_requests": 0, "merged": 0, "closed_without_merge": 0, "open": 0, "stale_open": 0, "first_try_merges": 0,
    "rejected_then_merged": 0, "merge_credit_bugs": 0, "reviewed_exceptions": 0, "median_hours_to_merge": None,
    "merged_cost_known": 0, "merged_cost_unknown": 0, "closed_cost_unknown": 0, "merge_rate": None,
    "merge_rate_denominator": 0, "first_try_rate": None, "cost_coverage": None,
    "costs_in_several_currencies": False, "currency": None, "cost_per_merged_pr": None,
    "spend_closed_without_merge": None}


def _share(value: float | None) -> float | None:
    return round(value, 4) if value is not None else None


def _figures(row: dict[str, Any] | None) -> dict[str, Any]:
    """The figures of the pull requests merged and closed without merge in a week, an agent's or a repository's:
    outcome_groups' row of the group, in the report's order and numbers."""
    row = row or _NONE
    hours = row["median_hours_to_merge"]
    return {
        "merged": int(row["merged"]), "merged_cost_known": int(row["merged_cost_known"]),
        "cost_coverage": _share(row["cost_coverage"]), "closed_without_merge": int(row["closed_without_merge"]),
        "merge_rate": _share(row["merge_rate"]), "merge_rate_denominator": int(row["merge_rate_denominator"]),
        "cost_per_merged_pr": money_value(row["cost_per_merged_pr"]),
        "merged_cost_unknown": int(row["merged_cost_unknown"]),
        "currency": row["currency"],
        "costs_in_several_currencies": bool(row["costs_in_several_currencies"]),
        "spend_closed_without_merge": money_value(row["spend_closed_without_merge"]),
        "closed_cost_unknown": int(row["closed_cost_unknown"]),
        "median_hours_to_merge": round(float(hours), 2) if hours is not None else None,
        "rejected_then_merged": int(row["rejected_then_merged"]),
        "merge_credit_bugs": int(row["merge_credit_bugs"]),
        "reviewed_exceptions": int(row["reviewed_exceptions"]),
        "first_try_merges": int(row["first_try_merges"]), "first_try_rate": _share(row["first_try_rate"]),
    }


def _range(row: dict[str, Any] | None) -> dict[str, Any]:
    """A group's figures over the range: merged and closed in it; open now (no outcome line yet), and stale."""
    row = row or _NONE
    return {"pull_requests": int(row["pull_requests"]), **_figures(row), "open": int(row["open"]),
            "stale_open": int(row["stale_open"])}


def _groups(rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """outcome_groups' rows by group: "week", "total", "agent", "repo"."""
    out: dict[str, list[dict[str, Any]]] = {"week": [], "total": [], "agent": [], "repo": []}
    for row in rows:
        out["week" if row["by_week"] else "agent" if row["by_agent"] else "repo" if row["by_repo"] else "total"] \
            .append(row)
    return out


def _week(row: dict[str, Any], closed: dict[str, Any] | None) -> dict[str, Any]:
    """A week's row: the attempts and pull requests opened then, those closed then, those open at its end."""
    return {
        "week": row["week"].isoformat(), "pull_requests_opened": int(row["pull_requests_opened"]),
        **{key: int(row[key]) for key in ("attempts", "probe_rejects", "calls_armed", "lanes_held")},
        **_figures(closed),
        "open_at_week_end": int(row["open_at_week_end"]), "stale_open": int(row["stale_open"]),
    }


def _cohort(row: dict[str, Any]) -> dict[str, Any]:
    """The pull requests opened in a week, and what became of them as of now."""
    return {"week": row["week"].isoformat(), "opened": int(row["pull_requests_opened"]),
            "merged": int(row["cohort_merged"]), "closed_without_merge": int(row["cohort_closed_without_merge"]),
            "open": int(row["cohort_open"])}


def _named_order(name: str) -> Any:
    return lambda row: (row[name] is None, row[name] or "")


def outcome_figures(source: Readable, filters: Filters | None = None, everyone: list[PullRequest] | None = None,
                    stale_days: int = STALE_DAYS, today: date | None = None) -> dict[str, Any]:
    """The report's ``outcomes`` section: per week, in total, by agent, by repository and by opening week (of
    ``everyone``, the pull requests already read, else read here); a pull request still open is stale
    `stale_days` after its first attempt, counted to the report's last day (stale_before)."""
    filters = filters or Filters()
    stale = stale_before(filters, today, stale_days)
    everyone = pull_requests(source, filters) if everyone is None else everyone
    groups = _groups(records(source, SQL.outcome_groups, filters, stale_before=stale))
    closed = {row["closed_week"]: row for row in groups["week"]}
    weeks = records(source, SQL.outcome_weeks, filters, stale_before=stale)
    return {
        "weeks": [_week(row, closed.get(row["week"])) for row in weeks],
        "totals": _range(groups["total"][0] if groups["total"] else None),
        "by_agent": [{"agent": row["agent"], **_range(row)} for row in sorted(groups["agent"],
                                                                                key=_named_order("agent"))],
        "by_repo": [{"repo": row["repo"], **_range(row)} for row in sorted(groups["repo"], key=_named_order("repo"))],
        "cohorts": [_cohort(row) for row in weeks if row["pull_requests_opened"]],
        "stale_days": stale_days,
        "merge_rate_rule": MERGE_RATE_RULE,
        "cost_rule": COST_RULE,
        "contradicting_times": [_named(pr) for pr in everyone if pr.contradicts and pr.closed_in_scope],
    }


def _named(pr: PullRequest) -> dict[str, Any]:
    """A pull request whose times contradict each other, as the report names it."""
    return {"pr_repository": pr.pr_repository, "pr_number": pr.pr_number,
            "first_attempt_at": pr.first_ts.isoformat(), "closed_at": pr.closed_ts.isoformat(),
            "merged_at": pr.merged_at.isoformat() if pr.merged_at is not None else None}


def merge_verdicts(source: Readable, filters: Filters | None = None,
                   everyone: list[PullRequest] | None = None) -> list[dict[str, Any]]:
    """Every merge over a live quarantine closed in range: its verdict (outcomes.sql's), the pull request, who
    merged it (of ``everyone``, the pull requests already read, else read here)."""
    filters = filters or Filters()
    out = []
    for pr in pull_requests(source, filters) if everyone is None else everyone:
        verdict = pr.verdict()
        # A merge whose close ingest could not date is in no week, so in every range (an undated attempt is too).
        undated_merge = pr.state == "merged" and pr.closed_ts is None
        if verdict is None or not (undated_merge or pr.closed_in_scope):
            continue
        out.append({
            "verdict": verdict, "repo": pr.repo, "pr_repository": pr.pr_repository, "pr_number": pr.pr_number,
            "pr_url": pr.outcome_url, "outcome_id": pr.outcome_id, "week": pr.closed_week,
            "merged_at": pr.merged_at or pr.closed_ts, "merged_by": pr.merged_by,
            "merged_by_type": pr.merged_by_type, "auto_merge": bool(pr.auto_merge), "auto_merge_by": pr.auto_merge_by,
            "agent": pr.agent,
            "last_attempt": pr.last_attempt, "last_attempt_ts": pr.last_attempt_ts,
            "person_merged": bool(pr.person_merged),
            "quarantine": list(pr.last_quarantine), "said_by": pr.people_said(),
            "approvals": [review["login"] for review in pr.approvals or []],
        })
    return out
