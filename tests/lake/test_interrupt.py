"""An interrupted export leaves a readable lake of whole weeks, and the next run completes it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
from click.testing import CliRunner

from lanelog import queries, store
from lanelog.cli import cli
from lanelog.store.lakefs import UNDATED
from tests.lake.conftest import make_db

KILL_AFTER_WEEKS = 3


def report_json(*args: str | Path) -> str:
    result = CliRunner().invoke(cli, ["report", *map(str, args), "--format", "json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def week_counts(db: Path) -> dict[str, int]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute("SELECT week, count(*) FROM attempts GROUP BY week").fetchall()
    finally:
        con.close()
    return {UNDATED if week is None else week.isoformat(): count for week, count in rows}


def test_kill_9_mid_export_leaves_whole_weeks_and_the_next_run_completes(tmp_path: Path) -> None:
    # 60 weeks: the export is far from done when the third week is reported written.
    db = make_db(tmp_path, seed=21, lines=6000, weeks=60)
    lake = tmp_path / "lake"
    expected = week_counts(db)
    child = subprocess.Popen(
        [sys.executable, "-m", "lanelog", "export", "--db", str(db), "--lake", str(lake)],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    try:
        written = 0
        for line in child.stderr:
            if line.startswith("week "):
                written += 1
                if written == KILL_AFTER_WEEKS:
                    os.kill(child.pid, signal.SIGKILL)
                    break
    finally:
        child.wait(timeout=60)
        child.stderr.close()
    assert child.returncode == -signal.SIGKILL

    # Readable: each week present is whole, and report --lake runs on what is there.
    present = sorted(p.parent.name.split("=", 1)[1] for p in lake.glob("attempts/week=*/data.parquet"))
    assert KILL_AFTER_WEEKS <= len(present) < len(expected)
    for week in present:
        assert pq.read_table(lake / "attempts" / f"week={week}" / "data.parquet").num_rows == expected[week]
    partial = json.loads(report_json("--lake", lake))
    assert partial["totals"]["attempts"] == sum(expected[week] for week in present)

    result = CliRunner().invoke(cli, ["export", "--db", str(db), "--lake", str(lake), "--format", "json", "--quiet"],
                                catch_exceptions=False)
    assert result.exit_code == 0
    summary = json.loads(result.stdout)
    assert summary["weeks_unchanged"] >= KILL_AFTER_WEEKS
    assert len(summary["weeks_written"]) + summary["weeks_unchanged"] == len(expected)
    assert report_json("--lake", lake) == report_json("--db", db)
    assert [p for p in lake.rglob(".*") if p.is_file()] == []


def test_a_half_written_week_is_invisible_and_cleared_by_the_next_run(tmp_path: Path) -> None:
    db = make_db(tmp_path, seed=22, lines=300)
    lake = tmp_path / "lake"
    con = store.open_db(db, read_only=True)
    try:
        store.export_lake(con, lake)
        # What a writer killed mid-file leaves: a hidden temporary beside the week's file.
        week = lake / "attempts" / "week=2026-03-09"
        stray = week / ".data.parquet.0123456789ab.tmp"
        stray.write_bytes(b"PAR1 half a file")
        with store.open_lake(lake) as lake_con:
            assert queries.report(lake_con) == queries.report(con)
        summary = store.export_lake(con, lake)
    finally:
        con.close()
    assert summary.temporaries_removed == 1 and summary.weeks_written == []
    assert not stray.exists()
    assert sorted(os.listdir(week)) == ["data.parquet"]
