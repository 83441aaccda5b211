"""The agents' hook protocols, one record each: how to read the input, how to block, how to allow.

Each agent hands a hook its own JSON on stdin and reads its own answer back (docs/agents.md
cites each agent's reference).  A record turns the input into a neutral ``ToolCall`` and a
decision into the agent's ``Answer``; nothing else in the hook knows which agent it serves.
Claude Code, Codex and OpenHands read exit 2 with the reason on stderr as "blocked" (and any
other non-zero exit as "go ahead"); Copilot and Cline read JSON on stdout; git reads a
non-zero exit of its pre-push hook as "refuse the push".
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lanelog.errors import HookInputInvalid

# Far more than any tool call's JSON; a larger input is refused unread.
MAX_INPUT = 4 * 1024 * 1024
ZERO_SHA = "0" * 40


@dataclass(frozen=True)
class ToolCall:
    """What the agent is about to do: its tool, the shell command (None for a tool that is no
    shell), the folder it works in, its session, and for a push the commits each ref would get."""

    tool: str
    command: str | None
    folder: str | None = None
    session: str | None = None
    pushed: tuple[tuple[str, str], ...] = ()  # (local ref, local commit) of a git push


@dataclass(frozen=True)
class Answer:
    """The hook's reply as the agent reads it."""

    exit_code: int
    stdout: str = ""
    stderr: str = ""


@dataclass(frozen=True)
class Agent:
    """One agent's protocol: ``read`` its input, then ``block``, ``allow``, or answer an ungated call."""

    name: str
    read: Callable[[bytes, Sequence[str]], ToolCall]
    block: Callable[[str], Answer]
    allow: Answer
    ungated: Answer
    crash: str = ""  # what the agent does with a hook that crashes (docs/agents.md)


def _json(data: bytes) -> dict[str, Any]:
    if len(data) > MAX_INPUT:
        raise HookInputInvalid(f"the hook input has {len(data)} bytes, more than the {MAX_INPUT} it reads")
    try:
        value = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise HookInputInvalid("the hook input is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise HookInputInvalid(f"the hook input is not JSON: {exc.msg} at line {exc.lineno}") from None
    if not isinstance(value, dict):
        raise HookInputInvalid(f"the hook input is a JSON {type(value).__name__}, not an object")
    return value


def _text(payload: Mapping[str, Any], key: str, where: str, required: bool = False) -> str | None:
    value = payload.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str):
        raise HookInputInvalid(f"the hook input's {where}{key} is {'missing' if value is None else 'not text'}")
    return value


def _shell_call(tool: str, shells: frozenset[str], arguments: object, where: str, folder: str | None,
                session: str | None) -> ToolCall:
    if tool not in shells:
        return ToolCall(tool, None, folder, session)
    if not isinstance(arguments, dict):
        raise HookInputInvalid(f"the hook input's {where} is not an object")
    return ToolCall(tool, _text(arguments, "command", f"{where}.", required=True), folder, session)


def _claude_shape(shells: frozenset[str], folder_key: str) -> Callable[[bytes, Sequence[str]], ToolCall]:
    """Claude Code's PreToolUse input (also Codex's, and OpenHands' with its own keys)."""
    def read(data: bytes, argv: Sequence[str]) -> ToolCall:
        payload = _json(data)
        event = payload.get("hook_event_name", payload.get("event_type"))
        tool = _text(payload, "tool_name", "", required=True) or ""
        folder, session = _text(payload, folder_key, ""), _text(payload, "session_id", "")
        if event is not None and event != "PreToolUse":
            return ToolCall(tool, None, folder, session)
        return _shell_call(tool, shells, payload.get("tool_input"), "tool_input", folder, session)
    return read


def _read_copilot(data: bytes, argv: Sequence[str]) -> ToolCall:
    """Copilot's preToolUse input: toolArgs is the tool's arguments as a JSON string."""
    payload = _json(data)
    tool = _text(payload, "toolName", "", required=True) or ""
    arguments = payload.get("toolArgs")
    if tool == "bash" and isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError as exc:
            raise HookInputInvalid(f"the hook input's toolArgs is not JSON: {exc.msg}") from None
    return _shell_call(tool, frozenset({"bash"}), arguments, "toolArgs", _text(payload, "cwd", ""), None)


def _read_cline(data: bytes, argv: Sequence[str]) -> ToolCall:
    """Cline's PreToolUse input: the workspace is workspaceRoots[0], never the hook's own folder."""
    payload = _json(data)
    call = payload.get("preToolUse")
    if not isinstance(call, dict):
        raise HookInputInvalid("the hook input's preToolUse is missing or not an object")
    roots = payload.get("workspaceRoots")
    folder = roots[0] if isinstance(roots, list) and roots and isinstance(roots[0], str) else None
    tool = _text(call, "toolName", "preToolUse.", required=True) or ""
    if folder is None and tool == "execute_command":
        raise HookInputInvalid("the hook input's workspaceRoots names no folder")
    return _shell_call(tool, frozenset({"execute_command"}), call.get("parameters"), "preToolUse.parameters",
                       folder, _text(payload, "taskId", ""))


def _read_pre_push(data: bytes, argv: Sequence[str]) -> ToolCall:
    """git's pre-push hook: the remote's name and URL as arguments, one line a ref on stdin
    (``<local ref> SP <local sha> SP <remote ref> SP <remote sha>``, githooks(5))."""
    if len(data) > MAX_INPUT:
        raise HookInputInvalid(f"the pre-push input has {len(data)} bytes, more than the {MAX_INPUT} it reads")
    pushed = []
    for number, raw in enumerate(data.decode("utf-8", "replace").splitlines(), start=1):
        if not raw.strip():
            continue
        fields = raw.split(" ")
        if len(fields) != 4 or not all(len(sha) >= 40 and all(c in "0123456789abcdef" for c in sha)
                                       for sha in (fields[1], fields[3])):
            raise HookInputInvalid(f"pre-push input line {number} is not '<local ref> <local sha> <remote ref> "
                                   "<remote sha>'")
        if set(fields[1]) != {"0"}:  # a deleted ref publishes no patch
            pushed.append((fields[0], fields[1]))
    remote = argv[0] if argv else "?"
    return ToolCall("git push", f"git push {remote}", None, None, tuple(pushed))


def _exit_2(reason: str) -> Answer:
    return Answer(2, "", reason)


def _exit_1(reason: str) -> Answer:
    return Answer(1, "", reason)


def _copilot_deny(reason: str) -> Answer:
    return Answer(0, json.dumps({"permissionDecision": "deny", "permissionDecisionReason": reason}))


def _cline_cancel(reason: str) -> Answer:
    return Answer(0, json.dumps({"cancel": True, "errorMessage": reason}))


_CLAUDE = _claude_shape(frozenset({"Bash"}), "cwd")
AGENTS: dict[str, Agent] = {agent.name: agent for agent in (
    Agent("claude-code", _CLAUDE, _exit_2, Answer(0), Answer(0), "any exit but 0 or 2 lets the call go ahead"),
    Agent("codex", _CLAUDE, _exit_2, Answer(0), Answer(0), "any exit but 0 or 2 lets the call go ahead"),
    Agent("openhands", _claude_shape(frozenset({"terminal", "execute_bash"}), "working_dir"), _exit_2,
          Answer(0), Answer(0), "any exit but 0 or 2 lets the call go ahead"),
    Agent("copilot", _read_copilot, _copilot_deny, Answer(0, json.dumps({"permissionDecision": "allow"})),
          Answer(0), "only \"deny\" blocks"),
    Agent("cline", _read_cline, _cline_cancel, Answer(0, json.dumps({"cancel": False})),
          Answer(0, json.dumps({"cancel": False})), "a hook that fails blocks"),
    Agent("git-pre-push", _read_pre_push, _exit_1, Answer(0), Answer(0), "any non-zero exit refuses the push"),
)}
