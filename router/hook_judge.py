"""The hook's judgement of a gated call: route's decision on what the call would publish, and its line.

Loaded only for a gated call (router/hook.py): it brings the decision table, the policy reader
and git, which a call let through never needs.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from lanelog.errors import NotARepo
from lanelog.router.gitfacts import Checkout
from lanelog.router.github import job_summary
from lanelog.router.hook_agents import ToolCall
from lanelog.router.hook_commit import staged_commit
from lanelog.router.hook_shell import Publish
from lanelog.router.lane_log import append_line
from lanelog.router.paths import printable
from lanelog.router.run import RouteOptions, run_route

if TYPE_CHECKING:
    from lanelog.router.hook import HookOptions, Judged

SOURCE = "hook"
LOG_NAME = "lane-log.jsonl"
# The line keeps the command as the agent wrote it, cut here.
MAX_COMMAND_SHOWN = 500


def judge_into(options: HookOptions, call: ToolCall, targets: list[Publish], judged: Judged) -> None:
    """Judge the call into ``judged`` (run in the hook's worker thread): its lines, or what stopped it."""
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
            try:
                head = staged_commit(folder, target.work_tree) or head
            except NotARepo:
                pass  # route's line says not_a_repo

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


def append(options: HookOptions, judged: list[tuple[Path, dict[str, Any]]]) -> None:
    """Append each line to its lane log; OSError says why one could not be."""
    for folder, line in judged:
        path = _log_path(options, folder)
        if path is not None:
            append_line(path, line)


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


def refusal(call: ToolCall, line: dict[str, Any]) -> str:
    """The reject in the words of the job summary, under one line naming the call and the reasons."""
    what = (call.command or call.tool).split("\n", 1)[0]
    head = (f"lanelog hook: blocked `{printable(what)[:200]}`: the probe rejected the patch it would publish "
            f"({', '.join(line['reasons'])}).")
    message = line.get("message") or ""
    return "\n".join([head, printable(message), "", job_summary(line)]).rstrip("\n") + "\n"
