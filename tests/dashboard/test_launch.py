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
    assert argv[:6] == [sys.executable, "-P", "-m", "streamlit", "run", str(APP)]
    got = flags(argv)
    assert got["--server.address"] == "127.0.0.1"
    assert got["--server.port"] == "8765"
    assert got["--server.headless"] == "true"
    assert got["--browser.gatherUsageStats"] == "false"
    assert got["--server.showEmailPrompt"] == "false"


def test_the_database_reaches_the_app_as_an_absolute_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert app_environment(Path("some.duckdb"))["LANELOG_DB"] == str(tmp_path / "some.duckdb")


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "", "0", "0.0", "0x0", "000.0.0.0", "::ffff:0.0.0.0", "[::]", " 0 "])
def test_every_spelling_of_a_wildcard_host_is_refused_with_a_reason(host: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "lanelog", "dashboard", "--host", host, "--port", "9"],
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert f"Error: --host {host!r} listens on every interface" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("host", ["nosuchhost.invalid", "1.2.3.4 abc", "[::1"])
def test_a_host_that_cannot_be_bound_is_an_error_not_a_traceback(host: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "lanelog", "dashboard", "--host", host, "--port", "9"],
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 2
    assert f"Error: --host {host!r} is not an address this machine can listen on" in done.stderr
    assert "Traceback" not in done.stderr


def test_an_address_in_brackets_is_bound_without_them() -> None:
    argv = streamlit_argv("[::1]", 8765)
    assert argv[argv.index("--server.address") + 1] == "::1"
    assert argv[argv.index("--browser.serverAddress") + 1] == "::1"
    assert streamlit_argv("localhost", 8765)[argv.index("--server.address") + 1] == "localhost"


def test_the_page_process_never_imports_from_the_working_folder(tmp_path: Path) -> None:
    """Started from a folder that holds a `lanelog/` folder (a home folder with the clone in it),
    the page process still imports the installed package: -P and PYTHONSAFEPATH keep the
    working folder off its import path."""
    shadow = tmp_path / "lanelog"
    shadow.mkdir()
    (shadow / "__init__.py").write_text("raise ImportError('the working folder was imported')\n")
    argv = streamlit_argv("127.0.0.1", 8765)
    assert app_environment(tmp_path / "x.duckdb")["PYTHONSAFEPATH"] == "1"
    python = argv[:argv.index("-m")]  # the same interpreter and flags the server runs with
    done = subprocess.run(
        [*python, "-c", "import lanelog.dashboard.data, lanelog, sys; print(lanelog.__file__)"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
        env=app_environment(tmp_path / "x.duckdb"),
    )
    assert done.returncode == 0, done.stderr
    assert not done.stdout.strip().startswith(str(tmp_path))
    bare = subprocess.run([sys.executable, "-c", "import lanelog"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert "the working folder was imported" in bare.stderr  # without the flag, the folder shadows it
