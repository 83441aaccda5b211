"""Opening a Parquet lake (made by `lanelog export`) as a DuckDB database.

The lake's tables become views over its data files in an in-memory database
that has the lanelog schema's macros, so every query in queries/ runs on a
lake exactly as on the database file.  A table with no data file yet (an
empty lake has no week) stays the schema's empty table.
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any

import duckdb

from lanelog.errors import LakeError, StoreError
from lanelog.store.bucket import redacted
from lanelog.store.db import open_memory
from lanelog.store.lakefs import TABLES, LakeFolder
from lanelog.store.sqlfile import load_resources

QUERIES = load_resources("lanelog.store", "lake.sql")


def open_lake(target: str | os.PathLike[str], endpoint_url: str | None = None) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection whose attempts, rejected_lines and sources read the lake.

    Raises LakeError when target holds no lake, SchemaMismatch when the lake
    has another lake schema version.  An object-store lake is read through its
    fsspec filesystem registered with DuckDB (no DuckDB extension is fetched).
    """
    lake, state = _checked(target, endpoint_url)
    files_of = {table: lake.data_files(state, table) for table in TABLES}
    con = open_memory()
    try:
        if lake.fs is not None:
            con.register_filesystem(lake.fs)
        for table in TABLES:
            files = files_of[table]
            if not files:
                continue
            QUERIES[f"lake_{table}_files"].run(con, files=[literal_path(file) for file in files])
            QUERIES[f"lake_{table}_view"].run(con)
    except (StoreError, duckdb.Error) as error:  # (register_filesystem is no SQL block)
        con.close()
        raise LakeError(f"cannot read the lake at {lake.name}: {redacted(str(error))}") from None
    except BaseException:
        con.close()
        raise
    return con


def lake_files(target: str | os.PathLike[str], endpoint_url: str | None = None) -> dict[str, list[str]]:
    """Each lake table's data files as the state lists them (URLs, not patterns), after checking the version."""
    lake, state = _checked(target, endpoint_url)
    return {table: lake.data_files(state, table) for table in TABLES}


def lake_stamp(target: str | os.PathLike[str], endpoint_url: str | None = None) -> str | None:
    """A digest of the lake's state file, which every export rewrites; None when target holds no lake yet."""
    lake = LakeFolder(target, endpoint_url)
    lake.check_root(create=False)
    state = lake.read_state()
    if state is None:
        return None
    return hashlib.sha256(json.dumps(state, sort_keys=True).encode("utf-8")).hexdigest()


def literal_path(path: str) -> str:
    """path as DuckDB's file readers take it literally: its glob characters each in a bracket class."""
    return "".join(f"[{char}]" if char in "*?[" else char for char in path)


def _checked(target: str | os.PathLike[str], endpoint_url: str | None) -> tuple[LakeFolder, dict[str, Any]]:
    lake = LakeFolder(target, endpoint_url)
    lake.check_root(create=False)
    state = lake.read_state()
    if state is None:
        raise LakeError(f"no lanelog lake at {lake.name}: run `lanelog export --lake {lake.name}` first")
    lake.check_version(state)
    return lake, state
