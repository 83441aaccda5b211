"""Opening the lanelog DuckDB database: what the file is, the schema, its version and the file lock.

DuckDB lets one read-write process or many read-only processes hold a
database file, and a held lock keeps everyone else out.  open_db waits and
retries while another process holds it, so a dashboard reading and an ingest
writing take turns instead of failing.

open_db opens only a DuckDB file (told by its header, never by its name) or a
path where nothing is yet, and writes only into a lanelog database or one that
holds no object at all: DuckDB itself opens a lane log or a CSV file as a
throwaway in-memory database, where a write would report success and store
nothing.  Every precondition of a write (the file and its folder writable, for
the WAL beside it; the lock; the schema, upgraded from an earlier version) is
checked when the database is opened, before the caller's work starts.
"""

from __future__ import annotations

import hashlib
import os
import re
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import duckdb

from lanelog import __version__
from lanelog.errors import DatabaseLocked, NotADatabase, SchemaMismatch, StoreError
from lanelog.store import sniff
from lanelog.store.sqlfile import Query, load_resources

SCHEMA_VERSION = 7
# The oldest version store/upgrade.sql brings up to SCHEMA_VERSION.
OLDEST_UPGRADABLE = 2
DEFAULT_DB_NAME = "lanelog.duckdb"

_FIRST_RETRY_S = 0.02
_MAX_RETRY_S = 0.5
_HOLDER = re.compile(r"Conflicting lock is held in (?P<program>.*?) \(PID (?P<pid>\d+)\)")
_SIZE = re.compile(r"([\d.]+)\s*([KMGT]i?B|B|bytes)")
_UNITS = {"B": 1, "bytes": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12,
          "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40}


@cache
def statements() -> dict[str, Query]:
    """The blocks of store/db.sql, schema.sql and upgrade.sql by name."""
    return load_resources("lanelog.store", "db.sql", "schema.sql", "upgrade.sql")


@cache
def schema_digest() -> str:
    """A digest of schema.sql's create_schema text: what lanelog_meta's schema_digest records."""
    return "sha256:" + hashlib.sha256(statements()["create_schema"].sql.encode()).hexdigest()


def default_db_path() -> Path:
    """The database file: $LANELOG_DB when set, else ./lanelog.duckdb."""
    return Path(os.environ.get("LANELOG_DB") or DEFAULT_DB_NAME)


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

    Read-write creates the file and its schema when missing, and brings a
    database of an earlier schema version up to this one.  Raises a StoreError
    of its own when read_only and there is no file, or the file or its folder cannot be
    written (read-write); NotADatabase when the path is no DuckDB file (a lane
    log, CSV, Parquet, ...); SchemaMismatch when the file is another DuckDB
    database, or of a schema version this lanelog cannot use (read-only: an
    earlier one it would upgrade); DatabaseLocked when the lock is still held
    after `wait` seconds.
    """
    path = Path(path)
    con = _connect_checked(path, read_only=read_only, wait=wait)
    try:
        _bring_up_to_date(con, path, read_only=read_only)
    except BaseException:
        con.close()
        raise
    return con


# Tables whose rows no ingested log wrote: a replay stored, an alert sent or claimed.
KEPT_TABLES = ("replays", "replay_patches", "alerts_sent", "alerts_claimed")


@dataclass(frozen=True)
class Peek:
    """What a database holds, read as it is: its meta, its logs (fingerprint, path), and the rows of
    KEPT_TABLES (those it has: an earlier schema may lack some)."""

    meta: dict[str, str]
    logs: list[tuple[str, str]]
    kept_rows: dict[str, int]


def peek_db(path: str | os.PathLike[str], *, wait: float = 60.0) -> Peek:
    """lanelog_meta, the stored logs and the rows of the tables no log writes, of the database at path, read-only.

    Unlike a read-only open_db, a database of an earlier schema version is read as it is
    (lanelog_meta and sources have kept their shape since version 1), not refused: the
    demo asks whether it made a file, and holds nothing else, before deciding to rebuild it.
    Raises as open_db does, and SchemaMismatch when the file is no lanelog database.
    """
    path = Path(path)
    con = _connect_checked(path, read_only=True, wait=wait)
    try:
        if _schema_version(con) is None:
            raise SchemaMismatch(f"{path} is not a lanelog database (it has no lanelog_meta table)")
        kept = {table: int(statements()["table_rows"].rows(con, name=table)[0][0])
                for table in KEPT_TABLES if has_tables(con, table)}
        return Peek(read_meta(con), stored_logs(con), kept)
    finally:
        con.close()


def _connect_checked(path: Path, *, read_only: bool, wait: float) -> duckdb.DuckDBPyConnection:
    """A connection to the DuckDB file at path, its settings made, before any schema is looked at.

    Refuses, before connecting, a path that is no DuckDB file, a missing file (read-only)
    and a file or folder that cannot be written (read-write); after, a connection DuckDB
    made in memory for the file.
    """
    found = sniff.what_is(path)
    if found is not None:
        raise NotADatabase(f"cannot open the database {path}: {found}")
    if read_only and not path.exists():
        raise StoreError(
            f"no database at {path}: make one with `lanelog ingest LANE_LOG --db {path}` "
            f"(or try lanelog with `lanelog demo --db {path}`)"
        )
    if not read_only:
        _check_writable(path)
    con = _connect_waiting(path, read_only=read_only, wait=wait)
    try:
        _prepare(con)
        _check_file_backed(con, path)
    except BaseException:
        con.close()
        raise
    return con


def _check_writable(path: Path) -> None:
    """Refuse a write that could only fail at its first COMMIT: DuckDB writes the
    file and a write-ahead log beside it (path.wal), so both the file and its
    folder must be writable."""
    folder = path.parent if str(path.parent) else Path(".")
    if path.exists() and not os.access(path, os.W_OK):
        raise StoreError(f"cannot write the database {path}: the file is read-only (check its permissions)")
    if not folder.is_dir():
        raise StoreError(f"cannot make the database {path}: its folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise StoreError(
            f"cannot write the database {path}: its folder {folder} is not writable, and DuckDB "
            f"writes its log {path.name}.wal there; move the database to a writable folder"
        )


def _connect_waiting(path: Path, *, read_only: bool, wait: float) -> duckdb.DuckDBPyConnection:
    deadline = time.monotonic() + max(wait, 0.0)
    pause = _FIRST_RETRY_S
    while True:
        try:
            return duckdb.connect(str(path), read_only=read_only)
        except duckdb.IOException as exc:
            message = str(exc)
            if "lock" not in message.lower():
                raise StoreError(f"cannot open the database {path}: {message}") from exc
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise DatabaseLocked(_locked_message(path, wait, message)) from exc
            time.sleep(min(pause, remaining))
            pause = min(pause * 2, _MAX_RETRY_S)
        except duckdb.Error as exc:
            raise StoreError(f"cannot open the database {path}: {exc}") from exc


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
    statements()["prepare"].run(con)


def _check_file_backed(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    """Refuse a connection DuckDB made in memory for a file it read otherwise (the sniff's twin)."""
    rows = statements()["this_database"].rows(con)
    if not rows or rows[0][1] is None:
        raise NotADatabase(f"cannot open the database {path}: DuckDB read it as something other than "
                           "a database file; point --db at a lanelog database")


def read_only_name(con: duckdb.DuckDBPyConnection) -> str | None:
    """The name of the connection's database when it was opened read-only, else None."""
    rows = statements()["this_database"].rows(con)
    return rows[0][0] if rows and rows[0][2] else None


def has_tables(con: duckdb.DuckDBPyConnection, name: str | None = None) -> bool:
    """Whether the database holds any table, or the table `name`."""
    # rows() fetches everything: DuckDB refuses register() while a result is unfinished.
    return bool(statements()["has_table"].rows(con, name=name)[0][0])


def _bring_up_to_date(con: duckdb.DuckDBPyConnection, path: Path, *, read_only: bool) -> None:
    """Make a new database's schema, upgrade an older one (read-write), or refuse the file."""
    version = _schema_version(con)
    if version is None:
        objects = statements()["objects"].rows(con)
        if objects or read_only:
            if not objects:
                raise SchemaMismatch(f"{path} is an empty DuckDB database, not yet a lanelog one: "
                                     f"`lanelog ingest LANE_LOG --db {path}` fills it")
            raise SchemaMismatch(
                f"{path} is not a lanelog database (it has no lanelog_meta table); "
                "point --db (or LANELOG_DB) at another file"
            )
        _create_schema(con)
        return
    found = int(version) if version.isdigit() else None
    # A database of this version whose macros another text of the schema made (they changed
    # within a version once) is brought up to this text's too, by the upgrade of no steps;
    # read-only, it is read as it is (queries/ reads no macro that has changed).
    if found == SCHEMA_VERSION and (read_only or statements()["schema_digest"].rows(con) == [(schema_digest(),)]):
        return
    if found is not None and OLDEST_UPGRADABLE <= found <= SCHEMA_VERSION:
        if read_only:
            raise SchemaMismatch(
                f"{path} was made with lanelog schema version {found}, and this lanelog uses version "
                f"{SCHEMA_VERSION}: run `lanelog ingest LANE_LOG --db {path}` once (with any of your logs; "
                "a log read before adds nothing) to upgrade it in place, keeping every row"
            )
        _upgrade(con, found, path)
        return
    raise SchemaMismatch(
        f"{path} was made with lanelog schema version {version}, and this lanelog "
        f"uses version {SCHEMA_VERSION}: move the file aside and ingest the logs again "
        "into a new database (the logs themselves are the source of truth)"
    )


def _schema_version(con: duckdb.DuckDBPyConnection) -> str | None:
    """The version lanelog_meta records; None when the database has no lanelog_meta."""
    if not has_tables(con, "lanelog_meta"):
        return None
    rows = statements()["schema_version"].rows(con)
    return rows[0][0] if rows else "none"


def _create_schema(con: duckdb.DuckDBPyConnection) -> None:
    with transaction(con):
        statements()["create_schema"].run(con)
        statements()["record_schema"].run(con, version=str(SCHEMA_VERSION), by=f"lanelog {__version__}",
                                          digest=schema_digest())


def _upgrade(con: duckdb.DuckDBPyConnection, found: int, path: Path) -> None:
    """Run store/upgrade.sql's steps from version `found` to SCHEMA_VERSION in one transaction
    (none from SCHEMA_VERSION itself: then only this schema's macros are made, and its digest recorded).

    A database whose shape no step expects (one made while its version was still changing,
    before versions were pinned) is refused, left as it was, with how to rebuild it.
    """
    try:
        with transaction(con):
            # The schema first (every statement of it is CREATE ... IF NOT EXISTS or CREATE OR
            # REPLACE): the tables new since `found` in their newest shape, and this version's
            # macros, which the steps use and the next ingest reads ts by (a database keeps the
            # macros it was made with).  The steps then change what exists.
            statements()["create_schema"].run(con)
            for version in range(found + 1, SCHEMA_VERSION + 1):
                statements()[f"upgrade_to_{version}"].run(con)
            statements()["record_upgrade"].run(con, version=str(SCHEMA_VERSION), by=f"lanelog {__version__}",
                                               digest=schema_digest())
    except StoreError as exc:
        raise SchemaMismatch(
            f"{path} was made with lanelog schema version {found} in a shape this lanelog cannot upgrade to "
            f"version {SCHEMA_VERSION}, and was left as it was: move the file aside and ingest the logs again "
            f"into a new database (the logs themselves are the source of truth). The upgrade stopped at {exc}"
        ) from exc


def put_meta(con: duckdb.DuckDBPyConnection, key: str, value: str) -> None:
    """Record a lanelog_meta value."""
    statements()["put_meta"].run(con, key=key, value=value)


def read_meta(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """Every lanelog_meta value by key."""
    return dict(statements()["read_meta"].rows(con))


def stored_logs(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str]]:
    """(fingerprint, path) of each stored log, in the order they were stored."""
    return [(fingerprint, path) for fingerprint, path in statements()["stored_logs"].rows(con)]


@contextmanager
def transaction(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """Commit what the block did, or roll it all back when it raises."""
    statements()["begin"].run(con)
    try:
        yield
    except BaseException:
        roll_back(con)
        raise
    statements()["commit"].run(con)


def roll_back(con: duckdb.DuckDBPyConnection) -> None:
    """Roll back the open transaction; settings() may have rolled it back already."""
    try:
        statements()["rollback"].run(con)
    except StoreError as exc:
        if not (isinstance(exc.__cause__, duckdb.TransactionException)
                and "no transaction is active" in str(exc)):
            raise


@contextmanager
def capped_memory(con: duckdb.DuckDBPyConnection, limit: str) -> Iterator[None]:
    """Hold DuckDB's memory limit at `limit` (unless already lower), then put it back.

    By default DuckDB may use most of the machine's memory, much of it as a
    cache of the file's blocks; a bulk ingest keeps its footprint bounded.
    """
    before = statements()["current_setting"].rows(con, name="memory_limit")[0][0]
    if _size_bytes(before) <= _size_bytes(limit):
        yield
        return
    with settings(con, {"memory_limit": limit}):
        yield


@contextmanager
def settings(con: duckdb.DuckDBPyConnection, values: Mapping[str, object]) -> Iterator[None]:
    """Run a block under DuckDB settings, then put back the values they had.
    The names are the caller's own constants, each with its set_NAME block in db.sql.

    A statement that fails inside a transaction aborts it, and DuckDB runs no
    SET until it is rolled back: then the transaction is rolled back here (none
    of it could commit), the values put back, and the block's error raised.
    """
    before = {name: statements()["current_setting"].rows(con, name=name)[0][0] for name in values}
    try:
        _set(con, values)
        yield
    except BaseException:
        try:
            _set(con, before)
        except StoreError as failed:
            if not isinstance(failed.__cause__, duckdb.TransactionException):
                raise
            roll_back(con)
            _set(con, before)
        raise
    _set(con, before)


def _set(con: duckdb.DuckDBPyConnection, values: Mapping[str, object]) -> None:
    for name, value in values.items():
        statements()[f"set_{name}"].run(con, value=value)


def _size_bytes(text: str) -> float:
    """Bytes in a DuckDB size such as '18.8 GiB' or '400MB' (unreadable: unlimited)."""
    match = _SIZE.fullmatch(text.strip())
    return float(match[1]) * _UNITS[match[2]] if match else float("inf")
