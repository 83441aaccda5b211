"""What became of each agent pull request, and what the money bought: the report's ``outcomes``.

From queries/outcomes.sql's rows (one per pull request some routed attempt names), as plain
JSON-ready dicts on any engine.  The rules, stated once here and in docs/report.md:

- A pull request is merged, closed without merge, or open (no outcome line yet), by its latest
  outcome line (a merge line before any other); it falls in the week it closed, and was opened in the
  week of its first attempt.  A close ingest could not date is in no week and never open; its merge
  is judged in every range.
- ``merge_rate`` is merged / (merged + closed_without_merge), its denominator given beside it:
  a pull request still open is in neither.
- ``cost_per_merged_pr`` is what all the attempts of the pull requests merged in the week cost,
  over those merged whose cost is known; one whose armed calls did not all record a cost (or
  recorded two currencies) is counted in ``merged_cost_unknown``, never as costing nothing.  The money
  is summed in SQL (outcomes.sql's ``outcome_money``, per week, agent, repository and in total).
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

import statistics
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any

from lanelog.money import money_value
from lanelog.queries.engine import records
from lanelog.queries.filters import Filters
from lanelog.queries.named import SQL
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
    def opened(self) -> date:
        return monday(self.row["first_ts"].date())

    @property
    def closed_week(self) -> date | None:
        return monday(self.row["closed_ts"].date()) if self.row["closed_ts"] is not None else None

    def closed_by(self, end: datetime) -> bool:
        """Whether it closed before ``end``: a close ingest could not date (closed_ts NULL) has, its time unknown."""
        if self.row["closed_ts"] is None:
            return self.row["state"] is not None
        return bool(self.row["closed_ts"] < end)

    @property
    def merged(self) -> bool:
        return bool(self.row["state"] == "merged")

    @property
    def closed_unmerged(self) -> bool:
        return bool(self.row["state"] == "closed")

    def verdict(self) -> str | None:
        """credit_bug, reviewed_exception, or None (not merged over a live quarantine): outcomes.sql's judgement."""
        return self.row["verdict"]  # type: ignore[no-any-return]

    def people_said(self) -> list[str]:
        """Who said the quarantine may go (outcomes.sql's said_by): people's approvals of the merged commit, the
        accept label set by one, each by the merge."""
        return list(self.row["said_by"] or [])


def pull_requests(source: Readable, filters: Filters | None = None) -> list[PullRequest]:
    """Every agent pull request of the repository in scope (all weeks: a merge counts all its attempts)."""
    return [PullRequest(row) for row in records(source, SQL.pull_request_rows, filters)]


def _in_scope(week: date | None, filters: Filters) -> bool:
    """Whether a week touches [since, until], as in_scope (scope.sql) says of an attempt's."""
    if week is None:
        return False
    return (filters.since is None or week >= filters.since - timedelta(days=6)) and \
        (filters.until is None or week <= filters.until)


# The money figures of a group no pull request closed in (outcome_money has no row for it).
_NO_MONEY: dict[str, Any] = {"cost_per_merged_pr": None, "merged_cost_unknown": 0, "currency": None,
                             "costs_in_several_currencies": False, "spend_closed_without_merge": None,
                             "closed_cost_unknown": 0}


def contradicts(pr: PullRequest) -> bool:
    """Whether a pull request's times contradict each other: it closed (or merged) before its first attempt."""
    first, closed = pr.row["first_ts"], pr.row["closed_ts"]
    merged = pr.row["merged_at"]
    return closed is not None and (closed < first or (merged is not None and merged < first))


def _figures(merged: list[PullRequest], closed: list[PullRequest], money: dict[str, Any] | None) -> dict[str, Any]:
    """The figures of the pull requests merged and closed without merge in a week, an agent's or a repository's;
    their money is outcome_money's row of the same group (outcomes.sql).  A merge whose times contradict each
    other is left out of the median (contradicting_times names it)."""
    money = money or _NO_MONEY
    decided = len(merged) + len(closed)
    hours = [(pr.merged_at or pr.closed_ts) - pr.first_ts for pr in merged if not contradicts(pr)]
    verdicts = [pr.verdict() for pr in merged]
    return {
        "merged": len(merged), "closed_without_merge": len(closed),
        "merge_rate": round(len(merged) / decided, 4) if decided else None, "merge_rate_denominator": decided,
        "cost_per_merged_pr": money_value(money["cost_per_merged_pr"]),
        "merged_cost_unknown": int(money["merged_cost_unknown"]),
        "currency": money["currency"],
        "costs_in_several_currencies": bool(money["costs_in_several_currencies"]),
        "spend_closed_without_merge": money_value(money["spend_closed_without_merge"]),
        "closed_cost_unknown": int(money["closed_cost_unknown"]),
        "median_hours_to_merge": round(statistics.median(hour.total_seconds() / 3600 for hour in hours), 2)
        if hours else None,
        "rejected_then_merged": sum(pr.first_rejected for pr in merged),
        "merge_credit_bugs": verdicts.count("credit_bug"),
        "reviewed_exceptions": verdicts.count("reviewed_exception"),
    }


def _money_rows(source: Readable, filters: Filters) -> dict[tuple[str, Any], dict[str, Any]]:
    """outcome_money's rows by group: ("week", Monday), ("total", None), ("agent", name), ("repo", name)."""
    out = {}
    for row in records(source, SQL.outcome_money, filters):
        group = ("week", row["closed_week"]) if row["by_week"] else ("agent", row["agent"]) if row["by_agent"] \
            else ("repo", row["repo"]) if row["by_repo"] else ("total", None)
        out[group] = row
    return out


def _week(week: date, prs: list[PullRequest], attempts: dict[date, dict[str, Any]],
          money: dict[str, Any] | None) -> dict[str, Any]:
    end = datetime.combine(week + timedelta(days=7), datetime.min.time())
    tried = attempts.get(week, {})
    return {
        "week": week.isoformat(),
        "pull_requests_opened": sum(pr.opened == week for pr in prs),
        **{key: tried.get(key, 0) for key in ("attempts", "probe_rejects", "calls_armed", "lanes_held")},
        **_figures([pr for pr in prs if pr.merged and pr.closed_week == week],
                   [pr for pr in prs if pr.closed_unmerged and pr.closed_week == week], money),
        "open": sum(pr.opened <= week and not pr.closed_by(end) for pr in prs),
    }


def _grouped(prs: list[PullRequest], key: Callable[[PullRequest], Any], name: str,
             filters: Filters, money: dict[tuple[str, Any], dict[str, Any]]) -> list[dict[str, Any]]:
    """The range's figures per agent or repository: its pull requests merged, closed and open."""
    out = []
    for value in sorted({key(pr) for pr in prs}, key=lambda item: (item is None, item or "")):
        mine = [pr for pr in prs if key(pr) == value]
        out.append({name: value, "pull_requests": len(mine), **_range(mine, filters, money.get((name, value)))})
    return out


def _range(prs: list[PullRequest], filters: Filters, money: dict[str, Any] | None) -> dict[str, Any]:
    """Figures over the range: merged and closed in it; open now (the latest outcome is none)."""
    return {**_figures([pr for pr in prs if pr.merged and _in_scope(pr.closed_week, filters)],
                       [pr for pr in prs if pr.closed_unmerged and _in_scope(pr.closed_week, filters)], money),
            "open": sum(pr.row["state"] is None for pr in prs)}


def outcome_figures(source: Readable, filters: Filters | None = None,
                    everyone: list[PullRequest] | None = None) -> dict[str, Any]:
    """The report's ``outcomes`` section: per week, in total, by agent and by repository (of ``everyone``, the
    pull requests already read, else read here)."""
    filters = filters or Filters()
    everyone = pull_requests(source, filters) if everyone is None else everyone
    prs = [pr for pr in everyone if _in_scope(pr.opened, filters) or _in_scope(pr.closed_week, filters)]
    attempts = {row["week"]: row for row in records(source, SQL.pull_request_weeks, filters)}
    weeks = sorted({week for week in _weeks(prs, attempts) if _in_scope(week, filters)})
    money = _money_rows(source, filters)
    return {
        "weeks": [_week(week, everyone, attempts, money.get(("week", week))) for week in weeks],
        "totals": {"pull_requests": len(prs), **_range(prs, filters, money.get(("total", None)))},
        "by_agent": _grouped(prs, lambda pr: pr.agent, "agent", filters, money),
        "by_repo": _grouped(prs, lambda pr: pr.repo, "repo", filters, money),
        "merge_rate_rule": MERGE_RATE_RULE,
        "cost_rule": COST_RULE,
        "contradicting_times": [_named(pr) for pr in prs if contradicts(pr) and _in_scope(pr.closed_week, filters)],
    }


def _named(pr: PullRequest) -> dict[str, Any]:
    """A pull request whose times contradict each other, as the report names it."""
    return {"pr_repository": pr.pr_repository, "pr_number": pr.pr_number,
            "first_attempt_at": pr.first_ts.isoformat(), "closed_at": pr.closed_ts.isoformat(),
            "merged_at": pr.merged_at.isoformat() if pr.merged_at is not None else None}


def _weeks(prs: list[PullRequest], attempts: dict[date, dict[str, Any]]) -> Iterable[date]:
    """Every week something happened to an agent pull request: opened, tried, merged or closed."""
    yield from attempts
    for pr in prs:
        yield pr.opened
        if pr.closed_week is not None:
            yield pr.closed_week


def merge_verdicts(source: Readable, filters: Filters | None = None,
                   everyone: list[PullRequest] | None = None) -> list[dict[str, Any]]:
    """Every merge over a live quarantine closed in range: its verdict (outcomes.sql's), the pull request, who
    merged it (of ``everyone``, the pull requests already read, else read here)."""
    filters = filters or Filters()
    out = []
    for pr in pull_requests(source, filters) if everyone is None else everyone:
        verdict = pr.verdict()
        # A merge whose close ingest could not date is in no week, so in every range (an undated attempt is too).
        undated_merge = pr.merged and pr.closed_week is None
        if verdict is None or not (undated_merge or _in_scope(pr.closed_week, filters)):
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
