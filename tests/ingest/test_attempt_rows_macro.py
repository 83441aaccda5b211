"""load.sql's lane_attempt_rows macro is kept in the database, made again only when its text changes."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb

from lanelog import ingest, store
from lanelog.ingest.statements import MACRO_KEY, macro_digest


def write_lines(path: Path, first: int, count: int) -> None:
    with path.open("a") as log:
        for n in range(first, first + count):
            log.write(json.dumps({"attempt_id": f"a{n}", "ts": "2026-10-05T12:00:00Z", "probe": "pass"}) + "\n")


def ingest_once(db: Path, log: Path) -> int:
    con = store.open_db(db)
    try:
        return ingest.ingest_paths(con, [log]).attempts_added
    finally:
        con.close()


def macro_definitions(db: Path) -> list[str]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return [row[0] for row in con.execute(
            "SELECT macro_definition FROM duckdb_functions() "
            "WHERE function_name = 'lane_attempt_rows' AND NOT internal").fetchall()]
    finally:
        con.close()


def test_the_first_ingest_keeps_the_macro_and_its_digest(tmp_path: Path) -> None:
    db, log = tmp_path / "l.duckdb", tmp_path / "lane-log.jsonl"
    write_lines(log, 0, 3)
    assert ingest_once(db, log) == 3
    assert len(macro_definitions(db)) == 1  # in the file, seen by a connection that made nothing
    con = store.open_db(db, read_only=True)
    try:
        assert store.read_meta(con)[MACRO_KEY] == macro_digest()
    finally:
        con.close()


def test_a_database_holding_another_macro_gets_this_one_and_ingests_exactly_once(tmp_path: Path) -> None:
    db, log = tmp_path / "l.duckdb", tmp_path / "lane-log.jsonl"
    write_lines(log, 0, 2)
    assert ingest_once(db, log) == 2
    # Another lanelog's macro: same name and parameters, a body that makes no attempt.
    con = duckdb.connect(str(db))
    con.execute("CREATE OR REPLACE MACRO lane_attempt_rows(lines, fail_broken) AS TABLE "
                "SELECT * FROM query_table(lines) WHERE false")
    con.execute("UPDATE lanelog_meta SET value = 'sha256:another' WHERE key = ?", [MACRO_KEY])
    con.close()
    write_lines(log, 2, 3)
    assert ingest_once(db, log) == 3  # this lanelog's macro again, not the other's
    con = store.open_db(db, read_only=True)
    try:
        assert store.read_meta(con)[MACRO_KEY] == macro_digest()
        assert con.execute("SELECT count(*), count(DISTINCT attempt_id) FROM attempts").fetchone() == (5, 5)
    finally:
        con.close()
