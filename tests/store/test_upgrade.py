"""A database made by the release of schema version 2 is upgraded in place, losing nothing.

tests/store/data/v2.duckdb was made by lanelog at commit 73df201 (schema version 2)
with tests/store/data/make_v2_db.sh: one lane log of every kind of line, and one
stored replay.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from datetime import date
from pathlib import Path
from typing import Any

import duckdb
import pytest

from lanelog import queries, store
from lanelog.errors import SchemaMismatch
from lanelog.ingest import ingest_paths
from lanelog.store.replays import latest

DATA = Path(__file__).parent / "data"
V2_TABLES = ["attempts", "ingest_runs", "lanelog_meta", "rejected_lines", "replay_patches", "replays", "sources"]


@pytest.fixture
def v2(tmp_path: Path) -> Path:
    path = tmp_path / "old.duckdb"
    shutil.copyfile(DATA / "v2.duckdb", path)
    return path


def _every_row(path: Path) -> dict[str, list[tuple]]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return {table: sorted(con.execute(f"SELECT * FROM {table}").fetchall(), key=repr)  # (fixed table names)
                for table in V2_TABLES}
    finally:
        con.close()


def _without_source(con: Any) -> dict[str, list[dict]]:
    """The credit-bug rows and the audit's warnings, without the path each was read from."""
    found = {"credit_bugs": queries.credit_bugs(con).lines, "warnings": queries.records(con, queries.SQL.audit)}
    return {key: [{name: value for name, value in row.items() if name != "source"} for row in rows]
            for key, rows in found.items()}


def test_the_fixture_is_a_version_2_database(v2: Path) -> None:
    rows = _every_row(v2)
    assert ("schema_version", "2") in rows["lanelog_meta"]
    assert len(rows["attempts"]) == 5 and len(rows["rejected_lines"]) == 1
    assert len(rows["replays"]) == 1 and len(rows["replay_patches"]) == 2


def test_a_read_only_open_refuses_and_says_how_to_upgrade(v2: Path) -> None:
    before = v2.read_bytes()
    with pytest.raises(SchemaMismatch) as caught:
        store.open_db(v2, read_only=True)
    assert caught.value.message == (
        f"{v2} was made with lanelog schema version 2, and this lanelog uses version 7: run "
        f"`lanelog ingest LANE_LOG --db {v2}` once (with any of your logs; a log read before adds "
        "nothing) to upgrade it in place, keeping every row"
    )
    assert v2.read_bytes() == before


def test_a_read_write_open_upgrades_keeping_every_row_and_figure(v2: Path) -> None:
    before = _every_row(v2)
    store.open_db(v2).close()
    after = _every_row(v2)
    meta = dict(after.pop("lanelog_meta"))
    assert meta["schema_version"] == "7" and meta["created_by"] == "lanelog 0.1.0"
    assert meta["upgraded_by"].startswith("lanelog ")
    # Version 3 adds the usage and the shadow columns at the end of attempts, version 4 the shadow's
    # error, version 5 the change (pull request, agent, CI run), version 6 the source and the hook: NULL, as
    # the log records none of them.
    width = len(before["attempts"][0])
    assert all(row[width:] == (None,) * 21 for row in after["attempts"])
    after["attempts"] = sorted((row[:width] for row in after["attempts"]), key=repr)
    # Version 5 adds the outcomes each run added at the end of ingest_runs: none before it.
    width = len(before["ingest_runs"][0])
    assert all(row[width:] == (0,) for row in after["ingest_runs"])
    after["ingest_runs"] = sorted((row[:width] for row in after["ingest_runs"]), key=repr)
    # Version 4 adds each side's evidence at the end of replay_patches: NULL, as the old replay kept none.
    width = len(before["replay_patches"][0])
    assert len(after["replay_patches"]) == 2
    assert all(row[width:] == (None, None) for row in after["replay_patches"])
    after["replay_patches"] = sorted((row[:width] for row in after["replay_patches"]), key=repr)
    assert after == {table: rows for table, rows in before.items() if table != "lanelog_meta"}

    # The figures read from the upgraded file are those of the same log ingested today.
    fresh = store.open_memory()
    ingest_paths(fresh, [DATA / "v2-lane-log.jsonl"])
    con = store.open_db(v2, read_only=True)
    try:
        assert queries.report(con) == queries.report(fresh)
        # (A credit bug names its log by the path it was read from: the maker's temporary folder.)
        assert _without_source(con) == _without_source(fresh)
        assert len(queries.credit_bugs(con).lines) == 1
        assert queries.report(con)["totals"]["attempts"] == 5
        stored = latest(con)
    finally:
        con.close()
        fresh.close()
    assert stored is not None and stored["replay"]["replay_id"] == 1
    assert stored["replay"]["patches"] == 2 and stored["replay"]["source"] == "commits main~2..main"
    assert sum(week["patches"] for week in stored["weeks"]) == 2


def test_after_the_upgrade_the_next_replay_is_stored_beside_the_old_one(v2: Path) -> None:
    from lanelog.store.replays import store as store_replay

    con = store.open_db(v2)
    try:
        replay_id = store_replay(con, {"checkout": ".", "candidate": "c.yaml", "baseline": "b", "source": "s",
                                       "patches": 0, "skipped": 0}, [])
        assert replay_id == 2
    finally:
        con.close()
    assert len(_every_row(v2)["replays"]) == 2


def test_the_command_the_message_names_upgrades_and_adds_nothing(v2: Path) -> None:
    def lanelog(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "lanelog", *args], capture_output=True, text=True,
                              timeout=120, check=False)

    refused = lanelog("report", "--db", str(v2), "--format", "json")
    assert refused.returncode == 2 and f"`lanelog ingest LANE_LOG --db {v2}`" in refused.stderr
    done = lanelog("ingest", str(DATA / "v2-lane-log.jsonl"), "--db", str(v2), "--format", "json")
    assert done.returncode == 0, done.stderr
    # The log was read before: its complete lines add nothing (the provisional last line is read again).
    assert '"attempts_added": 0' in done.stdout
    report = lanelog("report", "--db", str(v2), "--format", "json")
    assert report.returncode == 0, report.stderr
    assert '"attempts": 5' in report.stdout


def test_the_upgrade_types_a_shadow_that_version_2_kept_in_raw_only(v2: Path) -> None:
    con = duckdb.connect(str(v2))
    shadow = ('"shadow": {"policy": "/ci/net.yaml", "policy_sha256": "cd", "probe": "pass", "reasons": [], '
              '"units": 2, "model_call_allowed": true}, ')
    con.execute("UPDATE attempts SET raw = replace(raw, '\"repo\": ', $shadow || '\"repo\": ') "
                "WHERE attempt_id = 'v2-2'", {"shadow": shadow})
    con.execute("UPDATE attempts SET raw = replace(raw, '\"repo\": ', '\"shadow\": [1], \"repo\": ') "
                "WHERE attempt_id = 'v2-3'")
    con.close()
    store.open_db(v2).close()
    con = duckdb.connect(str(v2), read_only=True)
    try:
        rows = con.execute("SELECT attempt_id, shadow_probe, shadow_reasons, shadow_units, shadow_armed, "
                           "shadow_policy, type_anomalies FROM attempts ORDER BY attempt_id").fetchall()
    finally:
        con.close()
    assert rows == [
        ("v2-1", None, None, None, None, None, []),
        ("v2-2", "pass", [], 2.0, True, "cd", []),
        ("v2-3", None, None, None, None, None, ["shadow"]),
        ("v2-4", None, None, None, None, None, []),
        ("v2-5", None, None, None, None, None, []),
    ]


def test_the_upgrade_leaves_a_ts_outside_the_supported_range_undated(tmp_path: Path) -> None:
    """Version 2 dated years 1 to 9999; version 3 keeps 1970 up to 2200 (schema.sql,
    lane_ts_in_range): the upgrade undates what lies outside, and writes the ts macros again,
    so the next ingest reads by the new rule.  The version-2 database is made here: a current
    one set back to version 2, with a far date stored and version 2's unbounded ts macro."""
    path = tmp_path / "far.duckdb"
    con = store.open_db(path)
    log = tmp_path / "near.jsonl"
    log.write_text('{"attempt_id": "near-1", "ts": "2026-10-05T10:00:00Z"}\n'
                   '{"attempt_id": "near-2", "ts": "2026-10-06T10:00:00Z"}\n')
    ingest_paths(con, [log])
    con.close()
    con = duckdb.connect(str(path))
    con.execute("UPDATE lanelog_meta SET value = '2' WHERE key = 'schema_version'")
    con.execute("UPDATE attempts SET ts = TIMESTAMP '9999-12-31 10:00:00', week = DATE '9999-12-27' "
                "WHERE attempt_id = 'near-2'")
    con.execute("CREATE OR REPLACE MACRO lane_ts_in_range(t) AS t")  # version 2 took any year
    con.close()
    con = store.open_db(path)
    try:
        assert con.execute("SELECT attempt_id, ts IS NULL, week IS NULL FROM attempts ORDER BY attempt_id").fetchall() \
            == [("near-1", False, False), ("near-2", True, True)]
        far = tmp_path / "far.jsonl"
        far.write_text('{"attempt_id": "far-1", "ts": "2026-10-05T10:00:00+01:00"}\n'
                       '{"attempt_id": "far-2", "ts": "1500-03-02T00:00:00+01:00"}\n')
        ingest_paths(con, [far])
        assert con.execute("SELECT attempt_id, ts IS NULL FROM attempts WHERE attempt_id LIKE 'far-%' "
                           "ORDER BY attempt_id").fetchall() == [("far-1", False), ("far-2", True)]
    finally:
        con.close()


def test_a_version_3_database_keeps_its_replays_and_gets_empty_evidence(tmp_path: Path) -> None:
    """Version 4 adds each side's evidence to replay_patches; a version-3 replay is kept, with NULL."""
    from lanelog.store.replays import store as store_replay

    path = tmp_path / "v3.duckdb"
    con = store.open_db(path)
    try:
        store_replay(con, {"checkout": "/src", "candidate": "c.yaml", "baseline": "b", "source": "s",
                           "patches": 1, "skipped": 0},
                     [{"base": "a" * 40, "head": "b" * 40, "day": date(2026, 9, 15), "subject": "Fix it",
                       "baseline_probe": "reject", "baseline_reasons": ["assertion_removed"], "baseline_units": 0.0,
                       "baseline_armed": False, "candidate_probe": "pass", "candidate_reasons": [],
                       "candidate_units": 1.0, "candidate_armed": True}])
    finally:
        con.close()
    # The version-3 shape: replay_patches without the evidence columns, and version 3 recorded.
    con = duckdb.connect(str(path))
    try:
        con.execute("ALTER TABLE replay_patches DROP COLUMN baseline_evidence")
        con.execute("ALTER TABLE replay_patches DROP COLUMN candidate_evidence")
        con.execute("UPDATE lanelog_meta SET value = '3' WHERE key = 'schema_version'")
        before = con.execute("SELECT * FROM replay_patches").fetchall()
    finally:
        con.close()
    with pytest.raises(SchemaMismatch, match="schema version 3, and this lanelog uses version 7"):
        store.open_db(path, read_only=True)
    con = store.open_db(path)
    try:
        assert store.read_meta(con)["schema_version"] == "7"
        stored = latest(con)
    finally:
        con.close()
    con = duckdb.connect(str(path), read_only=True)
    try:
        assert con.execute("SELECT * FROM replay_patches").fetchall() == [(*before[0], None, None)]
    finally:
        con.close()
    assert stored is not None and len(stored["flips"]) == 1
    assert (stored["flips"][0]["baseline_evidence"], stored["flips"][0]["candidate_evidence"]) == (None, None)


def test_an_upgraded_version_2_database_holds_the_catalog_of_a_new_one(v2: Path) -> None:
    """Every table, column, type, key and macro of version 7, and nothing else (the version-4
    shapes: tests/store/test_upgrade_v4.py)."""
    from tests.store.catalog import INGEST_MACRO, catalog

    store.open_db(v2).close()
    con, new = duckdb.connect(str(v2), read_only=True), store.open_memory()
    try:
        found, made = catalog(con), catalog(new)
    finally:
        con.close()
        new.close()
    for each in (found, made):
        each["macros"].pop(INGEST_MACRO, None)  # ingest's, made again by the next ingest
    assert found == made
