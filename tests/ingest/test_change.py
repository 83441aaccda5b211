"""The change an attempt belongs to: its pull request, agent and CI run, typed by the usual rules."""

from __future__ import annotations

import duckdb
import pytest

from lanelog.ingest import ingest_bytes
from tests.ingest.support import attempts, line

COLUMNS = "pr_repository, pr_number, pr_url, agent, ci_run_id, ci_run_attempt, ci_run_url, type_anomalies"
PULL_REQUEST = {"repository": "octo-org/orders-service", "number": 42,
                "url": "https://github.com/octo-org/orders-service/pull/42"}
CI_RUN = {"id": "9876543210", "attempt": 2,
          "url": "https://github.com/octo-org/orders-service/actions/runs/9876543210/attempts/2"}


@pytest.mark.parametrize(("fields", "typed"), [
    ({"pull_request": PULL_REQUEST, "agent": "copilot-swe-agent[bot]", "ci_run": CI_RUN},
     ("octo-org/orders-service", 42, PULL_REQUEST["url"], "copilot-swe-agent[bot]", "9876543210", 2, CI_RUN["url"],
      [])),
    ({"pull_request": {"repository": "o/r", "number": 7}, "ci_run": {"url": "https://ci.example/run/5"}},
     ("o/r", 7, None, None, None, None, "https://ci.example/run/5", [])),
    ({}, (None, None, None, None, None, None, None, [])),
    ({"pull_request": None, "agent": None, "ci_run": None}, (None, None, None, None, None, None, None, [])),
    ({"pull_request": {"repository": "o/r", "number": 42.5}}, ("o/r", None, None, None, None, None, None,
                                                              ["pull_request"])),
    ({"pull_request": {"number": "42", "url": 3}}, (None, None, None, None, None, None, None, ["pull_request"])),
    ({"pull_request": {"number": 2**63}}, (None, None, None, None, None, None, None, ["pull_request"])),
    ({"pull_request": 42, "agent": ["bot"], "ci_run": "9876"},
     (None, None, None, None, None, None, None, ["pull_request", "agent", "ci_run"])),
    ({"ci_run": {"id": 9876543210, "attempt": "2"}}, (None, None, None, None, None, None, None, ["ci_run"])),
    ({"agent": "bot\u202egnp.exe\u0000", "kind": 5},
     (None, None, None, "bot\u202egnp.exe\u0000", None, None, None, ["kind"])),
], ids=["router", "partial", "absent", "null", "fraction", "string-number", "too-big", "wrong-objects", "ci-types",
        "hostile-agent"])
def test_the_change_fields_are_typed_and_a_wrong_type_is_named(
    con: duckdb.DuckDBPyConnection, fields: dict[str, object], typed: tuple
) -> None:
    ingest_bytes(con, "lane.jsonl", line(attempt_id="a1", ts="2026-10-08T12:00:00Z", probe="pass", **fields))
    assert attempts(con, COLUMNS) == [typed]


def test_the_change_fields_are_named_after_the_others_and_before_the_usage_notes(
    con: duckdb.DuckDBPyConnection,
) -> None:
    """In the order the upgrade to version 5 names them: the fields, schema 5's, what lane_usage dropped."""
    ingest_bytes(con, "lane.jsonl", line(attempt_id="a1", probe=1, usage={"p": {"cost": 1, "currency": "usd"}},
                                         agent=7, shadow=[]))
    assert attempts(con, "type_anomalies") == [(["probe", "shadow", "agent", "usage.currency"],)]
