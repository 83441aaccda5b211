"""Fixtures for the ingest tests: an in-memory database and one in a file."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from lanelog import store


@pytest.fixture
def con() -> Iterator[duckdb.DuckDBPyConnection]:
    connection = store.open_memory()
    yield connection
    connection.close()


@pytest.fixture
def file_db(tmp_path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    connection = store.open_db(tmp_path / "lanelog.duckdb")
    yield connection
    connection.close()
