"""`lanelog hook AGENT`: route's decision at the agent's own door, before a patch is published.

An agent's pre-tool hook (or git's pre-push hook) hands the call over; a shell call that would
publish a patch (``git commit``, ``git push``, ``gh pr create``, router/hook_shell.py) is judged
by ``run_route`` on what it would publish, BASE...HEAD, and for a commit the staged changes too
(router/hook_commit.py); any other call is let through at once, unread past its tool name.

The hook fails closed: input it cannot read, a folder that is no checkout, git failing, its own
deadline reached, any exception: the call is blocked in the agent's own way, saying why.  The
judgement runs in a worker thread the hook abandons at the deadline; git's processes are
bounded by their own wall time.  Each judged call appends one lane-log line, route's line with
``source: hook`` and the agent, session and command (``model_call_allowed`` false: no model
call is armed in the agent's loop).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lanelog.errors import HookInputInvalid
from lanelog.router.hook_agents import AGENTS, Agent, Answer, ToolCall
from lanelog.router.hook_shell import Publish, publishes
from lanelog.router.paths import printable

DEFAULT_TIMEOUT = 20.0
SETUP_NEXT = ("Nothing was published.  Run the hook by hand with the same input to see the fault "
              "(docs/agents.md), or ask a person to publish the patch.")


@dataclass
class HookOptions:
    """One hook call's flags (`lanelog hook AGENT ...`), read by the CLI."""

    agent: str
    repo: Path | None = None
    base: str = "origin/main"
    policy: Path | None = None
    flaky: Path | None = None
    out: Path | None = None
    timeout: float = DEFAULT_TIMEOUT
    argv: tuple[str, ...] = ()  # git's pre-push arguments: the remote's name and URL
    environ: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))


@dataclass
class HookResult:
    """The agent's answer and the lines appended (none for an ungated or undecided call)."""

    answer: Answer
    lines: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Judged:
    """What the worker found: the lines, or the exception that stopped it."""

    lines: list[tuple[Path, dict[str, Any]]] = field(default_factory=list)  # (the folder judged, its line)
    error: BaseException | None = None


def run_hook(options: HookOptions, data: bytes) -> HookResult:
    """The agent's answer to one hook input; never raises (any failure blocks, saying why)."""
    agent = AGENTS[options.agent]
    try:
        call = agent.read(data, options.argv)
        targets = _targets(agent, call)
    except HookInputInvalid as exc:
        return HookResult(_undecided(agent, f"the hook input cannot be read: {exc}"))
    except Exception as exc:  # fail closed, never a traceback
        return HookResult(_undecided(agent, f"{type(exc).__name__}: {exc}"))
    if not targets:
        return HookResult(agent.ungated)
    # Only a gated call loads the router's decision table, git and the policy reader: a call
    # let through costs little more than the interpreter's start.
    from lanelog.router import hook_judge

    judged = Judged()
    worker = threading.Thread(target=hook_judge.judge_into, args=(options, call, targets, judged), daemon=True)
    worker.start()
    worker.join(options.timeout)
    if worker.is_alive():
        return HookResult(_undecided(agent, f"the judgement did not finish within --timeout {options.timeout:g} s"))
    if judged.error is not None:
        error = judged.error
        return HookResult(_undecided(agent, f"{type(error).__name__}: {error}"))
    lines = [line for _, line in judged.lines]
    try:
        hook_judge.append(options, judged.lines)
    except OSError as exc:
        return HookResult(_undecided(agent, f"cannot append to the lane log: {exc.strerror or exc}"), lines)
    rejected = [line for line in lines if line["probe"] != "pass"]
    if rejected:
        return HookResult(agent.block(hook_judge.refusal(call, rejected[0])), lines)
    return HookResult(agent.allow, lines)


def _targets(agent: Agent, call: ToolCall) -> list[Publish]:
    """What the call would publish: a push per ref for git, else the shell command's first publishing call."""
    if agent.name == "git-pre-push":
        return [Publish("push") for _ in call.pushed]
    if call.command is None:
        return []
    found = publishes(call.command)
    if not found:
        return []
    first = found[0]
    # One line per tool call: `git add -A && git commit && git push` publishes the commit's patch.
    commit = next((item for item in found if item.verb == "commit" and item.folder == first.folder), None)
    return [commit or first]


def _undecided(agent: Agent, why: str) -> Answer:
    """Fail closed: the call is blocked, saying why no decision was made."""
    return agent.block(f"lanelog hook: blocked: no decision could be made, so the call is refused: "
                       f"{printable(why)}\n{SETUP_NEXT}\n")
