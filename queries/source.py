"""Where the figures are read, chosen by one rule for `report`, `check` and the dashboard.

The rule: a lake when one is named (a folder, or an fsspec URL such as
s3://bucket/lanelog), read by DuckDB or, with the spark engine, by Spark; else
the database file named, else $LANELOG_DB, else ./lanelog.duckdb.  The CLI is
given them as --lake, --engine and --db; the dashboard as LANELOG_LAKE and
LANELOG_DB, which `lanelog dashboard --lake DIR --db FILE` sets for the app.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from lanelog import store
from lanelog.errors import QueryError, StoreError
from lanelog.queries.engine import DATABASE, DuckDBEngine, Engine, engine_class

if TYPE_CHECKING:
    import duckdb


@dataclass(frozen=True)
class SparkSettings:
    """How the spark engine starts: its master (None: spark-submit's, else local[*]), --spark-conf, --verbose."""

    master: str | None = None
    conf: Mapping[str, str] = field(default_factory=dict)
    verbose: bool = False


@dataclass(frozen=True)
class Source:
    """The database file, and the lake read instead of it when one is named (with its engine)."""

    db: Path
    lake: str | None = None
    engine: str = "duckdb"
    endpoint_url: str | None = None
    spark: SparkSettings = field(default_factory=SparkSettings)

    @property
    def name(self) -> str:
        """What is read, as the user named it: the lake's folder or URL, else the database file."""
        return self.lake if self.lake is not None else str(self.db)

    def exists(self) -> bool:
        """Whether there is something to read yet: a lake with its state file, or the database file."""
        if self.lake is not None:
            return store.lake_stamp(self.lake, self.endpoint_url) is not None
        return self.db.exists()

    def connect(self, *, wait: float = 60.0, write: bool = False) -> duckdb.DuckDBPyConnection:
        """DuckDB on the source: the lake's files as views, or the database file, read-only unless `write`.

        A write (`check --notify` storing its sent marks) needs the database file, and one that exists:
        opening a missing file read-write would make an empty database and report on nothing.
        """
        if self.lake is not None:
            if write:
                raise StoreError(f"the lake at {store.redacted(self.lake)} is only read: write into the database, "
                                 "then `lanelog export`")
            return store.open_lake(self.lake, self.endpoint_url)
        if write and not self.db.exists():
            raise StoreError(f"no database at {self.db}: run `lanelog ingest ...` or `lanelog demo`")
        return store.open_db(self.db, read_only=not write, wait=wait)

    def reading(self, *, wait: float = 60.0, write: bool = False) -> AbstractContextManager[Engine]:
        """The source open for the block, as the engine that computes its figures (its ``opened``).

        A write (`check --notify` storing its sent marks) is made on the database with DuckDB.
        """
        if write:
            return DuckDBEngine.opened(self, wait=wait, write=True)
        return engine_class(self.engine).opened(self, wait=wait)


def choose_source(db: str | os.PathLike[str] | None = None, lake: str | None = None, *,
                  engine: str = "duckdb", endpoint_url: str | None = None,
                  spark: SparkSettings | None = None) -> Source:
    """The source for these settings: the lake when one is named, else the database file
    (`db`, else $LANELOG_DB, else ./lanelog.duckdb).  An engine other than DuckDB reads a lake only."""
    if not engine_class(engine).can(DATABASE) and lake is None:
        raise QueryError(f"the {engine} engine reads a lake: name one (make it with `lanelog export`)")
    return Source(db=Path(db) if db is not None else store.default_db_path(), lake=lake, engine=engine,
                  endpoint_url=endpoint_url, spark=spark or SparkSettings())
