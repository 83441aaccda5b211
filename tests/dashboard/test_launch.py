"""`lanelog dashboard`'s command line: local, headless, quiet, and the database passed on."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from lanelog.dashboard.launch import APP, app_environment, streamlit_argv


def flags(argv: list[str]) -> dict[str, str]:
    options = argv[argv.index(str(APP)) + 1:]
    return dict(zip(options[::2], options[1::2]))


def test_streamlit_runs_the_app_locally_headless_without_usage_stats() -> None:
    argv = streamlit_argv("127.0.0.1", 8765)
    assert argv[:5] == [sys.executable, "-m", "streamlit", "run", str(APP)]
    got = flags(argv)
    assert got["--server.address"] == "127.0.0.1"
    assert got["--server.port"] == "8765"
    assert got["--server.headless"] == "true"
    assert got["--browser.gatherUsageStats"] == "false"
    assert got["--server.showEmailPrompt"] == "false"


def test_the_database_reaches_the_app_as_an_absolute_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert app_environment(Path("some.duckdb"))["LANELOG_DB"] == str(tmp_path / "some.duckdb")


@pytest.mark.parametrize("host", ["0.0.0.0", "::", ""])
def test_a_wildcard_host_is_refused_with_a_reason(host: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "lanelog", "dashboard", "--host", host, "--port", "9"],
        capture_output=True, text=True,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert f"Error: --host {host!r} listens on every interface" in done.stderr
