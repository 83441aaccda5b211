"""What a ``git commit`` would publish: HEAD plus the staged changes, as a commit no ref names.

The index is copied to a scratch file and written as a tree there (``GIT_INDEX_FILE``), so the
agent's own index is never locked or changed; ``git commit-tree`` then makes a commit object on
top of HEAD that no branch points at.  For ``git commit -a``, or a commit after ``git add`` in
the same command (which has not run yet when the hook is asked), the work tree's changes are
added to the scratch index first (``git add -A``): the hook judges at least what will be published.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from lanelog.errors import GitError
from lanelog.router.gitfacts import GIT_LOCATION_VARS, GIT_TIMEOUT, Checkout

# The scratch commit's author: git needs one, and it is never published.
IDENTITY = {"GIT_AUTHOR_NAME": "lanelog hook", "GIT_AUTHOR_EMAIL": "hook@lanelog.invalid",
            "GIT_COMMITTER_NAME": "lanelog hook", "GIT_COMMITTER_EMAIL": "hook@lanelog.invalid"}


def staged_commit(folder: Path, work_tree: bool) -> str | None:
    """A commit of HEAD plus what the commit would add; None when it adds nothing (judge HEAD)."""
    checkout = Checkout.open(folder)
    index = Path(_git(checkout, {}, "rev-parse", "--path-format=absolute", "--git-path", "index").strip())
    head = checkout.resolve("HEAD")
    with tempfile.TemporaryDirectory(prefix="lanelog-hook-") as scratch:
        copy = Path(scratch) / "index"
        if index.is_file():
            shutil.copyfile(index, copy)
        env = {"GIT_INDEX_FILE": str(copy)}
        if work_tree:
            _git(checkout, env, "add", "-A")
        tree = _git(checkout, env, "write-tree").strip()
    if head is not None and _git(checkout, {}, "rev-parse", f"{head}^{{tree}}").strip() == tree:
        return None
    parents = ["-p", head] if head is not None else []
    return _git(checkout, IDENTITY, "commit-tree", tree, *parents, "-m", "lanelog hook: the staged commit").strip()


def _git(checkout: Checkout, extra: dict[str, str], *args: str) -> str:
    """git in the checkout, with a scratch index or identity, bounded as every git of the router."""
    env = {key: value for key, value in os.environ.items() if key not in GIT_LOCATION_VARS}
    env.update(GIT_OPTIONAL_LOCKS="0", GIT_TERMINAL_PROMPT="0", LC_ALL="C", **extra)
    try:
        done = subprocess.run(["git", "-C", str(checkout.toplevel), *args], capture_output=True, env=env,
                              check=False, timeout=GIT_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise GitError(f"git {args[0]} did not finish within {GIT_TIMEOUT:g} s") from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(f"git {args[0]} failed ({done.returncode}): {message[0] if message else ''}")
    return done.stdout.decode("utf-8", "replace")
