"""The hook reads a shell command as the shell splits it, and finds every call that publishes a patch."""

from __future__ import annotations

import shlex

import pytest

from lanelog.errors import HookInputInvalid
from lanelog.router.hook_shell import MAX_COMMAND, MAX_DEPTH, Publish, publishes


@pytest.mark.parametrize(("command", "found"), [
    ("git push", [Publish("push")]),
    ("git push origin HEAD:refs/heads/fix", [Publish("push")]),
    ("git commit -m 'fix the parser'", [Publish("commit")]),
    ("git add -A && git commit -m x && git push", [Publish("commit", work_tree=True), Publish("push")]),
    ("git commit -am x", [Publish("commit", work_tree=True)]),
    ("git commit -m 'a -a b'", [Publish("commit")]),
    ("npm test; git push", [Publish("push")]),
    ("make || git push", [Publish("push")]),
    ("git status | cat\ngit push", [Publish("push")]),
    ("(cd sub && git push)", [Publish("push", "sub")]),
    ("bash -c 'git push origin main'", [Publish("push")]),
    ("sh -lc \"git commit -m x\"", [Publish("commit")]),
    ("bash -c \"bash -c 'git push'\"", [Publish("push")]),
    ("GIT_SSH_COMMAND='ssh -i k' git push", [Publish("push")]),
    ("env FOO=1 git push", [Publish("push")]),
    ("git -C repo push", [Publish("push", "repo")]),
    ("git -c user.name=x -C a -C b commit -m y", [Publish("commit", "a/b")]),
    ("cd /work && git -C sub push", [Publish("push", "/work/sub")]),
    ("/usr/bin/git push", [Publish("push")]),
    ("gh pr create --fill", [Publish("pr")]),
    ("eval 'git push'", [Publish("push")]),
])
def test_every_publishing_call_is_found(command: str, found: list[Publish]) -> None:
    assert publishes(command) == found


@pytest.mark.parametrize("command", [
    "ls -la", "pytest -q", "git status", "git log --oneline | head", "git diff HEAD~1",
    "echo 'git push'", "gh pr view 3", "grep -r 'git commit' docs", "git add -A", "cat .github/push.md",
])
def test_a_command_that_publishes_nothing_is_let_through(command: str) -> None:
    assert publishes(command) == []


def test_a_command_without_git_or_gh_is_not_split_at_all() -> None:
    assert publishes("python -c 'print(1)' '" + "x" * (MAX_COMMAND * 2)) == []


@pytest.mark.parametrize(("command", "words"), [
    ("git push 'origin", "cannot be read as a shell command"),
    ("git push " + "x" * MAX_COMMAND, "more than the"),
    ("git push " + "a " * 30_000, "more than 20000 words"),
])
def test_a_command_naming_git_that_cannot_be_read_is_an_error(command: str, words: str) -> None:
    with pytest.raises(HookInputInvalid, match=words):
        publishes(command)


def test_shells_nested_too_deep_are_refused() -> None:
    command = "git push"
    for _ in range(MAX_DEPTH + 1):
        command = "bash -c " + shlex.quote(command)
    with pytest.raises(HookInputInvalid, match="nests shells"):
        publishes(command)
