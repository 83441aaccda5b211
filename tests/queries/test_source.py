"""One rule chooses what is read, for `report`, `check` and the dashboard alike.

Issue 37: the CLI and dashboard/data.py each chose between the database file and the
lake, by rules written twice.  Both now ask lanelog.queries.source.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from lanelog import ingest, queries, store
from lanelog.cli import cli
from lanelog.dashboard.launch import app_environment
from lanelog.errors import QueryError, StoreError
from lanelog.queries.source import Source, choose_source

DATA = Path(__file__).parent / "data"


def database(path: Path, *logs: Path) -> Path:
    con = store.open_db(path)
    try:
        assert ingest.ingest_paths(con, list(logs)).errors == []
    finally:
        con.close()
    return path


@pytest.fixture(scope="module")
def places(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two databases with different figures, and the lake of the second."""
    folder = tmp_path_factory.mktemp("sources")
    review = database(folder / "review.duckdb", DATA / "review.jsonl")
    other = folder / "other.jsonl"
    other.write_text("".join(json.dumps({"attempt_id": f"o{n}", "ts": "2026-10-05T09:00:00Z", "probe": "pass"})
                             + "\n" for n in range(3)))
    small = database(folder / "small.duckdb", other)
    lake = folder / "lake"
    con = store.open_db(small, read_only=True)
    try:
        store.export_lake(con, lake)
    finally:
        con.close()
    return {"review": review, "small": small, "lake": lake}


@pytest.fixture
def app_env(monkeypatch: pytest.MonkeyPatch) -> Callable[[Path, Path | None], None]:
    """Put the environment `lanelog dashboard` gives its app in place (monkeypatch takes it away after)."""
    def apply(db: Path, lake: Path | None) -> None:
        given = app_environment(db, None if lake is None else str(lake))
        for name in ("LANELOG_DB", "LANELOG_LAKE"):
            if name in given:
                monkeypatch.setenv(name, given[name])
            else:
                monkeypatch.delenv(name, raising=False)
    return apply


def test_the_rule_a_lake_named_else_the_database_named_else_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LANELOG_DB", raising=False)
    assert choose_source() == Source(db=Path("lanelog.duckdb"))
    monkeypatch.setenv("LANELOG_DB", "/data/lanes.duckdb")
    assert choose_source() == Source(db=Path("/data/lanes.duckdb"))
    assert choose_source("mine.duckdb").name == "mine.duckdb"
    on_lake = choose_source(lake="s3://bucket/lake", endpoint_url="http://127.0.0.1:9000")
    assert (on_lake.name, on_lake.lake, on_lake.db) == ("s3://bucket/lake", "s3://bucket/lake",
                                                        Path("/data/lanes.duckdb"))
    assert choose_source(lake="lake", engine="spark").engine == "spark"


def test_the_spark_engine_and_a_write_need_what_they_read(tmp_path: Path) -> None:
    with pytest.raises(QueryError, match="the spark engine reads a lake: name one"):
        choose_source(tmp_path / "x.duckdb", engine="spark")
    with pytest.raises(QueryError, match="no engine named 'trino'"):
        choose_source(lake="lake", engine="trino")
    for engine in ("duckdb", "spark"):
        with pytest.raises(StoreError, match=f"the lake at {tmp_path} is only read"), \
                choose_source(lake=str(tmp_path), engine=engine).reading(write=True):
            pass
    missing = tmp_path / "missing.duckdb"
    with pytest.raises(StoreError, match=f"no database at {missing}: run `lanelog ingest"):
        choose_source(missing).connect(write=True)
    assert not missing.exists(), "a command that reads never makes a database"


@pytest.mark.parametrize("on_lake", [False, True], ids=["database", "lake"])
def test_the_cli_and_the_dashboard_read_the_same_source_for_the_same_settings(
        places: dict[str, Path], app_env: Any, monkeypatch: pytest.MonkeyPatch, on_lake: bool) -> None:
    from lanelog.dashboard import data

    # The settings: LANELOG_DB names one database, and --lake (when given) the lake of another.
    lake = places["lake"] if on_lake else None
    monkeypatch.setenv("LANELOG_DB", str(places["review"]))
    args = ["report", "--format", "json"] + (["--lake", str(lake)] if lake else [])
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    from_cli = json.loads(result.stdout)["totals"]

    app_env(places["review"], lake)
    assert data.source_name() == (str(lake) if lake else str(places["review"]))
    from_dashboard = data.look(queries.totals).figures["totals"]
    assert from_dashboard == from_cli
    # The two places hold different figures, so agreeing says both read the same one.
    assert from_cli["attempts"] == (3 if on_lake else 7)  # review.jsonl: r1-r5, the undated line, r9


def test_the_dashboard_reads_a_lake_even_where_the_database_is_missing(places: dict[str, Path], app_env: Any,
                                                                       tmp_path: Path) -> None:
    from lanelog.dashboard import data

    app_env(tmp_path / "missing.duckdb", places["lake"])
    assert data.source_exists() and data.lake_dir() == str(places["lake"])
    assert data.db_path() == (tmp_path / "missing.duckdb").resolve()
    assert data.replay(1) is None  # no replay stored: read from the lake, not refused as missing
    app_env(tmp_path / "missing.duckdb", None)
    assert not data.source_exists()
    assert os.environ.get("LANELOG_LAKE") is None
