"""Opening the database: creation, schema version, and waiting for another process's lock."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import duckdb
import pyarrow as pa
import pytest

from lanelog.errors import DatabaseLocked, IngestError, NotADatabase, SchemaMismatch, StoreError
from lanelog.ingest import ingest_paths
from lanelog.store import SCHEMA_VERSION, default_db_path, open_db
from tests.ingest.support import HOLDER


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "lanelog.duckdb"
    open_db(path).close()
    return path


def hold(db: Path, seconds: float, mode: str = "rw") -> subprocess.Popen:
    """Another process holding the database lock for `seconds`."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(db), str(seconds), mode],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    return holder


@pytest.fixture
def holders() -> Iterator[list[subprocess.Popen]]:
    started: list[subprocess.Popen] = []
    yield started
    for holder in started:
        holder.kill()
        holder.wait()


def test_default_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LANELOG_DB", raising=False)
    assert default_db_path() == Path("lanelog.duckdb")
    monkeypatch.setenv("LANELOG_DB", "/data/lanes.duckdb")
    assert default_db_path() == Path("/data/lanes.duckdb")


def test_a_new_database_gets_the_schema_and_its_version(db: Path) -> None:
    con = open_db(db, read_only=True)
    assert con.execute("SELECT value FROM lanelog_meta WHERE key = 'schema_version'").fetchall() == [
        (str(SCHEMA_VERSION),)
    ]
    tables = {name for (name,) in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
    # Version 3: the stored replays' tables are part of the schema, not made on first write,
    # and so are the credit bugs already sent to each alert receiver and the objects read;
    # version 4: the alerts claimed by a run that is sending them; version 5: the outcome lines.
    assert tables == {"lanelog_meta", "sources", "attempts", "rejected_lines", "ingest_runs",
                      "replays", "replay_patches", "alerts_sent", "alerts_claimed", "objects_read", "outcomes"}
    # The macros are stored with the schema, so readers have them too.
    assert con.execute("SELECT py_truthy('\"0\"'), lane_week(TIMESTAMP '2026-10-11 23:59')").fetchall() == [
        (True, date(2026, 10, 5))
    ]
    assert con.execute("SELECT current_setting('TimeZone')").fetchall() == [("UTC",)]
    con.register("check", pa.table({"x": [1]}))  # no result left unfinished by open_db
    con.close()


def test_read_only_needs_an_existing_database(tmp_path: Path) -> None:
    missing = tmp_path / "none.duckdb"
    with pytest.raises(StoreError) as caught:
        open_db(missing, read_only=True)
    # The hint carries the path the user gave, so following it makes that database.
    assert caught.value.message == (
        f"no database at {missing}: make one with `lanelog ingest LANE_LOG --db {missing}` "
        f"(or try lanelog with `lanelog demo --db {missing}`)"
    )
    assert not missing.exists()


def test_another_schema_version_is_a_clear_error(db: Path) -> None:
    con = open_db(db)
    con.execute("UPDATE lanelog_meta SET value = '0' WHERE key = 'schema_version'")
    con.close()
    with pytest.raises(SchemaMismatch) as caught:
        open_db(db, read_only=True)
    assert caught.value.message == (
        f"{db} was made with lanelog schema version 0, and this lanelog uses version "
        f"{SCHEMA_VERSION}: move the file aside and ingest the logs again into a new database "
        "(the logs themselves are the source of truth)"
    )


def test_a_database_that_is_not_lanelogs_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "other.duckdb"
    con = duckdb.connect(str(other))
    con.execute("CREATE TABLE accounts (id INTEGER)")
    con.close()
    with pytest.raises(SchemaMismatch) as caught:
        open_db(other)
    assert caught.value.message == (
        f"{other} is not a lanelog database (it has no lanelog_meta table); "
        "point --db (or LANELOG_DB) at another file"
    )
    con = duckdb.connect(str(other))
    assert con.execute("SELECT count(*) FROM duckdb_tables()").fetchall() == [(1,)]
    con.close()


def test_a_file_that_is_not_a_database_is_a_store_error(tmp_path: Path) -> None:
    text = tmp_path / "notes.duckdb"
    text.write_text("these are notes, not a database\n" * 100)
    with pytest.raises(NotADatabase) as caught:
        open_db(text)
    assert caught.value.message.startswith(f"cannot open the database {text}: ")


def test_open_waits_while_another_process_holds_the_lock(db: Path, tmp_path: Path, holders) -> None:
    log = tmp_path / "lane.jsonl"
    log.write_text('{"attempt_id": "a1"}\n')
    holder = hold(db, 1.0)
    holders.append(holder)
    con = open_db(db, wait=30)  # returns only once the holder has let go
    out, _ = holder.communicate(timeout=30)
    assert out == "releasing\n"
    assert ingest_paths(con, [log]).attempts_added == 1
    con.close()


def test_a_reader_waits_for_a_writer_too(db: Path, holders) -> None:
    holder = hold(db, 1.0)
    holders.append(holder)
    con = open_db(db, read_only=True, wait=30)
    out, _ = holder.communicate(timeout=30)
    assert out == "releasing\n"
    con.close()


def test_giving_up_names_the_holder(db: Path, holders) -> None:
    holder = hold(db, 60)
    holders.append(holder)
    with pytest.raises(DatabaseLocked) as caught:
        open_db(db, wait=0.3)
    message = caught.value.message
    assert message.startswith(f"the database {db} is held by process {holder.pid} (")
    assert "; gave up after waiting 0.3 s (raise --wait, or stop that process). DuckDB said: " in message
    assert holder.poll() is None  # still holding: we gave up, it did not let go


def test_readers_share_the_file(db: Path, holders) -> None:
    holders.append(hold(db, 60, mode="ro"))
    con = open_db(db, read_only=True, wait=0)
    assert con.execute("SELECT count(*) FROM attempts").fetchall() == [(0,)]
    con.close()


def test_ingest_caps_duckdbs_memory_while_it_runs_then_puts_it_back(db: Path, tmp_path: Path) -> None:
    log = tmp_path / "lane.jsonl"
    log.write_text('{"attempt_id": "a1"}\n')
    con = open_db(db)
    con.execute("SET memory_limit = '2GB'")
    seen: list[str] = []
    ingest_paths(con, [log], progress=lambda n, _: seen.extend(
        row[0] for row in con.execute("SELECT current_setting('memory_limit')").fetchall()
    ))
    assert seen == ["244.1 MiB"] * 2  # 256 MB, as DuckDB shows it: after the commit and as the log is done
    # Put back as DuckDB shows it, to its one decimal: 2 GB shows as 1.8 GiB.
    ((after,),) = con.execute("SELECT current_setting('memory_limit')").fetchall()
    assert after.endswith(" GiB") and 1.7 <= float(after.split()[0]) <= 1.8
    con.execute("SET memory_limit = '100MB'")  # a lower limit is left alone
    log.write_text('{"attempt_id": "a1"}\n{"attempt_id": "a2"}\n')
    seen.clear()
    ingest_paths(con, [log])
    assert con.execute("SELECT current_setting('memory_limit')").fetchall() == [("95.3 MiB",)]
    con.close()


def test_ingest_refuses_a_read_only_connection(db: Path, tmp_path: Path) -> None:
    log = tmp_path / "lane.jsonl"
    log.write_text('{"attempt_id": "a1"}\n')
    con = open_db(db, read_only=True)
    with pytest.raises(IngestError) as caught:
        ingest_paths(con, [log])
    assert caught.value.message == (
        "the database lanelog is open read-only: ingest needs open_db(path) without read_only"
    )
    con.close()
