"""A database made by the release before schema version 3 is upgraded in place, losing nothing.

tests/store/data/v2.duckdb was made by lanelog at commit 73df201 (schema version 2)
with tests/store/data/make_v2_db.sh: one lane log of every kind of line, and one
stored replay.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

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


def _without_source(found: dict[str, list[dict]]) -> dict[str, list[dict]]:
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
        f"{v2} was made with lanelog schema version 2, and this lanelog uses version 3: run "
        f"`lanelog ingest LANE_LOG --db {v2}` once (with any of your logs; a log read before adds "
        "nothing) to upgrade it in place, keeping every row"
    )
    assert v2.read_bytes() == before


def test_a_read_write_open_upgrades_keeping_every_row_and_figure(v2: Path) -> None:
    before = _every_row(v2)
    store.open_db(v2).close()
    after = _every_row(v2)
    meta = dict(after.pop("lanelog_meta"))
    assert meta["schema_version"] == "3" and meta["created_by"] == "lanelog 0.1.0"
    assert meta["upgraded_by"].startswith("lanelog ")
    assert after == {table: rows for table, rows in before.items() if table != "lanelog_meta"}

    # The figures read from the upgraded file are those of the same log ingested today.
    fresh = store.open_memory()
    ingest_paths(fresh, [DATA / "v2-lane-log.jsonl"])
    con = store.open_db(v2, read_only=True)
    try:
        assert queries.report(con) == queries.report(fresh)
        # (A credit bug names its log by the path it was read from: the maker's temporary folder.)
        assert _without_source(queries.check(con)) == _without_source(queries.check(fresh))
        assert len(queries.check(con)["credit_bugs"]) == 1
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
    done = lanelog("ingest", str(DATA / "v2-lane-log.jsonl"), "--db", str(v2), "--json")
    assert done.returncode == 0, done.stderr
    # The log was read before: its complete lines add nothing (the provisional last line is read again).
    assert '"attempts_added": 0' in done.stdout
    report = lanelog("report", "--db", str(v2), "--format", "json")
    assert report.returncode == 0, report.stderr
    assert '"attempts": 5' in report.stdout
