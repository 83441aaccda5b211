"""The one credit-bug count: the seed's line credit bugs and the merges over a live quarantine, together.

Both kinds are decided in SQL, so DuckDB and Spark agree: a line credit bug by ingest's
``credit_bug`` (truthy merge_credit on an attempt with a truthy quarantine, triage.sql's
``credit_bug_rows``), a merge credit bug by outcomes.sql's ``verdict``.  Every surface that
counts credit bugs (report in each form, the digest, check and its alerts, the Overview and
the triage page) takes the count and the rows from here: the JSON keeps the seed's
``credit_bugs`` (line bugs, as the design note's reader counts them) and states
``merge_credit_bugs`` and ``credit_bugs_total`` beside it; a person reads the total with its
split named.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Any

from lanelog.queries.engine import records
from lanelog.queries.filters import Filters
from lanelog.queries.named import SQL
from lanelog.queries.outcomes import merge_verdicts

if TYPE_CHECKING:
    from lanelog.queries.engine import Readable

CREDIT_BUG, REVIEWED_EXCEPTION = "credit_bug", "reviewed_exception"


@dataclass(frozen=True)
class CreditBugs:
    """Every credit bug in a scope: attempts given merge credit while quarantined (``lines``), and merges
    over a live quarantine nobody said may go (``merges``); the reviewed exceptions beside them, never counted."""

    lines: list[dict[str, Any]]
    merges: list[dict[str, Any]]
    exceptions: list[dict[str, Any]]

    @property
    def total(self) -> int:
        return len(self.lines) + len(self.merges)

    def counts(self) -> dict[str, int]:
        """The three counts as the report's JSON names them."""
        return {"credit_bugs": len(self.lines), "merge_credit_bugs": len(self.merges),
                "credit_bugs_total": self.total}

    def split_words(self) -> str:
        """The total with its split named: "5 (4 attempts given merge credit while quarantined, 1 merge ...)"."""
        return split_words(self.counts())


def split_words(counts: dict[str, Any]) -> str:
    """A count of credit bugs with its split named, from the report's three keys (a week row or the totals):
    "5 credit bugs (4 attempts given merge credit while quarantined, 1 pull request merged over a live
    quarantine nobody said may go)"; a kind with none is left out of the split."""
    lines, merges = counts["credit_bugs"], counts.get("merge_credit_bugs") or 0
    total = counts.get("credit_bugs_total", lines + merges)
    noun = "credit bug" if total == 1 else "credit bugs"
    parts = []
    if lines:
        parts.append(f"{lines} {'attempt' if lines == 1 else 'attempts'} given merge credit while quarantined")
    if merges:
        parts.append(f"{merges} {'pull request' if merges == 1 else 'pull requests'} merged over a live "
                     f"quarantine nobody said may go")
    return f"{total} {noun}" + (f" ({', '.join(parts)})" if parts else "")


def _iso(week: date | None) -> str | None:
    return week.isoformat() if week is not None else None


def credit_bugs(source: Readable, filters: Filters | None = None) -> CreditBugs:
    """The credit bugs of a scope, both kinds, with the reviewed exceptions apart."""
    merges = merge_verdicts(source, filters)
    return CreditBugs(records(source, SQL.credit_bug_rows, filters), merge_bugs(merges),
                      [merge for merge in merges if merge["verdict"] == REVIEWED_EXCEPTION])


def merge_bugs(merges: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The merges over a live quarantine (outcomes.merge_verdicts) that are credit bugs."""
    return [merge for merge in merges if merge["verdict"] == CREDIT_BUG]


def with_merge_counts(weeks: list[dict[str, Any]], totals: dict[str, Any], merges: list[dict[str, Any]]) -> None:
    """Each week row and the totals given merge_credit_bugs and credit_bugs_total beside the seed's credit_bugs
    (the line credit bugs the figures count), from the scope's merge credit bugs."""
    by_week = Counter(_iso(merge["week"]) for merge in merges)
    for row in weeks:
        row["merge_credit_bugs"] = by_week.get(row["week"], 0)
        row["credit_bugs_total"] = row["credit_bugs"] + row["merge_credit_bugs"]
    totals["merge_credit_bugs"] = len(merges)
    totals["credit_bugs_total"] = totals["credit_bugs"] + len(merges)
