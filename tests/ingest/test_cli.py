"""`lanelog ingest`: the summary, --format json, exit codes and the exact error texts."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from lanelog import ingest, store
from lanelog.cli import cli
from tests.ingest.support import HOLDER

OUTCOME = '{"kind": "outcome", "outcome_id": "outcome-1", "state": "merged", "ts": "2026-10-08T14:03:00Z"}\n'


@pytest.fixture
def logs(tmp_path: Path) -> Path:
    # The outcome line twice: the second, a re-run job's, is a duplicate.
    (tmp_path / "a.jsonl").write_text('{"attempt_id": "a1"}\n{"attempt_id": "a1"}\nnot json\n' + OUTCOME)
    (tmp_path / "b.jsonl").write_text('{"attempt_id": "b1", "probe": "reject"}\n' + OUTCOME + '{"attempt_id": "b2"')
    return tmp_path


def run(*args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(cli, ["ingest", *args], env=env)


def test_summary_line(logs: Path, tmp_path: Path) -> None:
    result = run("--db", str(tmp_path / "db.duckdb"), str(logs / "a.jsonl"), str(logs / "b.jsonl"))
    assert result.exit_code == 0
    assert result.stdout == ("2 files, 7 lines read: 2 attempts added, 1 outcome added, 2 duplicates, "
                             "1 rejected, 1 pending\n")
    assert result.stderr == ""


def test_json_summary_and_the_env_database(logs: Path, tmp_path: Path) -> None:
    db = tmp_path / "env.duckdb"
    result = run("--format", "json", str(logs), env={"LANELOG_DB": str(db)})
    assert result.exit_code == 0
    assert json.loads(result.stdout) == {
        "files": 2, "lines_read": 7, "attempts_added": 2, "outcomes_added": 1, "duplicates": 2, "rejected": 1,
        "pending": 1, "undated_outcomes": 0
    }
    again = run("--format", "json", str(logs), env={"LANELOG_DB": str(db)})
    assert json.loads(again.stdout) == {
        "files": 2, "lines_read": 0, "attempts_added": 0, "outcomes_added": 0, "duplicates": 0, "rejected": 0,
        "pending": 0, "undated_outcomes": 0
    }


def test_the_old_json_flag_prints_the_same_object_for_one_release_with_a_note(logs: Path, tmp_path: Path) -> None:
    old = run("--json", "--db", str(tmp_path / "old.duckdb"), str(logs))
    new = run("--format", "json", "--db", str(tmp_path / "new.duckdb"), str(logs))
    assert old.exit_code == new.exit_code == 0
    assert json.loads(old.stdout) == json.loads(new.stdout)
    assert old.stderr == "warning: --json is deprecated and goes in the next release; use --format json\n"
    assert new.stderr == ""
    clash = run("--json", "--format", "text", "--db", str(tmp_path / "clash.duckdb"), str(logs))
    assert clash.exit_code == 2
    assert "Error: --format and the deprecated --json disagree" in clash.stderr
    assert not (tmp_path / "clash.duckdb").exists()


def test_an_unreadable_file_exits_2_and_the_others_are_ingested(logs: Path, tmp_path: Path) -> None:
    missing = logs / "missing.jsonl"
    db = tmp_path / "db.duckdb"
    result = run("--format", "json", "--db", str(db), str(missing), str(logs / "a.jsonl"))
    assert result.exit_code == 2
    assert json.loads(result.stdout)["attempts_added"] == 1
    assert result.stderr == f"Error: {missing}: no such file or folder\n"
    con = store.open_db(db, read_only=True)
    assert con.execute("SELECT attempt_id FROM attempts").fetchall() == [("a1",)]
    con.close()


def test_several_unreadable_files_are_listed(logs: Path, tmp_path: Path) -> None:
    bad = logs / "bad.jsonl.gz"
    bad.write_bytes(b"not gzip at all")
    missing = logs / "missing.jsonl"
    result = run("--db", str(tmp_path / "db.duckdb"), str(bad), str(missing))
    assert result.exit_code == 2
    assert result.stderr == (
        "Error: 2 files could not be read:\n"
        f"  {bad}: corrupt gzip data (Not a gzipped file (b'no'))\n"
        f"  {missing}: no such file or folder\n"
    )


README = "# My project\n\nIt does things.\n\n- one\n- two\n"
SHAPE = ('a lane log holds one JSON object per line, as `lanelog route` writes it: '
         '{"attempt_id": "...", "ts": "2026-10-05T09:00:00Z", "probe": "pass", ...}')


def test_a_file_that_is_no_lane_log_is_named_kept_as_rejected_lines_and_exits_2(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(README, encoding="utf-8")
    db = tmp_path / "db.duckdb"
    result = run("--db", str(db), str(readme))
    assert result.exit_code == 2
    # Blank lines are read past, as in any log: four lines of text.
    assert result.stdout == ("1 file, 4 lines read: 0 attempts added, 0 outcomes added, 0 duplicates, "
                             "4 rejected, 0 pending\n")
    assert result.stderr == (f"Error: {readme}: not a lane log: no line read is a JSON object ({SHAPE}); its 4 "
                             "lines are kept as rejected lines, listed on the dashboard's Data health page\n")
    con = store.open_db(db, read_only=True)
    try:  # stored losslessly, as every rejected line is
        assert con.execute("SELECT count(*) FROM rejected_lines").fetchall() == [(4,)]
    finally:
        con.close()


def test_a_file_that_is_no_lane_log_beside_a_lane_log_is_a_warning(logs: Path, tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(README, encoding="utf-8")
    result = run("--db", str(tmp_path / "db.duckdb"), str(logs / "a.jsonl"), str(readme))
    assert result.exit_code == 0
    assert result.stdout == ("2 files, 8 lines read: 1 attempt added, 1 outcome added, 1 duplicate, "
                             "5 rejected, 0 pending\n")
    assert result.stderr == f"Warning: {readme}: not a lane log: no line read is a JSON object ({SHAPE}); " \
                            "its 4 lines are kept as rejected lines, listed on the dashboard's Data health page\n"


def test_a_lane_log_with_some_bad_lines_is_no_warning(logs: Path, tmp_path: Path) -> None:
    result = run("--db", str(tmp_path / "db.duckdb"), str(logs / "a.jsonl"))
    assert (result.exit_code, result.stderr) == (0, "")


@pytest.mark.parametrize("given", ["docs", "docs/"])
def test_a_folder_with_no_lane_log_is_an_error_naming_it_and_makes_no_database(tmp_path: Path, given: str) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "cli.md").write_text("# cli\n", encoding="utf-8")
    folder = tmp_path / given
    db = tmp_path / "db.duckdb"
    result = run("--db", str(db), str(folder))
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == (f"Error: {tmp_path / 'docs'}: no lane logs in this folder (ingest reads the *.jsonl "
                             "and *.jsonl.gz files below it, and there are none)\n")
    assert not db.exists()


def test_a_folder_with_no_lane_log_beside_a_log_is_named_and_the_log_ingested(logs: Path, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    result = run("--format", "json", "--db", str(tmp_path / "db.duckdb"), str(empty), str(logs / "a.jsonl"))
    assert result.exit_code == 2
    assert json.loads(result.stdout)["attempts_added"] == 1
    assert result.stderr == (f"Error: {empty}: no lane logs in this folder (ingest reads the *.jsonl and "
                             "*.jsonl.gz files below it, and there are none)\n")


def test_a_database_from_another_schema_version(logs: Path, tmp_path: Path) -> None:
    db = tmp_path / "old.duckdb"
    con = store.open_db(db)
    con.execute("UPDATE lanelog_meta SET value = '99' WHERE key = 'schema_version'")
    con.close()
    result = run("--db", str(db), str(logs))
    assert result.exit_code == 2
    assert result.stderr.startswith(f"Error: {db} was made with lanelog schema version 99, ")


def test_wait_gives_up_and_names_the_holder(logs: Path, tmp_path: Path) -> None:
    db = tmp_path / "db.duckdb"
    store.open_db(db).close()
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(db), "60", "rw"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        result = run("--wait", "0.5", "--db", str(db), str(logs))
    finally:
        holder.kill()
        holder.wait()
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith(f"Error: the database {db} is held by process {holder.pid} (")
    assert "; gave up after waiting 0.5 s (raise --wait, or stop that process)." in result.stderr


def test_paths_are_required() -> None:
    result = run()
    assert result.exit_code == 2
    assert "Missing argument 'PATHS...'" in result.stderr


def test_the_progress_bar_appears_only_once_a_run_is_long(monkeypatch, capsys) -> None:
    from types import SimpleNamespace

    from lanelog.cli.commands import ingest as command

    clock = iter([100.0, 101.0, 103.0, 104.0])
    monkeypatch.setattr(command, "time", SimpleNamespace(monotonic=lambda: next(clock)))
    bar = command._LateBar(total=400)
    so_far = SimpleNamespace(files=1, lines_read=10)
    bar(100, so_far)  # one second in: no bar yet
    assert capsys.readouterr().err == ""
    bar(100, so_far)  # three seconds in: the bar appears, counting what was done before
    bar(100, so_far)
    bar.close()
    # Off a terminal click draws only the label; on one, the bar.
    assert capsys.readouterr().err == "ingesting\n"


def test_progress_reports_files_and_lines_as_a_run_goes(tmp_path: Path) -> None:
    from lanelog import store
    from lanelog.cli.commands.ingest import rate_text

    folder = tmp_path / "artifacts"
    folder.mkdir()
    for n in range(5):
        (folder / f"job-{n}.jsonl").write_text(json.dumps({"attempt_id": f"j{n}"}) + "\n")
    calls: list[tuple[int, int, int]] = []
    con = store.open_db(tmp_path / "t.duckdb")
    try:
        ingest.ingest_paths(con, [folder], progress=lambda n, summary: calls.append(
            (n, summary.files, summary.lines_read)))
    finally:
        con.close()
    assert [files for n, files, _lines in calls if n == 0] == [1, 2, 3, 4, 5]  # once as each log is done
    assert calls[-1][1:] == (5, 5)
    assert sum(n for n, _, _ in calls) == sum(p.stat().st_size for p in folder.iterdir())
    assert rate_text(5000, 12000, 2.0) == "5,000 files (2,500/s), 12,000 lines (6,000/s)"


def test_ingest_never_imports_pandas(logs: Path, tmp_path: Path) -> None:
    """Importing pandas costs a third of a second of every CI job's ingest: Arrow arrays are built from
    buffers, never by pa.array() (which imports pandas to check its input)."""
    folder = tmp_path / "run"
    folder.mkdir()
    for n in range(3):  # small logs: stored in one batch
        (folder / f"route-{n}.jsonl").write_text(f'{{"attempt_id": "r{n}"}}\n' + OUTCOME.replace("-1", f"-{n}"))
    # A batch of small logs, then logs stored one at a time, then one of them again.
    code = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from lanelog.cli import cli\n"
        "for paths in ([sys.argv[2]], [sys.argv[3], sys.argv[4]], [sys.argv[3]]):\n"
        "    result = CliRunner().invoke(cli, ['ingest', '--db', sys.argv[1], *paths])\n"
        "    assert result.exit_code == 0, result.output\n"
        "print('pandas' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "db.duckdb"), str(folder),
                           str(logs / "a.jsonl"), str(logs / "b.jsonl")], capture_output=True, text=True,
                          check=True, timeout=120)
    assert done.stdout == "False\n"
    con = store.open_db(tmp_path / "db.duckdb", read_only=True)
    try:
        paths = [row[0] for row in con.execute("SELECT path FROM sources ORDER BY source_id").fetchall()]
    finally:
        con.close()
    assert [Path(path).name for path in paths] == ["route-0.jsonl", "route-1.jsonl", "route-2.jsonl", "a.jsonl",
                                                   "b.jsonl"]
