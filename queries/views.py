"""The pages' tables: each figure's rows as a pandas DataFrame, on DuckDB (FRAMES).

Each takes a DuckDB connection (or its engine) and a ``Filters``; the docstring lists
the columns.  DuckDB imports pandas only when a frame is made, so importing this
module costs the CLI nothing.
"""

from __future__ import annotations

from collections import Counter
from datetime import date
from typing import TYPE_CHECKING, Any

from lanelog.queries.credit import merge_bugs
from lanelog.queries.engine import frame, records
from lanelog.queries.figures import FIGURES
from lanelog.queries.filters import Filters
from lanelog.queries.named import SQL
from lanelog.queries.outcomes import merge_verdicts
from lanelog.queries.shadow import ROW_LIMIT

if TYPE_CHECKING:
    import pandas as pd

    from lanelog.queries.engine import Readable


def weekly(source: Readable, filters: Filters | None = None) -> pd.DataFrame:
    """week, attempts, probe_rejects, ..., units, armed_per_reject, merge_credit_bugs, credit_bugs_total (the
    figures of every week, as the report's rows)."""
    found = frame(source, SQL.figures, filters)
    weeks = found[~found["is_total"] & ~found["by_repo"]][["week", *FIGURES, "armed_per_reject"]].reset_index(drop=True)
    by_week = Counter(merge["week"].isoformat() if merge["week"] is not None else None
                      for merge in merge_bugs(merge_verdicts(source, filters)))
    # The undated week is NaT or None in a frame: neither is a date.
    weeks["merge_credit_bugs"] = [by_week.get(week.isoformat() if isinstance(week, date) else None, 0)
                                  for week in weeks["week"]]
    weeks["credit_bugs_total"] = weeks["credit_bugs"] + weeks["merge_credit_bugs"]
    return weeks


def reject_reasons(source: Readable, filters: Filters | None = None) -> pd.DataFrame:
    """week, reason, attempts: probe rejects per reason code."""
    return frame(source, SQL.reject_reasons, filters)


def credit_bug_rows(source: Readable, filters: Filters | None = None) -> pd.DataFrame:
    """week, ts, attempt_id, repo, head, producer, quarantine, merge_credit, source, line_no, raw."""
    return frame(source, SQL.credit_bug_rows, filters)


def audit(source: Readable, filters: Filters | None = None) -> pd.DataFrame:
    """rule, week, ts, attempt_id, repo, producer, source, line_no, detail."""
    return frame(source, SQL.audit, filters)


def spend_by_property(source: Readable, filters: Filters | None = None) -> pd.DataFrame:
    """week, property, calls_armed, units."""
    return frame(source, SQL.spend_by_property, filters)


def spend_by_repo(source: Readable, filters: Filters | None = None) -> pd.DataFrame:
    """week, repo, calls_armed, units."""
    return frame(source, SQL.spend_by_repo, filters)


def freezes(source: Readable, filters: Filters | None = None) -> pd.DataFrame:
    """quarantine_id, week, attempts."""
    return frame(source, SQL.freezes, filters)


def freeze_summary(source: Readable, filters: Filters | None = None) -> pd.DataFrame:
    """quarantine_id, attempts, first_seen, last_seen, expired_reports."""
    return frame(source, SQL.freeze_summary, filters)


def producers(source: Readable, filters: Filters | None = None) -> pd.DataFrame:
    """producer, attempts, probe_rejects, armed, neither: every attempt accounted for."""
    return frame(source, SQL.producers, filters)


def freeze_owners(source: Readable, filters: Filters | None = None) -> pd.DataFrame:
    """quarantine_id, owner, expires: from the lines' `freezes` objects, the latest line's word."""
    return frame(source, SQL.freeze_owners, filters)


def lanes_weekly(source: Readable, filters: Filters | None = None) -> pd.DataFrame:
    """week, lane, attempts."""
    return frame(source, SQL.lanes_weekly, filters)


def unresolved_units(source: Readable, filters: Filters | None = None) -> pd.DataFrame:
    """week, lanes_run, unresolved, unresolved_share, units."""
    return frame(source, SQL.unresolved_units, filters)


def property_results(source: Readable, filters: Filters | None = None) -> pd.DataFrame:
    """property, hold, fail, unresolved."""
    return frame(source, SQL.property_results, filters)


def repos(source: Readable, filters: Filters | None = None) -> list[str]:
    """Every repo named in the database, sorted (the sidebar's choice: no filter applies)."""
    return [row["repo"] for row in records(source, SQL.repo_names)]


def sources(source: Readable, filters: Filters | None = None) -> pd.DataFrame:
    """Each log read (filters do not apply: a log is not in a week or a repo)."""
    return frame(source, SQL.sources, filters)


def rejected_lines(source: Readable, filters: Filters | None = None, limit: int = ROW_LIMIT) -> pd.DataFrame:
    """source, line_no, byte_offset, reason, text (filters do not apply: no week, no repo)."""
    return frame(source, SQL.rejected_lines, filters, limit=limit)


def type_anomalies(source: Readable, filters: Filters | None = None) -> pd.DataFrame:
    """field, attempts."""
    return frame(source, SQL.type_anomalies, filters)


def undated(source: Readable, filters: Filters | None = None, limit: int = ROW_LIMIT) -> pd.DataFrame:
    """source, line_no, attempt_id, repo, why, raw of attempts without a usable ts."""
    return frame(source, SQL.undated, filters, limit=limit)


def undated_outcomes(source: Readable, filters: Filters | None = None, limit: int = ROW_LIMIT) -> pd.DataFrame:
    """source, line_no, pr_repository, pr_number, state, why, raw, total of outcome lines without a usable ts
    (filters do not apply: such a line is in no week)."""
    return frame(source, SQL.undated_outcomes, filters, limit=limit)


def undated_counts(source: Readable, filters: Filters | None = None) -> dict[str, Any]:
    """undated, out_of_range: attempts in scope without a usable ts, and those dated outside the range."""
    return records(source, SQL.undated_counts, filters)[0]
