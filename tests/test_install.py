"""A regular install puts exactly one import name, lanelog, into site-packages, and it works."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
REVIEW = ROOT / "tests" / "queries" / "data"


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`pip install --target DIR .` from a copy of the source tree (so no build files land in it)."""
    work = tmp_path_factory.mktemp("install")
    source = work / "src"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", "build", "*.egg-info", "__pycache__", ".pytest_cache", ".hypothesis", "artifacts",
        "bench", "*.duckdb"))
    out = work / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
         "--target", str(out), str(source)],
        check=True, capture_output=True, text=True, timeout=300,
    )
    return out


def _run(target: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(target)}
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env,
                          cwd=target.parent, timeout=120)


def test_one_import_name(target: Path) -> None:
    importable = sorted(
        entry.name for entry in target.iterdir()
        if (entry.is_dir() and not entry.name.endswith(".dist-info") and entry.name != "bin")
        or entry.suffix == ".py"
    )
    assert importable == ["lanelog"]
    assert sorted(p.name for p in (target / "lanelog").iterdir() if p.is_dir() and p.name != "__pycache__") == [
        "commands", "dashboard", "demo", "ingest", "queries", "router"]
    assert (target / "lanelog" / "dashboard" / "views" / "overview.py").is_file()


def test_the_installed_package_is_the_one_imported(target: Path) -> None:
    done = _run(target, "-c", "import lanelog.router, lanelog.queries; print(lanelog.router.__file__);"
                              "print(len(lanelog.queries.QUERIES))")
    assert done.returncode == 0, done.stderr
    router_file, count = done.stdout.split()
    assert Path(router_file).is_relative_to(target)
    assert int(count) > 10


def test_the_installed_cli_reports_from_its_own_sql(target: Path) -> None:
    done = _run(target, "-m", "lanelog", "report", str(REVIEW / "review.jsonl"), "--format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == json.loads((REVIEW / "review.report.json").read_text())
