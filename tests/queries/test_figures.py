"""Each definition of the weekly figures, hand-computed over rows written into the schema.

The ten attempts below cover every figure, every audit rule and the undated bucket; the
expected numbers in each test were worked out by hand from this table.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from datetime import date, datetime
from typing import Any

import duckdb
import pandas as pd
import pytest

from lanelog import queries
from lanelog.errors import QueryError
from lanelog.queries import Filters
from tests.queries.conftest import attempt

W1, W2, W4 = date(2026, 10, 5), date(2026, 10, 12), date(2026, 10, 26)  # week of 10-19 empty


def spent(prop: str, tokens_in: float, tokens_out: float, cost: float) -> dict[str, Any]:
    """One usage entry as ingest stores it (schema 3's attempts.usage)."""
    return {"property": prop, "input_tokens": tokens_in, "output_tokens": tokens_out, "cost": cost,
            "currency": "USD", "model": "m"}

ROWS = [
    attempt(1, W1, probe="reject", is_reject=True, reasons=["line_cap", "fixture_and_test"],
            lane="not_started", pr_repository="acme/svc", pr_number=1, agent="bot-a", shadow_probe="pass",
            shadow_reasons=[], shadow_units=1.0, shadow_armed=True,
            shadow_policy="ab"),
    attempt(2, W1, probe="reject", is_reject=True, reasons=["line_cap"], armed=True,
            properties=["prop_a"], lane="not_started", shadow_policy="ef", shadow_error="policy_invalid"),
    attempt(3, W1, armed=True, units=2.0, properties=["prop_a", "prop_b"], lane="hold",
            pr_repository="acme/svc", pr_number=1, agent="bot-a",
            shadow_probe="reject", shadow_reasons=["line_cap"], shadow_units=2.0, shadow_armed=False,
            shadow_policy="ab",
            results=json.dumps({"prop_a": "hold", "prop_b": "hold"}),
            usage=[spent("prop_a", 1000, 10, 0.01), spent("prop_b", 500, 5, 0.005)],
            input_tokens=1500.0, output_tokens=15.0, cost=0.015, currency="USD"),
    attempt(4, W1, armed=True, properties=["prop_a", "prop_b", "prop_c"], budget_cap=3.0,
            lane="unresolved",
            results=json.dumps({"prop_a": "hold", "prop_b": "looks fine to me", "prop_c": "hold"})),
    attempt(5, W2, armed=True, units=4.0, budget_cap=3.0, properties=["prop_a"], pr_repository="acme/svc",
            pr_number=2,
            quarantine=["q1"], quarantined=True, lane="fail",
            results=json.dumps({"prop_a": "fail"})),
    attempt(6, W2, ts=datetime(2026, 10, 13, 9, 30), quarantine=["q1"], quarantined=True,
            merge_credit="1", has_credit=True, credit_bug=True, producer="legacy-promoter",
            shadow_error="policy_missing"),
    attempt(7, W4, armed=True, properties=["prop_a", "q2"], quarantine=["q2"], quarantined=True,
            lane="not_started", pr_repository="acme/svc", pr_number=2, agent="bot-b"),
    attempt(8, None, probe="reject", is_reject=True, quarantine=["q3"], quarantined=True,
            merge_credit='"0"', has_credit=True, credit_bug=True, expired_freezes=["q1"],
            type_anomalies=["merge_credit"]),
    attempt(9, None, repo="other", armed=True, units=5.0, lane="unresolved",
            shadow_probe="pass", shadow_reasons=[], shadow_armed=True, shadow_policy="cd",
            results=json.dumps({"prop_z": "unresolved"}), usage=[spent("prop_z", 200, 2, 0.002)],
            input_tokens=200.0, output_tokens=2.0, cost=0.002, currency="USD"),
    attempt(10, W4, probe="reject", is_reject=True, reasons=["over_budget"], units=5.0,
            budget_cap=3.0, lane="not_started", shadow_probe="reject", shadow_reasons=["over_budget"],
            shadow_armed=False, shadow_policy="cd"),
    # `lanelog hook`'s lines (source "hook"): checks in the agents' own loops, none of them among the
    # seed's figures, each a reject or a pass that would move them if it were counted.
    attempt(11, W1, probe="reject", is_reject=True, reasons=["assertion_removed"], source="hook",
            hook_agent="claude-code", hook_session="s1", quarantine=["q9"], quarantined=True),
    attempt(12, W1, ts=datetime(2026, 10, 5, 13), properties=["prop_a"], source="hook", hook_agent="claude-code",
            hook_session="s1", lane="not_started"),
    attempt(13, W2, probe="reject", is_reject=True, reasons=["line_cap"], source="hook", hook_agent="copilot",
            hook_session="c1"),
]
HOOKS = {
    "weeks": [{"week": "2026-10-05", "hook_checks": 2, "hook_rejects": 1},
              {"week": "2026-10-12", "hook_checks": 1, "hook_rejects": 1}],
    "totals": {"hook_checks": 3, "hook_rejects": 2},
    "by_agent": [{"agent": "claude-code", "hook_checks": 2, "hook_rejects": 1, "sessions_refused": 1,
                  "sessions_narrowed": 1},
                 {"agent": "copilot", "hook_checks": 1, "hook_rejects": 1, "sessions_refused": 1,
                  "sessions_narrowed": 0}],
}

KEYS = ("attempts", "probe_rejects", "calls_armed", "credit_bugs", "quarantined", "units",
        "armed_per_reject")


def figures(week: str | None, *values: Any, setup: int = 0) -> dict[str, Any]:
    """A week's figures; `setup` of its probe rejects are setup rejects (none unless given)."""
    row = {"week": week, **dict(zip(KEYS, values))}
    # No row names a pull request: no merge is a credit bug, and the one count is the lines'.
    return {**row, "setup_rejects": setup, "patch_rejects": row["probe_rejects"] - setup, "merge_credit_bugs": 0,
            "credit_bugs_total": row["credit_bugs"]}


def totals(*values: Any, setup: int = 0) -> dict[str, Any]:
    """The totals row: a week's figures without the week."""
    return {key: value for key, value in figures(None, *values, setup=setup).items() if key != "week"}


@pytest.fixture
def con(db: Callable[..., duckdb.DuckDBPyConnection]) -> duckdb.DuckDBPyConnection:
    return db(ROWS, rejected=2)


def records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """DataFrame rows with NaN/NaT as None and weeks as ISO text, for exact comparison."""
    out = []
    for row in frame.to_dict("records"):
        clean = {}
        for key, value in row.items():
            if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NaT:
                value = None
            elif isinstance(value, pd.Timestamp):
                value = value.date().isoformat() if key == "week" else value.isoformat()
            clean[key] = value
        out.append(clean)
    return out


def test_report_per_week_undated_last_empty_week_omitted(con: duckdb.DuckDBPyConnection) -> None:
    assert queries.report(con) == {
        "weeks": [
            figures("2026-10-05", 4, 2, 3, 0, 0, 6, 1.5),
            figures("2026-10-12", 2, 0, 1, 1, 2, 4, None),
            figures("2026-10-26", 2, 1, 1, 0, 1, 2, 1.0),
            figures(None, 2, 1, 1, 1, 1, 5, 1.0),
        ],
        "totals": totals(10, 4, 6, 2, 4, 17, 1.5),
        "rejected_lines": 2,
        "credit_bug_merges": [],
        "shadow": SHADOW,
        "hooks": HOOKS,
    }


def shadow(week: str | None, *values: int) -> dict[str, Any]:
    return {"week": week, **dict(zip(queries.SHADOW_FIGURES, values, strict=True))}


def shadow_totals(*values: int) -> dict[str, Any]:
    return dict(zip(queries.SHADOW_FIGURES, values, strict=True))


# By hand: policy cd over rows 10 (10-26) and 9 (undated), newest first by its last attempt
# (10-26); policy ab over rows 1 and 3 (10-05, both flip).  Rows 2 (10-05) and 6 (10-12) have a
# shadow that is an error: no decision, counted apart and in no figure.
SHADOW = {
    "policies": [
        {"policy_sha256": "cd", "weeks": [shadow("2026-10-26", 1, 1, 1, 0, 0, 0), shadow(None, 1, 0, 0, 1, 1, 0)],
         "totals": shadow_totals(2, 1, 1, 1, 1, 0)},
        {"policy_sha256": "ab", "weeks": [shadow("2026-10-05", 2, 1, 1, 1, 1, 2)],
         "totals": shadow_totals(2, 1, 1, 1, 1, 2)},
    ],
    "errors": {"attempts": 2, "reasons": {"policy_invalid": 1, "policy_missing": 1},
               "weeks": [{"week": "2026-10-05", "attempts": 1}, {"week": "2026-10-12", "attempts": 1}]},
}


def test_shadows_of_two_policies_are_never_summed_and_errors_are_counted_apart(
    con: duckdb.DuckDBPyConnection
) -> None:
    assert queries.shadow_report(con) == SHADOW
    flips = queries.shadow_flips(con)
    # The same time: in file order.  The rows whose shadow is an error flip nothing.
    assert [(row["attempt_id"], row["shadow_policy"]) for row in flips] == [("a1", "ab"), ("a3", "ab")]


def test_weekly_frame_and_totals_match_the_report(con: duckdb.DuckDBPyConnection) -> None:
    full = queries.report(con)
    assert records(queries.weekly(con)) == full["weeks"]
    assert queries.totals(con) == full["totals"]


def test_units_rule(db: Callable[..., duckdb.DuckDBPyConnection]) -> None:
    con = db([
        attempt(1, W1, armed=True, units=2.5, properties=["a", "b", "c"]),  # recorded units
        attempt(2, W1, armed=True, properties=["a", "b"]),  # none recorded: one per property
        attempt(3, W1, armed=True, properties=None),  # no list: nothing to count
        attempt(4, W1, units=7.0, properties=["a"]),  # not armed: nothing spent
        attempt(5, W1, armed=True, units=0.0, properties=["a"]),  # a recorded 0 stays 0
    ])
    assert queries.totals(con)["units"] == 4.5


def test_since_until_select_whole_weeks_and_keep_the_undated_bucket(
    con: duckdb.DuckDBPyConnection,
) -> None:
    def weeks(**bounds: date) -> list[str | None]:
        return [row["week"] for row in queries.report(con, Filters(**bounds))["weeks"]]

    assert weeks(since=date(2026, 10, 18)) == ["2026-10-12", "2026-10-26", None]  # a Sunday
    assert weeks(since=date(2026, 10, 19)) == ["2026-10-26", None]  # the next Monday
    assert weeks(until=date(2026, 10, 12)) == ["2026-10-05", "2026-10-12", None]  # a Monday
    assert weeks(until=date(2026, 10, 11)) == ["2026-10-05", None]
    assert weeks(since=date(2026, 10, 14), until=date(2026, 10, 14)) == ["2026-10-12", None]
    assert weeks(since=date(2027, 1, 1)) == [None]
    assert queries.totals(con, Filters(since=date(2027, 1, 1)))["credit_bugs"] == 1


def test_repo_filters_the_undated_bucket_too(con: duckdb.DuckDBPyConnection) -> None:
    svc = queries.report(con, Filters(repo="svc"))
    assert svc["weeks"][-1] == figures(None, 1, 1, 0, 1, 1, 0, 0.0)
    assert svc["totals"] == totals(9, 4, 5, 2, 4, 12, 1.25)
    assert queries.report(con, Filters(repo="nobody"))["weeks"] == []


def test_an_empty_database_reports_zeros_and_no_ratio(
    db: Callable[..., duckdb.DuckDBPyConnection],
) -> None:
    assert queries.report(db([])) == {
        "weeks": [],
        "totals": totals(0, 0, 0, 0, 0, 0, None),
        "rejected_lines": 0,
        "credit_bug_merges": [],
    }


def test_units_too_large_for_a_double_are_null_in_json(
    db: Callable[..., duckdb.DuckDBPyConnection],
) -> None:
    con = db([attempt(1, W1, armed=True, units=1e308), attempt(2, W1, armed=True, units=1e308)])
    figures_json = json.dumps(queries.report(con), allow_nan=False)
    assert json.loads(figures_json)["totals"]["units"] is None


def test_reject_reasons(con: duckdb.DuckDBPyConnection) -> None:
    assert records(queries.reject_reasons(con)) == [
        {"week": "2026-10-05", "reason": "line_cap", "attempts": 2},
        {"week": "2026-10-05", "reason": "fixture_and_test", "attempts": 1},
        {"week": "2026-10-26", "reason": "over_budget", "attempts": 1},
        {"week": None, "reason": None, "attempts": 1},
    ]


def test_credit_bug_rows_dated_first_then_undated(con: duckdb.DuckDBPyConnection) -> None:
    rows = records(queries.credit_bug_rows(con))
    assert [(r["attempt_id"], r["week"], r["source"], r["line_no"]) for r in rows] == [
        ("a6", "2026-10-12", "lane-log.jsonl", 6),
        ("a8", None, "lane-log.jsonl", 8),
    ]
    assert rows[0]["ts"] == "2026-10-13T09:30:00"
    assert list(rows[0]["quarantine"]) == ["q1"]
    assert (rows[0]["merge_credit"], rows[1]["merge_credit"]) == ("1", '"0"')
    assert rows[0]["producer"] == "legacy-promoter"
    assert json.loads(rows[0]["raw"]) == {"attempt_id": "a6",
                                          "freezes": {"q1": {"owner": "owner-of-q1", "expires": "2026-11-01"}}}


def test_audit_lists_each_rule_once_per_breaching_attempt(con: duckdb.DuckDBPyConnection) -> None:
    rows = records(queries.audit(con))
    assert [(r["rule"], r["attempt_id"], r["detail"]) for r in rows] == [
        ("armed_on_reject", "a2", "probe=reject, model_call_allowed is truthy"),
        # a6 and a8 carry merge credit while quarantined: credit bugs, reported as such only.
        ("over_budget", "a5", "units 4.0 > budget_cap 3.0"),
        ("quarantine_in_properties", "a7", "in properties and quarantine: q2"),
    ]


def test_spend_by_property_shares_units_evenly(con: duckdb.DuckDBPyConnection) -> None:
    rows = [(r["week"], r["property"], r["calls_armed"], r["units"])
            for r in records(queries.spend_by_property(con))]
    assert rows == [
        ("2026-10-05", "prop_a", 3, 3.0), ("2026-10-05", "prop_b", 2, 2.0),
        ("2026-10-05", "prop_c", 1, 1.0), ("2026-10-12", "prop_a", 1, 4.0),
        ("2026-10-26", "prop_a", 1, 1.0), ("2026-10-26", "q2", 1, 1.0),
        (None, None, 1, 5.0),
    ]


def test_spend_by_repo(con: duckdb.DuckDBPyConnection) -> None:
    assert records(queries.spend_by_repo(con)) == [
        {"week": "2026-10-05", "repo": "svc", "calls_armed": 3, "units": 6.0},
        {"week": "2026-10-12", "repo": "svc", "calls_armed": 1, "units": 4.0},
        {"week": "2026-10-26", "repo": "svc", "calls_armed": 1, "units": 2.0},
        {"week": None, "repo": "other", "calls_armed": 1, "units": 5.0},
    ]


def test_freezes_and_their_summary(con: duckdb.DuckDBPyConnection) -> None:
    assert records(queries.freezes(con)) == [
        {"quarantine_id": "q1", "week": "2026-10-12", "attempts": 2},
        {"quarantine_id": "q2", "week": "2026-10-26", "attempts": 1},
        {"quarantine_id": "q3", "week": None, "attempts": 1},
    ]
    assert records(queries.freeze_summary(con)) == [
        {"quarantine_id": "q1", "attempts": 2, "first_seen": "2026-10-12T12:00:00",
         "last_seen": "2026-10-13T09:30:00", "expired_reports": 1},
        {"quarantine_id": "q2", "attempts": 1, "first_seen": "2026-10-26T12:00:00",
         "last_seen": "2026-10-26T12:00:00", "expired_reports": 0},
        {"quarantine_id": "q3", "attempts": 1, "first_seen": None, "last_seen": None,
         "expired_reports": 0},
    ]


def test_lanes_weekly(con: duckdb.DuckDBPyConnection) -> None:
    assert [(r["week"], r["lane"], r["attempts"]) for r in records(queries.lanes_weekly(con))] == [
        ("2026-10-05", "hold", 1), ("2026-10-05", "not_started", 2),
        ("2026-10-05", "unresolved", 1), ("2026-10-12", "fail", 1), ("2026-10-12", None, 1),
        ("2026-10-26", "not_started", 2), (None, "unresolved", 1), (None, None, 1),
    ]


def test_unresolved_share_and_units(con: duckdb.DuckDBPyConnection) -> None:
    assert records(queries.unresolved_units(con)) == [
        {"week": "2026-10-05", "lanes_run": 2, "unresolved": 1, "unresolved_share": 0.5, "units": 3.0},
        {"week": "2026-10-12", "lanes_run": 1, "unresolved": 0, "unresolved_share": 0.0, "units": 0.0},
        {"week": "2026-10-26", "lanes_run": 0, "unresolved": 0, "unresolved_share": None, "units": 0.0},
        {"week": None, "lanes_run": 1, "unresolved": 1, "unresolved_share": 1.0, "units": 5.0},
    ]


def test_property_results_count_anything_but_hold_or_fail_as_unresolved(
    con: duckdb.DuckDBPyConnection,
) -> None:
    assert records(queries.property_results(con)) == [
        {"property": "prop_a", "hold": 2, "fail": 1, "unresolved": 0},
        {"property": "prop_b", "hold": 1, "fail": 0, "unresolved": 1},
        {"property": "prop_c", "hold": 1, "fail": 0, "unresolved": 0},
        {"property": "prop_z", "hold": 0, "fail": 0, "unresolved": 1},
    ]


def test_data_health(con: duckdb.DuckDBPyConnection) -> None:
    assert queries.repos(con) == ["other", "svc"]
    (source,) = records(queries.sources(con))
    assert (source["path"], source["attempts"], source["rejected"]) == ("lane-log.jsonl", 13, 2)
    assert [r["line_no"] for r in records(queries.rejected_lines(con, limit=1))] == [1000]
    assert records(queries.type_anomalies(con)) == [{"field": "merge_credit", "attempts": 1}]
    assert [r["attempt_id"] for r in records(queries.undated(con, Filters(repo="svc")))] == ["a8"]


# The outcome blocks scope a pull request by the weeks it opened and closed in, over every attempt of it whenever
# it ran: no database of fewer attempts answers as their filter does.  tests/queries/test_outcomes.py holds their
# scopes (by repository and by dates) against an independent reader of generated histories.
OUTCOME_BLOCKS = ("pull_request_rows", "outcome_groups", "outcome_weeks")
SCOPED = sorted(name for name, query in queries.QUERIES.items()
                if "repo" in query.params and name not in OUTCOME_BLOCKS)


def moved(row: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """A copy of a row, as another attempt on another line, with some fields changed."""
    line_no = row["line_no"] + 100
    raw = json.loads(row["raw"])
    freezes = {test_id: {"owner": "moved-owner", "expires": "2026-12-01"} for test_id in raw.get("freezes", {})}
    raw = {**raw, "attempt_id": f"a{line_no}", **({"freezes": freezes} if freezes else {})}
    # A hook's line moved is another session's (a session is one agent's run, in one place and time).
    session = {"hook_session": f"{row['hook_session']}-moved"} if row.get("hook_session") else {}
    return {**row, "line_no": line_no, "attempt_id": f"a{line_no}", "byte_offset": 100 * line_no,
            "raw": json.dumps(raw), **session, **changes}


def at(week: date) -> dict[str, Any]:
    return {"week": week, "ts": datetime(week.year, week.month, week.day, 8)}


# Each filter, the copies of ROWS it must leave out, and which rows it keeps.
SCOPES = {
    "repo": (Filters(repo="svc"), [moved(row, repo="elsewhere") for row in ROWS],
             lambda row: row["repo"] == "svc"),
    "since": (Filters(since=date(2026, 10, 6)), [moved(row, **at(date(2026, 9, 28))) for row in ROWS],
              lambda row: row["week"] is None or row["week"] >= W1),
    "until": (Filters(until=date(2026, 10, 31)), [moved(row, **at(date(2026, 11, 2))) for row in ROWS],
              lambda row: row["week"] is None or row["week"] <= W4),
}


@pytest.mark.parametrize("name", SCOPED)
@pytest.mark.parametrize("scope", sorted(SCOPES))
def test_every_query_scopes_like_a_database_holding_only_those_rows(
    db: Callable[..., duckdb.DuckDBPyConnection], name: str, scope: str,
) -> None:
    filters, outside, keep = SCOPES[scope]
    rows = ROWS + outside
    extra = {"limit": 100} if "limit" in queries.QUERIES[name].params else {}
    query = queries.QUERIES[name]
    filtered = queries.records(db(rows), query, filters, **extra)
    everything = queries.records(db(rows), query, **extra)
    if "since" not in query.params and scope != "repo":
        # A query of all weeks (a pull request's every attempt, whenever it ran): dates never filter it.
        assert filtered == everything != []
        return
    assert filtered == queries.records(db([row for row in rows if keep(row)]), query, **extra)
    if name in ("undated", "undated_counts") and scope != "repo":
        assert filtered == everything  # dates never filter the undated bucket
    else:
        assert filtered != everything  # the rows left out did count without the filter


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"since": "2026-13-01"}, "bad date for since: '2026-13-01' (expected YYYY-MM-DD)"),
        ({"until": "last week"}, "bad date for until: 'last week' (expected YYYY-MM-DD)"),
        ({"since": "2026-10-09", "until": "2026-10-08"}, "since 2026-10-09 is after until 2026-10-08"),
    ],
)
def test_bad_filters_are_refused(args: dict[str, str], message: str) -> None:
    with pytest.raises(QueryError) as caught:
        Filters.parse(**args)
    assert caught.value.message == message


def test_a_datetime_is_not_a_day() -> None:
    with pytest.raises(QueryError, match="since must be a date"):
        Filters(since=datetime(2026, 10, 5))


def test_freeze_owners_come_from_the_latest_line_that_listed_each_freeze(con: duckdb.DuckDBPyConnection) -> None:
    rows = records(queries.freeze_owners(con))
    assert [(r["quarantine_id"], r["owner"], str(r["expires"])[:10]) for r in rows] == [
        ("q1", "owner-of-q1", "2026-11-01"), ("q2", "owner-of-q2", "2026-11-01"), ("q3", "owner-of-q3", "2026-11-01"),
    ]


def test_a_folder_only_ever_logged_as_not_a_repo_is_no_repository(db: Any) -> None:
    """A job run in a plain folder logs the folder's name; the repository filter does not offer it."""
    con = db([
        attempt(1, date(2026, 10, 5), repo="svc"),
        attempt(2, date(2026, 10, 5), repo="tmp-build-dir", probe="reject", is_reject=True,
                reasons=["not_a_repo"]),
        attempt(3, date(2026, 10, 5), repo="mixed", probe="reject", is_reject=True, reasons=["not_a_repo"]),
        attempt(4, date(2026, 10, 12), repo="mixed"),
    ])
    assert queries.repos(con) == ["mixed", "svc"]
    # The folder's attempts still count: only the filter's choices leave it out.
    assert queries.report(con)["totals"]["attempts"] == 4


def test_a_copied_lane_without_an_armed_call_is_no_lane_run(db: Callable[..., duckdb.DuckDBPyConnection]) -> None:
    """A faulty producer copies a routed line's lane fields onto a line that armed no call:
    it ran no lane, so it is neither a lane run nor unresolved spend."""
    con = db([
        attempt(1, W1, armed=True, properties=["prop_a"], lane="unresolved"),
        attempt(2, W1, armed=True, properties=["prop_a"], lane="hold"),
        attempt(3, W1, lane="unresolved", producer="legacy-promoter"),
        attempt(4, W1, lane="hold", producer="legacy-promoter"),
    ])
    assert records(queries.unresolved_units(con)) == [
        {"week": "2026-10-05", "lanes_run": 2, "unresolved": 1, "unresolved_share": 0.5, "units": 1.0}]
    assert [(r["lane"], r["attempts"]) for r in records(queries.lanes_weekly(con))] == [
        ("hold", 1), ("no_call_armed", 2), ("unresolved", 1)]


def test_money_by_week_property_and_repo(con: duckdb.DuckDBPyConnection) -> None:
    found = queries.money(con)
    week1 = found["weeks"][0]
    assert (week1["week"], week1["calls_armed"], week1["calls_with_usage"], week1["calls_priced"]) == \
        ("2026-10-05", 3, 1, 1)
    assert (week1["input_tokens"], week1["output_tokens"], week1["cost"], week1["currency"]) == \
        (1500, 15, 0.015, "USD")
    # One priced call of 2 units; two probe rejects at that week's 0.015 per armed call.
    assert (week1["cost_per_armed_call"], week1["cost_per_unit"], week1["spend_avoided_estimate"]) == \
        (0.015, 0.0075, 0.03)
    assert [week["note"] for week in found["weeks"]] == [None, "no usage recorded", "no usage recorded", None]
    assert found["weeks"][2]["cost"] is None and found["weeks"][2]["probe_rejects"] == 1
    totals = found["totals"]
    assert (totals["cost"], totals["calls_priced"], totals["cost_per_armed_call"]) == (0.017, 2, 0.0085)
    # Week 10-26 has a reject and no price: the total estimate is unknown, not a guess.
    assert totals["spend_avoided_estimate"] is None
    assert [(row["property"], row["cost"]) for row in found["by_property"]] == \
        [("prop_a", 0.01), ("prop_b", 0.005), ("prop_z", 0.002)]
    assert [(row["week"], row["repo"], row["calls_armed"], row["cost"]) for row in found["by_repo"]] == [
        ("2026-10-05", "svc", 3, 0.015), ("2026-10-12", "svc", 1, None), ("2026-10-26", "svc", 1, None),
        (None, "other", 1, 0.002)]
