"""A generated history of one-file commits: `lanelog route` start-up and `lanelog replay` against git.

Built with ``git fast-import`` like the wide-patch repository: a base commit with
the example policy and flaky list, then one small commit per module, each the
kind of one-file patch a CI job routes.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

from bench import components
from bench.cases import TODAY, lanelog_argv
from bench.harness import Case, Run
from bench.repo import EXAMPLES, _commit, _module, base_files, module_path, new_repo

MODULES = 20


def make_history(path: Path, commits: int) -> dict[str, object]:
    """A repository whose main branch is a base commit and then `commits` one-file commits."""
    git = new_repo(path)
    stream = [_commit(b"refs/heads/main", b"base", base_files(MODULES), None)]
    for n in range(commits):
        index = n % MODULES
        body = _module(index, patched=n % 2 == 0) + f"# revision {n}\n".encode()
        stream.append(_commit(b"refs/heads/main", f"edit module {index}, revision {n}".encode(),
                              {module_path(index): body}, None))
    subprocess.run([*git, "fast-import", "--quiet"], input=b"".join(stream), check=True)
    subprocess.run([*git, "checkout", "-q", "main"], check=True)
    root = subprocess.run([*git, "rev-list", "--max-parents=0", "main"], capture_output=True, text=True,
                          check=True).stdout.strip()
    return {"path": str(path), "root": root, "commits": commits}


def _replay_floor(git: str, root: str, log_option: str) -> str:
    """What a replay needs from git at least: the commit list once, then per patch the
    diff and the policy the base commit holds."""
    return (f"{git} log {log_option} --format='%H %P' {root}..main | "
            f"while read commit parent rest; do "
            f"{git} diff --numstat --patch -U3 \"$parent\" \"$commit\" >/dev/null; "
            f"{git} cat-file -p \"$parent:lanes.yaml\" >/dev/null; done")


def history_cases(history: dict[str, object], out: Path) -> list[Case]:
    """Route start-up on a one-file patch, and a replay of the whole history, each beside its git floor."""
    path, root, commits = str(history["path"]), str(history["root"]), int(history["commits"])
    route_log = out / "startup-lane-log.jsonl"
    git = f"git -C {shlex.quote(path)}"
    startup_floor = f"{shlex.quote(sys.executable)} -c pass && {git} diff --numstat main~1 main >/dev/null"
    replay_floor = _replay_floor(git, root, "--no-merges")
    # With --first-parent: main's own chain (a merge is diffed against its first parent, as CI
    # routed the pull request).
    first_parent_floor = _replay_floor(git, root, "--first-parent")

    def check_route(run: Run) -> list[str]:
        try:
            plan = json.loads(run.stdout)
        except json.JSONDecodeError:
            return ["route printed no JSON plan"]
        if plan.get("files_count") != 1:
            return [f"plan: files_count {plan.get('files_count')}, reasons {plan.get('reasons')}"]
        return [f"routed the one-file patch: probe {plan.get('probe')}"]

    def check_replay(run: Run) -> list[str]:
        try:
            result = json.loads(run.stdout)
        except json.JSONDecodeError:
            return ["replay printed no JSON"]
        if result.get("patches") != commits:
            return [f"replayed {result.get('patches')} patches, expected {commits}"]
        return [f"replayed {commits} commits under both policies, {len(result['flips'])} flips"]

    return [
        Case("router.startup", "router", "route a one-file patch: `lanelog route`",
             lanelog_argv("route", "--repo", path, "--base", "main~1", "--head", "main", "--today", TODAY,
                          "--out", str(route_log)),
             "process", expect_exit=(0, 1), check=check_route, not_run=components.route_cli()),
        Case("router.startup.floor", "router", "floor: `python3 -c pass` + `git diff --numstat`",
             ["sh", "-c", startup_floor], "process"),
        Case("replay.commits", "replay", f"replay {commits} commits: `lanelog replay --commits`",
             lanelog_argv("replay", "--repo", path, "--policy", str(EXAMPLES / "lanes.yaml"),
                          "--commits", f"{root}..main", "--format", "json"),
             "process", check=check_replay, not_run=components.route_cli()),
        Case("replay.git", "replay", f"replay {commits} commits: floor, the git calls it needs",
             ["sh", "-c", replay_floor], "process"),
        Case("replay.first_parent", "replay", f"replay {commits} commits: `lanelog replay --first-parent`",
             lanelog_argv("replay", "--repo", path, "--policy", str(EXAMPLES / "lanes.yaml"),
                          "--commits", f"{root}..main", "--first-parent", "--format", "json"),
             "process", check=check_replay, not_run=components.route_cli()),
        Case("replay.first_parent.git", "replay", f"replay {commits} commits: floor, with --first-parent",
             ["sh", "-c", first_parent_floor], "process"),
    ]
