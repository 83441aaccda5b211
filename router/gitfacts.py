"""Facts from git (seed Step 1): the probe needs git, not a model key.

git always runs without a shell, with resolved commit ids (never user text)
before every ``--``, so a ref or a path can never be read as an option.
A handful of git processes per attempt, whatever the size of the diff.
Paths are held as ``paths.path_text``: every byte kept, none merged.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from lanelog.errors import RouterError
from lanelog.router.paths import path_bytes, path_text

# Settings that must not change what the probe sees (colour, external diff
# drivers, text conversion) are switched off on the command line.
DIFF_FLAGS = ("--no-renames", "--no-color", "--no-ext-diff", "--no-textconv")
GIT_LOCATION_VARS = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR")
# Far beyond any diff a cap could pass; only a hung git gets near it.
GIT_TIMEOUT = 300.0
HUNK = re.compile(rb"@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")


@dataclass(frozen=True)
class Diff:
    """Lines added plus deleted per path (None: a binary file), in git's order,
    and the ``-U0`` patch the removed lines are read from."""

    line_counts: dict[str, int | None]
    patch: bytes

    def removed_lines(self) -> Iterator[str]:
        return removed_from_patch(self.patch)


class GitError(RouterError):
    """git failed where the router did not expect it to."""


class NotARepo(RouterError):
    """The folder is not a git checkout."""


def _env() -> dict[str, str]:
    # --repo decides which checkout is read, not a GIT_DIR left by a hook.
    env = {key: value for key, value in os.environ.items() if key not in GIT_LOCATION_VARS}
    # Concurrent CI jobs share one checkout: never take the index lock to
    # refresh stat data, never prompt, and keep git's messages in English.
    env.update(GIT_OPTIONAL_LOCKS="0", GIT_TERMINAL_PROMPT="0", LC_ALL="C")
    return env


def check_ref(ref: str) -> str:
    """Refuse a ref that git could read as an option."""
    if not ref or ref.startswith("-") or "\0" in ref or "\n" in ref:
        raise ValueError(f"refused ref {ref!r}: a ref must not be empty or start with '-'")
    return ref


class Checkout:
    """A git work tree, addressed by its top-level folder."""

    def __init__(self, toplevel: Path) -> None:
        self.toplevel = toplevel

    @classmethod
    def open(cls, folder: Path) -> Checkout:
        """Find the checkout that holds ``folder``, or raise NotARepo saying why."""
        if not folder.is_dir():
            raise NotARepo(f"{folder}: no such folder")
        done = _run(["git", "-C", str(folder), "rev-parse", "--show-toplevel"],
                    stdout=subprocess.PIPE)
        if done.returncode != 0:
            raise NotARepo(f"{folder}: {_first_line(done.stderr) or 'not a git checkout'}")
        return cls(Path(os.fsdecode(done.stdout.rstrip(b"\n"))))

    def git(self, *args: str, stdin: bytes | None = None, stdout: BinaryIO | None = None,
            ok: tuple[int, ...] = (0,)) -> subprocess.CompletedProcess[bytes]:
        """Run git in the checkout; raise GitError on an exit code not in ``ok``."""
        done = _run(["git", "-C", str(self.toplevel), *args], stdin=stdin,
                    stdout=stdout if stdout is not None else subprocess.PIPE)
        if done.returncode not in ok:
            raise GitError(f"git {args[0]} failed ({done.returncode}): "
                           f"{_first_line(done.stderr)}")
        return done

    def resolve(self, ref: str) -> str | None:
        """The commit id ``ref`` names, or None when it names no commit."""
        done = self.git("rev-parse", "--verify", "--quiet", "--end-of-options",
                        f"{check_ref(ref)}^{{commit}}", ok=(0, 1, 128))
        return done.stdout.decode().strip() if done.returncode == 0 else None

    def merge_base(self, base: str, head: str) -> str | None:
        """Where ``base...head`` starts, or None when the histories share nothing."""
        done = self.git("merge-base", "--end-of-options", base, head, ok=(0, 1))
        return done.stdout.decode().strip() if done.returncode == 0 else None

    def diff(self, start: str, head: str) -> Diff:
        """The diff ``start..head``: lines per path and the ``-U0`` patch, in one git run."""
        out = self.git("diff", "--numstat", "--patch", "-U0", "-z", *DIFF_FLAGS,
                       start, head, "--").stdout
        # -z ends each numstat record with NUL and the whole stat with one more.
        stat, _, patch = out.partition(b"\0\0")
        counts: dict[str, int | None] = {}
        for record in stat.split(b"\0"):
            if not record:
                continue
            added, deleted, path = record.split(b"\t", 2)
            name = path_text(path)
            counts[name] = None if added == b"-" or deleted == b"-" else int(added) + int(deleted)
        return Diff(counts, patch)

    def read_files(self, commit: str, paths: list[str]) -> dict[str, bytes | None]:
        """The content of each path at ``commit`` (None when absent), in one git call."""
        for path in paths:
            if "\n" in path:
                raise ValueError(f"refused path {path!r}: a path must not hold a newline")
        request = b"".join(f"{commit}:".encode() + path_bytes(path) + b"\n" for path in paths)
        out = self.git("cat-file", "--batch", stdin=request).stdout
        found: dict[str, bytes | None] = {}
        position = 0
        for path in paths:
            end = out.index(b"\n", position)
            header = out[position:end].split(b" ")
            position = end + 1
            if header[-1] == b"missing" or len(header) != 3:
                found[path] = None
                continue
            size = int(header[2])
            if header[1] != b"blob":
                raise ValueError(f"{path} at the base commit is a {header[1].decode()}, "
                                 "not a file")
            found[path] = out[position:position + size]
            position += size + 1
        return found

    def fixture_hash(self, commit: str, is_fixture: Callable[[str], bool]) -> str:
        """A sha256 over every fixture path and its blob id at ``commit``."""
        out = self.git("ls-tree", "-r", "-z", "--full-tree", "--end-of-options", commit).stdout
        digest = hashlib.sha256()
        for entry in sorted(out.split(b"\0")):
            if not entry:
                continue
            meta, path = entry.split(b"\t", 1)
            if meta.split(b" ")[1] == b"blob" and is_fixture(path_text(path)):
                digest.update(path + b"\0" + meta.split(b" ")[2] + b"\n")
        return digest.hexdigest()

    def write_patch(self, start: str, head: str, dest: BinaryIO) -> None:
        """Write the diff ``start..head`` (binary hunks included) to ``dest``."""
        self.git("diff", "--binary", *DIFF_FLAGS, start, head, "--", stdout=dest)


def removed_from_patch(patch: bytes) -> Iterator[str]:
    """Removed lines of a ``-U0`` patch, counted by hunk header.

    Counting by the header's line numbers, rather than by a leading ``-``,
    keeps a removed line that itself starts with ``--`` from being taken for
    a file header, and a file header from being taken for a removed line.
    """
    lines = patch.split(b"\n")
    index = 0
    while index < len(lines):
        match = HUNK.match(lines[index])
        index += 1
        if match is None:
            continue
        old = int(match.group(1) or b"1")
        new = int(match.group(2) or b"1")
        while (old or new) and index < len(lines):
            line = lines[index]
            index += 1
            if line.startswith(b"-"):
                old -= 1
                yield line[1:].decode("utf-8", "replace")
            elif line.startswith(b"+"):
                new -= 1
            elif line.startswith(b" "):
                old, new = old - 1, new - 1


def _run(argv: list[str], stdin: bytes | None = None, stdout: BinaryIO | int | None = None,
         ) -> subprocess.CompletedProcess[bytes]:
    """Run git with a bounded wall time: a git that hangs fails the attempt, with a line."""
    try:
        return subprocess.run(argv, input=stdin, stdout=stdout, stderr=subprocess.PIPE,
                              env=_env(), check=False, timeout=GIT_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise GitError(f"git {argv[3]} did not finish within {GIT_TIMEOUT:g} s") from None


def _first_line(stderr: bytes) -> str:
    text = stderr.decode("utf-8", "replace").strip()
    return text.splitlines()[0] if text else ""
