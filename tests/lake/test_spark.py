"""The same figures on Apache Spark (local[2]): JSON equal to DuckDB's, key for key, number for number."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from lanelog import queries, store
from lanelog.cli import cli
from lanelog.errors import QueryError
from lanelog.queries import Filters
from lanelog.queries.spark import SPARK_QUERIES, SparkLake, spark_sql
from tests.lake.test_duckdb_lake import FILTERS


def on_spark(spark: Any, lake: Path) -> SparkLake:
    return SparkLake(spark, store.lake_files(lake), store.lake_schemas())


def cli_out(*args: str | Path) -> tuple[int, str]:
    result = CliRunner().invoke(cli, [str(arg) for arg in args], catch_exceptions=False)
    return result.exit_code, result.stdout


def test_the_session_talks_only_over_loopback(spark: Any) -> None:
    conf = spark.sparkContext.getConf()
    assert conf.get("spark.driver.host") == "127.0.0.1"
    assert conf.get("spark.driver.bindAddress") == "127.0.0.1"
    assert conf.get("spark.ui.enabled") == "false"
    assert os.environ["SPARK_LOCAL_IP"] == "127.0.0.1"
    assert spark.sparkContext.master == "local[2]"
    assert spark.version.startswith("3.5")


def test_report_and_check_equal_duckdbs_for_every_filter(spark: Any, generated: tuple[Path, Path]) -> None:
    _, lake = generated
    spark_lake, lake_con = on_spark(spark, lake), store.open_lake(lake)
    try:
        for filters in FILTERS:
            expected = queries.report(lake_con, filters)
            assert expected["weeks"][-1]["week"] is None  # the undated bucket is in every scope
            assert queries.report(spark_lake, filters) == expected, filters
            found = queries.check(lake_con, filters)
            assert queries.check(spark_lake, filters) == found, filters
            assert queries.records(spark_lake, "reject_reasons", filters) == \
                queries.records(lake_con, "reject_reasons", filters)
        assert queries.check(lake_con)["credit_bugs"] and queries.check(lake_con)["warnings"]
    finally:
        lake_con.close()


def test_the_cli_gives_the_same_output_on_spark(spark: Any, generated: tuple[Path, Path]) -> None:
    _, lake = generated
    for fmt in ("json", "markdown"):
        code, duck = cli_out("report", "--lake", lake, "--format", fmt, "--since", "2026-03-16")
        assert code == 0
        assert cli_out("report", "--lake", lake, "--engine", "spark", "--spark-master", "local[2]",
                       "--format", fmt, "--since", "2026-03-16") == (0, duck)
    code, duck = cli_out("check", "--lake", lake, "--format", "json", "--repo", "billing")
    assert code == 1 and duck.count('"kind": "credit_bug"') >= 1
    assert cli_out("check", "--lake", lake, "--engine", "spark", "--format", "json", "--repo", "billing") == (1, duck)
    # The session belongs to the tests: a command that found it running leaves it running.
    assert spark.sparkContext._jsc is not None


def test_the_demo_report_is_the_same_on_spark(spark: Any, demo_dir: Path, tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    assert cli_out("export", "--db", demo_dir / "demo.duckdb", "--lake", lake, "--quiet")[0] == 0
    code, duck = cli_out("report", "--db", demo_dir / "demo.duckdb", "--format", "json")
    assert code == 0
    assert cli_out("report", "--lake", lake, "--engine", "spark", "--format", "json") == (0, duck)


def test_an_empty_lake_still_has_its_total_row_on_spark(spark: Any, tmp_path: Path) -> None:
    db = tmp_path / "empty.duckdb"
    store.open_db(db).close()
    con = store.open_db(db, read_only=True)
    try:
        store.export_lake(con, tmp_path / "lake")
        expected = queries.report(con)
    finally:
        con.close()
    assert expected["totals"]["attempts"] == 0
    assert queries.report(on_spark(spark, tmp_path / "lake")) == expected


def test_the_spark_sql_is_generated_from_the_sql_files() -> None:
    for name in SPARK_QUERIES:
        text = spark_sql(name)
        assert "$" not in text and "in_scope(" not in text.lower()
    assert "GROUPING SETS" not in spark_sql("figures") and "UNION ALL" in spark_sql("figures")
    assert ":since" in spark_sql("figures") and "SIZE(properties)" in spark_sql("figures")
    with pytest.raises(QueryError, match="query 'freezes' has no Spark form"):
        spark_sql("freezes")


def test_filters_bind_as_values_not_text(spark: Any, generated: tuple[Path, Path]) -> None:
    _, lake = generated
    hostile = Filters(repo="x' OR '1'='1")
    spark_lake, lake_con = on_spark(spark, lake), store.open_lake(lake)
    try:
        assert queries.report(spark_lake, hostile) == queries.report(lake_con, hostile)
        assert queries.report(spark_lake, hostile)["totals"]["attempts"] == 0
    finally:
        lake_con.close()
