"""`lanelog hook install AGENT`: the agent's hook configuration, merged into the repository's.

Each agent reads its hooks from its own file: Claude Code ``.claude/settings.json``, Codex
``.codex/hooks.json``, OpenHands ``.openhands/hooks.json`` (all three Claude Code's shape),
Copilot ``.github/hooks/lanelog.json`` (``"version": 1``), Cline an executable
``.clinerules/hooks/PreToolUse`` and git ``pre-push`` in its hooks folder (``core.hooksPath``
respected).  What is there is kept: lanelog's own entry is found by its command and replaced,
every other key and hook stays, and a script that is not lanelog's is kept beside it as
``NAME.before-lanelog`` and run first.  Run twice, the files are the same.  The lane log's
default file is added to ``.git/info/exclude``, so ``git add -A`` never stages it.
"""

from __future__ import annotations

import json
import math
import os
import shlex
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lanelog.errors import HookInstallError
from lanelog.router.gitfacts import Checkout
from lanelog.router.hook_agents import AGENTS

MARKER = "# lanelog: the publish gate, written by `lanelog hook install"
BEFORE = ".before-lanelog"
# The agent waits longer than the hook's own deadline, so the hook always answers itself
# (an agent that kills a hook may read that as "go ahead").
GRACE = 10


@dataclass(frozen=True)
class HookSetup:
    """The command to install and how long the agent should wait for it."""

    agent: str
    flags: tuple[str, ...] = ()
    timeout: float = 20.0

    @property
    def command(self) -> str:
        return shlex.join(["lanelog", "hook", self.agent, *self.flags])

    @property
    def wait(self) -> int:
        return math.ceil(self.timeout) + GRACE


def install(setup: HookSetup, repo: Path) -> list[Path]:
    """Write the agent's configuration into the checkout at ``repo``; the files written."""
    if setup.agent not in AGENTS:
        raise HookInstallError(f"no agent {setup.agent!r}: one of {', '.join(AGENTS)}")
    checkout = Checkout.open(repo)
    target = _target(checkout, setup.agent)
    INSTALLERS[setup.agent](target, setup)
    _exclude_log(checkout)
    return [target]


def _target(checkout: Checkout, agent: str) -> Path:
    if agent == "git-pre-push":
        hooks = checkout.git("rev-parse", "--path-format=absolute", "--git-path", "hooks").stdout
        return Path(os.fsdecode(hooks.strip())) / "pre-push"
    return checkout.toplevel / CONFIG_FILES[agent]


def _exclude_log(checkout: Checkout) -> None:
    exclude = Path(os.fsdecode(checkout.git("rev-parse", "--path-format=absolute", "--git-path",
                                            "info/exclude").stdout.strip()))
    text = exclude.read_text(encoding="utf-8", errors="replace") if exclude.is_file() else ""
    if "/lane-log.jsonl" not in text.splitlines():
        exclude.parent.mkdir(parents=True, exist_ok=True)
        exclude.write_text(text + ("" if text.endswith("\n") or not text else "\n") + "/lane-log.jsonl\n",
                           encoding="utf-8")


def _load(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise HookInstallError(f"{path}: cannot be read as JSON ({exc}); fix it, then install again") from None
    if not isinstance(value, dict):
        raise HookInstallError(f"{path}: holds a JSON {type(value).__name__}, not an object")
    return value


def _child(parent: dict[str, Any], key: str, kind: type, path: Path) -> Any:
    value = parent.setdefault(key, kind())
    if not isinstance(value, kind):
        raise HookInstallError(f"{path}: {key} is not a JSON {'object' if kind is dict else 'array'}")
    return value


def _write(path: Path, text: str, executable: bool = False) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text(encoding="utf-8", errors="replace") != text:
        path.write_text(text, encoding="utf-8")
    if executable:
        path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def _ours(command: object, agent: str) -> bool:
    return isinstance(command, str) and command.startswith(f"lanelog hook {agent}")


def _claude_shaped(matcher: str) -> Callable[[Path, HookSetup], None]:
    """``hooks.PreToolUse``: a matcher group holding lanelog's command hook."""
    def merge(path: Path, setup: HookSetup) -> None:
        data = _load(path)
        groups = _child(_child(data, "hooks", dict, path), "PreToolUse", list, path)
        entry = {"type": "command", "command": setup.command, "timeout": setup.wait}
        if not _replaced(groups, entry, setup.agent):
            groups.append({"matcher": matcher, "hooks": [entry]})
        _write(path, json.dumps(data, indent=2) + "\n")
    return merge


def _replaced(groups: list[Any], entry: dict[str, Any], agent: str) -> bool:
    """Put ``entry`` in the place of lanelog's own hook, wherever a group holds it; False when none does."""
    for group in groups:
        hooks = group.get("hooks") if isinstance(group, dict) else None
        for index, hook in enumerate(hooks if isinstance(hooks, list) else []):
            if isinstance(hook, dict) and _ours(hook.get("command"), agent):
                hooks[index] = entry  # type: ignore[index]
                return True
    return False


def _copilot(path: Path, setup: HookSetup) -> None:
    """``{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": ...}]}}``."""
    data = _load(path)
    data.setdefault("version", 1)
    entries = _child(_child(data, "hooks", dict, path), "preToolUse", list, path)
    entry = {"type": "command", "bash": setup.command, "timeoutSec": setup.wait}
    for index, hook in enumerate(entries):
        if isinstance(hook, dict) and _ours(hook.get("bash"), setup.agent):
            entries[index] = entry
            break
    else:
        entries.append(entry)
    _write(path, json.dumps(data, indent=2) + "\n")


CLINE_SCRIPT = """#!/usr/bin/env bash
{marker} cline`
input=$(cat)
before="$(dirname "$0")/PreToolUse{before}"
if [ -x "$before" ]; then
  answer=$(printf '%s' "$input" | "$before") || {{
    printf '%s\\n' '{{"cancel": true, "errorMessage": "lanelog: the PreToolUse hook kept before it failed"}}'
    exit 0
  }}
  if printf '%s' "$answer" | grep -q '"cancel"[[:space:]]*:[[:space:]]*true'; then
    printf '%s\\n' "$answer"
    exit 0
  fi
fi
printf '%s' "$input" | {command}
"""

PRE_PUSH_SCRIPT = """#!/bin/sh
{marker} git-pre-push`
input=$(cat)
feed() {{ if [ -n "$input" ]; then printf '%s\\n' "$input"; fi; }}
before="$(dirname "$0")/pre-push{before}"
if [ -x "$before" ]; then
  feed | "$before" "$@" || exit $?
fi
feed | {command} -- "$@"
"""


def _script(template: str) -> Callable[[Path, HookSetup], None]:
    """An executable hook script; one that is not lanelog's is kept beside it and run first."""
    def merge(path: Path, setup: HookSetup) -> None:
        if path.exists() and MARKER not in path.read_text(encoding="utf-8", errors="replace"):
            kept = path.with_name(path.name + BEFORE)
            if kept.exists():
                raise HookInstallError(f"{path} is not lanelog's and {kept} is taken: merge them by hand")
            path.rename(kept)
        _write(path, template.format(marker=MARKER, before=BEFORE, command=setup.command), executable=True)
    return merge


CONFIG_FILES = {
    "claude-code": ".claude/settings.json",
    "codex": ".codex/hooks.json",
    "openhands": ".openhands/hooks.json",
    "copilot": ".github/hooks/lanelog.json",
    "cline": ".clinerules/hooks/PreToolUse",
}
INSTALLERS: dict[str, Callable[[Path, HookSetup], None]] = {
    "claude-code": _claude_shaped("Bash"),
    "codex": _claude_shaped("Bash"),
    "openhands": _claude_shaped("terminal"),
    "copilot": _copilot,
    "cline": _script(CLINE_SCRIPT),
    "git-pre-push": _script(PRE_PUSH_SCRIPT),
}
