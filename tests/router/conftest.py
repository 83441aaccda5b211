"""Real temporary git repositories and the real `lanelog route` command, for the router's tests.

`make_repo` makes a repository with the policy and flaky list on `main`, checked out on a
branch `patch`; `route` runs the command in-process and checks that every call appends one
line (a usage error none); `cli` runs it as its own process; `py_cmd` turns a script into a
`--run` command; `outcome` runs `lanelog outcome` in-process.  `tests/` is a package, so this
folder is `tests.router` and the router is the installed `lanelog.router`.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from lanelog.cli import cli as lanelog_cli
from lanelog.cli.commands.route import route as route_command

TODAY = "2026-10-08"

LANES_YAML = """\
line_cap: 400            # more than this many lines changed: reject
budget_cap: 3            # units per patch; over it: split the patch
exclude: ["*.lock", "generated/"]
fixture_paths: ["fixtures/", "*.fixture.json"]
test_paths: ["tests/", "test_*"]
assertion_patterns: ['\\bassert', '\\bexpect\\(', '\\bprop_']
properties:
  prop_round_trip: {units: 1, says: "serialize-then-parse returns the same record"}
  prop_idempotent_put:
    units: 1
    says: "a second put of the same key does not change the stored body"
  prop_reject_empty: {units: 1, says: "an empty payload remains a client error"}
map:
  store.py: [prop_round_trip, prop_idempotent_put]
  api.py: [prop_reject_empty]
  "src/db/*.py": [prop_round_trip]
"""

FLAKY_YAML = """\
flaky:
  - id: test_export_race
    expires: 2026-10-22
    owner: ci-team
    reason: shared clock in the export fixture
"""

BASE_FILES = {
    "lanes.yaml": LANES_YAML,
    "flaky.yaml": FLAKY_YAML,
    "store.py": "def put(key, body):\n    return body\n",
    "api.py": "def handle(payload):\n    assert payload\n    return payload\n",
    "tests/test_store.py": "def test_put():\n    assert True\n",
    "fixtures/order.fixture.json": '{"id": 1}\n',
}


@pytest.fixture(autouse=True)
def _quiet_git(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same git behaviour on every machine: no user or system config."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", "/dev/null")
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "lanelog tests")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "tests@lanelog.invalid")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "lanelog tests")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "tests@lanelog.invalid")
    monkeypatch.delenv("LANELOG_LOG", raising=False)
    # Off GitHub Actions unless a test says otherwise: under CI a reject would annotate the suite's own job,
    # and a line would name the suite's own pull request and run.
    for name in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_EVENT_PATH", "GITHUB_REPOSITORY", "GITHUB_RUN_ID",
                 "GITHUB_RUN_ATTEMPT", "GITHUB_SERVER_URL"):
        monkeypatch.delenv(name, raising=False)


class Repo:
    """A throwaway git repository: write files, commit, branch."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def git(self, *args: str) -> str:
        done = subprocess.run(["git", "-C", str(self.root), *args], capture_output=True,
                              text=True, check=True)
        return done.stdout

    def write(self, files: dict[str, str | bytes] | dict[bytes, str | bytes]) -> Repo:
        """Write files; a bytes name is used as it is (it need not be UTF-8)."""
        for name, content in files.items():
            path = self.root / (os.fsdecode(name) if isinstance(name, bytes) else name)
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content, encoding="utf-8")
        return self

    def delete(self, *names: str) -> Repo:
        for name in names:
            (self.root / name).unlink()
        return self

    def commit(self, message: str = "change") -> str:
        self.git("add", "-A")
        self.git("commit", "-q", "--no-verify", "-m", message)
        return self.git("rev-parse", "HEAD").strip()


@pytest.fixture
def make_repo(tmp_path: Path):
    """A repository with the policy, the flaky list and a few files on `main`,
    checked out on a new branch `patch` that a test then edits and commits."""
    count = 0

    def make(files: dict[str, str | bytes] | None = None, *, omit: tuple[str, ...] = (),
             folder: bytes | None = None) -> Repo:
        nonlocal count
        count += 1
        repo = Repo(tmp_path / (os.fsdecode(folder) if folder is not None else f"repo{count}"))
        repo.root.mkdir()
        repo.git("init", "-q", "-b", "main")
        base = {name: text for name, text in BASE_FILES.items() if name not in omit}
        repo.write({**base, **(files or {})}).commit("base")
        repo.git("checkout", "-q", "-b", "patch")
        return repo

    return make


@dataclass
class Routed:
    """One call of the real command: its exit code, the printed line, the log's lines."""

    exit_code: int
    stdout: str
    stderr: str
    log_lines: list[dict[str, Any]]

    @property
    def line(self) -> dict[str, Any]:
        """The printed plan, which must also be the one new line in the log."""
        printed = json.loads(self.stdout)
        assert self.log_lines[-1] == printed
        return printed


@pytest.fixture
def log_file(tmp_path: Path) -> Path:
    return tmp_path / "logs" / "lane-log.jsonl"


def read_log(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    text = path.read_text(encoding="utf-8")
    assert text == "" or text.endswith("\n"), "the log must end with a whole line"
    return [json.loads(line) for line in text.splitlines()]


@pytest.fixture
def route(log_file: Path):
    """Invoke the real `lanelog route` command in-process (click's CliRunner)."""

    def call(repo: Repo | Path, *args: str, today: str | None = TODAY,
             base: str | None = "main") -> Routed:
        before = len(read_log(log_file))
        root = repo.root if isinstance(repo, Repo) else repo
        argv = ["--repo", str(root), "--out", str(log_file)]
        argv += ["--base", base] if base is not None else []
        argv += ["--today", today] if today is not None else []
        result = CliRunner().invoke(route_command, [*argv, *args], catch_exceptions=False)
        lines = read_log(log_file)
        assert len(lines) - before == (0 if result.exit_code == 2 else 1), (
            "every call appends exactly one line, a usage error none")
        return Routed(result.exit_code, result.stdout, result.stderr, lines)

    return call


@dataclass
class Recorded:
    """One call of the real command: its exit code, what it printed, the lines it appended."""

    exit_code: int
    stdout: str
    stderr: str
    added: list[dict[str, Any]]

    @property
    def line(self) -> dict[str, Any]:
        """The printed line, which must also be the one line appended to the log."""
        assert self.exit_code == 0, self.stderr
        printed = json.loads(self.stdout)
        assert self.added == [printed]
        return printed


@pytest.fixture
def outcome(log_file: Path):
    """Invoke the real `lanelog outcome` in-process through the group (where errors become "Error: ..."),
    with its environment; it appends one line when it exits 0, else nothing."""

    def call(*args: str, env: dict[str, str | None] | None = None) -> Recorded:
        before = len(read_log(log_file))
        result = CliRunner().invoke(lanelog_cli, ["outcome", "--out", str(log_file), *args], env=env,
                                    catch_exceptions=False)
        added = read_log(log_file)[before:]
        assert len(added) == (1 if result.exit_code == 0 else 0), "a line when it exits 0, else nothing"
        return Recorded(result.exit_code, result.stdout, result.stderr, added)

    return call


@pytest.fixture
def cli():
    """The real console command in a real process."""

    def run(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None,
            timeout: float = 120, **popen: Any) -> subprocess.CompletedProcess[str]:
        # A str argument holding surrogates (os.fsdecode of undecodable
        # bytes) reaches the command as those bytes.
        return subprocess.run([sys.executable, "-m", "lanelog", "route", *args], cwd=cwd,
                              env=env, capture_output=True, text=True, check=False,
                              timeout=timeout, **popen)

    return run


@pytest.fixture
def py_cmd():
    """Turn a small Python script into a `--run` command (quoted for shlex)."""

    def command(code: str) -> str:
        return f"{shlex.quote(sys.executable)} -c {shlex.quote(code)}"

    return command
