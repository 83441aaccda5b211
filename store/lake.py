"""Opening a Parquet lake (made by `lanelog export`) as a DuckDB database.

The lake's tables become views over its data files in an in-memory database
that has the lanelog schema's macros, so every query in queries/ runs on a
lake exactly as on the database file.  A table with no data file yet (an
empty lake has no week) stays the schema's empty table.

A lake in an object store is listed once per opening, and DuckDB reads it
through ListedFiles (store/listed.py), which answers from that listing what
DuckDB would otherwise ask the store about each file.  When every attempts
file holds the week its folder names (their footers are read once, at the
opening), DuckDB skips the weeks out of a query's range by the folder names.  LakeReader keeps one
opening for as long as the lake's state file is unchanged, for a process that
reads the lake again and again (the dashboard): its connections share what
DuckDB has read of the files.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from dataclasses import dataclass
from typing import Any

import duckdb

from lanelog.errors import LakeError, StoreError
from lanelog.store.bucket import redacted
from lanelog.store.db import open_memory
from lanelog.store.lakefs import DATA_FILE, TABLES, UNDATED, LakeFolder
from lanelog.store.sqlfile import load_resources

QUERIES = load_resources("lanelog.store", "lake.sql")


def open_lake(target: str | os.PathLike[str], endpoint_url: str | None = None) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection whose tables (attempts, outcomes, rejected_lines, sources and
    the replays') read the lake.

    Raises LakeError when target holds no lake, SchemaMismatch when the lake
    has another lake schema version.  An object-store lake is read through its
    fsspec filesystem registered with DuckDB (no DuckDB extension is fetched).
    """
    return _Opened.open(LakeFolder(target, endpoint_url)).con


def lake_files(target: str | os.PathLike[str], endpoint_url: str | None = None) -> dict[str, list[str]]:
    """Each lake table's data files as the state lists them (URLs, not patterns), after checking the version."""
    lake = LakeFolder(target, endpoint_url)
    state = _checked(lake)
    return lake.data_files(state, lake.listing())


def lake_stamp(target: str | os.PathLike[str], endpoint_url: str | None = None) -> str | None:
    """A digest of the lake's state file, which every export rewrites; None when target holds no lake yet."""
    lake = LakeFolder(target, endpoint_url)
    lake.check_root(create=False)
    state = lake.read_state()
    return None if state is None else _digest(state)


def literal_path(path: str) -> str:
    """path as DuckDB's file readers take it literally: its glob characters each in a bracket class."""
    return "".join(f"[{char}]" if char in "*?[" else char for char in path)


class LakeReader:
    """One lake read look after look by a long-lived process (the dashboard).

    One filesystem client for every look (making one costs more than a request); the
    state file read at each look (`stamp`); and for each state, one listing and one
    DuckDB database, whose connections (`connect`) share what DuckDB has read of the
    files (its external file cache), so a second look asks the store for nothing it
    has already read.  Safe to share between threads: each look gets its own connection.
    """

    def __init__(self, target: str | os.PathLike[str], endpoint_url: str | None = None) -> None:
        self.lake = LakeFolder(target, endpoint_url)
        self.name = self.lake.name
        self._lock = threading.Lock()
        self._opened: tuple[str, _Opened] | None = None

    def stamp(self) -> str | None:
        """A digest of the state file (one read of it); None when there is no lake there yet."""
        state = self.lake.read_state()
        if state is None:
            self.lake.check_root(create=False)  # a missing bucket is said as such, not as "no lake yet"
            return None
        return _digest(state)

    def connect(self, stamp: str) -> duckdb.DuckDBPyConnection:
        """A connection of its own (the caller closes it) on the lake as of state `stamp`:
        the lake is listed and its views made once per state, not per connection."""
        with self._lock:
            if self._opened is None or self._opened[0] != stamp:
                opened = _Opened.open(self.lake)
                # Kept by the stamp of the state it read: an export may have ended since `stamp`.
                self._opened = (opened.stamp, opened)
            opened = self._opened[1]
            con = opened.con.cursor()  # (cursors share the database: its views and its file cache)
        try:
            opened.point(con)
        except BaseException:
            con.close()
            raise
        return con

    def forget(self) -> None:
        """Drop the opened lake, so the next look lists it again (after a read failed: a file may have
        been replaced since the listing).  Connections still open keep reading it until closed."""
        with self._lock:
            self._opened = None


@dataclass(frozen=True)
class _Opened:
    """A lake opened once: the database holding its views, the files each view reads, the state's stamp."""

    con: duckdb.DuckDBPyConnection
    files: dict[str, list[str]]
    columns: list[str]
    stamp: str

    @classmethod
    def open(cls, lake: LakeFolder) -> _Opened:
        state = _checked(lake)
        listing = lake.listing()
        files = lake.data_files(state, listing)
        con = open_memory()
        try:
            if lake.fs is not None:  # (register_filesystem is no SQL block)
                # fsspec, which a lake in a folder never needs (the db extra has none).
                from lanelog.store.listed import ListedFiles

                con.register_filesystem(ListedFiles(lake.fs, listing or {}))
            columns = [row[0] for row in QUERIES["lake_attempts_schema_columns"].rows(con)]
            opened = cls(con, files, columns, _digest(state))
            opened.point(con)
            for table in TABLES:
                if not files[table]:
                    continue
                by_folder = table != "attempts" or _weeks_as_named(con, files[table])
                QUERIES[f"lake_{table}_view" if by_folder else "lake_attempts_view_by_column"].run(con)
        except (StoreError, duckdb.Error) as error:
            con.close()
            # The cause's first line names the file; DuckDB's excerpt of the SQL below it is ours.
            cause = str(error).strip().split("\n", 1)[0]
            raise LakeError(f"cannot read the lake at {lake.name}: {redacted(cause)}") from None
        except BaseException:
            con.close()
            raise
        return opened

    def point(self, con: duckdb.DuckDBPyConnection) -> None:
        """Set the connection's variables the views read: each table's files, the attempts columns."""
        QUERIES["lake_attempts_columns"].run(con, columns=self.columns)
        for table in TABLES:
            if self.files[table]:
                QUERIES[f"lake_{table}_files"].run(con, files=[literal_path(file) for file in self.files[table]])


def _weeks_as_named(con: duckdb.DuckDBPyConnection, files: list[str]) -> bool:
    """Whether every attempts file holds only the week its folder names (NULL in the undated one), as
    its footer's statistics say: then a reader may skip a file by its folder's name.  Export writes
    them so; a lake written otherwise is read by each row's own week."""
    found = {row["file_name"]: row for row in QUERIES["lake_attempts_weeks"].records(con)}
    for url in files:
        named = url.rsplit("/week=", 1)[1].removesuffix(f"/{DATA_FILE}")
        row = found.get(url)
        if row is None:
            return False
        if named == UNDATED:
            if row["undated"] != row["rows"]:
                return False
        elif not (row["bounded"] and row["undated"] == 0 and row["least"] == named == row["greatest"]):
            return False
    return True


def _checked(lake: LakeFolder) -> dict[str, Any]:
    lake.check_root(create=False)
    state = lake.read_state()
    if state is None:
        raise LakeError(f"no lanelog lake at {lake.name}: run `lanelog export --lake {lake.name}` first")
    lake.check_version(state)
    return state


def _digest(state: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(state, sort_keys=True).encode("utf-8")).hexdigest()
