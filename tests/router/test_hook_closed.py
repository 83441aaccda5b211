"""`lanelog hook` fails closed: a call it cannot judge is blocked in the agent's own way, saying why.

Claude Code reads any exit but 0 or 2 as "go ahead" (https://code.claude.com/docs/en/hooks#exit-code-output),
so a hook that cannot decide must exit 2, never 0 or 1; Copilot acts only on "deny"
(https://docs.github.com/en/copilot/reference/copilot-cli-reference/cli-hooks-reference).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from lanelog.cli import cli
from tests.router.conftest import read_log
from tests.router.hook_inputs import TOOL_AGENTS, aimed, blocked

UNREADABLE = [b"", b"not json", b"[1, 2]", b"\xff\xfe", b'{"tool_input": {"command": "git push"}}',
              json.dumps({"x": "y" * 10}).encode()]


def run(agent: str, data: bytes, *args: str, log: Path | None = None):
    argv = ["hook", agent, "--base", "main", *(["--out", str(log)] if log else []), *args]
    return CliRunner().invoke(cli, argv, input=data, catch_exceptions=False)


@pytest.mark.parametrize("agent", TOOL_AGENTS)
@pytest.mark.parametrize("data", UNREADABLE)
def test_input_the_hook_cannot_read_is_blocked_with_a_reason(agent, data, log_file) -> None:
    result = run(agent, data, log=log_file)
    why = blocked(agent, result.exit_code, result.stdout)
    assert why is not None, (result.exit_code, result.stdout)
    text = result.stderr if why == "stderr" else why
    assert "no decision could be made" in text and "Traceback" not in result.output
    assert not log_file.exists()


def test_claude_code_gets_exit_2_with_a_reason_for_unreadable_input() -> None:
    result = run("claude-code", b"{")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.startswith("lanelog hook: blocked: no decision could be made")


def test_a_pre_push_line_that_is_not_gits_refuses_the_push(make_repo) -> None:
    repo = make_repo()
    result = run("git-pre-push", b"refs/heads/x HEAD refs/heads/x 0\n", "--repo", str(repo.root))
    assert result.exit_code == 1 and "pre-push input line 1" in result.stderr


@pytest.mark.parametrize("agent", TOOL_AGENTS)
@pytest.mark.parametrize("command", ["git push", "git commit -am x"])
def test_a_folder_that_is_no_git_checkout_blocks_the_call(agent, command, tmp_path, log_file) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    result = run(agent, aimed(agent, folder, command), log=log_file)
    why = blocked(agent, result.exit_code, result.stdout)
    assert why is not None
    assert "not_a_repo" in (result.stderr if why == "stderr" else why)
    assert read_log(log_file)[-1]["reasons"] == ["not_a_repo"]


def test_a_folder_that_does_not_exist_blocks_claude_code_with_exit_2(tmp_path) -> None:
    result = run("claude-code", aimed("claude-code", tmp_path / "gone", "git push"))
    assert result.exit_code == 2 and "not_a_repo" in result.stderr


@pytest.mark.parametrize("agent", TOOL_AGENTS)
def test_the_timeout_reached_blocks(agent, make_repo, log_file) -> None:
    repo = make_repo()
    result = run(agent, aimed(agent, repo.root, "git push"), "--timeout", "1e-9", log=log_file)
    why = blocked(agent, result.exit_code, result.stdout)
    assert why is not None
    assert "did not finish within --timeout 1e-09 s" in (result.stderr if why == "stderr" else why)


def test_the_timeout_reached_is_exit_2_for_claude_code(make_repo) -> None:
    repo = make_repo()
    result = run("claude-code", aimed("claude-code", repo.root, "git commit -m x"), "--timeout", "1e-9")
    assert result.exit_code == 2 and "--timeout" in result.stderr


def test_a_ref_git_would_read_as_an_option_blocks(make_repo) -> None:
    repo = make_repo()
    argv = ["hook", "claude-code", "--base", "--upload-pack=x"]
    result = CliRunner().invoke(cli, argv, input=aimed("claude-code", repo.root, "git push"))
    assert result.exit_code == 2 and "refused ref" in result.stderr


def test_a_command_the_shell_could_not_split_blocks_when_it_names_git(make_repo) -> None:
    repo = make_repo()
    result = run("claude-code", aimed("claude-code", repo.root, "git push 'origin"))
    assert result.exit_code == 2 and "cannot be read as a shell command" in result.stderr


def test_a_lane_log_that_cannot_be_written_blocks_a_passing_patch(make_repo, tmp_path) -> None:
    repo = make_repo()
    repo.write({"store.py": "def put(key, body):\n    return dict(body)\n"}).commit("copy the body")
    blocker = tmp_path / "a-file"
    blocker.write_text("", encoding="utf-8")
    result = run("copilot", aimed("copilot", repo.root, "git push"), "--out", str(blocker / "lane-log.jsonl"))
    answer = json.loads(result.stdout)
    assert answer["permissionDecision"] == "deny" and "cannot append to the lane log" in answer[
        "permissionDecisionReason"]
