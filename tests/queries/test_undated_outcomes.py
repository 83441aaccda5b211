"""An outcome line ingest cannot date (its ts none, or outside 1970-2199) never lets its pull request read as open.

`lanelog outcome` refuses such a time, but an older lanelog wrote one and a hand may.  Stored
undated, a merge used to drop out of outcomes.sql's ``closed`` rows: its pull request read as
open and `check` exited 0 over a merge on a live quarantine.  Now the close counts with its time
unknown: closed (never open), in no week, and judged in every range, as an undated attempt is.
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

from tests.alerts.support import ingest_lines, lanelog

PULL = {"repository": "octo-org/orders-service", "number": 7}
ATTEMPT = {"schema": 1, "attempt_id": "a1", "ts": "2026-10-08T12:30:00Z", "repo": "orders-service",
           "producer": "lanelog-route", "probe": "pass", "model_call_allowed": True, "lane": "hold",
           "quarantine": ["test_export_race"], "merge_credit": 0, "pull_request": PULL}


def merged(ts: str | None, **fields: Any) -> dict[str, Any]:
    """The outcome line of a merge by a bot (no person's word), closed at ``ts``."""
    return {"schema": 1, "kind": "outcome", "producer": "lanelog-outcome", "outcome_id": "outcome-" + "7" * 32,
            "ts": ts, "repo": "orders-service", "pull_request": PULL, "head": "a" * 40, "state": "merged",
            "merged_at": ts, "closed_at": ts, "merged_by": {"login": "mergify[bot]", "type": "Bot"},
            "merge_commit": "c" * 40, **fields}


def test_an_undated_merge_over_a_live_quarantine_is_a_credit_bug_check_names(tmp_path: Path) -> None:
    db = ingest_lines(tmp_path, [ATTEMPT, merged("2300-01-01T00:00:00Z")])
    done = lanelog("check", "--db", str(db), "--since", "2026-10-05")
    assert done.returncode == 1, done.stdout + done.stderr
    (bug,) = [text for text in done.stdout.splitlines() if text.startswith("CREDIT BUG (merge)")]
    assert bug.startswith("CREDIT BUG (merge) octo-org/orders-service#7 ")
    assert "merged by mergify[bot] (Bot) at an unknown time (its outcome line cannot be dated)" in bug
    assert "1 credit bug (1 pull request merged over a live quarantine nobody said may go) in range" in done.stdout
    as_json = [json.loads(text) for text in
               lanelog("check", "--db", str(db), "--format", "json").stdout.splitlines()]
    assert [(row["kind"], row["pr_number"], row["week"], row["merged_at"]) for row in as_json] == [
        ("merge_credit_bug", 7, None, None)]


def test_the_review_names_an_undated_merge_over_a_live_quarantine(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from lanelog.cli import cli

    db = ingest_lines(tmp_path, [ATTEMPT, merged("2300-01-01T00:00:00Z")])
    done = CliRunner().invoke(cli, ["report", "--db", str(db), "--format", "markdown"])
    assert done.exit_code == 0, done.output
    assert "merged by mergify\\[bot\\] at an unknown time (its outcome line cannot be dated) over quarantine" \
        in done.stdout


def test_an_undated_close_reads_as_closed_in_no_week_never_as_open(tmp_path: Path) -> None:
    from lanelog import queries, store
    from lanelog.queries import Filters

    db = ingest_lines(tmp_path, [ATTEMPT, merged(None)])
    con = store.open_db(db, read_only=True)
    try:
        (pr,) = queries.pull_requests(con)
        assert (pr.state, pr.closed_ts, pr.verdict()) == ("merged", None, "credit_bug")
        found = queries.outcome_figures(con, Filters(since=date(2026, 10, 5)))
    finally:
        con.close()
    (week,) = found["weeks"]
    assert (week["week"], week["open_at_week_end"], week["merged"]) == ("2026-10-05", 0, 0)
    assert (found["totals"]["open"], found["totals"]["merged"]) == (0, 0)


def test_a_merge_decides_its_pull_request_over_a_close_whatever_their_times(tmp_path: Path) -> None:
    """A forge never reopens a merged pull request: its merge line, even undated, says merged over a dated close."""
    from lanelog import queries, store

    closed = {**merged("2026-10-09T10:00:00Z"), "outcome_id": "outcome-" + "8" * 32, "state": "closed",
              "merged_at": None, "merged_by": None, "merge_commit": None}
    db = ingest_lines(tmp_path, [ATTEMPT, closed, merged("2300-01-01T00:00:00Z")])
    con = store.open_db(db, read_only=True)
    try:
        (pr,) = queries.pull_requests(con)
    finally:
        con.close()
    assert (pr.state, pr.closed_ts, pr.verdict()) == ("merged", None, "credit_bug")


def test_a_pull_request_with_no_outcome_line_is_open_and_no_merge_credit_bug(tmp_path: Path) -> None:
    """Only a merge is judged in every range: a pull request still open (no outcome line) is in none."""
    from lanelog import queries, store

    db = ingest_lines(tmp_path, [ATTEMPT])
    con = store.open_db(db, read_only=True)
    try:
        found = queries.credit_bugs(con)
        figures = queries.outcome_figures(con)
    finally:
        con.close()
    assert (found.merges, found.total, figures["totals"]["open"]) == ([], 0, 1)
