"""`lanelog dashboard --lake DIR`: every page runs on the lake and shows the database's figures."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from lanelog import store
from lanelog.dashboard.launch import app_environment
from lanelog.ingest import ingest_paths
from tests.dashboard.dashboard_support import APP, PAGES


@pytest.fixture(autouse=True)
def keep_main_module() -> Iterator[None]:
    """Streamlit runs a page as __main__ and leaves it there: put the real one back."""
    main = sys.modules["__main__"]
    yield
    sys.modules["__main__"] = main


@pytest.fixture(scope="module")
def demo_lake(demo_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    lake = tmp_path_factory.mktemp("dashboard-lake") / "lake"
    con = store.open_db(demo_dir / "demo.duckdb", read_only=True)
    try:
        store.export_lake(con, lake)
    finally:
        con.close()
    return lake


def run_app(monkeypatch: pytest.MonkeyPatch, db: Path, lake: Path | None, page: str = PAGES[0]) -> AppTest:
    monkeypatch.setenv("LANELOG_DB", str(db))
    if lake is None:
        monkeypatch.delenv("LANELOG_LAKE", raising=False)
    else:
        monkeypatch.setenv("LANELOG_LAKE", str(lake))
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.run()
    if page != PAGES[0]:
        at.switch_page(page).run()
    return at


@pytest.mark.parametrize("page", PAGES)
def test_every_page_shows_the_same_on_the_lake(monkeypatch: pytest.MonkeyPatch, demo_dir: Path,
                                               demo_lake: Path, page: str) -> None:
    # The lake is read even though LANELOG_DB names a file that does not exist.
    on_lake = run_app(monkeypatch, demo_dir / "missing.duckdb", demo_lake, page)
    on_db = run_app(monkeypatch, demo_dir / "demo.duckdb", None, page)
    assert not on_lake.exception, [e.value for e in on_lake.exception]
    assert [m.value for m in on_lake.metric] == [m.value for m in on_db.metric]
    assert [str(e.value) for e in on_lake.error] == [str(e.value) for e in on_db.error]
    assert len(on_lake.dataframe) == len(on_db.dataframe)
    for ours, theirs in zip(on_lake.dataframe, on_db.dataframe):
        assert ours.value.reset_index(drop=True).equals(theirs.value.reset_index(drop=True))
    # The sidebar breaks a long path into lines after a "/"; joined, they are the lake's path.
    assert str(demo_lake) in [t.value.replace("\n", "") for t in on_lake.sidebar.text]
    assert "Parquet lake" in [c.value for c in on_lake.sidebar.caption]


def test_no_uploader_on_a_lake(monkeypatch: pytest.MonkeyPatch, demo_dir: Path, demo_lake: Path) -> None:
    on_lake = run_app(monkeypatch, demo_dir / "demo.duckdb", demo_lake)
    on_db = run_app(monkeypatch, demo_dir / "demo.duckdb", None)
    assert "Upload a lane log" in [e.label for e in on_db.sidebar.expander]
    assert "Upload a lane log" not in [e.label for e in on_lake.sidebar.expander]


def test_the_lake_reaches_the_app_as_an_absolute_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LANELOG_LAKE", "/elsewhere")
    assert app_environment(Path("x.duckdb"), "lake")["LANELOG_LAKE"] == str(tmp_path / "lake")
    assert "LANELOG_LAKE" not in app_environment(Path("x.duckdb"))
    assert app_environment(Path("x.duckdb"), "s3://bucket/lake")["LANELOG_LAKE"] == "s3://bucket/lake"


def test_a_log_from_a_bucket_is_not_judged_on_a_lake(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The lake does not carry the listings ingest made, so an object there is "not checked", never "no"."""
    url = "s3://ci-logs/lanelog/orders/1001-1/lane-log.jsonl"
    log = tmp_path / "lane-log.jsonl"
    log.write_text('{"attempt_id": "a1", "ts": "2026-10-05T10:00:00Z", "probe": "pass"}\n', encoding="utf-8")
    db, lake = tmp_path / "lanelog.duckdb", tmp_path / "lake"
    con = store.open_db(db)
    try:
        ingest_paths(con, [log])
        # As an ingest of s3://ci-logs/lanelog/ records the object: its URL as the path, and its listing.
        con.execute("UPDATE sources SET path = ?", [url])
        con.execute("INSERT INTO objects_read VALUES (?, 'etag', 1, now())", [url])
        store.export_lake(con, lake)
    finally:
        con.close()
    on_db = run_app(monkeypatch, db, None, "views/health.py").dataframe[0].value
    on_lake = run_app(monkeypatch, tmp_path / "missing.duckdb", lake, "views/health.py")
    # The file column names a bucket's key by its run folder and name (the whole key is in the expander below).
    assert on_db[["file", "still there"]].to_dict("records") == [
        {"file": "…/1001-1/lane-log.jsonl", "still there": "in the bucket"}]
    assert on_lake.dataframe[0].value[["file", "still there"]].to_dict("records") == [
        {"file": "…/1001-1/lane-log.jsonl", "still there": "not checked"}]
    assert any("the lake does not carry the listing" in str(caption.value) for caption in on_lake.caption)


def test_no_page_shows_a_credential_in_the_lakes_name(monkeypatch: pytest.MonkeyPatch, demo_dir: Path,
                                                      demo_lake: Path, tmp_path: Path) -> None:
    # A name holding a credential's value (a key pasted into a path): the sidebar, the status
    # and the hints show it redacted, as every other message does.
    secret = "AKIAEXAMPLESECRET42"
    named = tmp_path / f"lake-{secret}"
    named.symlink_to(demo_lake, target_is_directory=True)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", secret)
    at = run_app(monkeypatch, demo_dir / "missing.duckdb", named)
    assert not at.exception, [e.value for e in at.exception]
    shown = [str(element.value) for kind in ("text", "caption", "markdown", "code", "info", "warning", "error")
             for element in getattr(at, kind)] + [str(element.value) for element in at.sidebar.text]
    assert any("lake-***" in text for text in shown)
    assert not [text for text in shown if secret in text]


def test_a_lake_with_a_week_file_gone_shows_the_error_naming_it(monkeypatch: pytest.MonkeyPatch, demo_dir: Path,
                                                                 demo_lake: Path, tmp_path: Path) -> None:
    lake = Path(shutil.copytree(demo_lake, tmp_path / "lake"))
    gone = sorted((lake / "attempts").glob("week=*/data.parquet"))[1]
    gone.unlink()
    at = run_app(monkeypatch, demo_dir / "missing.duckdb", lake)
    assert not at.exception, [e.value for e in at.exception]
    assert [e.value for e in at.error] == ["The figures cannot be read from this source."]
    shown = [t.value for t in at.text]
    assert any(f"lists {gone}, which is not there" in text for text in shown), shown
    assert len(at.metric) == 0  # no figure drawn from the weeks that are left
