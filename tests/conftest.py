"""Fixtures shared across test folders."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def demo_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`lanelog demo` run once per session: its database, its kept logs and its JSON summary."""
    root = tmp_path_factory.mktemp("demo")
    done = subprocess.run(
        [sys.executable, "-m", "lanelog", "demo", "--db", str(root / "demo.duckdb"), "--weeks", "4",
         "--out", str(root / "logs"), "--format", "json"],
        capture_output=True, text=True, check=True,
    )
    (root / "summary.json").write_text(done.stdout)
    return root
