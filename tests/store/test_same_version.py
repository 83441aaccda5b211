"""A database made by an earlier commit of this schema version takes ingest and reads as a new one.

Version 5's macros changed after it shipped, without a new number (lane_usage_parsed and its
kin came later): a database made by main at 9085d42 or 66610d4 kept its old macros, since
open_db returned early on a matching version, and every `lanelog ingest` into it failed with
`Scalar Function with name lane_usage_parsed does not exist`.  tests/store/data/v5/ holds the
schema and ingest macro of each such commit (extract.sh says how they were taken from the
history); a database is made here by that text, its lines stored by that macro, as that
lanelog stored them.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from lanelog import queries, store
from lanelog.ingest.identity import FINGERPRINT_BYTES, TAIL_BYTES, digest
from lanelog.ingest.lines import split_lines
from lanelog.store.db import statements
from lanelog.store.sqlfile import load_texts
from tests.ingest.support import line, outcome
from tests.store.catalog import INGEST_MACRO, catalog, macro_texts

DATA = Path(__file__).parent / "data" / "v5"
SHIPPED = ["9085d42", "66610d4"]
MERGED = {"outcome_id": "outcome-42", "ts": "2026-10-08T14:03:00Z", "state": "merged",
          "pull_request": {"repository": "o/orders", "number": 42}}
OLD_LOG = b"".join([
    line(attempt_id="a1", ts="2026-10-05T09:00:00Z", repo="orders", probe="pass", model_call_allowed=True, units=1),
    line(attempt_id="a2", ts="2026-10-05T10:00:00Z", probe="reject", reasons=["line_cap"],
         usage={"p1": {"input_tokens": 20, "output_tokens": 10, "cost": 0.5, "currency": "USD"}}),
])
NEW_LOG = b"".join([
    line(attempt_id="a3", ts="2026-10-07T10:00:00Z", probe="pass", model_call_allowed=True, agent="copilot[bot]",
         pull_request={"repository": "o/orders", "number": 42},
         usage={"p1": {"input_tokens": 5, "output_tokens": 1, "cost": 0.25, "currency": "USD"}}),
    outcome(**MERGED),
])


def old_database(path: Path, commit: str) -> None:
    """A version-5 database as lanelog at `commit` made it, holding OLD_LOG."""
    blocks = load_texts([(f"{commit}.sql", (DATA / f"{commit}.sql").read_text(encoding="utf-8"))])
    lines = split_lines(memoryview(OLD_LOG), base_offset=0, first_line_no=1, complete=True)
    macro = blocks["attempt_rows"].sql
    con = duckdb.connect(str(path))
    try:
        con.execute("SET TimeZone = 'UTC'")
        con.execute(blocks["create_schema"].sql)
        con.execute("INSERT INTO lanelog_meta VALUES ('schema_version', '5'), ('created_by', 'lanelog 0.1.0'), "
                    "('attempt_rows_macro', $digest)",
                    {"digest": "sha256:" + hashlib.sha256(macro.encode()).hexdigest()})
        con.register("lane_lines", lines.table)
        con.execute(macro)
        source_id = con.execute("SELECT nextval('source_ids')").fetchone()[0]
        con.execute(f"INSERT INTO attempts BY NAME SELECT {source_id} AS source_id, false AS provisional, * "
                    "FROM lane_attempt_rows('lane_lines', false)")
        con.execute(f"INSERT INTO sources VALUES ({source_id}, 'old.jsonl', $head, $head_bytes, $size, $tail, "
                    "$size, $seen, $lines, 0, TIMESTAMP '2026-10-08 00:00:00', TIMESTAMP '2026-10-08 00:00:00')",
                    {"head": digest(OLD_LOG[:FINGERPRINT_BYTES]), "head_bytes": min(len(OLD_LOG), FINGERPRINT_BYTES),
                     "size": len(OLD_LOG), "tail": digest(OLD_LOG[-TAIL_BYTES:]), "seen": digest(b""),
                     "lines": lines.count})
    finally:
        con.close()


def lanelog(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "lanelog", *args], capture_output=True, text=True, timeout=120,
                          check=False)


def macros(path: Path) -> dict[str, object]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        found = catalog(con)["macros"]
    finally:
        con.close()
    found.pop(INGEST_MACRO, None)  # ingest's own, kept by its own digest
    return found


@pytest.mark.parametrize("commit", SHIPPED)
def test_the_database_is_version_5_with_that_commits_macros(tmp_path: Path, commit: str) -> None:
    path = tmp_path / "old.duckdb"
    old_database(path, commit)
    found = macros(path)
    assert "lane_usage_parsed" not in found
    assert ("lane_change_notes" in found) == (commit == "9085d42")
    con = duckdb.connect(str(path), read_only=True)
    try:
        assert con.execute("SELECT value FROM lanelog_meta WHERE key = 'schema_version'").fetchall() == [("5",)]
        assert con.execute("SELECT count(*) FROM attempts").fetchone()[0] == 2
    finally:
        con.close()


@pytest.mark.parametrize("commit", SHIPPED)
def test_a_database_of_an_earlier_commit_of_the_version_takes_ingest_of_attempts_and_outcomes(
        tmp_path: Path, commit: str) -> None:
    path = tmp_path / "old.duckdb"
    old_database(path, commit)
    log = tmp_path / "new.jsonl"
    log.write_bytes(NEW_LOG)
    done = lanelog("ingest", str(log), "--db", str(path), "--format", "json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert (summary["lines_read"], summary["outcomes_added"]) == (2, 1)
    report = lanelog("report", "--db", str(path), "--format", "json")
    assert report.returncode == 0, report.stderr
    assert json.loads(report.stdout)["totals"]["attempts"] == 3
    con = duckdb.connect(str(path), read_only=True)
    try:
        assert con.execute("SELECT attempt_id, input_tokens, cost FROM attempts ORDER BY attempt_id").fetchall() == [
            ("a1", None, None), ("a2", 20.0, 0.5), ("a3", 5.0, 0.25)]
        assert con.execute("SELECT outcome_id, state, pr_number FROM outcomes").fetchall() == [
            ("outcome-42", "merged", 42)]
    finally:
        con.close()


@pytest.mark.parametrize("commit", SHIPPED)
def test_a_write_open_gives_the_database_this_lanelogs_macros_keeping_every_row(tmp_path: Path, commit: str) -> None:
    path = tmp_path / "old.duckdb"
    old_database(path, commit)
    con = duckdb.connect(str(path), read_only=True)
    found_before = con.execute("SELECT * FROM attempts ORDER BY line_no")
    columns = [column[0] for column in found_before.description]
    rows_before = found_before.fetchall()
    con.close()
    store.open_db(path).close()
    new = store.open_memory()
    try:
        fresh = catalog(new)["macros"]
    finally:
        new.close()
    found = macros(path)
    assert {name: found[name] for name in fresh} == fresh  # (a macro no longer made stays, unused)
    con = duckdb.connect(str(path), read_only=True)
    try:
        # Every row keeps every value it had; a later schema version may add columns beside them.
        kept = ", ".join(f'"{column}"' for column in columns)
        assert con.execute(f"SELECT {kept} FROM attempts ORDER BY line_no").fetchall() == rows_before
    finally:
        con.close()


def test_a_database_whose_macros_are_this_lanelogs_is_not_written_on_open(tmp_path: Path) -> None:
    path = tmp_path / "new.duckdb"
    store.open_db(path).close()
    con = duckdb.connect(str(path), read_only=True)
    meta_before = con.execute("SELECT * FROM lanelog_meta ORDER BY key").fetchall()
    con.close()
    assert any(key == "schema_digest" for key, _ in meta_before)
    store.open_db(path).close()
    con = duckdb.connect(str(path), read_only=True)
    try:
        assert con.execute("SELECT * FROM lanelog_meta ORDER BY key").fetchall() == meta_before
    finally:
        con.close()


def test_a_read_only_open_reads_a_database_of_older_macros_as_it_is_and_a_write_open_renews_them(
        tmp_path: Path) -> None:
    """Whatever the version: a database of this version whose macros another text of the schema made."""
    path = tmp_path / "lanelog.duckdb"
    log = tmp_path / "lane.jsonl"
    log.write_bytes(OLD_LOG)
    assert lanelog("ingest", str(log), "--db", str(path)).returncode == 0
    fresh = macros(path)
    con = duckdb.connect(str(path))
    con.execute("CREATE OR REPLACE MACRO json_int(j) AS NULL")  # another text of the same macro
    con.execute("DELETE FROM lanelog_meta WHERE key = 'schema_digest'")  # made before digests were kept
    con.close()
    stale = macros(path)
    report = lanelog("report", "--db", str(path), "--format", "json")
    assert report.returncode == 0, report.stderr
    assert json.loads(report.stdout)["totals"]["attempts"] == 2
    assert macros(path) == stale  # a read writes nothing
    store.open_db(path).close()
    assert macros(path) == fresh


# Every macro of the schema queries/ reads (report, check, the dashboard): a read-only open reads a
# database by the macros it holds, so each must mean the same in every shipped text of the version.
CALLED = re.compile(r"\b([a-z_]+)\s*\(")


def test_the_macros_the_queries_read_mean_the_same_in_every_shipped_text_of_the_version() -> None:
    now = macro_texts(statements()["create_schema"].sql)
    called = {name for sql in Path(queries.__file__).parent.glob("*.sql")
              for name in CALLED.findall(sql.read_text(encoding="utf-8"))}
    read = sorted(called & set(now))
    assert "json_str" in read  # (the pattern finds the calls)
    for commit in SHIPPED:
        then = macro_texts((DATA / f"{commit}.sql").read_text(encoding="utf-8"))
        assert {name: then.get(name) for name in read} == {name: now[name] for name in read}, commit
