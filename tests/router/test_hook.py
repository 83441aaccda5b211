"""`lanelog hook AGENT`: each agent's documented input of a publishing call, judged as route judges it.

The inputs are the agents' own, recorded in data/hooks/ from their references (hook_inputs.py
cites each: Claude Code https://code.claude.com/docs/en/hooks#pretooluse-input, Codex
https://developers.openai.com/codex/hooks, OpenHands https://docs.openhands.dev/sdk/guides/hooks,
Copilot https://docs.github.com/en/copilot/reference/copilot-cli-reference/cli-hooks-reference,
Cline https://docs.cline.bot/features/hooks/hook-reference, git githooks(5) "pre-push").
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from lanelog.cli import cli
from tests.router.conftest import Repo, read_log
from tests.router.hook_inputs import TOOL_AGENTS, aimed, allowed, blocked, pre_push

AGENTS = (*TOOL_AGENTS, "git-pre-push")
PUSH = "git push origin HEAD"


@dataclass
class Hooked:
    exit_code: int
    stdout: str
    stderr: str
    lines: list[dict[str, Any]]


@pytest.fixture
def hook(log_file: Path):
    def call(agent: str, data: bytes, *args: str, out: Path | None = log_file) -> Hooked:
        argv = ["hook", agent, "--base", "main", *(["--out", str(out)] if out else []), *args]
        result = CliRunner().invoke(cli, argv, input=data, catch_exceptions=False)
        return Hooked(result.exit_code, result.stdout, result.stderr, read_log(log_file))
    return call


def push_input(agent: str, repo: Repo, command: str = PUSH) -> tuple[bytes, tuple[str, ...]]:
    """The agent's input of a push from ``repo``, and git's arguments for the pre-push hook."""
    if agent == "git-pre-push":
        return pre_push("refs/heads/patch", repo.git("rev-parse", "HEAD").strip()), (
            "--repo", str(repo.root), "--", "origin", "/srv/origin.git")
    return aimed(agent, repo.root, command), ()


def reason(agent: str, hooked: Hooked) -> str | None:
    where = blocked(agent, hooked.exit_code, hooked.stdout)
    return hooked.stderr if where == "stderr" else where


@pytest.mark.parametrize("agent", AGENTS)
def test_a_push_that_removes_an_assertion_is_blocked_in_the_agents_own_way(agent, make_repo, hook) -> None:
    repo = make_repo()
    repo.write({"api.py": "def handle(payload):\n    return payload\n"}).commit("drop the check")
    data, args = push_input(agent, repo)
    hooked = hook(agent, data, *args)
    why = reason(agent, hooked)
    assert why is not None, (hooked.exit_code, hooked.stdout, hooked.stderr)
    assert "assertion_removed" in why and "api.py" in why
    assert "What to do next" in why  # the job summary's words, so the agent can narrow its patch
    line, = hooked.lines
    assert (line["source"], line["hook"]["agent"], line["probe"]) == ("hook", agent, "reject")
    assert line["reasons"] == ["assertion_removed"] and line["model_call_allowed"] is False


@pytest.mark.parametrize("agent", AGENTS)
def test_a_narrow_mapped_patch_is_allowed_with_one_hook_line(agent, make_repo, hook) -> None:
    repo = make_repo()
    repo.write({"store.py": "def put(key, body):\n    return dict(body)\n"}).commit("copy the body")
    data, args = push_input(agent, repo)
    hooked = hook(agent, data, *args)
    assert allowed(agent, hooked.exit_code, hooked.stdout), (hooked.exit_code, hooked.stdout, hooked.stderr)
    line, = hooked.lines
    assert (line["source"], line["probe"], line["files"]) == ("hook", "pass", ["store.py"])
    assert line["model_call_allowed"] is False and line["hook"]["command"] == (
        PUSH if agent != "git-pre-push" else "git push origin")


@pytest.mark.parametrize("agent", TOOL_AGENTS)
@pytest.mark.parametrize("command", ["ls", "pytest -q tests", "cat api.py | grep assert", None])
def test_calls_that_publish_nothing_pass_untouched_and_write_nothing(agent, command, make_repo, hook,
                                                                     log_file) -> None:
    repo = make_repo()
    repo.write({"api.py": "def handle(payload):\n    return payload\n"}).commit("drop the check")
    data = aimed(agent, repo.root, command) if command else aimed(agent, repo.root, kind="edit")
    hooked = hook(agent, data)
    assert hooked.exit_code == 0 and blocked(agent, hooked.exit_code, hooked.stdout) is None
    assert hooked.stdout in ("", '{"cancel": false}\n') and hooked.stderr == ""
    assert not log_file.exists() and not (repo.root / "lane-log.jsonl").exists()


def test_a_deleted_branch_in_a_push_publishes_nothing(make_repo, hook, log_file) -> None:
    repo = make_repo()
    data = b"(delete) 0000000000000000000000000000000000000000 refs/heads/old " + b"1" * 40 + b"\n"
    hooked = hook("git-pre-push", data, "--repo", str(repo.root), "--", "origin", "/srv/origin.git")
    assert (hooked.exit_code, hooked.stdout, hooked.stderr) == (0, "", "") and not log_file.exists()


@pytest.mark.parametrize("files", [
    {"api.py": "def handle(payload):\n    return payload\n"},
    {"store.py": "def put(key, body):\n    return dict(body)\n"},
    {"store.py": "x = 1\n" * 500},
    {"lanes.yaml": "line_cap: 9000\n"},
])
def test_the_hooks_decision_is_routes_on_the_same_patch(files, make_repo, hook, route) -> None:
    repo = make_repo()
    repo.write(files).commit("the patch")
    hooked = hook("claude-code", aimed("claude-code", repo.root, PUSH))
    routed = route(repo).line
    judged = hooked.lines[-1]
    for key in ("probe", "reasons", "message", "evidence", "files", "lines_changed", "properties", "base", "head"):
        assert judged.get(key) == routed.get(key), key
    assert routed.get("source") is None and judged["source"] == "hook"


def test_a_commit_is_judged_with_what_it_stages_and_the_index_is_left_alone(make_repo, hook) -> None:
    repo = make_repo()
    repo.write({"api.py": "def handle(payload):\n    return payload\n"})
    repo.git("add", "api.py")
    hooked = hook("claude-code", aimed("claude-code", repo.root, "git commit -m 'tidy'"))
    assert hooked.exit_code == 2 and "assertion_removed" in hooked.stderr
    assert hooked.lines[-1]["files"] == ["api.py"]
    assert repo.git("diff", "--cached", "--name-only") == "api.py\n"  # still staged, nothing committed
    assert repo.git("rev-parse", "HEAD") == repo.git("rev-parse", "main")


@pytest.mark.parametrize("command", ["git add -A && git commit -m tidy", "git commit -am tidy",
                                     "cd . && bash -c 'git commit -a -m tidy'"])
def test_a_commit_after_git_add_or_with_all_is_judged_with_the_work_tree(command, make_repo, hook) -> None:
    repo = make_repo()
    repo.write({"api.py": "def handle(payload):\n    return payload\n"})
    hooked = hook("codex", aimed("codex", repo.root, command))
    assert hooked.exit_code == 2 and "assertion_removed" in hooked.stderr
    assert repo.git("status", "--porcelain") == " M api.py\n"


def test_git_dash_c_names_the_checkout_the_push_comes_from(make_repo, hook, tmp_path) -> None:
    repo = make_repo()
    repo.write({"api.py": "def handle(payload):\n    return payload\n"}).commit("drop the check")
    hooked = hook("openhands", aimed("openhands", tmp_path, f"git -C {repo.root.name} push"))
    assert hooked.exit_code == 2 and "assertion_removed" in hooked.stderr


def test_cline_reads_its_workspace_not_the_folder_it_is_started_in(make_repo, tmp_path, log_file,
                                                                    monkeypatch) -> None:
    repo = make_repo()
    repo.write({"api.py": "def handle(payload):\n    return payload\n"}).commit("drop the check")
    elsewhere = tmp_path / "cline-home"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    result = CliRunner().invoke(cli, ["hook", "cline", "--base", "main", "--out", str(log_file)],
                                input=aimed("cline", repo.root, PUSH))
    answer = json.loads(result.stdout)
    assert answer["cancel"] is True and "assertion_removed" in answer["errorMessage"]
    assert read_log(log_file)[-1]["hook"]["session"] == "1736654400000"


def test_golden_hook_line(make_repo, hook) -> None:
    """The hook's line is route's, with source, hook, and no call armed (golden/hook_reject.json)."""
    repo = make_repo()
    repo.write({"api.py": "def handle(payload):\n    return payload\n"}).commit("drop the check")
    line, = hook("claude-code", aimed("claude-code", repo.root, "git push origin HEAD")).lines
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", line["ts"]) and re.fullmatch(r"[0-9a-f]{32}",
                                                                                          line["attempt_id"])
    assert (line["base"], line["head"]) == (repo.git("rev-parse", "main").strip(),
                                            repo.git("rev-parse", "HEAD").strip())
    shown = {**line, "ts": "<ts>", "attempt_id": "<attempt_id>", "base": "<base>", "head": "<head>",
             "expired_freezes": ["<as route: by today's date>"], "freezes": "<as route>"}
    expected = (Path(__file__).parent / "golden" / "hook_reject.json").read_text(encoding="utf-8")
    assert json.dumps(shown, indent=2, ensure_ascii=False) + "\n" == expected
