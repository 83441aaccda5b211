"""Fixtures for the lake tests: generated databases, and one Spark session for the whole run."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lanelog import ingest, store
from tests.lake.support import write_log


def make_db(folder: Path, seed: int = 1, lines: int = 600, weeks: int = 6) -> Path:
    """A database ingested from two generated logs (two sources)."""
    db = folder / "lanes.duckdb"
    con = store.open_db(db)
    try:
        summary = ingest.ingest_paths(con, [write_log(folder / "a.jsonl", seed, lines, weeks),
                                            write_log(folder / "b.jsonl", seed + 100, lines // 3, weeks)])
        assert summary.errors == [] and summary.rejected > 0 and summary.duplicates > 0
    finally:
        con.close()
    return db


@pytest.fixture(scope="session")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A generated database and its lake, made once: (db, lake). Tests only read them."""
    folder = tmp_path_factory.mktemp("generated")
    db = make_db(folder)
    lake = folder / "lake"
    con = store.open_db(db, read_only=True)
    try:
        store.export_lake(con, lake)
    finally:
        con.close()
    return db, lake


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    """One local Spark session (two cores, loopback only) for every Spark test: it takes seconds to start."""
    from lanelog.queries.spark import start_session

    session = start_session("local[2]", app_name="lanelog tests")
    yield session
    session.stop()
