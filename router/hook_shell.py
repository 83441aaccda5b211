"""Which git and gh calls a shell command would make that publish a patch.

An agent's shell tool hands the hook one command line: ``git add -A && git commit -m x``,
``cd sub; git push``, ``bash -c 'git push origin HEAD'``.  This reads it the way a POSIX
shell splits it (``shlex`` with the shell's operators as punctuation), never with a regex
over the whole text: a command longer than MAX_COMMAND, with more than MAX_TOKENS words,
or with shells nested deeper than MAX_DEPTH is not read at all, and the hook then blocks.

What is found, in order: ``git commit``, ``git push`` and ``gh pr create`` after any
``NAME=value`` assignments and wrappers (``env``, ``command``, ``sudo``, ...), in every
part of a list (``;``, ``&&``, ``||``, ``|``, ``&``, a new line, a subshell's brackets),
inside ``bash -c``, ``sh -c`` and ``eval``, with the folder ``git -C DIR`` or an earlier
``cd DIR`` names.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from lanelog.errors import HookInputInvalid

MAX_COMMAND = 64 * 1024
MAX_TOKENS = 20_000
MAX_DEPTH = 4
# A command that names neither program can publish nothing: it is let through unread.
PROGRAMS = ("git", "gh")
SEPARATORS = frozenset({";", "&&", "||", "|", "&", "\n", "(", ")", ";;", "|&"})
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh"})
WRAPPERS = frozenset({"env", "command", "exec", "nohup", "sudo", "time", "nice", "builtin"})
# git's global options that take a value as the next word (git.c, handle_options).
GIT_VALUE_OPTIONS = frozenset({"-c", "--git-dir", "--work-tree", "--namespace", "--exec-path",
                               "--super-prefix", "--config-env", "--list-cmds"})
# The words of `git commit` that add the work tree's tracked changes to what is committed.
COMMIT_ALL = frozenset({"-a", "--all"})


@dataclass(frozen=True)
class Publish:
    """One call that would publish a patch: what it is, the folder it runs in (relative to the
    tool's folder, None for that folder), and for a commit whether the work tree's changes go in too."""

    verb: str  # "commit", "push" or "pr"
    folder: str | None = None
    work_tree: bool = False

    @property
    def shown(self) -> str:
        return {"commit": "git commit", "push": "git push", "pr": "gh pr create"}[self.verb]


def publishes(command: str) -> list[Publish]:
    """Every publishing call in ``command``, in order; [] for a command that publishes nothing.

    Raises HookInputInvalid for a command that names git or gh but cannot be read.
    """
    if not any(program in command for program in PROGRAMS):
        return []
    return _read(command, 0)


def _read(command: str, depth: int) -> list[Publish]:
    if len(command) > MAX_COMMAND:
        raise HookInputInvalid(f"the command has {len(command)} characters, more than the {MAX_COMMAND} "
                               "the hook reads")
    if depth > MAX_DEPTH:
        raise HookInputInvalid(f"the command nests shells more than {MAX_DEPTH} deep")
    found: list[Publish] = []
    folder: str | None = None
    staged_before = False
    for words in _simple_commands(command):
        words = _unwrapped(words)
        if not words:
            continue
        program = words[0].rsplit("/", 1)[-1]
        if program == "cd" and len(words) == 2:
            folder = _joined(folder, words[1])
        elif program in SHELLS and _script(words) is not None:
            found += [_within(call, folder) for call in _read(_script(words) or "", depth + 1)]
        elif program == "eval":
            found += [_within(call, folder) for call in _read(" ".join(words[1:]), depth + 1)]
        elif program == "git":
            call = _git(words[1:], folder, staged_before)
            staged_before = staged_before or call == "add"
            if isinstance(call, Publish):
                found.append(call)
        elif program == "gh" and words[1:3] == ["pr", "create"]:
            found.append(Publish("pr", folder))
    return found


def _simple_commands(command: str) -> list[list[str]]:
    """The command's simple commands, split at the shell's list and pipe operators."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars="();<>|&\n")
    lexer.whitespace = " \t\r"
    lexer.whitespace_split = True
    lexer.commenters = ""
    parts: list[list[str]] = [[]]
    try:
        for count, token in enumerate(lexer):
            if count >= MAX_TOKENS:
                raise HookInputInvalid(f"the command has more than {MAX_TOKENS} words")
            if token in SEPARATORS or set(token) <= set(";|&\n()"):
                parts.append([])
            else:
                parts[-1].append(token)
    except ValueError as exc:  # an unclosed quote
        raise HookInputInvalid(f"the command cannot be read as a shell command: {exc}") from None
    return [part for part in parts if part]


def _unwrapped(words: list[str]) -> list[str]:
    """The words past leading NAME=value assignments and wrappers such as ``env`` or ``sudo``."""
    index = 0
    while index < len(words):
        word = words[index]
        name = word.split("=", 1)[0]
        if "=" in word and name.isidentifier():
            index += 1
        elif word in WRAPPERS or (index > 0 and words[0] in WRAPPERS and word.startswith("-")):
            index += 1
        else:
            break
    return words[index:]


def _script(words: list[str]) -> str | None:
    """The script of ``bash -c SCRIPT`` (also ``-lc``, ``-ec``, ``-o x -c``), else None."""
    for index, word in enumerate(words[1:], start=1):
        if word.startswith("-") and not word.startswith("--") and "c" in word[1:] and index + 1 < len(words):
            return words[index + 1]
        if not word.startswith("-"):
            return None
    return None


def _git(args: list[str], folder: str | None, staged_before: bool) -> Publish | str | None:
    """A publishing git call; "add" for ``git add`` (what a later commit then holds); else None."""
    index = 0
    while index < len(args) and args[index].startswith("-"):
        option = args[index]
        if option == "-C" and index + 1 < len(args):
            folder = _joined(folder, args[index + 1])
            index += 2
        elif option in GIT_VALUE_OPTIONS and index + 1 < len(args):
            index += 2
        else:
            index += 1
    if index >= len(args):
        return None
    verb, rest = args[index], args[index + 1:]
    if verb == "add":
        return "add"
    if verb == "commit":
        flags = [word for word in rest if word.startswith("-") and not word.startswith("--")]
        every = bool(COMMIT_ALL & set(rest)) or any("a" in flag[1:].split("m", 1)[0] for flag in flags)
        return Publish("commit", folder, work_tree=every or staged_before)
    if verb == "push":
        return Publish("push", folder)
    return None


def _joined(folder: str | None, more: str) -> str:
    if folder is None or more.startswith("/"):
        return more
    return f"{folder}/{more}"


def _within(call: Publish, folder: str | None) -> Publish:
    return call if folder is None else Publish(call.verb, _joined(folder, call.folder or "."), call.work_tree)

