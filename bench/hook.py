"""`lanelog hook` in the agent's loop: a gated push beside `lanelog route` on the same patch, and a call
let through beside `lanelog --version` (issue 54's goals: 1.5x and 2x)."""

from __future__ import annotations

import json
from pathlib import Path

from bench import components
from bench.cases import lanelog_argv
from bench.harness import Case, Run

# Claude Code's PreToolUse input (https://code.claude.com/docs/en/hooks#pretooluse-input).
INPUT = {"session_id": "bench", "transcript_path": "/dev/null", "hook_event_name": "PreToolUse",
         "tool_name": "Bash", "tool_use_id": "toolu_bench"}


def _input(path: Path, folder: str, command: str) -> Path:
    path.write_text(json.dumps({**INPUT, "cwd": folder, "tool_input": {"command": command}}), encoding="utf-8")
    return path


def hook_cases(history: dict[str, object], out: Path) -> list[Case]:
    """The history repository's last commit (the one-file patch router.startup routes) pushed through the hook."""
    path = str(history["path"])
    gated = _input(out / "hook-push.json", path, "git add -A && git commit -m x && git push origin main")
    passed = _input(out / "hook-ls.json", path, "ls -la")
    log = out / "hook-lane-log.jsonl"

    def check_gated(run: Run) -> list[str]:
        if not log.exists():
            return ["the hook wrote no line"]
        line = json.loads(log.read_text(encoding="utf-8").splitlines()[-1])
        if line.get("source") != "hook" or line.get("files_count") != 1:
            return [f"line: source {line.get('source')}, files_count {line.get('files_count')}"]
        return [f"judged the one-file patch as route does: probe {line.get('probe')}"]

    def check_passed(run: Run) -> list[str]:
        return ["let through, nothing printed"] if run.stdout == "" else [f"printed {run.stdout[:80]!r}"]

    return [
        Case("router.hook", "router", "hook a push of the one-file patch: `lanelog hook claude-code`",
             lanelog_argv("hook", "claude-code", "--base", "main~1", "--out", str(log)), "process",
             expect_exit=(0, 2), check=check_gated, stdin=gated, not_run=components.route_cli()),
        Case("router.hook.ungated", "router", "hook a call that publishes nothing (`ls -la`)",
             lanelog_argv("hook", "claude-code"), "process", check=check_passed, stdin=passed,
             not_run=components.route_cli()),
        Case("router.version", "router", "floor: `lanelog --version`", lanelog_argv("--version"), "process"),
    ]
