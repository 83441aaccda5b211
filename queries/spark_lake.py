"""The lake's tables on Spark, answering the named queries like a DuckDB connection.

Each table is a temporary view over the data files the lake's state lists, read with the
schema the lake is written with (so Spark starts no job to read each file's own).  The
report asks its queries together (``prefetch``): they run as one Spark job, over one
cached read of the attempts' columns they use, and each query's rows are then answered
once from it.  Every job carries the lake's job group, so `report --verbose` counts them
and a stalled one is cancelled (queries/spark_watch.py).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from typing import TYPE_CHECKING, Any

from lanelog.errors import QueryError
from lanelog.queries.engine import JOBS, SESSION, Engine
from lanelog.queries.named import CONSTANTS
from lanelog.queries.spark import _one_line, spark_errors
from lanelog.queries.spark_sql import ORDER_COLUMN, columns_read, has_empty_set, spark_sql
from lanelog.queries.spark_watch import stall_timeout, watched

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from lanelog.queries.source import Source
    from lanelog.store import Query

# The Hadoop version the pyspark 3.5 wheel ships: hadoop-aws must match it.
_HADOOP_AWS = "org.apache.hadoop:hadoop-aws:3.3.4"
# What the report's one job runs without, unless --spark-conf gives it: under adaptive
# execution every shuffle is a job of its own (the report's queries are aggregates into a few
# rows, which it has nothing to adapt for), and a broadcast join collects its small side in a
# job of its own (the outcomes' joins of pull requests: 4 jobs where there was 1).
_ADAPTIVE = "spark.sql.adaptive.enabled"
_BROADCAST = "spark.sql.autoBroadcastJoinThreshold"
_ONE_JOB = {_ADAPTIVE: "false", _BROADCAST: "-1"}
# The temporary view of the attempts' columns the prefetched queries read, cached while they run.
_CACHED_VIEW = "lanelog_report_attempts"
_QUERY_COLUMN = "lanelog_query"


class SparkLake(Engine):
    """The lake's tables as Spark temporary views: the engine that answers the named queries on Spark.

    files: each table's data files, as the lake's state lists them; schemas: each
    table's Arrow schema, as export writes it (and for a table with no file yet).
    settings: lanelog's --spark-conf, whose keys win over lanelog's choices here.
    """

    name = "spark"
    title = "Spark"
    capabilities = frozenset({JOBS, SESSION})
    extra = "spark"

    def __init__(self, spark: SparkSession, files: Mapping[str, list[str]], schemas: Mapping[str, Any],
                 settings: Mapping[str, str] | None = None) -> None:
        from pyspark.sql.pandas.types import from_arrow_schema

        self.spark = spark
        self.settings = dict(settings or {})
        # lanelog's own settings (--spark-conf) count even on a session lanelog did not start.
        self.stall_timeout = stall_timeout(settings, spark)
        # Spark's jobs for this lake carry one job group, so they can be counted (`report --verbose`)
        # and cancelled when they stall (queries/spark_watch.py).
        self.job_group = f"lanelog-{os.getpid()}-{id(self)}"
        self._answers: dict[tuple[str, tuple[tuple[str, Any], ...]], list[dict[str, Any]]] = {}
        self._files = [path for paths in files.values() for path in paths]
        spark.sparkContext.setJobGroup(self.job_group, "lanelog", interruptOnCancel=True)
        check_filesystems(spark, self._files)
        with spark_errors("Spark could not read the lake"):
            for table, paths in files.items():
                schema = from_arrow_schema(schemas[table], prefer_timestamp_ntz=True)
                frame = _read_files(spark, paths, schema) if paths else spark.createDataFrame([], schema=schema)
                frame.createOrReplaceTempView(table)

    @classmethod
    @contextmanager
    def opened(cls, source: Source, *, wait: float, write: bool = False) -> Iterator[SparkLake]:
        """The lake on Spark for the block: a session started for it and stopped after, unless one
        was already running in this process (an embedding program's), which is used and kept."""
        from lanelog import store
        from lanelog.queries.spark import running_session, start_session

        assert source.lake is not None and not write  # choose_source gives Spark a lake; writes go to DuckDB
        conf = dict(source.spark.conf)
        files = store.lake_files(source.lake, source.endpoint_url)
        if source.endpoint_url and any(path.startswith("s3a://") for paths in files.values() for path in paths):
            conf.setdefault("spark.hadoop.fs.s3a.endpoint", source.endpoint_url)
        stall_timeout(conf)  # a bad value of lanelog's own setting is refused before the JVM starts
        kept = running_session()
        spark = kept or start_session(source.spark.master, conf=conf, verbose=source.spark.verbose)
        try:
            yield cls(spark, files, store.lake_schemas(), settings=conf)
        except BaseException:
            if kept is None:
                # A JVM that died (out of memory, killed) cannot be asked to stop: the error
                # that ended the report is the one to show, not the lost connection's.
                with suppress(Exception):
                    spark.stop()
            raise
        if kept is None:
            spark.stop()

    def jobs_run(self) -> int:
        """How many Spark jobs the queries on this lake have started so far."""
        return len(self.spark.sparkContext.statusTracker().getJobIdsForGroup(self.job_group))

    def rows(self, query: Query, values: dict[str, Any]) -> list[dict[str, Any]]:
        """The named query's rows as dicts (the same Python values DuckDB gives)."""
        name, args = query.name, _bound(values)
        answered = self._answers.pop(_key(name, args), None)
        if answered is not None:
            return answered
        with self._running(f"the query {name!r}"):
            rows = [row.asDict(recursive=True) for row in self.spark.sql(spark_sql(name), args=args).collect()]
        return self._whole(name, args, rows)

    def prefetch(self, asks: Mapping[Query, dict[str, Any]]) -> None:
        """Run the named queries (each with its values) in one Spark job; rows() gives each its rows once.

        The attempts' columns the queries read are cached for the job, on disk, and let go
        after it: kept in memory (MEMORY_AND_DISK), 10M attempts ran local mode's 1 GB heap
        out of memory while the cache was built, where on disk they take 57 s, 1 job.
        Each query's rows carry its number and their place in its ORDER BY, and are put
        back in order here.
        """
        from functools import reduce

        from pyspark import StorageLevel
        from pyspark.sql import functions

        names = [query.name for query in asks]
        args = {query.name: _bound(values) for query, values in asks.items()}
        with self._running(f"the queries {', '.join(names)}", one_job=True):
            attempts = self.spark.table("attempts")
            cached = attempts.select(*columns_read(names, attempts.columns)).persist(StorageLevel.DISK_ONLY)
            try:
                cached.createOrReplaceTempView(_CACHED_VIEW)
                frames: list[DataFrame] = []
                for number, name in enumerate(names):
                    frame = self.spark.sql(spark_sql(name, numbered=True, attempts=_CACHED_VIEW), args=args[name])
                    row = functions.struct(*[frame[column] for column in frame.columns if column != ORDER_COLUMN])
                    frames.append(frame.select(functions.lit(number).alias(_QUERY_COLUMN), frame[ORDER_COLUMN],
                                               row.alias(_rows_column(number))))
                together = reduce(lambda left, right: left.unionByName(right, allowMissingColumns=True), frames)
                found = sorted(together.collect(), key=lambda row: (row[_QUERY_COLUMN], row[ORDER_COLUMN]))
            finally:
                self.spark.catalog.dropTempView(_CACHED_VIEW)
                cached.unpersist()
        for number, name in enumerate(names):
            rows = [row[_rows_column(number)].asDict(recursive=True) for row in found if row[_QUERY_COLUMN] == number]
            self._answers[_key(name, args[name])] = self._whole(name, args[name], rows)

    def _whole(self, name: str, args: dict[str, Any], rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The rows, or, when an aggregate with an empty grouping set found none, the per-set form's."""
        if rows or not has_empty_set(name):
            return rows
        with self._running(f"the query {name!r}", one_job=True):
            found = self.spark.sql(spark_sql(name, per_set=True, numbered=True), args=args).collect()
        ordered = sorted((row.asDict(recursive=True) for row in found), key=lambda row: row[ORDER_COLUMN])
        return [{key: value for key, value in row.items() if key != ORDER_COLUMN} for row in ordered]

    @contextmanager
    def _running(self, doing: str, one_job: bool = False) -> Iterator[None]:
        """The block's jobs watched, failures in one line; one_job: _ONE_JOB unless --spark-conf says."""
        with spark_errors(f"Spark could not run {doing}", self._files), \
                watched(self.spark, self.job_group, doing, self.stall_timeout), self._one_job(not one_job):
            yield

    @contextmanager
    def _one_job(self, kept: bool) -> Iterator[None]:
        """_ONE_JOB's settings for the block (kept: none of them), save those --spark-conf gave; then as before."""
        wanted = {} if kept else {key: value for key, value in _ONE_JOB.items() if key not in self.settings}
        before = {key: self.spark.conf.get(key, None) for key in wanted}
        for key, value in wanted.items():
            self.spark.conf.set(key, value)
        try:
            yield
        finally:
            for key, was in before.items():
                if was is None:
                    self.spark.conf.unset(key)
                else:
                    self.spark.conf.set(key, was)


def _bound(values: Mapping[str, Any]) -> dict[str, Any]:
    """The values Spark binds: the project's constants are written into its SQL instead."""
    return {key: value for key, value in values.items() if key not in CONSTANTS}


def _key(name: str, args: Mapping[str, Any]) -> tuple[str, tuple[tuple[str, Any], ...]]:
    return name, tuple(sorted(args.items()))


def _rows_column(number: int) -> str:
    return f"lanelog_rows_{number}"


def _read_files(spark: SparkSession, paths: list[str], schema: Any) -> DataFrame:
    """The Parquet files at paths as one frame, read with the given schema: files, not patterns.

    With globbing off, Hadoop reads [, {, * and : in a folder name as themselves (its
    glob would take ':' in a name for a URI scheme).  Each file is read alone and the
    frames are joined: Spark 3.5 given several paths with globbing off reads each one
    as often as there are paths.
    """
    from functools import reduce

    frames = [spark.read.schema(schema).option("__globPaths__", "false").parquet(path) for path in paths]
    return reduce(lambda left, right: left.unionByName(right), frames)


def check_filesystems(spark: SparkSession, paths: list[str]) -> None:
    """Before any job: every URL scheme of paths has a Hadoop filesystem on Spark's classpath."""
    schemes = sorted({path.split("://", 1)[0] for path in paths if "://" in path})
    for scheme in schemes:
        try:
            jvm: Any = spark.sparkContext._jvm
            hadoop = spark.sparkContext._jsc.hadoopConfiguration()
            jvm.org.apache.hadoop.fs.FileSystem.getFileSystemClass(scheme, hadoop)
        except Exception as error:  # noqa: BLE001 - a class not found or no filesystem: one line either way
            raise QueryError(_missing_filesystem(scheme, _one_line(error))) from None


def _missing_filesystem(scheme: str, cause: str) -> str:
    if scheme in ("s3a", "s3"):
        return (f"Spark cannot read {scheme}:// URLs: the hadoop-aws jar (org.apache.hadoop.fs.s3a.S3AFileSystem) "
                f"is not on its classpath ({cause}); add it with --spark-conf spark.jars.packages={_HADOOP_AWS} "
                "(or spark.jars=PATH/hadoop-aws-3.3.4.jar,PATH/aws-java-sdk-bundle.jar), give the store with "
                "--spark-conf spark.hadoop.fs.s3a.endpoint=URL if it is not AWS, and read the lake as s3a:// "
                "(docs/scale.md)")
    return (f"Spark has no Hadoop filesystem for {scheme}:// URLs ({cause}); "
            "add its jar with --spark-conf spark.jars=...")
