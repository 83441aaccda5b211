"""A lake whose state lists a file that is gone, or that cannot be read: an error naming it, never fewer rows.

Read without a deleted week, `report --lake` once exited 0 with fewer attempts and `check --lake`
said "no credit bugs" though that week held one.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from lanelog.cli import cli

WEEKS = ["2026-03-02", "2026-03-09", "2026-03-16"]


def run(*args: str | Path) -> Result:
    return CliRunner().invoke(cli, [str(arg) for arg in args])


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A database of three weeks, its middle week holding the one credit bug, and its lake."""
    folder = tmp_path_factory.mktemp("gone")
    log = folder / "lane-log.jsonl"
    lines = [{"attempt_id": f"a{n}", "ts": f"{week}T10:00:00Z", "repo": "svc", "probe": "pass", "quarantine": [],
              "merge_credit": 0, "model_call_allowed": True} for n, week in enumerate(WEEKS)]
    lines.append({"attempt_id": "bug", "ts": "2026-03-10T10:00:00Z", "repo": "svc", "producer": "legacy-promoter",
                  "probe": "pass", "quarantine": ["test_flaky"], "merge_credit": 1, "model_call_allowed": True})
    log.write_text("".join(json.dumps(line) + "\n" for line in lines) + "not json\n")
    db = folder / "lanelog.duckdb"
    assert run("ingest", log, "--db", db).exit_code == 0
    lake = folder / "lake"
    assert run("export", "--db", db, "--lake", lake, "--quiet").exit_code == 0
    return db, lake


@pytest.fixture
def lake(exported: tuple[Path, Path], tmp_path: Path) -> Path:
    """A copy of the lake for one test to damage."""
    return Path(shutil.copytree(exported[1], tmp_path / "lake"))


def week_file(lake: Path, week: str = WEEKS[1]) -> Path:
    return lake / "attempts" / f"week={week}" / "data.parquet"


def test_a_week_file_deleted_is_exit_2_naming_it_for_report_and_check(lake: Path) -> None:
    week_file(lake).unlink()
    for command in ("report", "check"):
        result = run(command, "--lake", lake)
        assert result.exit_code == 2, result.output
        assert result.stderr == (f"Error: the lake at {lake} lists {week_file(lake)}, which is not there: its figures "
                                 f"cannot be read whole; write it again with `lanelog export --lake {lake}` from the "
                                 "database\n")


def test_every_table_file_deleted_is_named_and_export_writes_it_again(exported: tuple[Path, Path],
                                                                      lake: Path) -> None:
    db = exported[0]
    whole = run("report", "--db", db, "--format", "json").stdout
    for table in ("rejected_lines", "sources", "replays", "replay_patches"):
        (lake / table / "data.parquet").unlink()
    week_file(lake, WEEKS[0]).unlink()
    week_file(lake, WEEKS[2]).unlink()
    result = run("check", "--lake", lake)
    assert result.exit_code == 2
    assert f"lists {week_file(lake, WEEKS[0])}, which is not there (and 5 more of its files)" in result.stderr
    assert run("export", "--db", db, "--lake", lake, "--quiet").exit_code == 0
    assert run("report", "--lake", lake, "--format", "json").stdout == whole
    again = run("check", "--lake", lake)
    assert again.exit_code == 1
    assert "1 credit bug (1 attempt given merge credit while quarantined) in range" in again.output


@pytest.mark.parametrize("damage", ["garbage", "truncated", "folder"])
@pytest.mark.parametrize("where", ["attempts", "rejected_lines"])
def test_a_file_that_cannot_be_read_is_exit_2_naming_it(lake: Path, damage: str, where: str) -> None:
    target = week_file(lake) if where == "attempts" else lake / where / "data.parquet"
    data = target.read_bytes()
    target.unlink()
    if damage == "folder":
        target.mkdir()
    else:
        target.write_bytes(b"not parquet\n" if damage == "garbage" else data[:len(data) // 2])
    for command in ("report", "check"):
        result = run(command, "--lake", lake)
        assert result.exit_code == 2, result.output
        assert result.stderr.startswith(f"Error: cannot read the lake at {lake}: ") and str(target) in result.stderr
        assert "\\x0a" not in result.stderr  # the cause's first line, without DuckDB's excerpt of the SQL
