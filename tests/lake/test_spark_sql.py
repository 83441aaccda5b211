"""The Spark side that needs no JVM: the Spark SQL made from the .sql files, and the settings refused
before a session starts (the fast tier runs these; tests/lake/test_spark.py runs Spark itself)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from lanelog import store
from lanelog.cli import cli
from lanelog.errors import QueryError
from lanelog.queries.reporting import MONEY_QUERIES, REPORT_QUERIES
from lanelog.queries.spark_sql import SPARK_QUERIES, columns_read, has_empty_set, spark_sql


def spark_cli(*args: str | Path) -> Any:
    """The CLI in this process, exceptions kept as output."""
    return CliRunner().invoke(cli, [str(arg) for arg in args])


def test_the_spark_sql_is_generated_from_the_sql_files() -> None:
    for name in SPARK_QUERIES:
        text = spark_sql(name)
        assert "$" not in text and "in_scope(" not in text.lower()
    # One aggregate for the grouping sets; the per-set form (one select per set) is what gives
    # the total row over no rows, and is asked only when the aggregate found none.
    assert "GROUP BY GROUPING SETS ((week), (), (week, repo))" in spark_sql("figures")
    assert "GROUPING SETS" not in spark_sql("figures", per_set=True)
    assert "UNION ALL" in spark_sql("figures", per_set=True)
    assert has_empty_set("figures") and not has_empty_set("shadow_figures")
    assert ":since" in spark_sql("figures") and "SIZE(properties)" in spark_sql("figures")
    # The estimate's scalar subquery (a job of its own on Spark) is a joined one-row relation.
    assert "(SELECT estimate FROM avoided)" not in spark_sql("figures")
    assert "CROSS JOIN (SELECT estimate AS lanelog_scalar_0 FROM avoided) AS lanelog_scalar_0" in spark_sql("figures")
    with pytest.raises(QueryError, match="query 'freezes' has no Spark form"):
        spark_sql("freezes")


def test_the_numbered_form_orders_by_the_inner_selects_column_names() -> None:
    """The ORDER BY becomes a window over the query as a subquery, where `per_pr.pr_repository`
    is `pr_repository`: a table's name left on it was Spark's UNRESOLVED_COLUMN at run time."""
    import sqlglot
    from sqlglot import exp

    for name in SPARK_QUERIES:
        tree = sqlglot.parse_one(spark_sql(name, numbered=True), read="spark")
        windows = [node for node in tree.find_all(exp.Window) if node.parent is not None
                   and isinstance(node.parent, exp.Alias) and node.parent.alias == "lanelog_order"]
        for window in windows:
            assert [column.sql() for column in window.find_all(exp.Column) if column.table] == [], name
    ordered = spark_sql("pull_request_rows", numbered=True)
    assert "OVER (ORDER BY first_ts NULLS LAST, pr_repository NULLS LAST, pr_number NULLS LAST)" in ordered


def test_the_cached_read_holds_only_the_columns_the_report_reads() -> None:
    columns = store.lake_schemas()["attempts"].names
    read = set(columns_read([query.name for query in REPORT_QUERIES + MONEY_QUERIES], columns))
    assert {"week", "repo", "is_reject", "reasons", "usage", "ts", "shadow_policy", "shadow_error"} <= read
    # The wide text columns never; attempt_id is read for each pull request's last attempt (outcomes.sql).
    assert not {"raw", "results", "head"} & read and "attempt_id" in read
    assert "raw" in columns_read(["credit_bug_rows"], columns)


def test_spark_conf_takes_key_value_pairs_only() -> None:
    result = spark_cli("report", "--lake", "x", "--engine", "spark", "--spark-conf", "spark.executor.memory")
    assert result.exit_code == 2
    assert "'spark.executor.memory': give KEY=VALUE, e.g. spark.executor.memory=4g" in result.stderr
    result = spark_cli("report", "--lake", "x", "--spark-conf", "spark.executor.memory=4g")
    assert result.exit_code == 2 and "--spark-conf needs --engine spark" in result.stderr

def test_the_stall_timeout_takes_seconds_only_and_is_refused_before_spark_starts(
    generated: tuple[Path, Path]
) -> None:
    result = CliRunner().invoke(cli, ["report", "--lake", str(generated[1]), "--engine", "spark",
                                      "--spark-conf", "spark.lanelog.stallTimeout=soon"])
    assert result.exit_code == 2
    assert result.stderr == "Error: spark.lanelog.stallTimeout=soon: give the seconds to wait, e.g. 120\n"
