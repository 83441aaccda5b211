"""`lanelog hook install AGENT`: a configuration the agent reads, merged, idempotent, and working.

The files and shapes are the agents' own: Claude Code's project settings ``.claude/settings.json``
(https://code.claude.com/docs/en/hooks#configuration), Codex's ``.codex/hooks.json``
(https://developers.openai.com/codex/hooks), OpenHands' ``.openhands/hooks.json``
(https://docs.openhands.dev/openhands/usage/customization/hooks), Copilot's
``.github/hooks/*.json`` with ``"version": 1`` and the command under ``bash``
(https://docs.github.com/en/copilot/reference/copilot-cli-reference/cli-hooks-reference), Cline's
executable ``.clinerules/hooks/PreToolUse`` (https://docs.cline.bot/features/hooks/hook-reference),
and git's ``pre-push`` in the hooks folder, ``core.hooksPath`` respected (githooks(5)).
Each test then runs the command the file holds the way the agent runs it: ``bash -c`` on the
command string with the input on stdin, the Cline script as an executable, git's hook by a real
``git push``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from lanelog.cli import cli
from tests.router.conftest import Repo
from tests.router.hook_inputs import TOOL_AGENTS, aimed, blocked

CONFIG = {"claude-code": ".claude/settings.json", "codex": ".codex/hooks.json",
          "openhands": ".openhands/hooks.json", "copilot": ".github/hooks/lanelog.json",
          "cline": ".clinerules/hooks/PreToolUse"}
# What a user already had in each file: kept by the merge.
EXISTING = {
    "claude-code": {"permissions": {"allow": ["Bash(npm test)"]}, "hooks": {"PreToolUse": [
        {"matcher": "Write", "hooks": [{"type": "command", "command": "./check-write.sh"}]}]}},
    "codex": {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "./notify.sh"}]}]}},
    "openhands": {"hooks": {"PreToolUse": [{"matcher": "terminal", "hooks": [
        {"type": "command", "command": "./block-rm.sh"}]}]}},
    "copilot": {"version": 1, "hooks": {"sessionStart": [{"type": "command", "bash": "echo hi"}]}},
}
DROP = {"api.py": "def handle(payload):\n    return payload\n"}


def install(agent: str, repo: Repo, *flags: str) -> None:
    result = CliRunner().invoke(cli, ["hook", "install", agent, "--repo", str(repo.root), "--base", "main", *flags],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output


def env() -> dict[str, str]:
    """The agent's environment: the installed `lanelog` on PATH."""
    return {**os.environ, "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"]}


def command_of(agent: str, repo: Repo) -> str:
    data = json.loads((repo.root / CONFIG[agent]).read_text(encoding="utf-8"))
    if agent == "copilot":
        return next(hook["bash"] for hook in data["hooks"]["preToolUse"] if "lanelog" in hook["bash"])
    return next(hook["command"] for group in data["hooks"]["PreToolUse"] for hook in group["hooks"]
                if "lanelog" in hook["command"])


def run_as_agent(agent: str, repo: Repo, data: bytes, cwd: Path) -> subprocess.CompletedProcess[str]:
    argv = [str(repo.root / CONFIG[agent])] if agent == "cline" else ["bash", "-c", command_of(agent, repo)]
    return subprocess.run(argv, input=data.decode(), capture_output=True, text=True, cwd=cwd, env=env(),
                          timeout=120, check=False)


@pytest.mark.parametrize("agent", TOOL_AGENTS)
def test_installed_twice_the_configuration_is_the_same_file(agent, make_repo) -> None:
    repo = make_repo()
    install(agent, repo)
    first = (repo.root / CONFIG[agent]).read_bytes()
    install(agent, repo)
    assert (repo.root / CONFIG[agent]).read_bytes() == first
    assert "/lane-log.jsonl" in (repo.root / ".git/info/exclude").read_text(encoding="utf-8").splitlines()


@pytest.mark.parametrize("agent", sorted(EXISTING))
def test_what_the_file_held_is_kept(agent, make_repo) -> None:
    repo = make_repo()
    path = repo.root / CONFIG[agent]
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(EXISTING[agent]), encoding="utf-8")
    install(agent, repo, "--timeout", "15")
    merged = json.loads(path.read_text(encoding="utf-8"))
    assert "lanelog hook" in command_of(agent, repo) and "--timeout 15" in command_of(agent, repo)
    text = json.dumps(merged)
    for kept in ("./check-write.sh", "Bash(npm test)", "./notify.sh", "./block-rm.sh", "echo hi"):
        assert (kept in json.dumps(EXISTING[agent])) <= (kept in text), kept
    if agent == "copilot":
        assert merged["version"] == 1


def test_a_configuration_that_is_not_json_is_named_not_overwritten(make_repo) -> None:
    repo = make_repo()
    path = repo.root / CONFIG["claude-code"]
    path.parent.mkdir(parents=True)
    path.write_text("{broken", encoding="utf-8")
    result = CliRunner().invoke(cli, ["hook", "install", "claude-code", "--repo", str(repo.root)])
    assert result.exit_code == 2 and "settings.json: cannot be read as JSON" in result.stderr
    assert path.read_text(encoding="utf-8") == "{broken"


@pytest.mark.parametrize("agent", TOOL_AGENTS)
def test_the_installed_command_blocks_the_reject_as_the_agent_runs_it(agent, make_repo, tmp_path) -> None:
    repo = make_repo()
    install(agent, repo)
    repo.write(DROP).commit("drop the check")
    elsewhere = tmp_path / "agent-home"
    elsewhere.mkdir()
    cwd = elsewhere if agent == "cline" else repo.root  # Cline starts its hooks outside the workspace
    done = run_as_agent(agent, repo, aimed(agent, repo.root, "git push origin patch"), cwd)
    why = blocked(agent, done.returncode, done.stdout)
    assert why is not None, (done.returncode, done.stdout, done.stderr)
    assert "assertion_removed" in (done.stderr if why == "stderr" else why)
    line = json.loads((repo.root / "lane-log.jsonl").read_text(encoding="utf-8").splitlines()[-1])
    assert line["source"] == "hook" and line["hook"]["agent"] == agent
    assert repo.git("status", "--porcelain") == ""  # the log is excluded: `git add -A` never stages it


def test_a_cline_hook_that_was_there_runs_first_and_can_cancel(make_repo, tmp_path) -> None:
    repo = make_repo()
    hooks = repo.root / ".clinerules/hooks"
    hooks.mkdir(parents=True)
    (hooks / "PreToolUse").write_text('#!/usr/bin/env bash\ncat >/dev/null\n'
                                      'echo \'{"cancel": true, "errorMessage": "mine"}\'\n', encoding="utf-8")
    (hooks / "PreToolUse").chmod(0o755)
    install("cline", repo)
    done = run_as_agent("cline", repo, aimed("cline", repo.root, "ls"), tmp_path)
    assert json.loads(done.stdout) == {"cancel": True, "errorMessage": "mine"}
    assert (hooks / "PreToolUse.before-lanelog").exists()


def remote_for(repo: Repo, tmp_path: Path) -> Path:
    remote = tmp_path / "origin.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True, timeout=60)
    repo.git("remote", "add", "origin", str(remote))
    repo.git("push", "-q", "origin", "main")
    return remote


def push(repo: Repo) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-C", str(repo.root), "push", "origin", "patch"], capture_output=True, text=True,
                          env=env(), timeout=120, check=False)


def test_a_real_push_of_the_reject_is_refused_and_the_narrow_patch_goes_through(make_repo, tmp_path) -> None:
    repo = make_repo()
    remote = remote_for(repo, tmp_path)
    install("git-pre-push", repo)
    repo.write(DROP).commit("drop the check")
    refused = push(repo)
    assert refused.returncode != 0 and "assertion_removed" in refused.stderr and "api.py" in refused.stderr
    assert subprocess.run(["git", "-C", str(remote), "rev-parse", "--verify", "-q", "patch"], capture_output=True,
                          timeout=60, check=False).returncode != 0
    repo.git("reset", "-q", "--hard", "main")
    repo.write({"store.py": "def put(key, body):\n    return dict(body)\n"}).commit("copy the body")
    done = push(repo)
    assert done.returncode == 0, done.stderr
    assert subprocess.run(["git", "-C", str(remote), "rev-parse", "patch"], capture_output=True, text=True,
                          timeout=60, check=True).stdout.strip() == repo.git("rev-parse", "HEAD").strip()


def test_an_existing_pre_push_hook_is_kept_and_still_runs_first(make_repo, tmp_path) -> None:
    repo = make_repo()
    remote_for(repo, tmp_path)
    repo.git("config", "core.hooksPath", "githooks")
    hooks = repo.root / "githooks"
    hooks.mkdir()
    (hooks / "pre-push").write_text('#!/bin/sh\nread line\necho "$1 $line" > "$0.saw"\nexit 0\n', encoding="utf-8")
    (hooks / "pre-push").chmod(0o755)
    install("git-pre-push", repo)
    install("git-pre-push", repo)
    repo.write({"store.py": "def put(key, body):\n    return dict(body)\n"}).commit("copy the body")
    assert push(repo).returncode == 0
    assert (hooks / "pre-push.before-lanelog.saw").read_text(encoding="utf-8").startswith("origin refs/heads/patch ")
    (hooks / "pre-push.before-lanelog").write_text("#!/bin/sh\nexit 7\n", encoding="utf-8")
    refused = push(repo)
    assert refused.returncode != 0 and "lanelog" not in refused.stderr  # the kept hook said no first


@pytest.mark.parametrize("agent", ["claude-code", "copilot"])
def test_installed_again_with_other_flags_lanelogs_entry_is_replaced_not_doubled(agent, make_repo) -> None:
    repo = make_repo()
    install(agent, repo)
    install(agent, repo, "--base", "origin/trunk")
    text = (repo.root / CONFIG[agent]).read_text(encoding="utf-8")
    assert text.count("lanelog hook") == 1 and "--base origin/trunk" in command_of(agent, repo)
