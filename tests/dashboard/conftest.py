"""Fixtures for the dashboard tests: the demo database (once per session) and small made-up ones."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from tests.dashboard.dashboard_support import APP, PAGES, ingested


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
        return ingested(log, tmp_path / f"db-{n}.duckdb")

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


def _commit(root: Path, files: dict[str, str | None], subject: str, day: str) -> None:
    for name, text in files.items():
        path = root / name
        if text is None:
            path.unlink()
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    stamp = f"{day}T10:00:00+00:00"
    env = {**os.environ, "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}
    for args in (("add", "-A"), ("commit", "-q", "--no-verify", "-m", subject)):
        subprocess.run(["git", "-C", str(root), *args], check=True, env=env, capture_output=True, timeout=60)


@pytest.fixture(scope="session")
def replay_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """A real `lanelog replay --db` of a four-week history: a database holding one stored replay,
    and the replay's JSON. Under `assertion_rule: net` the typo fix, the rewritten assert and the
    guarded one flip from reject to pass; the real test removal stays rejected."""
    from tests.router.conftest import LANES_YAML

    root = tmp_path_factory.mktemp("replayed")
    repo = root / "repo"
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True, timeout=60)
    for key, value in (("user.name", "tests"), ("user.email", "tests@lanelog.invalid")):
        subprocess.run(["git", "-C", str(repo), "config", key, value], check=True, timeout=60)
    tests = "".join(f'def test_{n}():\n    assert put({n}, {n}) == {n}, "put {n}"\n\n' for n in range(3))
    _commit(repo, {"lanes.yaml": LANES_YAML, "store.py": "def put(key, body):\n    return body\n",
                   "tests/test_store.py": tests}, "Start", "2026-09-07")
    _commit(repo, {"store.py": "def put(key, body):\n    return dict(body)\n"}, "Copy the body", "2026-09-14")
    _commit(repo, {"tests/test_store.py": tests.replace('"put 1"', '"put one"'),
                   "store.py": "def put(key, body):\n    return dict(body or {})\n"},
            "Fix a typo in an assert message", "2026-09-15")
    _commit(repo, {"README.md": "# store\n"}, "Add a readme", "2026-09-22")
    _commit(repo, {"tests/test_store.py": tests.replace(
        'def test_2():\n    assert put(2, 2) == 2, "put 2"\n\n', ""),
                   "store.py": "def put(key, body):\n    return dict(body or {}) \n"},
            "Remove duplicate test", "2026-09-23")
    _commit(repo, {"tests/test_store.py": tests.replace('"put 0"', '"zero"'),
                   "store.py": "def put(key, body):\n    return {**(body or {})}\n"},
            "Reword an assert message", "2026-10-01")
    # An assert put behind a new guard, one branch a statement over three lines: its lines show
    # the guard, the whole statement and the unchanged lines around them.
    guarded = ('def test_1():\n    if PUT_COPIES:\n        assert put(1, 1) == {\n            "key": 1,\n'
               '        }, "put 1 copies"\n    else:\n        assert put(1, 1) == 1, "put 1"\n')
    _commit(repo, {"tests/test_store.py": tests.replace('"put 0"', '"zero"').replace(
        'def test_1():\n    assert put(1, 1) == 1, "put 1"\n', guarded),
                   "store.py": "def put(key, body):\n    return {**(body or {}), \"key\": key}\n"},
            "Guard an assert", "2026-10-02")
    candidate = root / "candidate.yaml"
    candidate.write_text(LANES_YAML + "assertion_rule: net\n", encoding="utf-8")
    db = root / "replay.duckdb"
    first = subprocess.run(["git", "-C", str(repo), "rev-list", "--max-parents=0", "main"],
                           capture_output=True, text=True, check=True, timeout=60).stdout.strip()
    done = subprocess.run(
        [sys.executable, "-m", "lanelog", "replay", "--repo", str(repo), "--policy", str(candidate),
         "--commits", f"{first}..main", "--format", "json", "--db", str(db)],
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return db, json.loads(done.stdout)
