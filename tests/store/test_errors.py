"""Every way storage fails is a StoreError: one `except StoreError` catches them all.

Issue 37: store/ raised IngestError, and the locked, mismatched and non-database
errors subclassed it, so `except StoreError` missed them and a caller catching a
log's IngestError caught the database's failure as the log's.  The messages and
the exit code (2) are unchanged.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest

from lanelog import store
from lanelog.errors import (
    DatabaseLocked,
    IngestError,
    LakeError,
    NotADatabase,
    SchemaMismatch,
    StoreError,
)
from tests.ingest.support import HOLDER

STORE = Path(__file__).resolve().parents[2] / "store"
LINE = '{"attempt_id": "a1", "ts": "2026-10-05T09:00:00Z", "probe": "pass"}\n'


def caught(opening: Callable[[], Any]) -> StoreError:
    """What `except StoreError` catches from opening (which must fail)."""
    try:
        opening().close()
    except StoreError as error:
        assert not isinstance(error, IngestError), "a storage failure is never a log's"
        assert error.exit_code == 2
        return error
    raise AssertionError("the storage was opened")


@pytest.fixture
def held(tmp_path: Path) -> Iterator[Path]:
    """A database another process holds read-write for as long as the test runs."""
    db = tmp_path / "held.duckdb"
    store.open_db(db).close()
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(db), "60", "rw"], stdout=subprocess.PIPE,
                              text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        yield db
    finally:
        holder.kill()
        holder.wait(timeout=30)


def test_a_locked_database_is_caught_as_a_store_error(held: Path) -> None:
    error = caught(lambda: store.open_db(held, read_only=True, wait=0.2))
    assert isinstance(error, DatabaseLocked)
    assert error.message.startswith(f"the database {held} is held by process ")


@pytest.mark.parametrize("read_only", [True, False])
def test_a_file_that_is_no_database_is_caught_as_a_store_error(tmp_path: Path, read_only: bool) -> None:
    log = tmp_path / "lane-log.jsonl"
    log.write_text(LINE, encoding="utf-8")
    error = caught(lambda: store.open_db(log, read_only=read_only))
    assert isinstance(error, NotADatabase)
    assert error.message == (
        f"cannot open the database {log}: it is a lane log (JSON lines), not a database; to store its "
        f"lines, run `lanelog ingest {log} --db lanelog.duckdb`, then use --db lanelog.duckdb"
    )


def test_another_duckdb_database_and_a_missing_one_are_caught_as_store_errors(tmp_path: Path) -> None:
    other = tmp_path / "other.duckdb"
    duckdb.connect(str(other)).execute("CREATE TABLE accounts (id INTEGER)").close()
    assert isinstance(caught(lambda: store.open_db(other, read_only=True)), SchemaMismatch)
    missing = tmp_path / "missing.duckdb"
    assert caught(lambda: store.open_db(missing, read_only=True)).message == (
        f"no database at {missing}: make one with `lanelog ingest LANE_LOG --db {missing}` "
        f"(or try lanelog with `lanelog demo --db {missing}`)"
    )


def test_a_folder_with_no_lake_and_a_lake_of_another_version_are_caught_as_store_errors(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    error = caught(lambda: store.open_lake(empty))
    assert isinstance(error, LakeError)
    assert error.message == f"no lanelog lake at {empty}: run `lanelog export --lake {empty}` first"

    old = tmp_path / "old"
    (old / "_lanelog").mkdir(parents=True)
    (old / "_lanelog" / "lake.json").write_text(json.dumps({"lake_schema_version": 1, "attempts": {}}))
    error = caught(lambda: store.open_lake(old))
    assert isinstance(error, SchemaMismatch)
    assert error.message.startswith(f"the lake at {old} has lake schema version 1, and this lanelog ")

    a_file = tmp_path / "a-file"
    a_file.write_text("not a folder\n")
    assert caught(lambda: store.open_lake(a_file)).message == \
        f"cannot use {a_file} as a lake: it is not a folder"


def test_the_store_raises_no_ingest_error() -> None:
    # The lane-log format's errors belong to ingest; storage names its own failures.
    found = [f"{path.name}:{node.lineno}" for path in sorted(STORE.glob("*.py"))
             for node in ast.walk(ast.parse(path.read_bytes()))
             if isinstance(node, (ast.Name, ast.alias)) and "IngestError" in (getattr(node, "id", None),
                                                                              getattr(node, "name", None))]
    assert found == []
