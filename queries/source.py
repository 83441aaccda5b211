"""Where the figures are read, chosen by one rule for `report`, `check` and the dashboard.

The rule: a lake when one is named (a folder, or an fsspec URL such as
s3://bucket/lanelog), read by DuckDB or, with the spark engine, by Spark; else
the database file named, else $LANELOG_DB, else ./lanelog.duckdb.  The CLI is
given them as --lake, --engine and --db; the dashboard as LANELOG_LAKE and
LANELOG_DB, which `lanelog dashboard --lake DIR --db FILE` sets for the app.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lanelog import store
from lanelog.errors import QueryError, StoreError

if TYPE_CHECKING:
    import duckdb

    from lanelog.queries.spark_lake import SparkLake

ENGINES = ("duckdb", "spark")


@dataclass(frozen=True)
class Source:
    """The database file, and the lake read instead of it when one is named (with its engine)."""

    db: Path
    lake: str | None = None
    engine: str = "duckdb"
    endpoint_url: str | None = None

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
                raise StoreError(f"the lake at {self.lake} is only read: write into the database, "
                                 "then `lanelog export`")
            return store.open_lake(self.lake, self.endpoint_url)
        if write and not self.db.exists():
            raise StoreError(f"no database at {self.db}: run `lanelog ingest ...` or `lanelog demo`")
        return store.open_db(self.db, read_only=not write, wait=wait)

    @contextmanager
    def reading(self, *, wait: float = 60.0, write: bool = False, spark_master: str | None = None,
                spark_conf: Mapping[str, str] | None = None, verbose: bool = False) -> Iterator[Any]:
        """The source open for the block: a DuckDB connection, or the lake on Spark (a RowSource).

        The Spark session lives as long as the block, unless one was already running in this
        process (an embedding program's): that one is used and kept.
        """
        if self.engine == "spark" and not write:
            with self._on_spark(spark_master, dict(spark_conf or {}), verbose) as lake:
                yield lake
            return
        con = self.connect(wait=wait, write=write)  # (which refuses a write to a lake)
        try:
            yield con
        finally:
            con.close()

    @contextmanager
    def _on_spark(self, master: str | None, conf: dict[str, str], verbose: bool) -> Iterator[SparkLake]:
        from lanelog.queries.spark import running_session, start_session
        from lanelog.queries.spark_lake import SparkLake
        from lanelog.queries.spark_watch import stall_timeout

        assert self.lake is not None  # choose_source gives the spark engine a lake only
        files = store.lake_files(self.lake, self.endpoint_url)
        if self.endpoint_url and any(path.startswith("s3a://") for paths in files.values() for path in paths):
            conf.setdefault("spark.hadoop.fs.s3a.endpoint", self.endpoint_url)
        stall_timeout(conf)  # a bad value of lanelog's own setting is refused before the JVM starts
        kept = running_session()
        spark = kept or start_session(master, conf=conf, verbose=verbose)
        try:
            yield SparkLake(spark, files, store.lake_schemas(), settings=conf)
        except BaseException:
            if kept is None:
                # A JVM that died (out of memory, killed) cannot be asked to stop: the error
                # that ended the report is the one to show, not the lost connection's.
                with suppress(Exception):
                    spark.stop()
            raise
        if kept is None:
            spark.stop()


def choose_source(db: str | os.PathLike[str] | None = None, lake: str | None = None, *,
                  engine: str = "duckdb", endpoint_url: str | None = None) -> Source:
    """The source for these settings: the lake when one is named, else the database file
    (`db`, else $LANELOG_DB, else ./lanelog.duckdb).  The spark engine reads a lake only."""
    if engine not in ENGINES:
        raise QueryError(f"no engine named {engine!r}; known: {', '.join(ENGINES)}")
    if engine == "spark" and lake is None:
        raise QueryError("the spark engine reads a lake: name one (make it with `lanelog export`)")
    return Source(db=Path(db) if db is not None else store.default_db_path(), lake=lake, engine=engine,
                  endpoint_url=endpoint_url)
