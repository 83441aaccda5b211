"""open_db opens only what is a lanelog database (or nothing yet), and a write checks it can finish first.

Issue 28, class 1: DuckDB opens a lane log, a CSV or a Parquet file as a throwaway
in-memory database, where a write "succeeds" and stores nothing.  Class 7: a write
whose folder cannot take DuckDB's WAL failed only at COMMIT, after all its work.
Issue 29: a command that reads a database never makes one, and every hint names
the user's own path.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from lanelog import store
from lanelog.errors import NotADatabase, SchemaMismatch

LINE = '{"attempt_id": "a1", "ts": "2026-10-05T09:00:00Z", "probe": "pass"}\n'


def lanelog(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "lanelog", *args], capture_output=True, text=True,
                          timeout=120, cwd=cwd, check=False)


@pytest.fixture
def lane_log(tmp_path: Path) -> Path:
    path = tmp_path / "lane-log.jsonl"
    path.write_text(LINE + LINE.replace("a1", "a2"), encoding="utf-8")
    return path


def _refusal(path: Path, *, read_only: bool = False) -> str:
    before = path.read_bytes() if path.is_file() else None
    with pytest.raises(NotADatabase) as caught:
        store.open_db(path, read_only=read_only)
    if before is not None:
        assert path.read_bytes() == before, "a refused file is left as it was"
    assert not Path(f"{path}.wal").exists()
    return caught.value.message


@pytest.mark.parametrize("read_only", [False, True])
def test_a_lane_log_given_as_the_database_is_named_with_the_command_to_run(lane_log: Path, read_only: bool) -> None:
    assert _refusal(lane_log, read_only=read_only) == (
        f"cannot open the database {lane_log}: it is a lane log (JSON lines), not a database; to store its "
        f"lines, run `lanelog ingest {lane_log} --db lanelog.duckdb`, then use --db lanelog.duckdb"
    )


def test_other_files_are_named_by_their_first_bytes_not_their_name(tmp_path: Path) -> None:
    table = pa.table({"x": [1, 2]})
    pq.write_table(table, tmp_path / "data.duckdb")  # a Parquet file, whatever its name says
    assert "it is a Parquet file, not a database" in _refusal(tmp_path / "data.duckdb")
    (tmp_path / "rows.duckdb").write_text("id,name\n1,a\n2,b\n")
    assert "it is a CSV file, not a database" in _refusal(tmp_path / "rows.duckdb")
    (tmp_path / "lake.json").write_text(json.dumps({"lake_schema_version": 1}, indent=2))
    assert "it is a JSON file, not a database" in _refusal(tmp_path / "lake.json")
    (tmp_path / "log.jsonl.gz").write_bytes(gzip.compress(LINE.encode()))
    assert "it is a gzip file (a compressed lane log?)" in _refusal(tmp_path / "log.jsonl.gz")
    (tmp_path / "empty.duckdb").write_bytes(b"")
    assert "it is an empty file, not a database" in _refusal(tmp_path / "empty.duckdb")
    (tmp_path / "noise.duckdb").write_bytes(bytes(range(256)) * 20)
    assert "it is not a database at all" in _refusal(tmp_path / "noise.duckdb")
    (tmp_path / "folder.duckdb").mkdir()
    assert "it is a folder, not a database" in _refusal(tmp_path / "folder.duckdb")


@pytest.mark.parametrize("made", [
    "CREATE VIEW answers AS SELECT 42 AS answer",
    "CREATE MACRO twice(x) AS x * 2",
    "CREATE MACRO numbers() AS TABLE SELECT 1 AS n",
    "CREATE SEQUENCE ids",
    "CREATE TYPE mood AS ENUM ('ok', 'sad')",
    "CREATE SCHEMA analytics",
])
def test_a_duckdb_database_holding_anything_but_lanelogs_tables_is_left_alone(tmp_path: Path, made: str) -> None:
    other = tmp_path / "analytics.duckdb"
    con = duckdb.connect(str(other))
    con.execute(made)
    con.close()
    with pytest.raises(SchemaMismatch, match="is not a lanelog database"):
        store.open_db(other)
    con = duckdb.connect(str(other), read_only=True)
    assert con.execute("SELECT count(*) FROM duckdb_tables()").fetchall() == [(0,)], "no lanelog table written"
    con.close()


def test_an_empty_duckdb_database_becomes_a_lanelog_one_on_a_write(tmp_path: Path) -> None:
    empty = tmp_path / "empty.duckdb"
    duckdb.connect(str(empty)).close()
    with pytest.raises(SchemaMismatch, match=f"an empty DuckDB database.*--db {empty}"):
        store.open_db(empty, read_only=True)
    store.open_db(empty).close()
    store.open_db(empty, read_only=True).close()


def test_ingest_into_a_lane_log_stores_nothing_and_says_so(lane_log: Path, tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "b.jsonl").write_text(LINE.replace("a1", "b1"))
    before = lane_log.read_bytes()
    done = lanelog("ingest", "--db", str(lane_log), str(logs))
    assert done.returncode == 2
    assert done.stdout == ""
    assert "it is a lane log (JSON lines), not a database" in done.stderr
    assert lane_log.read_bytes() == before


@pytest.mark.parametrize("command", ["report", "check"])
def test_reading_a_lane_log_as_the_database_names_it(lane_log: Path, command: str) -> None:
    done = lanelog(command, "--db", str(lane_log))
    assert done.returncode == 2
    assert done.stderr == (
        f"Error: cannot open the database {lane_log}: it is a lane log (JSON lines), not a database; to store "
        f"its lines, run `lanelog ingest {lane_log} --db lanelog.duckdb`, then use --db lanelog.duckdb\n"
    )


@pytest.mark.parametrize("command", ["report", "check"])
def test_reading_a_missing_database_makes_none_and_names_the_users_path(tmp_path: Path, command: str) -> None:
    missing = tmp_path / "nope.duckdb"
    done = lanelog(command, "--db", str(missing))
    assert done.returncode == 2
    assert f"no database at {missing}: make one with `lanelog ingest LANE_LOG --db {missing}`" in done.stderr
    assert not missing.exists()


def test_ingest_of_a_mistyped_path_makes_no_database(tmp_path: Path) -> None:
    done = lanelog("ingest", "lane-lgo.jsonl", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == "Error: lane-lgo.jsonl: no such file or folder\n"
    assert sorted(os.listdir(tmp_path)) == [], "no lanelog.duckdb left behind"
    several = lanelog("ingest", "a.jsonl", "b.jsonl", "--db", "x.duckdb", cwd=tmp_path)
    assert several.returncode == 2 and "2 files could not be read" in several.stderr
    assert sorted(os.listdir(tmp_path)) == []


def _read_only_folder(folder: Path, database: Path) -> list[str]:
    """A command prefix under which `folder` is read-only and `database` in it stays writable.

    Not root: the folder's mode says so.  Root writes anywhere a mode allows nothing, so the
    folder is mounted read-only in a mount namespace of the command's own (unshare), with the
    database file bound over it from a writable hard link: DuckDB can write the file, never
    its WAL beside it."""
    if os.geteuid() != 0:
        folder.chmod(0o555)
        return []
    link = folder.parent / f"{database.name}.rw"
    os.link(database, link)
    script = ('mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && mount --bind "$2" "$3" '
              '&& shift 3 && exec "$@"')
    return ["unshare", "-m", "sh", "-c", script, "sh", str(folder), str(link), str(database)]


def test_a_write_into_a_read_only_folder_fails_before_any_work(tmp_path: Path, lane_log: Path) -> None:
    folder = tmp_path / "shared"
    folder.mkdir()
    db = folder / "lanelog.duckdb"
    store.open_db(db).close()
    prefix = _read_only_folder(folder, db)
    done = subprocess.run([*prefix, sys.executable, "-m", "lanelog", "ingest", str(lane_log), "--db", str(db)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2, done.stderr
    assert done.stdout == "", "nothing was ingested, so nothing is reported as ingested"
    assert done.stderr == (
        f"Error: cannot write the database {db}: its folder {folder} is not writable, and DuckDB writes its "
        f"log lanelog.duckdb.wal there; move the database to a writable folder\n"
    )
    folder.chmod(0o755)
    con = store.open_db(db, read_only=True)
    assert con.execute("SELECT count(*) FROM attempts").fetchall() == [(0,)]
    con.close()



def test_replay_db_into_a_read_only_folder_fails_before_replaying(tmp_path: Path) -> None:
    """Issue 28, class 7: `replay --db` replayed every patch, then failed at COMMIT with a traceback."""
    from tests.router.conftest import LANES_YAML

    repo = tmp_path / "repo"
    repo.mkdir()

    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, timeout=60,
                       env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
                            "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"})

    git("init", "-q", "-b", "main")
    (repo / "lanes.yaml").write_text(LANES_YAML)
    (repo / "store.py").write_text("def put(key, body):\n    return body\n")
    git("add", "-A")
    git("commit", "-q", "-m", "base")
    (repo / "store.py").write_text("def put(key, body):\n    return dict(body)\n")
    git("commit", "-q", "-am", "Return a copy")
    folder = tmp_path / "shared"
    folder.mkdir()
    db = folder / "lanelog.duckdb"
    store.open_db(db).close()
    prefix = _read_only_folder(folder, db)
    done = subprocess.run([*prefix, sys.executable, "-m", "lanelog", "replay", "--repo", str(repo),
                           "--policy", str(repo / "lanes.yaml"), "--commits", "main~1..main", "--db", str(db)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == (
        f"Error: cannot write the database {db}: its folder {folder} is not writable, and DuckDB writes its "
        f"log lanelog.duckdb.wal there; move the database to a writable folder\n"
    )
