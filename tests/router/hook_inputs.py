"""Each agent's documented pre-tool hook input, as recorded in data/hooks/, aimed at a test's checkout.

Every fixture copies the shape the agent's own reference gives (the source is in ``SOURCES``,
cited again in the test that uses it); the tests change only the working folder and the
shell command, never the keys.

- claude-code: https://code.claude.com/docs/en/hooks#pretooluse-input (common input fields
  and PreToolUse: ``session_id``, ``transcript_path``, ``cwd``, ``permission_mode``,
  ``hook_event_name``, ``tool_name``, ``tool_input``, ``tool_use_id``; exit 2 blocks, stderr
  is fed to the model).
- codex: https://developers.openai.com/codex/hooks (Claude's event set plus ``turn_id`` and
  ``model``; ``transcript_path`` may be null; the shell tool is ``Bash``, edits are
  ``apply_patch``; ``.codex/hooks.json``; exit 2 blocks with the reason on stderr).
- openhands: https://docs.openhands.dev/sdk/guides/hooks and the SDK's
  openhands-sdk/openhands/sdk/hooks/types.py (``HookEvent``: ``event_type``, ``tool_name``,
  ``tool_input``, ``session_id``, ``working_dir``); the shell tool is ``terminal``;
  ``file_editor`` has a ``command`` key too and is no shell.
- copilot: https://docs.github.com/en/copilot/reference/copilot-cli-reference/cli-hooks-reference
  (preToolUse input ``timestamp``, ``cwd``, ``toolName``, ``toolArgs`` as a JSON string;
  ``.github/hooks/*.json`` with ``"version": 1`` and the command under ``bash``; only
  ``permissionDecision: "deny"`` is acted on).
- cline: https://docs.cline.bot/features/hooks/hook-reference (base fields ``clineVersion``,
  ``hookName``, ``timestamp``, ``taskId``, ``workspaceRoots``, ``userId``; ``preToolUse``
  with ``toolName`` and ``parameters``, every parameter a string; the answer
  ``{"cancel": true, "errorMessage": ...}``); the shell tool is ``execute_command``.
- git-pre-push: githooks(5), "pre-push": the remote's name and URL as arguments, one line
  ``<local ref> SP <local object name> SP <remote ref> SP <remote object name>`` a ref on stdin.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data" / "hooks"
TOOL_AGENTS = ("claude-code", "codex", "openhands", "copilot", "cline")
SOURCES = {
    "claude-code": "https://code.claude.com/docs/en/hooks#pretooluse-input",
    "codex": "https://developers.openai.com/codex/hooks",
    "openhands": "https://docs.openhands.dev/sdk/guides/hooks",
    "copilot": "https://docs.github.com/en/copilot/reference/copilot-cli-reference/cli-hooks-reference",
    "cline": "https://docs.cline.bot/features/hooks/hook-reference",
    "git-pre-push": "https://git-scm.com/docs/githooks#_pre_push",
}
ZERO = "0" * 40


def recorded(agent: str, kind: str = "") -> dict[str, Any]:
    """The agent's recorded input: its shell call (a push), or with ``kind="edit"`` its file edit."""
    name = f"{agent}-{kind}.json" if kind else f"{agent}.json"
    return json.loads((DATA / name).read_text(encoding="utf-8"))


def aimed(agent: str, folder: Path | str, command: str | None = None, kind: str = "") -> bytes:
    """The recorded input with its working folder set to ``folder`` and its shell command to ``command``."""
    payload = copy.deepcopy(recorded(agent, kind))
    if agent in ("claude-code", "codex", "copilot"):
        payload["cwd"] = str(folder)
    elif agent == "openhands":
        payload["working_dir"] = str(folder)
    elif agent == "cline":
        payload["workspaceRoots"] = [str(folder)]
    if command is not None:
        if agent == "copilot":
            payload["toolArgs"] = json.dumps({**json.loads(payload["toolArgs"]), "command": command})
        elif agent == "cline":
            payload["preToolUse"]["parameters"]["command"] = command
        else:
            payload["tool_input"]["command"] = command
    return json.dumps(payload).encode()


def pre_push(ref: str, sha: str) -> bytes:
    """git's pre-push stdin for one branch pushed to a remote that does not have it yet."""
    return f"{ref} {sha} {ref} {ZERO}\n".encode()


def blocked(agent: str, exit_code: int, stdout: str) -> str | None:
    """The reason when the answer is the agent's blocking form, else None."""
    if agent in ("claude-code", "codex", "openhands"):
        return "stderr" if exit_code == 2 else None
    if agent == "git-pre-push":
        return "stderr" if exit_code == 1 else None
    if exit_code != 0 or not stdout.strip():
        return None
    answer = json.loads(stdout)
    if agent == "copilot" and answer.get("permissionDecision") == "deny":
        return str(answer["permissionDecisionReason"])
    if agent == "cline" and answer.get("cancel") is True:
        return str(answer["errorMessage"])
    return None


def allowed(agent: str, exit_code: int, stdout: str) -> bool:
    """The agent's allowing form of a judged call."""
    if agent == "copilot":
        return exit_code == 0 and json.loads(stdout) == {"permissionDecision": "allow"}
    if agent == "cline":
        return exit_code == 0 and json.loads(stdout) == {"cancel": False}
    return exit_code == 0 and stdout == ""
