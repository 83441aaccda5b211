"""The weekly figures and every view's data, from the SQL in ``queries/*.sql``.

Each public function takes an open DuckDB connection (opened by ``lanelog.store``) and a
``Filters``.  Functions named in the interface contract return pandas DataFrames;
``report`` and ``check`` return plain JSON-ready dicts and never import pandas, so
the CLI stays fast.  Weeks are Mondays (UTC); ``week`` is NaT/None for the undated
bucket, which always comes after the dated weeks and is never filtered out by dates.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from lanelog.errors import QueryError
from lanelog.queries.figures import FIGURES as FIGURES  # the package's interface: re-exported
from lanelog.queries.figures import LABELS as LABELS
from lanelog.queries.figures import Comparison as Comparison
from lanelog.queries.figures import compare_latest as compare_latest
from lanelog.queries.figures import label as label
from lanelog.reasons import SETUP_REASONS
from lanelog.store.sqlfile import Query, load_folder

if TYPE_CHECKING:
    import duckdb
    import pandas as pd

QUERIES: dict[str, Query] = load_folder(Path(__file__).parent)
ROW_LIMIT = 1000  # rows listed by the data-health views; counts are never limited


@dataclass(frozen=True)
class Filters:
    """The scope of every figure: weeks touching [since, until] (inclusive) and one repo."""

    since: date | None = None
    until: date | None = None
    repo: str | None = None

    def __post_init__(self) -> None:
        for name in ("since", "until"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, datetime) or not isinstance(value, date)):
                raise QueryError(f"{name} must be a date, not {value!r}")
        if self.since and self.until and self.since > self.until:
            raise QueryError(f"since {self.since} is after until {self.until}")
        if self.repo is not None and not isinstance(self.repo, str):
            raise QueryError(f"repo must be a string, not {self.repo!r}")

    @classmethod
    def parse(cls, since: str | None = None, until: str | None = None,
              repo: str | None = None) -> Filters:
        """Filters from text (CLI options, URL query strings); a bad date names itself."""
        return cls(_parse_day("since", since), _parse_day("until", until), repo or None)

    def bound(self) -> dict[str, Any]:
        """The values every scoped query binds as $since, $until and $repo."""
        return {"since": self.since, "until": self.until, "repo": self.repo}


def _parse_day(name: str, text: str | None) -> date | None:
    if text is None or text == "":
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise QueryError(f"bad date for {name}: {text!r} (expected YYYY-MM-DD)") from None


def _query(name: str) -> Query:
    query = QUERIES.get(name)
    if query is None:
        raise QueryError(f"no query named {name!r}; known: {', '.join(sorted(QUERIES))}")
    return query


# Values some queries bind that are the project's own definitions, not a caller's choice.
CONSTANTS: dict[str, Any] = {"setup_reasons": sorted(SETUP_REASONS)}


def _scope(name: str, filters: Filters | None) -> dict[str, Any]:
    """The filter values a query binds (none for the queries no filter applies to), and its constants."""
    params = _query(name).params
    values = (filters or Filters()).bound() if "since" in params else {}
    return {**values, **{key: value for key, value in CONSTANTS.items() if key in params}}


def _install_macros(con: duckdb.DuckDBPyConnection, query: Query) -> None:
    """The temporary macros a query reads: scope.sql's in_scope always, undated_why where used."""
    QUERIES["scope"].run(con)
    if "undated_why(" in query.sql:  # Data health's words for an undated attempt
        QUERIES["undated_why"].run(con)


def execute(con: duckdb.DuckDBPyConnection, name: str, **values: Any) -> duckdb.DuckDBPyConnection:
    """Run the named query with its parameters bound; the result is pending on ``con``."""
    query = _query(name)
    query.bind(values)  # (refused before scope.sql's macro is installed)
    _install_macros(con, query)
    return query.execute(con, **values)


@runtime_checkable
class RowSource(Protocol):
    """Another engine that runs the named queries (queries/spark_lake.py): rows as dicts."""

    def query_rows(self, name: str, values: dict[str, Any]) -> list[dict[str, Any]]: ...


def records(con: duckdb.DuckDBPyConnection | RowSource, name: str, filters: Filters | None = None,
            **values: Any) -> list[dict[str, Any]]:
    """The named query's rows as dicts, without pandas (on DuckDB, or on another RowSource)."""
    if isinstance(con, RowSource):
        return con.query_rows(name, _query(name).bind({**_scope(name, filters), **values}))
    query = _query(name)
    _install_macros(con, query)
    return query.records(con, **_scope(name, filters), **values)


def _together(con: duckdb.DuckDBPyConnection | RowSource, filters: Filters | None, names: tuple[str, ...]) -> None:
    """On an engine that answers several queries in one pass (Spark: one job), ask these now.

    records() then reads each one's rows from that pass; a query left out of names still runs, alone.
    """
    prefetch = getattr(con, "prefetch", None)
    if isinstance(con, RowSource) and prefetch is not None:
        prefetch({name: _query(name).bind(_scope(name, filters)) for name in names})


def _frame(con: duckdb.DuckDBPyConnection, name: str, filters: Filters | None,
           **values: Any) -> pd.DataFrame:
    query = _query(name)
    _install_macros(con, query)
    return query.frame(con, **_scope(name, filters), **values)


def weekly(con: duckdb.DuckDBPyConnection, filters: Filters | None = None) -> pd.DataFrame:
    """week, attempts, probe_rejects, calls_armed, credit_bugs, quarantined, units, armed_per_reject."""
    frame = _frame(con, "figures", filters)
    weeks = frame[~frame["is_total"] & ~frame["by_repo"]]
    return weeks[["week", *FIGURES, "armed_per_reject"]].reset_index(drop=True)


def _number(value: float | None) -> int | float | None:
    """JSON-ready units: whole numbers as int; a sum too large for a double as null."""
    if value is None or not math.isfinite(value):
        return None
    return int(value) if float(value).is_integer() else float(value)


def _figures(row: dict[str, Any]) -> dict[str, Any]:
    out = {key: row[key] for key in FIGURES}
    out["units"] = _number(row["units"])
    out["armed_per_reject"] = row["armed_per_reject"]
    return out


def totals(con: duckdb.DuckDBPyConnection, filters: Filters | None = None) -> dict[str, Any]:
    """The figures over every week in scope, the undated bucket included."""
    return _figures(_total_row(records(con, "figures", filters)))


def _total_row(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return next(row for row in rows if row["is_total"])


# The queries report() reads, and its money section's (queries/costs.py).
REPORT_QUERIES = ("figures", "rejected_line_count", "shadow_figures", "shadow_errors")
MONEY_QUERIES = ("money_currencies", "money_by_property")


def report(con: duckdb.DuckDBPyConnection | RowSource, filters: Filters | None = None, *,
           with_money: bool = False) -> dict[str, Any]:
    """The JSON contract of ``lanelog report --format json`` (see the README).

    with_money: the report's ``money`` section too, last, from the same pass over the attempts.
    """
    _together(con, filters, REPORT_QUERIES + (MONEY_QUERIES if with_money else ()))
    rows = records(con, "figures", filters)
    weeks = [
        {"week": row["week"].isoformat() if row["week"] else None, **_figures(row)}
        for row in rows if not row["is_total"] and not row["by_repo"]
    ]
    rejected = records(con, "rejected_line_count")[0]["rejected_lines"]
    out: dict[str, Any] = {"weeks": weeks, "totals": _figures(_total_row(rows)), "rejected_lines": rejected}
    shadow = shadow_report(con, filters)
    if shadow is not None:
        out["shadow"] = shadow
    if with_money:
        from lanelog.queries.costs import money_figures

        out["money"] = money_figures(con, filters, rows)
    return out


SHADOW_FIGURES = ("attempts", "probe_rejects", "shadow_probe_rejects", "calls_armed", "shadow_calls_armed",
                  "flips")


def shadow_report(con: duckdb.DuckDBPyConnection | RowSource,
                  filters: Filters | None = None) -> dict[str, Any] | None:
    """The live shadow (`route --shadow`) per shadow policy, and its errors; None when no line in scope has one.

    ``policies``: one entry per policy digest (``policy_sha256``, None for a shadow that
    named none), newest first by its last attempt, each with its ``weeks`` and ``totals``
    over the attempts decided under it, live beside shadow; shadows of different policies
    are never summed.  ``errors``: the attempts whose shadow is an error (no decision: its
    policy could not be used), counted apart, in ``attempts``, per ``reasons`` and per week.
    """
    rows = records(con, "shadow_figures", filters)
    failed = records(con, "shadow_errors", filters)
    if not rows and not failed:
        return None
    policies: dict[str | None, dict[str, Any]] = {}
    newest: dict[str | None, Any] = {}
    for row in rows:
        entry = policies.setdefault(row["policy"], {"policy_sha256": row["policy"], "weeks": [], "totals": {}})
        figures = {key: row[key] for key in SHADOW_FIGURES}
        if row["is_total"]:
            entry["totals"] = figures
            newest[row["policy"]] = row["last_ts"]
        else:
            entry["weeks"].append({"week": row["week"].isoformat() if row["week"] else None, **figures})
    # Newest policy first (the candidate CI decides by now), an undated one last; equals by digest.
    by_digest = sorted(policies, key=lambda policy: (policy is None, policy or ""))
    order = sorted(by_digest, key=lambda policy: newest[policy] or datetime.min, reverse=True)
    reasons: dict[str, int] = {}
    weeks: dict[str | None, int] = {}
    for row in failed:
        reasons[row["reason"]] = reasons.get(row["reason"], 0) + row["attempts"]
        week = row["week"].isoformat() if row["week"] else None
        weeks[week] = weeks.get(week, 0) + row["attempts"]
    errors = {"attempts": sum(reasons.values()), "reasons": dict(sorted(reasons.items())),
              "weeks": [{"week": week, "attempts": count} for week, count in weeks.items()]}
    return {"policies": [policies[policy] for policy in order], "errors": errors}


def shadow_flips(con: duckdb.DuckDBPyConnection | RowSource, filters: Filters | None = None,
                 limit: int = ROW_LIMIT) -> list[dict[str, Any]]:
    """The attempts whose probe the shadow policy would flip, newest first (at most ``limit``)."""
    return records(con, "shadow_flips", filters, limit=limit)


def money(con: duckdb.DuckDBPyConnection | RowSource, filters: Filters | None = None) -> dict[str, Any]:
    """The report's money section: tokens and cost per week, property and repo (queries/costs.py)."""
    from lanelog.queries.costs import money_figures

    return money_figures(con, filters)


def check(con: duckdb.DuckDBPyConnection, filters: Filters | None = None) -> dict[str, Any]:
    """The seed's alert: credit-bug rows (the alert) and the audit's warnings, as dicts."""
    return {
        "credit_bugs": records(con, "credit_bug_rows", filters),
        "warnings": records(con, "audit", filters),
    }


def reject_reasons(con: duckdb.DuckDBPyConnection, filters: Filters | None = None) -> pd.DataFrame:
    """week, reason, attempts: probe rejects per reason code."""
    return _frame(con, "reject_reasons", filters)


def credit_bug_rows(con: duckdb.DuckDBPyConnection, filters: Filters | None = None) -> pd.DataFrame:
    """week, ts, attempt_id, repo, head, producer, quarantine, merge_credit, source, line_no, raw."""
    return _frame(con, "credit_bug_rows", filters)


def audit(con: duckdb.DuckDBPyConnection, filters: Filters | None = None) -> pd.DataFrame:
    """rule, week, ts, attempt_id, repo, producer, source, line_no, detail."""
    return _frame(con, "audit", filters)


def spend_by_property(con: duckdb.DuckDBPyConnection, filters: Filters | None = None) -> pd.DataFrame:
    """week, property, calls_armed, units."""
    return _frame(con, "spend_by_property", filters)


def spend_by_repo(con: duckdb.DuckDBPyConnection, filters: Filters | None = None) -> pd.DataFrame:
    """week, repo, calls_armed, units."""
    return _frame(con, "spend_by_repo", filters)


def freezes(con: duckdb.DuckDBPyConnection, filters: Filters | None = None) -> pd.DataFrame:
    """quarantine_id, week, attempts."""
    return _frame(con, "freezes", filters)


def freeze_summary(con: duckdb.DuckDBPyConnection, filters: Filters | None = None) -> pd.DataFrame:
    """quarantine_id, attempts, first_seen, last_seen, expired_reports."""
    return _frame(con, "freeze_summary", filters)


def producers(con: duckdb.DuckDBPyConnection, filters: Filters | None = None) -> pd.DataFrame:
    """producer, attempts, probe_rejects, armed, neither: every attempt accounted for."""
    return _frame(con, "producers", filters)


def freeze_owners(con: duckdb.DuckDBPyConnection, filters: Filters | None = None) -> pd.DataFrame:
    """quarantine_id, owner, expires: from the lines' `freezes` objects, the latest line's word."""
    return _frame(con, "freeze_owners", filters)


def lanes_weekly(con: duckdb.DuckDBPyConnection, filters: Filters | None = None) -> pd.DataFrame:
    """week, lane, attempts."""
    return _frame(con, "lanes_weekly", filters)


def unresolved_units(con: duckdb.DuckDBPyConnection, filters: Filters | None = None) -> pd.DataFrame:
    """week, lanes_run, unresolved, unresolved_share, units."""
    return _frame(con, "unresolved_units", filters)


def property_results(con: duckdb.DuckDBPyConnection, filters: Filters | None = None) -> pd.DataFrame:
    """property, hold, fail, unresolved."""
    return _frame(con, "property_results", filters)


def repos(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Every repo named in the database, sorted."""
    return [row["repo"] for row in records(con, "repo_names")]


def sources(con: duckdb.DuckDBPyConnection, filters: Filters | None = None) -> pd.DataFrame:
    """Each log read (filters do not apply: a log is not in a week or a repo)."""
    return _frame(con, "sources", filters)


def rejected_lines(con: duckdb.DuckDBPyConnection, filters: Filters | None = None,
                   limit: int = ROW_LIMIT) -> pd.DataFrame:
    """source, line_no, byte_offset, reason, text (filters do not apply: no week, no repo)."""
    return _frame(con, "rejected_lines", filters, limit=limit)


def type_anomalies(con: duckdb.DuckDBPyConnection, filters: Filters | None = None) -> pd.DataFrame:
    """field, attempts."""
    return _frame(con, "type_anomalies", filters)


def undated(con: duckdb.DuckDBPyConnection, filters: Filters | None = None,
            limit: int = ROW_LIMIT) -> pd.DataFrame:
    """source, line_no, attempt_id, repo, why, raw of attempts without a usable ts."""
    return _frame(con, "undated", filters, limit=limit)


def undated_counts(con: duckdb.DuckDBPyConnection, filters: Filters | None = None) -> dict[str, int]:
    """undated, out_of_range: attempts in scope without a usable ts, and those dated outside the range."""
    return records(con, "undated_counts", filters)[0]
