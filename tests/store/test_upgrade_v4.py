"""Every version-4 database is upgraded to version 5 with nothing lost, whichever shape version 4
had when it was made, and holds what a new database holds of the same log.

Version 4 changed after it first shipped: tests/store/data/v4/ holds its schema and ingest
macro at each of those commits (extract.sh says how they were taken from the history).  A
database of each shape is made here by that schema, its lines stored by that macro, as that
lanelog stored them: the outcome lines among them as attempts (it knew none), and no column
of version 5.
"""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import duckdb
import pytest

from lanelog import queries, store
from lanelog.errors import SchemaMismatch
from lanelog.ingest import ingest_bytes, ingest_paths
from lanelog.ingest.identity import FINGERPRINT_BYTES, TAIL_BYTES, digest
from lanelog.ingest.lines import split_lines
from lanelog.store.sqlfile import load_texts
from tests.ingest.support import line, outcome
from tests.store.catalog import INGEST_MACRO, catalog

DATA = Path(__file__).parent / "data" / "v4"
SHAPES = ["bc2fc30", "b0bb270", "7aab435", "b66b14a"]
SHADOW_ERROR = {"policy": "/ci/candidate.yaml", "policy_sha256": None, "error": "policy_missing",
                "message": "no such file"}
MERGED = {"outcome_id": "outcome-42", "ts": "2026-10-08T14:03:00Z", "state": "merged",
          "pull_request": {"repository": "o/orders", "number": 42}, "merged_by": {"login": "alice", "type": "User"},
          "auto_merge": {"enabled_by": {"login": "copilot[bot]", "type": "Bot"}, "merge_method": "squash"}}
# A log of every line the upgrade has work for, around plain router lines.
LOG = b"".join([
    line(attempt_id="a1", ts="2026-10-05T09:00:00Z", repo="orders", probe="pass", model_call_allowed=True,
         quarantine=["test_flaky"], units=1),
    line(attempt_id="a2", ts="2026-10-05T10:00:00Z", probe="pass", model_call_allowed=True,
         usage={"p1": {"input_tokens": 2e12, "output_tokens": 10, "cost": 0.5, "currency": "USD"}}),
    line(attempt_id="a3", ts="2026-10-06T10:00:00Z", probe="pass", shadow=SHADOW_ERROR),
    line(attempt_id="a4", ts="2026-10-06T11:00:00Z", probe="reject", reasons=["line_cap"],
         shadow={"policy_sha256": "cd", "probe": "pass", "reasons": [], "units": 1, "model_call_allowed": True}),
    outcome(**MERGED),
    line(attempt_id="a5", ts="2026-10-07T10:00:00Z", probe="pass", model_call_allowed=True, agent="copilot[bot]",
         pull_request={"repository": "o/orders", "number": 42, "url": "https://x/pull/42"},
         ci_run={"id": "98", "attempt": 1, "url": "https://x/runs/98"}),
    outcome(**MERGED),  # the re-run job's line: a duplicate
    b'{"\\u006bind": "outcome", "outcome_id": "outcome-7", "state": "closed"}\n',
    line(attempt_id="a6", ts="2026-10-07T11:00:00Z", kind="review", path="caf\u00e9.py", pull_request=7),
    line(attempt_id="a7", ts="2026-10-07T12:00:00Z", probe=5, agent=["x"],
         usage={"p1": {"cost": 1, "currency": "usd"}}),
])


def old_database(path: Path, shape: str) -> None:
    """A version-4 database as lanelog at commit `shape` made it, holding LOG."""
    blocks = load_texts([(f"{shape}.sql", (DATA / f"{shape}.sql").read_text(encoding="utf-8"))])
    lines = split_lines(memoryview(LOG), base_offset=0, first_line_no=1, complete=True)
    con = duckdb.connect(str(path))
    try:
        con.execute("SET TimeZone = 'UTC'")
        con.execute(blocks["create_schema"].sql)
        con.execute("INSERT INTO lanelog_meta VALUES ('schema_version', '4'), ('created_by', 'lanelog 0.1.0')")
        con.register("lane_lines", lines.table)  # (a TEMP macro of bc2fc30's names it)
        con.execute(blocks["attempt_rows"].sql)
        rows = "lane_attempt_rows(false)" if "TEMP MACRO" in blocks["attempt_rows"].sql else \
            "lane_attempt_rows('lane_lines', false)"
        source_id = con.execute("SELECT nextval('source_ids')").fetchone()[0]
        con.execute(f"INSERT INTO attempts BY NAME SELECT {source_id} AS source_id, false AS provisional, * "
                    f"FROM {rows}")
        con.execute(f"INSERT INTO sources VALUES ({source_id}, 'lane.jsonl', $head, $head_bytes, $size, $tail, "
                    "$size, $seen, $lines, 0, TIMESTAMP '2026-10-08 00:00:00', TIMESTAMP '2026-10-08 00:00:00')",
                    {"head": digest(LOG[:FINGERPRINT_BYTES]), "head_bytes": min(len(LOG), FINGERPRINT_BYTES),
                     "size": len(LOG), "tail": digest(LOG[-TAIL_BYTES:]), "seen": digest(b""), "lines": lines.count})
        con.execute("INSERT INTO ingest_runs VALUES (nextval('run_ids'), TIMESTAMP '2026-10-08 00:00:00', "
                    "TIMESTAMP '2026-10-08 00:00:01', 1, 10, 10, 0, 0, 0)")
        con.execute("INSERT INTO alerts_sent VALUES ('attempt:a1', 'ab12', TIMESTAMP '2026-10-08 00:00:02')")
    finally:
        con.close()


def rows(con: duckdb.DuckDBPyConnection, table: str) -> list[tuple]:
    return con.execute(f"SELECT * EXCLUDE (source_id) FROM {table} ORDER BY line_no").fetchall()  # (fixed names)


def fresh() -> duckdb.DuckDBPyConnection:
    con = store.open_memory()
    ingest_bytes(con, "lane.jsonl", LOG)
    return con


@pytest.mark.parametrize("shape", SHAPES)
def test_the_shape_is_version_4_as_it_was_then(tmp_path: Path, shape: str) -> None:
    old_database(tmp_path / "old.duckdb", shape)
    con = duckdb.connect(str(tmp_path / "old.duckdb"), read_only=True)
    try:
        found = catalog(con)
        assert ("alerts_claimed" in found["tables"]) == (shape != "bc2fc30")
        assert ("shadow_error" in [column[0] for column in found["tables"]["attempts"]]) == \
            (shape in ("7aab435", "b66b14a"))
        assert con.execute("SELECT usage[1].input_tokens FROM attempts WHERE attempt_id = 'a2'").fetchone()[0] == \
            (None if shape == "b66b14a" else 2e12)
        assert con.execute("SELECT count(*) FROM attempts").fetchone()[0] == 10  # the outcome lines among them
    finally:
        con.close()


@pytest.mark.parametrize("shape", SHAPES)
def test_a_version_4_database_of_any_shape_is_upgraded_to_what_a_new_one_holds(tmp_path: Path, shape: str) -> None:
    path = tmp_path / "old.duckdb"
    old_database(path, shape)
    with pytest.raises(SchemaMismatch, match="schema version 4, and this lanelog uses version 7: run `lanelog"):
        store.open_db(path, read_only=True)
    store.open_db(path).close()
    new = fresh()
    con = duckdb.connect(str(path), read_only=True)
    try:
        assert rows(con, "attempts") == rows(new, "attempts")
        assert rows(con, "outcomes") == rows(new, "outcomes")
        assert [row[0] for row in rows(con, "outcomes")] == [5, 8]  # the re-run job's line a duplicate
        assert con.execute("SELECT type_anomalies FROM attempts WHERE attempt_id = 'a7'").fetchall() == [
            (["probe", "agent", "usage.currency"],)]
        assert con.execute("SELECT duplicates FROM sources").fetchall() == [(1,)]
        assert con.execute("SELECT * FROM ingest_runs").fetchall() == [
            (1, datetime(2026, 10, 8), datetime(2026, 10, 8, 0, 0, 1), 1, 10, 10, 0, 0, 0, 0)]
        assert con.execute("SELECT bug_key FROM alerts_sent").fetchall() == [("attempt:a1",)]
        upgraded = catalog(con)
        fresh_catalog = catalog(new)
        for found in (upgraded, fresh_catalog):
            found["macros"].pop(INGEST_MACRO, None)  # ingest's, made again by the next ingest
        assert upgraded == fresh_catalog
        assert dict(con.execute("SELECT key, value FROM lanelog_meta").fetchall())["schema_version"] == "7"
    finally:
        con.close()
        new.close()


def test_after_the_upgrade_the_figures_and_the_next_ingest_are_a_new_databases(tmp_path: Path) -> None:
    path = tmp_path / "old.duckdb"
    old_database(path, "bc2fc30")
    log = tmp_path / "lane.jsonl"
    log.write_bytes(LOG)
    con = store.open_db(path)
    try:
        assert ingest_paths(con, [log]).lines_read == 0  # the same log, stored already
        more = log.read_bytes() + outcome(outcome_id="outcome-9", state="closed") + outcome(**MERGED)
        log.write_bytes(more)
        summary = ingest_paths(con, [log])
        assert (summary.lines_read, summary.outcomes_added, summary.duplicates) == (2, 1, 1)
    finally:
        con.close()
    new = store.open_memory()
    ingest_paths(new, [log])
    con = store.open_db(path, read_only=True)
    try:
        assert rows(con, "attempts") == rows(new, "attempts") and rows(con, "outcomes") == rows(new, "outcomes")
        assert queries.report(con) == queries.report(new)
        assert queries.report(con)["totals"]["attempts"] == 7  # never the outcome lines
    finally:
        con.close()
        new.close()


def lanelog(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "lanelog", *args], capture_output=True, text=True, timeout=120,
                          check=False)


def test_report_on_an_in_between_database_says_how_to_upgrade_and_ingest_does_it(tmp_path: Path) -> None:
    """Made before shadow_error and alerts_claimed: once a binder error on every report."""
    path = tmp_path / "old.duckdb"
    old_database(path, "b0bb270")
    refused = lanelog("report", "--db", str(path), "--format", "json")
    assert refused.returncode == 2
    assert refused.stderr == (
        f"Error: {path} was made with lanelog schema version 4, and this lanelog uses version 7: run `lanelog "
        f"ingest LANE_LOG --db {path}` once (with any of your logs; a log read before adds nothing) to upgrade it "
        "in place, keeping every row\n")
    log = tmp_path / "lane.jsonl"
    log.write_bytes(LOG)
    done = lanelog("ingest", str(log), "--db", str(path), "--format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["lines_read"] == 0
    report = lanelog("report", "--db", str(path), "--format", "json")
    assert report.returncode == 0, report.stderr
    assert json.loads(report.stdout)["totals"]["attempts"] == 7


def test_a_shape_no_step_can_upgrade_is_refused_with_how_to_rebuild_and_left_as_it_was(tmp_path: Path) -> None:
    """A version-3 database made before the shadow columns: refused, never half upgraded."""
    path = tmp_path / "v3.duckdb"
    con = store.open_db(path)
    ingest_bytes(con, "lane.jsonl", line(attempt_id="a1", probe="pass"))
    con.close()
    con = duckdb.connect(str(path))
    for column in ("shadow_probe", "shadow_reasons", "shadow_units", "shadow_armed", "shadow_policy",
                   "shadow_error"):
        con.execute(f"ALTER TABLE attempts DROP COLUMN {column}")  # (fixed names)
    con.execute("UPDATE lanelog_meta SET value = '3' WHERE key = 'schema_version'")
    before = catalog(con), con.execute("SELECT * FROM attempts").fetchall()
    con.close()
    with pytest.raises(SchemaMismatch) as caught:
        store.open_db(path)
    assert caught.value.message.startswith(
        f"{path} was made with lanelog schema version 3 in a shape this lanelog cannot upgrade to version 7, and "
        "was left as it was: move the file aside and ingest the logs again into a new database (the logs "
        "themselves are the source of truth). The upgrade stopped at upgrade.sql:")
    con = duckdb.connect(str(path), read_only=True)
    try:
        assert (catalog(con), con.execute("SELECT * FROM attempts").fetchall()) == before
        assert con.execute("SELECT value FROM lanelog_meta WHERE key = 'schema_version'").fetchall() == [("3",)]
    finally:
        con.close()
