"""The same figures on Apache Spark (local[2]): JSON equal to DuckDB's, key for key, number for number."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from datetime import date, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from lanelog import queries, store
from lanelog.cli import cli
from lanelog.queries import Filters
from lanelog.queries.spark_lake import SparkLake
from tests.lake.test_duckdb_lake import FILTERS


def on_spark(spark: Any, lake: Path) -> SparkLake:
    return SparkLake(spark, store.lake_files(lake), store.lake_schemas())


def cli_out(*args: str | Path) -> tuple[int, str]:
    result = CliRunner().invoke(cli, [str(arg) for arg in args], catch_exceptions=False)
    return result.exit_code, result.stdout


def lake_of(log: Path, read: Callable[[Any], Any]) -> tuple[Path, Any]:
    """The log ingested and exported as a lake beside it (through the CLI), and what `read`
    returns on its database: (lake, figures)."""
    db, lake = log.parent / "db.duckdb", log.parent / "lake"
    assert cli_out("ingest", log, "--db", db)[0] == 0
    assert cli_out("export", "--db", db, "--lake", lake, "--quiet")[0] == 0
    con = store.open_db(db, read_only=True)
    try:
        return lake, read(con)
    finally:
        con.close()


def test_spark_reads_the_outcomes_and_the_attempts_change_as_the_database_holds_them(
    spark: Any, generated: tuple[Path, Path]
) -> None:
    db, lake = generated
    con = store.open_db(db, read_only=True)
    try:
        outcomes = con.execute("SELECT outcome_id, state, pr_number, auto_merge, approvals[1].login, "
                               "labels[1].name FROM outcomes ORDER BY source_id, line_no").fetchall()
        change = con.execute("SELECT count(pr_number), count(DISTINCT agent), count(ci_run_id) FROM attempts"
                             ).fetchall()
    finally:
        con.close()
    engine = on_spark(spark, lake)
    found = engine.spark.sql("SELECT outcome_id, state, pr_number, auto_merge, approvals[0].login, labels[0].name "
                             "FROM outcomes ORDER BY source_id, line_no").collect()
    assert [tuple(row) for row in found] == outcomes
    assert [tuple(row) for row in engine.spark.sql(
        "SELECT count(pr_number), count(DISTINCT agent), count(ci_run_id) FROM attempts").collect()] == change


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
            assert queries.credit_bugs(spark_lake, filters) == queries.credit_bugs(lake_con, filters), filters
            assert queries.records(spark_lake, queries.SQL.audit, filters) == \
                queries.records(lake_con, queries.SQL.audit, filters)
            assert queries.records(spark_lake, queries.SQL.reject_reasons, filters) == \
                queries.records(lake_con, queries.SQL.reject_reasons, filters)
        assert queries.credit_bugs(lake_con).lines and queries.records(lake_con, queries.SQL.audit)
    finally:
        lake_con.close()


def test_the_cli_gives_the_same_output_on_spark(spark: Any, generated: tuple[Path, Path]) -> None:
    _, lake = generated
    for fmt in ("json", "markdown"):
        code, duck = cli_out("report", "--lake", lake, "--format", fmt, "--since", "2026-03-16")
        assert code == 0
        assert cli_out("report", "--lake", lake, "--engine", "spark", "--spark-master", "local[2]",
                       "--format", fmt, "--since", "2026-03-16") == (0, duck)
    code, duck = cli_out("check", "--lake", lake, "--format", "json", "--repo-name", "billing")
    assert code == 1 and duck.count('"kind": "credit_bug"') >= 1
    assert cli_out("check", "--lake", lake, "--engine", "spark", "--format", "json",
                   "--repo-name", "billing") == (1, duck)
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
        money = queries.money(con)
    finally:
        con.close()
    assert expected["totals"]["attempts"] == 0
    empty = on_spark(spark, tmp_path / "lake")
    assert queries.report(empty) == expected
    # Spark's aggregate found no rows, so the per-set form was asked for the total row: one job more.
    assert empty.jobs_run() == 2
    # The money's total row comes from a grouping set with no group: on no rows, still one row.
    assert money["totals"]["calls_armed"] == 0 and money["totals"]["cost"] is None
    assert queries.money(on_spark(spark, tmp_path / "lake")) == money



def test_the_report_is_one_spark_job_and_lets_its_cache_go(spark: Any, generated: tuple[Path, Path]) -> None:
    _, lake = generated
    adaptive = spark.conf.get("spark.sql.adaptive.enabled")
    broadcast = spark.conf.get("spark.sql.autoBroadcastJoinThreshold")
    spark_lake, lake_con = on_spark(spark, lake), store.open_lake(lake)
    try:
        for filters in FILTERS:
            before = spark_lake.jobs_run()
            assert queries.report(spark_lake, filters, with_money=True) == \
                queries.report(lake_con, filters, with_money=True), filters
            assert spark_lake.jobs_run() - before == 1, filters
    finally:
        lake_con.close()
    # The cached attempts and their view last as long as the job; the session's settings are as they were.
    assert spark._jsparkSession.sharedState().cacheManager().isEmpty()
    assert not spark.catalog.tableExists("lanelog_report_attempts")
    assert spark.conf.get("spark.sql.adaptive.enabled") == adaptive
    assert spark.conf.get("spark.sql.autoBroadcastJoinThreshold") == broadcast


def test_adaptive_execution_given_with_spark_conf_is_kept(spark: Any, generated: tuple[Path, Path]) -> None:
    """lanelog turns adaptive execution off for its jobs (each shuffle would be a job of its own), unless told."""
    _, lake = generated
    spark.conf.set("spark.sql.adaptive.enabled", "true")
    adaptive = SparkLake(spark, store.lake_files(lake), store.lake_schemas(),
                         settings={"spark.sql.adaptive.enabled": "true"})
    lake_con = store.open_lake(lake)
    try:
        assert queries.report(adaptive, with_money=True) == queries.report(lake_con, with_money=True)
    finally:
        lake_con.close()
    assert adaptive.jobs_run() > 1



def test_verbose_prints_the_reports_one_job(spark: Any, generated: tuple[Path, Path]) -> None:
    _, lake = generated
    result = spark_cli("report", "--lake", lake, "--engine", "spark", "--format", "json", "--verbose")
    assert result.exit_code == 0, result.output
    assert result.stderr.endswith("Spark ran 1 job(s) for this report\n")


def test_filters_bind_as_values_not_text(spark: Any, generated: tuple[Path, Path]) -> None:
    _, lake = generated
    hostile = Filters(repo="x' OR '1'='1")
    spark_lake, lake_con = on_spark(spark, lake), store.open_lake(lake)
    try:
        assert queries.report(spark_lake, hostile) == queries.report(lake_con, hostile)
        assert queries.report(spark_lake, hostile)["totals"]["attempts"] == 0
    finally:
        lake_con.close()


def spark_cli(*args: str | Path) -> Any:
    """The CLI in this process (the tests' Spark session is the one it finds), exceptions kept as output."""
    return CliRunner().invoke(cli, [str(arg) for arg in args])


@pytest.mark.parametrize("name", ["lake[1]", "lake{a,b}", "lake:x", "lake*?"])
def test_lake_paths_with_glob_and_uri_characters_read_on_spark(spark: Any, generated: tuple[Path, Path],
                                                              tmp_path: Path, name: str) -> None:
    _, lake = generated
    odd = tmp_path / name / "lake"
    shutil.copytree(lake, odd)
    code, duck = cli_out("report", "--lake", lake, "--format", "json")
    assert code == 0
    assert cli_out("report", "--lake", odd, "--engine", "spark", "--format", "json") == (0, duck)


def test_a_truncated_week_file_is_exit_2_with_one_line(spark: Any, generated: tuple[Path, Path],
                                                       tmp_path: Path) -> None:
    _, lake = generated
    broken = tmp_path / "lake"
    shutil.copytree(lake, broken)
    week = min((broken / "attempts").glob("week=2*/data.parquet"))
    week.write_bytes(week.read_bytes()[: week.stat().st_size // 2])
    for command in ("report", "check"):
        result = spark_cli(command, "--lake", broken, "--engine", "spark")
        assert result.exit_code == 2, result.output  # never 1: for check that means a credit bug
        assert result.stderr.startswith("Error: Spark could not read the lake: ")
        assert result.stderr.count("\n") == 1 and "Traceback" not in result.output
        assert result.exception is None or isinstance(result.exception, SystemExit)


def test_a_line_dated_in_1500_reads_on_spark_as_on_duckdb(spark: Any, generated: tuple[Path, Path],
                                                          tmp_path: Path) -> None:
    # Ingest now leaves such a ts undated, but a lake exported before that rule, or written by
    # another tool, holds it: one attempt of a week file is dated 1500-03-02, as DuckDB wrote it.
    import pyarrow as pa
    import pyarrow.parquet as pq

    _, lake = generated
    old = tmp_path / "lake"
    shutil.copytree(lake, old)
    week = min((old / "attempts").glob("week=2*/data.parquet"))
    table = pq.read_table(week)
    ts, weeks = table.column("ts").to_pylist(), table.column("week").to_pylist()
    ts[0], weeks[0] = datetime(1500, 3, 2, 10), date(1500, 2, 26)
    table = table.set_column(table.schema.get_field_index("ts"), table.schema.field("ts"),
                             pa.array(ts, type=table.schema.field("ts").type))
    table = table.set_column(table.schema.get_field_index("week"), table.schema.field("week"),
                             pa.array(weeks, type=table.schema.field("week").type))
    pq.write_table(table, week, compression="zstd")
    code, duck = cli_out("report", "--lake", old, "--format", "json")
    assert code == 0
    assert cli_out("report", "--lake", old, "--engine", "spark", "--format", "json") == (0, duck)
    code, duck = cli_out("check", "--lake", old, "--format", "json")
    assert cli_out("check", "--lake", old, "--engine", "spark", "--format", "json") == (code, duck)



def test_the_money_on_spark_is_the_database_money(spark: Any, demo_dir: Path, tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    assert cli_out("export", "--db", demo_dir / "demo.duckdb", "--lake", lake, "--quiet")[0] == 0
    con = store.open_db(demo_dir / "demo.duckdb", read_only=True)
    try:
        expected = queries.money(con)
    finally:
        con.close()
    # The demo's runs report usage: the comparison is over real costs, per property and repo too.
    assert expected["totals"]["cost"] > 0 and expected["by_property"] and expected["by_repo"]
    assert queries.money(on_spark(spark, lake)) == expected
    filters = queries.Filters(repo="billing-service", since=date(2026, 10, 1))
    lake_con = store.open_lake(lake)
    try:
        assert queries.money(on_spark(spark, lake), filters) == queries.money(lake_con, filters)
    finally:
        lake_con.close()


def test_a_week_in_two_currencies_has_the_same_totals_on_spark(spark: Any, tmp_path: Path) -> None:
    """money_currencies (each currency's total where a group has several) reads the same on Spark."""
    import json

    def armed(n: int, day: str, repo: str, usage: dict[str, Any]) -> str:
        return json.dumps({"attempt_id": f"c{n}", "ts": f"{day}T12:00:00Z", "repo": repo, "probe": "pass",
                           "model_call_allowed": True, "properties": list(usage), "units": 1, "usage": usage})

    log = tmp_path / "lane-log.jsonl"
    log.write_text("\n".join([
        armed(1, "2026-10-05", "api", {"p1": {"cost": 0.5, "currency": "USD"},
                                       "p2": {"cost": 0.25, "currency": "GBP"}}),
        armed(2, "2026-10-06", "web", {"p1": {"cost": 0.125, "currency": "USD"}}),
        armed(3, "2026-10-13", "web", {"p1": {"cost": 2, "currency": "EUR"}}),
    ]) + "\n")
    lake, expected = lake_of(log, queries.money)
    assert expected["weeks"][0]["costs"] == [{"currency": "GBP", "cost": 0.25}, {"currency": "USD", "cost": 0.625}]
    assert [row.get("costs") for row in expected["by_repo"]] == [
        [{"currency": "GBP", "cost": 0.25}, {"currency": "USD", "cost": 0.5}], None, None]
    assert queries.money(on_spark(spark, lake)) == expected


def test_shadows_read_on_spark_grouped_by_policy_with_their_errors_apart(spark: Any, tmp_path: Path) -> None:
    import json

    def line(n: int, day: str, shadow: dict[str, Any]) -> str:
        return json.dumps({"attempt_id": f"s{n}", "ts": f"{day}T12:00:00Z", "repo": "api", "probe": "reject",
                           "reasons": ["line_cap"], "model_call_allowed": False, "shadow": shadow})

    net = {"policy_sha256": "ab" * 32, "probe": "pass", "reasons": [], "units": 1, "model_call_allowed": True}
    strict = {**net, "policy_sha256": "cd" * 32, "probe": "reject", "reasons": ["line_cap"],
              "model_call_allowed": False}
    log = tmp_path / "lane-log.jsonl"
    log.write_text("\n".join([
        line(1, "2026-10-05", net), line(2, "2026-10-06", strict), line(3, "2026-10-13", net),
        line(4, "2026-10-14", {"policy_sha256": None, "error": "policy_missing", "message": "gone"}),
    ]) + "\n")
    lake, expected = lake_of(log, queries.shadow_report)
    assert expected is not None
    assert [entry["policy_sha256"] for entry in expected["policies"]] == ["ab" * 32, "cd" * 32]
    assert expected["errors"]["attempts"] == 1
    assert queries.shadow_report(on_spark(spark, lake)) == expected


def test_the_hooks_figures_read_on_spark_as_on_duckdb_and_leave_the_seeds_alone(spark: Any,
                                                                                   tmp_path: Path) -> None:
    def line(n: int, ts: str, probe: str, **more: Any) -> str:
        return json.dumps({"attempt_id": f"h{n}", "ts": ts, "repo": "api", "probe": probe,
                           "reasons": [] if probe == "pass" else ["line_cap"], "model_call_allowed": False, **more})

    def hook(agent: str, session: str) -> dict[str, Any]:
        return {"source": "hook", "hook": {"agent": agent, "session": session, "command": "git push"}}

    log = tmp_path / "lane-log.jsonl"
    log.write_text("\n".join([
        line(1, "2026-10-05T09:00:00Z", "reject"),
        line(2, "2026-10-05T10:00:00Z", "reject", **hook("claude-code", "s1")),
        line(3, "2026-10-05T11:00:00Z", "pass", **hook("claude-code", "s1")),
        line(4, "2026-10-13T09:00:00Z", "reject", **hook("copilot", "c1")),
    ]) + "\n")
    lake, expected = lake_of(log, queries.report)
    assert expected["totals"]["attempts"] == 1 and expected["hooks"]["totals"] == {"hook_checks": 3,
                                                                                   "hook_rejects": 2}
    assert queries.report(on_spark(spark, lake)) == expected


def _never_ending(_: Any) -> None:
    import time

    time.sleep(3600)


def test_a_job_that_makes_no_progress_is_cancelled_and_named_in_one_line(spark: Any,
                                                                          generated: tuple[Path, Path]) -> None:
    """Both of the session's cores held by tasks that never end, as by executors that died mid-job:
    the report's job can start no task, and --spark-conf's stall timeout ends it, exit 2."""
    import time

    from pyspark import InheritableThread

    _, lake = generated
    context = spark.sparkContext

    def hold_every_core() -> None:
        context.setJobGroup("test-holder", "tasks that never end", interruptOnCancel=True)
        try:
            context.parallelize(range(2), 2).foreach(_never_ending)
        except Exception:  # noqa: BLE001 - cancelled below, as meant
            pass

    holder = InheritableThread(target=hold_every_core, daemon=True)
    holder.start()
    try:
        deadline = time.monotonic() + 120
        while sum(stage.numActiveTasks for stage in (context.statusTracker().getStageInfo(stage_id) for stage_id
                                                     in context.statusTracker().getActiveStageIds()) if stage) < 2:
            assert time.monotonic() < deadline, "the two never-ending tasks did not start"
            time.sleep(0.2)
        result = CliRunner().invoke(cli, ["report", "--lake", str(lake), "--engine", "spark", "--format", "json",
                                          "--spark-conf", "spark.lanelog.stallTimeout=3"])
    finally:
        context.cancelJobGroup("test-holder")
        holder.join(timeout=120)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith("Error: Spark made no progress on ")
    assert result.stderr.endswith(" for 3 s on local[2]: no task started or finished, so lanelog cancelled its jobs "
                                  "(the workers are gone or busy, or a task does not end); set "
                                  "spark.lanelog.stallTimeout=SECONDS to wait longer\n")
    assert result.stderr.count("\n") == 1
    # The session is whole again: the same report runs to its end.
    code, _ = cli_out("report", "--lake", lake, "--engine", "spark", "--format", "json")
    assert code == 0


def test_spark_workers_run_lanelogs_interpreter_not_the_python3_on_path(tmp_path: Path) -> None:
    """A venv's python run unactivated (`.venv/bin/python -m lanelog`): the python3 PATH finds first
    has no pyspark, and a local worker started with it would fail the report (an empty table is
    made in Python workers)."""
    import subprocess
    import sys

    db = tmp_path / "empty.duckdb"
    store.open_db(db).close()
    con = store.open_db(db, read_only=True)
    try:
        store.export_lake(con, tmp_path / "lake")
    finally:
        con.close()
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "python3").write_text("#!/bin/sh\necho 'not this python' >&2\nexit 3\n")
    (fake / "python3").chmod(0o755)
    env = {key: value for key, value in os.environ.items() if key not in ("PYSPARK_PYTHON", "VIRTUAL_ENV")}
    env["PATH"] = f"{fake}:/usr/bin:/bin"
    done = subprocess.run([sys.executable, "-m", "lanelog", "report", "--lake", str(tmp_path / "lake"),
                           "--engine", "spark", "--format", "json"], capture_output=True, text=True, env=env,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["totals"]["attempts"] == 0


@pytest.mark.parametrize("seed", (0, 5))
def test_the_outcome_figures_on_spark_equal_the_independent_reader(spark: Any, tmp_path: Path, seed: int) -> None:
    """The outcome figures, cohorts and stale pull requests counted by Spark over generated histories, each scope
    equal to the reader that recomputes them from the lines (tests/queries/test_outcomes.py)."""
    from tests.queries.test_outcomes import SCOPES, TODAY, expected, history

    lines = history(seed)
    log = tmp_path / "lane-log.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    lake, _ = lake_of(log, lambda con: None)
    spark_lake = on_spark(spark, lake)
    for name, filters in SCOPES.items():
        found = queries.outcome_figures(spark_lake, filters, today=TODAY)
        assert {key: found[key] for key in ("weeks", "totals", "by_agent", "by_repo", "cohorts")} == \
            expected(lines, filters), name
