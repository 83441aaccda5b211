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

from lanelog.errors import HookInputInvalid, NotARepo
from lanelog.router.gitfacts import Checkout
from lanelog.router.github import job_summary
from lanelog.router.hook_agents import AGENTS, Agent, Answer, ToolCall
from lanelog.router.hook_commit import staged_commit
from lanelog.router.hook_shell import Publish, publishes
from lanelog.router.lane_log import append_line
from lanelog.router.paths import printable
from lanelog.router.run import RouteOptions, run_route

DEFAULT_TIMEOUT = 20.0
SOURCE = "hook"
LOG_NAME = "lane-log.jsonl"
# The line keeps the command as the agent wrote it, cut here.
MAX_COMMAND_SHOWN = 500
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
class _Judged:
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
    judged = _Judged()
    worker = threading.Thread(target=_judge_into, args=(options, call, targets, judged), daemon=True)
    worker.start()
    worker.join(options.timeout)
    if worker.is_alive():
        return HookResult(_undecided(agent, f"the judgement did not finish within --timeout {options.timeout:g} s"))
    if judged.error is not None:
        error = judged.error
        return HookResult(_undecided(agent, f"{type(error).__name__}: {error}"))
    lines = [line for _, line in judged.lines]
    try:
        for folder, line in judged.lines:
            path = _log_path(options, folder)
            if path is not None:
                append_line(path, line)
    except OSError as exc:
        return HookResult(_undecided(agent, f"cannot append to the lane log: {exc.strerror or exc}"), lines)
    rejected = [line for line in lines if line["probe"] != "pass"]
    if rejected:
        return HookResult(agent.block(_refusal(call, rejected[0])), lines)
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


def _judge_into(options: HookOptions, call: ToolCall, targets: list[Publish], judged: _Judged) -> None:
    try:
        judged.lines = _judge(options, call, targets)
    except BaseException as exc:  # handed to the main thread, which blocks saying why
        judged.error = exc


def _judge(options: HookOptions, call: ToolCall, targets: list[Publish]) -> list[tuple[Path, dict[str, Any]]]:
    lines = []
    for index, target in enumerate(targets):
        folder = _folder(options, call, target)
        head = call.pushed[index][1] if call.pushed else "HEAD"
        if target.verb == "commit":
            head = staged_commit(folder, target.work_tree) or head
        line = run_route(RouteOptions(repo=folder, base=options.base, head=head, policy=options.policy,
                                      flaky=options.flaky))
        line["model_call_allowed"] = False
        line["source"] = SOURCE
        line["hook"] = {"agent": options.agent, "session": _shown(call.session),
                        "command": _shown(call.command)}
        lines.append((folder, line))
    return lines


def _folder(options: HookOptions, call: ToolCall, target: Publish) -> Path:
    """--repo, else the agent's working folder, moved by the command's ``git -C`` or ``cd``."""
    if options.repo is not None:
        return options.repo
    root = Path(call.folder) if call.folder else Path(".")
    return root / target.folder if target.folder else root


def _shown(text: str | None) -> str | None:
    if text is None:
        return None
    text = printable(text)
    return text if len(text) <= MAX_COMMAND_SHOWN else text[:MAX_COMMAND_SHOWN - 1] + "…"


def _log_path(options: HookOptions, folder: Path) -> Path | None:
    """--out, else $LANELOG_LOG, else lane-log.jsonl at the checkout's top (as route); None when the
    agent's folder does not exist, so that no folder is made for it (the call is blocked all the same)."""
    if options.out is not None:
        return options.out
    if options.environ.get("LANELOG_LOG"):
        return Path(options.environ["LANELOG_LOG"])
    try:
        return Checkout.open(folder).toplevel / LOG_NAME
    except NotARepo:
        return folder / LOG_NAME if folder.is_dir() else None


def _refusal(call: ToolCall, line: dict[str, Any]) -> str:
    """The reject in the words of the job summary, under one line naming the call and the reasons."""
    what = (call.command or call.tool).split("\n", 1)[0]
    head = (f"lanelog hook: blocked `{printable(what)[:200]}`: the probe rejected the patch it would publish "
            f"({', '.join(line['reasons'])}).")
    message = line.get("message") or ""
    return "\n".join([head, printable(message), "", job_summary(line)]).rstrip("\n") + "\n"


def _undecided(agent: Agent, why: str) -> Answer:
    """Fail closed: the call is blocked, saying why no decision was made."""
    return agent.block(f"lanelog hook: blocked: no decision could be made, so the call is refused: "
                       f"{printable(why)}\n{SETUP_NEXT}\n")
