"""Opening the lanelog DuckDB database: the schema, its version and the file lock.

DuckDB lets one read-write process or many read-only processes hold a
database file, and a held lock keeps everyone else out.  open_db waits and
retries while another process holds it, so a dashboard reading and an ingest
writing take turns instead of failing.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from importlib import resources
from pathlib import Path

import duckdb

from lanelog import __version__
from lanelog.errors import DatabaseLocked, IngestError, SchemaMismatch

SCHEMA_VERSION = 2
DEFAULT_DB_NAME = "lanelog.duckdb"

_FIRST_RETRY_S = 0.02
_MAX_RETRY_S = 0.5
_HOLDER = re.compile(r"Conflicting lock is held in (?P<program>.*?) \(PID (?P<pid>\d+)\)")
_SIZE = re.compile(r"([\d.]+)\s*([KMGT]i?B|B|bytes)")
_UNITS = {"B": 1, "bytes": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12,
          "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40}


def default_db_path() -> Path:
    """The database file: $LANELOG_DB when set, else ./lanelog.duckdb."""
    return Path(os.environ.get("LANELOG_DB") or DEFAULT_DB_NAME)


def schema_sql() -> str:
    """The text of store/schema.sql (tables and macros)."""
    return resources.files("lanelog.store").joinpath("schema.sql").read_text(encoding="utf-8")


def open_memory() -> duckdb.DuckDBPyConnection:
    """An in-memory database with the lanelog schema."""
    con = duckdb.connect(":memory:")
    _prepare(con)
    _create_schema(con)
    return con


def open_db(
    path: str | os.PathLike[str], *, read_only: bool = False, wait: float = 60.0
) -> duckdb.DuckDBPyConnection:
    """Open the database at path, waiting up to `wait` seconds for another process's lock.

    Read-write creates the file and its schema when missing.  Raises
    IngestError when read_only and there is no file, DatabaseLocked when the
    lock is still held after `wait` seconds, SchemaMismatch when the file was
    made by another schema version (or is not a lanelog database).
    """
    path = Path(path)
    if read_only and not path.exists():
        raise IngestError(f"no database at {path}: run `lanelog ingest ...` or `lanelog demo`")
    con = _connect_waiting(path, read_only=read_only, wait=wait)
    try:
        _prepare(con)
        if not read_only and not has_tables(con):
            _create_schema(con)
        _check_version(con, path)
    except BaseException:
        con.close()
        raise
    return con


def _connect_waiting(path: Path, *, read_only: bool, wait: float) -> duckdb.DuckDBPyConnection:
    deadline = time.monotonic() + max(wait, 0.0)
    pause = _FIRST_RETRY_S
    while True:
        try:
            return duckdb.connect(str(path), read_only=read_only)
        except duckdb.IOException as exc:
            message = str(exc)
            if "lock" not in message.lower():
                raise IngestError(f"cannot open the database {path}: {message}") from exc
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise DatabaseLocked(_locked_message(path, wait, message)) from exc
            time.sleep(min(pause, remaining))
            pause = min(pause * 2, _MAX_RETRY_S)
        except duckdb.Error as exc:
            raise IngestError(f"cannot open the database {path}: {exc}") from exc


def _locked_message(path: Path, wait: float, message: str) -> str:
    holder = _HOLDER.search(message)
    who = (
        f"process {holder['pid']} ({holder['program']})"
        if holder
        else "another process"
    )
    return (
        f"the database {path} is held by {who}; gave up after waiting {wait:g} s "
        f"(raise --wait, or stop that process). DuckDB said: {message}"
    )


def _prepare(con: duckdb.DuckDBPyConnection) -> None:
    # Every timestamp lanelog shows or compares is UTC, whatever the machine's zone.
    con.execute("SET TimeZone = 'UTC'")
    # No vacuum at checkpoints.  Ingest stores a transaction's rows on both
    # cores, and each core's share ends in a part-filled row group; a vacuum
    # would merge those by rewriting the whole table (as long as the ingest
    # took) at some later checkpoint.  lanelog deletes rows only when a
    # provisional last line is read again, so there is nothing else to reclaim.
    con.execute("SET max_vacuum_tasks = 0")


def has_tables(con: duckdb.DuckDBPyConnection, name: str | None = None) -> bool:
    """Whether the database holds any table, or the table `name`."""
    # fetchall, not fetchone: DuckDB refuses register() while a result is unfinished.
    rows = con.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE database_name = current_database() "
        "AND ($name IS NULL OR table_name = $name)", {"name": name}
    ).fetchall()
    return bool(rows[0][0])


def _create_schema(con: duckdb.DuckDBPyConnection) -> None:
    with transaction(con):
        con.execute(schema_sql())
        con.execute(
            "INSERT INTO lanelog_meta VALUES ('schema_version', $v), ('created_by', $by)",
            {"v": str(SCHEMA_VERSION), "by": f"lanelog {__version__}"},
        )


def _check_version(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    try:
        rows = con.execute(
            "SELECT value FROM lanelog_meta WHERE key = 'schema_version'"
        ).fetchall()
    except duckdb.CatalogException as exc:
        raise SchemaMismatch(
            f"{path} is not a lanelog database (it has no lanelog_meta table); "
            "point --db (or LANELOG_DB) at another file"
        ) from exc
    found = rows[0][0] if rows else "none"
    if found != str(SCHEMA_VERSION):
        raise SchemaMismatch(
            f"{path} was made with lanelog schema version {found}, and this lanelog "
            f"uses version {SCHEMA_VERSION}: move the file aside and ingest the logs again "
            "into a new database (the logs themselves are the source of truth)"
        )


@contextmanager
def transaction(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """Commit what the block did, or roll it all back when it raises."""
    con.execute("BEGIN TRANSACTION")
    try:
        yield
    except BaseException:
        roll_back(con)
        raise
    con.execute("COMMIT")


def roll_back(con: duckdb.DuckDBPyConnection) -> None:
    """Roll back the open transaction; settings() may have rolled it back already."""
    try:
        con.execute("ROLLBACK")
    except duckdb.TransactionException as exc:
        if "no transaction is active" not in str(exc):
            raise


@contextmanager
def capped_memory(con: duckdb.DuckDBPyConnection, limit: str) -> Iterator[None]:
    """Hold DuckDB's memory limit at `limit` (unless already lower), then put it back.

    By default DuckDB may use most of the machine's memory, much of it as a
    cache of the file's blocks; a bulk ingest keeps its footprint bounded.
    """
    before = con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0]
    if _size_bytes(before) <= _size_bytes(limit):
        yield
        return
    with settings(con, {"memory_limit": limit}):
        yield


@contextmanager
def settings(con: duckdb.DuckDBPyConnection, values: Mapping[str, object]) -> Iterator[None]:
    """Run a block under DuckDB settings, then put back the values they had.
    The names are the caller's own constants, never user input.

    A statement that fails inside a transaction aborts it, and DuckDB runs no
    SET until it is rolled back: then the transaction is rolled back here (none
    of it could commit), the values put back, and the block's error raised.
    """
    before = {
        name: con.execute("SELECT current_setting($name)", {"name": name}).fetchall()[0][0] for name in values
    }
    try:
        _set(con, values)
        yield
    except BaseException:
        try:
            _set(con, before)
        except duckdb.TransactionException:
            roll_back(con)
            _set(con, before)
        raise
    _set(con, before)


def _set(con: duckdb.DuckDBPyConnection, values: Mapping[str, object]) -> None:
    for name, value in values.items():
        con.execute(f"SET {name} = $value", {"value": value})


def _size_bytes(text: str) -> float:
    """Bytes in a DuckDB size such as '18.8 GiB' or '400MB' (unreadable: unlimited)."""
    match = _SIZE.fullmatch(text.strip())
    return float(match[1]) * _UNITS[match[2]] if match else float("inf")
