"""Facts from git (seed Step 1): the probe needs git, not a model key.

git always runs without a shell, with resolved commit ids (never user text)
before every ``--``, so a ref or a path can never be read as an option.
A handful of git processes per attempt, whatever the size of the diff.
Paths are held as ``paths.path_text``: every byte kept, none merged.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from lanelog.errors import BaseFileInvalid, GitError, NotARepo, RefInvalid
from lanelog.router.patch_lines import Change, numbered_from_patch, patch_lines
from lanelog.router.paths import path_bytes, path_text, printable

# Settings that must not change what the probe sees (colour, external diff
# drivers, text conversion, a relative diff) are switched off on the command line.
DIFF_FLAGS = ("--no-color", "--no-ext-diff", "--no-textconv", "--no-relative", "--diff-algorithm=myers")
# How renames are taken: git's own default (-M, 50% similar, no copies, no break
# detection, its default rename limit), or a rename as a delete plus an add.
RENAME_FLAGS = {"detect": ("-M50%", "-l1000"), "split": ("--no-renames",)}
# What no flag above pins but a user's or repository's config could change: how the
# patch names its files (read for the assertion evidence).
PINNED_CONFIG = ("-c", "diff.noprefix=false", "-c", "diff.mnemonicPrefix=false", "-c", "core.quotePath=true")
GIT_LOCATION_VARS = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR")
# git's default context, pinned (a user's diff.context must not change the count).  The
# numstat of one run is computed with the patch's context, and at -U0 git trims the
# files' common tail before diffing (xdiff-interface.c, trim_common_tail), which changes
# which frequent lines its heuristics discard: the counts can then exceed `git diff
# --numstat`'s, the count the design note sums.  Any context above 0 gives numstat's.
CONTEXT = "-U3"
# Far beyond any diff a cap could pass; only a hung git gets near it.
GIT_TIMEOUT = 300.0
# Far longer than any ref or revision expression a person or CI writes.
MAX_REF = 1024
CONTROL = re.compile(r"[\x00-\x1f\x7f]")


@dataclass(frozen=True)
class Diff:
    """Lines added plus deleted per path (None: a binary file), in git's order,
    the paths renamed (new path: old path), and the patch the changed
    lines are read from."""

    line_counts: dict[str, int | None]
    patch: bytes
    renamed: dict[str, str] = field(default_factory=dict)

    def numbered_lines(self) -> Iterator[Change]:
        """Every removed and added line with its file, line numbers and change block."""
        return numbered_from_patch(self.patch)

    def hunk_lines(self) -> Iterator[Change]:
        """Every line of the diff's hunks, the unchanged ones around the changes too."""
        return patch_lines(self.patch)

    @property
    def paths(self) -> list[str]:
        """Every path the diff touches: both the old and the new path of a rename."""
        out: dict[str, None] = {}
        for path in self.line_counts:
            if path in self.renamed:
                out.setdefault(self.renamed[path], None)
            out.setdefault(path, None)
        return list(out)




def _env() -> dict[str, str]:
    # --repo decides which checkout is read, not a GIT_DIR left by a hook.
    env = {key: value for key, value in os.environ.items() if key not in GIT_LOCATION_VARS}
    # Concurrent CI jobs share one checkout: never take the index lock to
    # refresh stat data, never prompt, and keep git's messages in English.
    env.update(GIT_OPTIONAL_LOCKS="0", GIT_TERMINAL_PROMPT="0", LC_ALL="C")
    return env


def check_ref(ref: str) -> str:
    """Refuse a ref that git could read as an option, or that is no ref's shape.

    Checked before git runs: a control character has no place in a ref name,
    and a ref longer than MAX_REF could only fail later, as an argument list
    the system refuses (OSError), instead of here with its name.
    """
    if not ref or ref.startswith("-") or len(ref) > MAX_REF or CONTROL.search(ref):
        shown = printable(ref[:80]) + ("…" if len(ref) > 80 else "")
        raise RefInvalid(f"refused ref {shown!r}: a ref must not be empty or start with '-', "
                         f"nor hold control characters or more than {MAX_REF} characters "
                         f"(this one has {len(ref)})")
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
        done = _run(["git", "-C", str(self.toplevel), *PINNED_CONFIG, *args], stdin=stdin,
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

    def diff(self, start: str, head: str, renames: str = "detect") -> Diff:
        """The diff ``start..head``: lines per path (``git diff --numstat``) and the patch, in one git run."""
        out = self.git("diff", "--numstat", "--patch", CONTEXT, "-z", *DIFF_FLAGS, *RENAME_FLAGS[renames],
                       start, head, "--").stdout
        # -z ends each numstat record with NUL and the whole stat with one more.  A
        # rename's record is "added<TAB>deleted<TAB>" followed by the old and the new
        # path, each ended by NUL.
        stat, patch = _split_stat(out)
        counts: dict[str, int | None] = {}
        renamed: dict[str, str] = {}
        fields = iter(stat)
        for record in fields:
            added, deleted, path = record.split(b"\t", 2)
            if not path:
                old, path = next(fields), next(fields)
                renamed[path_text(path)] = path_text(old)
            name = path_text(path)
            counts[name] = None if added == b"-" or deleted == b"-" else int(added) + int(deleted)
        return Diff(counts, patch, renamed)

    def read_files(self, commit: str, paths: list[str]) -> dict[str, bytes | None]:
        """The content of each path at ``commit`` (None when absent), in one git call."""
        for path in paths:
            if "\n" in path:
                raise BaseFileInvalid(f"refused path {path!r}: a path must not hold a newline")
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
                raise BaseFileInvalid(f"{path} at the base commit is a {header[1].decode()}, "
                                 "not a file")
            found[path] = out[position:position + size]
            position += size + 1
        return found

    def fixture_hash(self, commit: str, is_fixture: Callable[[str], bool]) -> str:
        """A sha256 over every fixture path and its blob id at ``commit``."""
        # Imported here: only a lane that runs needs it, and loading OpenSSL's
        # hashes took 8 ms of every `lanelog route` start.
        import hashlib

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
        self.git("diff", "--binary", *DIFF_FLAGS, "--no-renames", start, head, "--", stdout=dest)


def _split_stat(out: bytes) -> tuple[list[bytes], bytes]:
    """The numstat's NUL-ended fields, and the patch after the stat's closing NUL.

    A rename's record ends in an empty path followed by two path fields, so the
    stat ends at the first empty field that is not such a record's path.
    """
    fields: list[bytes] = []
    position = 0
    pending_paths = 0
    while position < len(out):
        end = out.index(b"\0", position)
        field_bytes = out[position:end]
        position = end + 1
        if pending_paths:
            fields.append(field_bytes)
            pending_paths -= 1
            continue
        if not field_bytes:
            return fields, out[position:]
        fields.append(field_bytes)
        if field_bytes.count(b"\t") >= 2 and field_bytes.split(b"\t", 2)[2] == b"":
            pending_paths = 2
    return fields, b""


def _run(argv: list[str], stdin: bytes | None = None, stdout: BinaryIO | int | None = None,
         ) -> subprocess.CompletedProcess[bytes]:
    """Run git with a bounded wall time: a git that hangs fails the attempt, with a line."""
    try:
        return subprocess.run(argv, input=stdin, stdout=stdout, stderr=subprocess.PIPE,
                              env=_env(), check=False, timeout=GIT_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise GitError(f"git {_subcommand(argv)} did not finish within {GIT_TIMEOUT:g} s") from None


def _subcommand(argv: list[str]) -> str:
    """The git command of an argv, past its -C and -c options."""
    index = 1
    while index < len(argv) - 1 and argv[index] in ("-C", "-c"):
        index += 2
    return argv[index] if index < len(argv) else "?"


def _first_line(stderr: bytes) -> str:
    text = stderr.decode("utf-8", "replace").strip()
    return text.splitlines()[0] if text else ""
