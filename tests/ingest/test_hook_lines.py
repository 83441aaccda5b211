"""`lanelog hook`'s lines (schema 6): where a line was written, the agent and session, typed by the
usual rules, and kept out of the seed's figures (a check in the agent's loop never reached CI)."""

from __future__ import annotations

import json

import duckdb
import pytest

from lanelog import queries, store
from lanelog.ingest import ingest_bytes
from lanelog.store.db import statements
from tests.ingest.support import attempts, line

COLUMNS = "source, hook_agent, hook_session, type_anomalies"
HOOK = {"agent": "claude-code", "session": "abc123", "command": "git push origin HEAD"}


@pytest.mark.parametrize(("fields", "typed"), [
    ({"source": "hook", "hook": HOOK}, ("hook", "claude-code", "abc123", [])),
    ({}, (None, None, None, [])),
    ({"source": None, "hook": None}, (None, None, None, [])),
    ({"source": "hook", "hook": {"agent": "cline", "session": None}}, ("hook", "cline", None, [])),
    ({"source": 7, "hook": ["claude-code"]}, (None, None, None, ["source", "hook"])),
    ({"source": "hook", "hook": {"agent": 2, "session": {"id": 1}}}, ("hook", None, None, ["hook"])),
], ids=["hook", "absent", "null", "no-session", "wrong-types", "wrong-fields"])
def test_the_hook_fields_are_typed_and_a_wrong_type_is_named(
    con: duckdb.DuckDBPyConnection, fields: dict[str, object], typed: tuple
) -> None:
    ingest_bytes(con, "lane.jsonl", line(attempt_id="a1", ts="2026-10-08T12:00:00Z", probe="pass", **fields))
    assert attempts(con, COLUMNS) == [typed]


def test_the_hook_anomalies_come_last_as_the_upgrade_names_them(con: duckdb.DuckDBPyConnection) -> None:
    ingest_bytes(con, "lane.jsonl", line(attempt_id="a1", probe=1, agent=7, source=[], usage={
        "p": {"cost": 1, "currency": "usd"}}))
    assert attempts(con, "type_anomalies") == [(["probe", "agent", "usage.currency", "source"],)]


def ci_and_hook_lines() -> tuple[bytes, bytes]:
    """A log of CI's lines, and the same log with the hook's lines between them."""
    ci = [line(attempt_id=f"c{n}", ts=f"2026-10-0{n}T12:00:00Z", probe=probe, reasons=reasons,
               model_call_allowed=probe == "pass", properties=["prop_a"], quarantine=[], merge_credit=0)
          for n, probe, reasons in ((5, "reject", ["line_cap"]), (6, "pass", []), (7, "pass", []))]
    hook = [line(attempt_id=f"h{n}", ts=f"2026-10-0{n}T11:00:00Z", probe=probe, reasons=reasons,
                 model_call_allowed=False, properties=["prop_a"], quarantine=["q1"], merge_credit=1,
                 source="hook", hook={**HOOK, "session": "s1"})
            for n, probe, reasons in ((5, "reject", ["assertion_removed"]), (6, "pass", []))]
    return b"".join(ci), b"".join(part for pair in zip(hook, ci) for part in pair) + ci[2]


def test_hook_lines_change_none_of_the_seeds_figures(con: duckdb.DuckDBPyConnection) -> None:
    ci_only, with_hooks = ci_and_hook_lines()
    ingest_bytes(con, "with-hooks.jsonl", with_hooks)
    plain = store.open_memory()
    try:
        ingest_bytes(plain, "ci.jsonl", ci_only)
        found, seed = queries.report(con), queries.report(plain)
        assert found["weeks"] == seed["weeks"] and found["totals"] == seed["totals"]
        assert queries.credit_bugs(con).lines == []  # a hook line's credit and quarantine are no credit bug
        assert found["hooks"]["totals"] == {"hook_checks": 2, "hook_rejects": 1}
        assert found["hooks"]["by_agent"] == [{"agent": "claude-code", "hook_checks": 2, "hook_rejects": 1,
                                               "sessions_refused": 1, "sessions_narrowed": 1}]
        assert "hooks" not in seed
    finally:
        plain.close()


def test_the_upgrade_to_6_types_the_lines_stored_before(con: duckdb.DuckDBPyConnection) -> None:
    """A version-5 database holds a hook's line in raw only; the step types it as ingest does."""
    ingest_bytes(con, "lane.jsonl", line(attempt_id="a1", probe="reject", source="hook", hook=HOOK)
                 + line(attempt_id="a2", probe="pass", source=3)
                 + line(attempt_id="a3", probe="pass"))
    typed = attempts(con, COLUMNS)
    con.execute("UPDATE attempts SET source = NULL, hook_agent = NULL, hook_session = NULL, type_anomalies = []")
    statements()["upgrade_to_6"].run(con)
    assert attempts(con, COLUMNS) == typed == [("hook", "claude-code", "abc123", []), (None, None, None, ["source"]),
                                               (None, None, None, [])]
    assert json.loads(attempts(con, "raw")[0][0])["hook"] == HOOK
