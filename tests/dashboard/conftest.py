"""Fixtures for the dashboard tests: the demo database (once per session) and small made-up ones."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from lanelog import ingest
from tests.dashboard.dashboard_support import APP, PAGES


@pytest.fixture(autouse=True)
def keep_main_module() -> Iterator[None]:
    """Put back the __main__ module that running a page through AppTest replaces.

    Streamlit runs a script as __main__ and leaves it there; a later test that starts a
    spawn-based process pool would then make every worker run the dashboard as its main.
    """
    main = sys.modules["__main__"]
    yield
    sys.modules["__main__"] = main


@pytest.fixture(scope="session")
def demo_db(demo_dir: Path) -> Path:
    return demo_dir / "demo.duckdb"


@pytest.fixture
def make_db(tmp_path: Path) -> Callable[[list[dict[str, Any]]], Path]:
    """Write lines to a log and ingest it with `ingest` into a new database file."""
    counter = iter(range(1_000_000))

    def make(lines: list[dict[str, Any]]) -> Path:
        n = next(counter)
        log = tmp_path / f"lane-log-{n}.jsonl"
        log.write_text("".join(json.dumps({"attempt_id": f"t{n}-{i}", **obj}) + "\n" for i, obj in enumerate(lines)))
        db = tmp_path / f"db-{n}.duckdb"
        con = ingest.open_db(db)
        try:
            ingest.ingest_paths(con, [log])
        finally:
            con.close()
        return db

    return make


@pytest.fixture
def app(monkeypatch: pytest.MonkeyPatch) -> Callable[..., AppTest]:
    """An AppTest of the dashboard on a database, optionally on a page, already run."""

    def run(db: Path, page: str | None = None, query: dict[str, Any] | None = None) -> AppTest:
        monkeypatch.setenv("LANELOG_DB", str(db))
        at = AppTest.from_file(str(APP), default_timeout=60)
        if query:
            at.query_params.update(query)
        at.run()
        if page is not None and page != PAGES[0]:
            at.switch_page(page).run()
        return at

    return run
