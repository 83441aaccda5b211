"""Opening a Parquet lake (made by `lanelog export`) as a DuckDB database.

The lake's tables become views over its data files in an in-memory database
that has the lanelog schema's macros, so every query in queries/ runs on a
lake exactly as on the database file.  A table with no data file yet (an
empty lake has no week) stays the schema's empty table.
"""

from __future__ import annotations

import os

import duckdb

from lanelog.errors import IngestError, StoreError
from lanelog.store.db import open_memory
from lanelog.store.lakefs import TABLES, LakeFolder
from lanelog.store.sqlfile import load_resources

QUERIES = load_resources("lanelog.store", "lake.sql")


def open_lake(target: str | os.PathLike[str]) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection whose attempts, rejected_lines and sources read the lake.

    Raises IngestError when target holds no lake, SchemaMismatch when the lake
    has another lake schema version.
    """
    lake = _checked(target)
    con = open_memory()
    try:
        if lake.fs is not None:
            con.register_filesystem(lake.fs)
        for table in TABLES:
            files = lake.data_files(table)
            if not files:
                continue
            QUERIES[f"lake_{table}_files"].run(con, files=files)
            QUERIES[f"lake_{table}_view"].run(con)
    except StoreError as error:
        con.close()
        raise IngestError(f"cannot read the lake at {lake.name}: {error}") from None
    except BaseException:
        con.close()
        raise
    return con


def lake_files(target: str | os.PathLike[str]) -> dict[str, list[str]]:
    """Each lake table's data files (URLs as an engine opens them), after checking the lake's version."""
    lake = _checked(target)
    return {table: lake.data_files(table) for table in TABLES}


def _checked(target: str | os.PathLike[str]) -> LakeFolder:
    lake = LakeFolder(target)
    state = lake.read_state()
    if state is None:
        raise IngestError(f"no lanelog lake at {lake.name}: run `lanelog export --lake {lake.name}` first")
    lake.check_version(state)
    return lake
