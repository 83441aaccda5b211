"""What a look at a lake reads: only the weeks in range, only the columns asked for, and the database's figures.

The generated lake holds six weeks from 2026-03-02 and an undated partition.  DuckDB's own
profile of a query (EXPLAIN ANALYZE) names the files its scan of the attempts read and the
columns it read of them.
"""

from __future__ import annotations

import json
import shutil
from datetime import date
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from lanelog import queries, store
from lanelog.queries import Filters
from lanelog.queries.named import CONSTANTS
from lanelog.queries.shadow import ROW_LIMIT
from tests.lake.support import lake_connection

WEEKS = ["2026-03-02", "2026-03-09", "2026-03-16", "2026-03-23", "2026-03-30", "2026-04-06"]
UNDATED = store.UNDATED
# (filters, the partitions that can hold attempts in scope: a week any of whose days is in range, and undated)
RANGES = [
    (Filters(), [*WEEKS, UNDATED]),
    (Filters(since=date(2026, 3, 20), until=date(2026, 3, 25)), ["2026-03-16", "2026-03-23", UNDATED]),
    (Filters(since=date(2026, 3, 29)), ["2026-03-23", "2026-03-30", "2026-04-06", UNDATED]),
    (Filters(until=date(2026, 3, 8)), ["2026-03-02", UNDATED]),
    (Filters(since=date(2026, 3, 9), until=date(2026, 3, 9), repo="orders"), ["2026-03-09", UNDATED]),
    (Filters(since=date(2030, 1, 1)), [UNDATED]),
]
# Every figure the dashboard's pages and `report`/`check` read with the sidebar's filters.
FIGURES = ["report", "producers", "weekly", "totals", "reject_reasons", "credit_bug_rows", "audit", "credit_bugs",
           "spend_by_property", "spend_by_repo", "freezes", "freeze_summary", "freeze_owners", "lanes_weekly",
           "unresolved_units", "property_results", "sources", "rejected_lines", "type_anomalies", "undated",
           "undated_counts", "money", "shadow_report", "shadow_flips"]


def scanned(con: Any, block: str, filters: Filters) -> list[dict[str, Any]]:
    """DuckDB's profile of the named query run with these filters: each Parquet scan's details."""
    query = queries.QUERIES[block]
    values = {**(filters.bound() if "since" in query.params else {}),
              **{key: value for key, value in CONSTANTS.items() if key in query.params},
              **({"limit": ROW_LIMIT} if "limit" in query.params else {})}
    for macros in ("week_scope", "week_of", "scope", "undated_why"):  # what the engine installs first
        queries.QUERIES[macros].run(con)
    # The block's own SQL (a file of this repository), its values bound.
    explained = con.execute("EXPLAIN (ANALYZE, FORMAT json) " + query.sql, query.bind(values)).fetchall()
    profile = json.loads(explained[0][1])
    found: list[dict[str, Any]] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            info = node.get("extra_info")
            if isinstance(info, dict) and info.get("Function") == "READ_PARQUET":
                found.append(info)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(profile)
    return found


def reads_only(con: Any, block: str, filters: Filters, partitions: list[str]) -> bool:
    """Whether each scan of the attempts in the named query read exactly as many files as there
    are partitions given, each of them (DuckDB names the first five files it read, then "...")."""
    scans = [scan for scan in scanned(con, block, filters) if "/attempts/week=" in scan.get("Filename(s)", "")]
    for scan in scans:
        named = [path.split("/attempts/week=")[1].split("/")[0]
                 for path in scan["Filename(s)"].split(", ") if "/attempts/week=" in path]
        if int(scan["Total Files Read"]) != len(partitions) or not set(named) <= set(partitions) \
                or len(named) != min(len(partitions), 5):
            return False
    return bool(scans)


@pytest.fixture(scope="module")
def lake_con(generated: tuple[Path, Path]) -> Any:
    _, lake = generated
    con = lake_connection(lake)
    yield con
    con.close()


@pytest.mark.parametrize(("filters", "partitions"), RANGES)
def test_a_query_in_scope_reads_only_the_weeks_that_can_hold_attempts_in_range(
        lake_con: Any, filters: Filters, partitions: list[str]) -> None:
    for block in ("figures", "producers", "credit_bug_rows", "shadow_figures", "money_by_property",
                  "reject_reasons"):
        assert reads_only(lake_con, block, filters, partitions), block
    # Data health's undated attempts are in the undated partition alone, whatever the range.
    assert reads_only(lake_con, "undated_counts", filters, [UNDATED])


@pytest.mark.parametrize(("filters", "partitions"), RANGES[1:])
def test_a_query_of_every_attempt_reads_every_week_whatever_the_range(
        lake_con: Any, filters: Filters, partitions: list[str]) -> None:
    # The repo list and each log's attempts count take no week: a range must not thin them.
    for block in ("repo_names", "sources"):
        assert reads_only(lake_con, block, filters, [*WEEKS, UNDATED]), block
        assert not reads_only(lake_con, block, filters, partitions), block  # (the check can fail)


def test_a_query_reads_only_the_columns_it_needs(lake_con: Any) -> None:
    ranged = Filters(since=date(2026, 3, 20))
    (figures,) = scanned(lake_con, "producers", ranged)
    assert sorted(figures["Projections"]) == ["armed", "is_reject", "producer"]
    for scan in scanned(lake_con, "figures", ranged):
        assert not {"raw", "results", "attempt_id", "head"} & set(scan["Projections"])
    # The check can fail: a query that reads the results (JSON in the view) reads that column.
    assert any("results" in scan["Projections"] for scan in scanned(lake_con, "property_results", ranged))


def same(ours: Any, theirs: Any) -> bool:
    if isinstance(theirs, pd.DataFrame):
        return bool(ours.reset_index(drop=True).equals(theirs.reset_index(drop=True)))
    return bool(ours == theirs)


@pytest.mark.parametrize("filters", [filters for filters, _ in RANGES])
def test_every_figure_on_the_lake_is_the_databases_for_every_range(
        generated: tuple[Path, Path], lake_con: Any, filters: Filters) -> None:
    db, _ = generated
    db_con = store.open_db(db, read_only=True)
    try:
        assert queries.repos(lake_con) == queries.repos(db_con)
        for name in FIGURES:
            function = getattr(queries, name)
            ours, theirs = function(lake_con, filters), function(db_con, filters)
            assert same(ours, theirs), name
        assert queries.report(db_con, filters)["totals"]["attempts"] > 0
    finally:
        db_con.close()


def test_a_folder_named_key_value_above_the_lake_adds_no_column(generated: tuple[Path, Path],
                                                                  tmp_path: Path) -> None:
    db, lake = generated
    moved = tmp_path / "team=orders" / "lake"
    shutil.copytree(lake, moved)
    con, db_con = store.open_lake(moved), store.open_db(db, read_only=True)
    try:
        columns = [row[0] for row in con.execute("DESCRIBE attempts").fetchall()]
        assert "team" not in columns and "week" in columns and "results" in columns
        assert [row[0] for row in db_con.execute("DESCRIBE attempts").fetchall()] == columns
        ranged = Filters(since=date(2026, 3, 20))
        assert queries.report(con, ranged) == queries.report(db_con, ranged)
        assert same(queries.credit_bug_rows(con, ranged), queries.credit_bug_rows(db_con, ranged))
    finally:
        con.close()
        db_con.close()


def test_a_lake_whose_file_holds_another_week_is_read_by_each_rows_own_week(generated: tuple[Path, Path],
                                                                             tmp_path: Path) -> None:
    # Written by another tool: one row of 2026-03-09's file is of the week of 2026-04-13.
    import pyarrow as pa
    import pyarrow.parquet as pq

    _, lake = generated
    odd = tmp_path / "lake"
    shutil.copytree(lake, odd)
    week = odd / "attempts" / "week=2026-03-09" / "data.parquet"
    table = pq.read_table(week)
    weeks = table.column("week").to_pylist()
    weeks[0] = date(2026, 4, 13)
    column = table.schema.get_field_index("week")
    pq.write_table(table.set_column(column, table.schema.field("week"),
                                    pa.array(weeks, type=table.schema.field("week").type)), week)
    con = store.open_lake(odd)
    try:
        ranged = Filters(since=date(2026, 4, 13))
        assert [row["week"] for row in queries.report(con, ranged)["weeks"]] == ["2026-04-13", None]
        assert queries.report(con, ranged)["weeks"][0]["attempts"] == 1
        assert reads_only(con, "figures", ranged, [*WEEKS, UNDATED])  # no file is skipped by its name
    finally:
        con.close()
