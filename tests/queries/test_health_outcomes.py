"""Data health over a log of attempts and outcome lines: outcome lines are counted apart, never as attempts."""

from __future__ import annotations

from lanelog import queries, store
from lanelog.ingest import ingest_bytes
from lanelog.queries import Filters
from tests.ingest.support import line, outcome

LOG = b"".join([
    line(attempt_id="a1", ts="2026-10-05T09:00:00Z", repo="svc", probe="pass", model_call_allowed=True),
    outcome(outcome_id="outcome-1", ts="2026-10-06T09:00:00Z", repo="svc", state="merged", pull_request=7),
    line(attempt_id="a2", ts="2026-10-06T10:00:00Z", repo="svc", probe="reject"),
    outcome(outcome_id="outcome-1", ts="2026-10-06T09:00:00Z", repo="svc", state="merged"),  # a re-run job's
    outcome(outcome_id="outcome-2", repo="svc", state="closed"),  # undated: no ts
    b"not json\n",
])


def test_a_logs_outcome_lines_are_counted_apart_from_its_attempts() -> None:
    con = store.open_memory()
    try:
        ingest_bytes(con, "lane-log.jsonl", LOG)
        (source,) = queries.records(con, queries.QUERIES["sources"], Filters())
        assert {key: source[key] for key in ("lines_read", "attempts", "outcomes", "duplicates", "rejected")} == {
            "lines_read": 6, "attempts": 2, "outcomes": 2, "duplicates": 1, "rejected": 1}
        # No attempt figure counts an outcome line: not the undated, not the type anomalies.
        assert queries.report(con)["totals"]["attempts"] == 2
        assert queries.records(con, queries.QUERIES["undated_counts"], Filters()) == [
            {"undated": 0, "out_of_range": 0}]
        assert queries.records(con, queries.QUERIES["type_anomalies"], Filters()) == []
    finally:
        con.close()
