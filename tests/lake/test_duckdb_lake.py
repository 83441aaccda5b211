"""The same queries over the lake on DuckDB: every query in queries/ gives the database's rows."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
from click.testing import CliRunner

from lanelog import queries, store
from lanelog.cli import cli
from lanelog.queries import Filters

FILTERS = [
    Filters(),
    Filters.parse("2026-03-10", "2026-03-25"),
    Filters.parse(until="2026-03-08"),
    Filters.parse(repo="orders"),
    Filters.parse("2027-01-01"),  # no dated week in range: the undated bucket alone
]


def cli_json(*args: str | Path) -> tuple[int, str]:
    result = CliRunner().invoke(cli, [str(arg) for arg in args], catch_exceptions=False)
    return result.exit_code, result.stdout


def test_report_json_on_the_lake_equals_the_database_on_the_demo(demo_dir: Path, tmp_path: Path) -> None:
    db = demo_dir / "demo.duckdb"
    lake = tmp_path / "lake"
    assert cli_json("export", "--db", db, "--lake", lake, "--quiet")[0] == 0
    code, from_db = cli_json("report", "--db", db, "--format", "json")
    assert code == 0 and json.loads(from_db)["totals"]["attempts"] > 0
    assert cli_json("report", "--lake", lake, "--format", "json") == (0, from_db)
    assert cli_json("check", "--lake", lake, "--format", "json") == cli_json("check", "--db", db, "--format", "json")


@pytest.mark.parametrize("filters", FILTERS, ids=lambda f: f"{f.since}-{f.until}-{f.repo}")
def test_every_query_gives_the_same_rows_on_lake_and_database(generated: tuple[Path, Path],
                                                               filters: Filters) -> None:
    db, lake = generated
    con, lake_con = store.open_db(db, read_only=True), store.open_lake(lake)
    try:
        names = [name for name in queries.QUERIES if name != "scope"]
        assert len(names) >= 15
        for name in names:
            params = queries.QUERIES[name].params
            extra: dict[str, object] = {"limit": 5000} if "limit" in params else {}
            if "first_day" in params:  # a budget's period: the whole generated history
                extra |= {"first_day": date(2020, 1, 1), "last_day": date(2030, 12, 31)}
            if "stale_before" in params:  # the day a still-open pull request's first attempt is stale before
                extra |= {"stale_before": date(2026, 3, 1)}
            expected = queries.records(con, queries.QUERIES[name], filters, **extra)
            assert queries.records(lake_con, queries.QUERIES[name], filters, **extra) == expected, name
        report = queries.report(con, filters)
        assert report["rejected_lines"] > 0
        assert queries.report(lake_con, filters) == report
    finally:
        con.close()
        lake_con.close()


@pytest.mark.parametrize("table", ["attempts", "outcomes", "rejected_lines", "sources"])
def test_every_table_gives_the_databases_rows_on_the_lake(generated: tuple[Path, Path], table: str) -> None:
    db, lake = generated
    con, lake_con = store.open_db(db, read_only=True), store.open_lake(lake)
    order = "source_id" if table == "sources" else "source_id, line_no"
    query = f"SELECT * FROM {table} ORDER BY {order}"  # (fixed names)
    try:
        rows = con.execute(query).fetchall()
        assert rows and lake_con.execute(query).fetchall() == rows
    finally:
        con.close()
        lake_con.close()


def test_the_report_cli_with_filters_matches(generated: tuple[Path, Path]) -> None:
    db, lake = generated
    for extra in ([], ["--since", "2026-03-10", "--until", "2026-03-25"], ["--repo-name", "ledger"]):
        code, from_db = cli_json("report", "--db", db, "--format", "json", *extra)
        assert code == 0
        weeks = [week["week"] for week in json.loads(from_db)["weeks"]]
        assert weeks[-1] is None  # the undated bucket, last
        assert cli_json("report", "--lake", lake, "--format", "json", *extra) == (0, from_db)
