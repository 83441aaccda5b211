"""A generated git repository whose patch touches many files, for the router case.

Built with ``git fast-import`` (one process, no working-tree churn), so even
5,000 files take a second or two.  The base commit ``main`` holds the policy
and flaky list the router reads; the branch ``patch`` edits every generated
module: two lines added and one removed in each, so the diff is wide (the
router rejects it on ``line_cap``) but has to be read whole to say so.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

# The policy the README documents: the bench routes under the same rules a user starts from.
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

AUTHOR = b"bench <bench@example.invalid> 1791460800 +0000"


def _module(index: int, patched: bool) -> bytes:
    # Twenty lines per module; the patch rewrites one and adds one.
    lines = [f"# module {index}", f"def value_{index}() -> int:"]
    lines += [f"    step_{n} = {index} + {n}" for n in range(16)]
    lines += [f"    return {index}", ""]
    if patched:
        lines[3] = f"    step_1 = {index} * 2"
        lines.insert(4, f"    extra_{index} = step_1 + 1")
    return "\n".join(lines).encode()


def _blob(data: bytes) -> bytes:
    return b"data %d\n%s\n" % (len(data), data)


def _commit(ref: bytes, message: bytes, files: dict[str, bytes], parent: bytes | None) -> bytes:
    out = [b"commit " + ref + b"\n", b"author " + AUTHOR + b"\n", b"committer " + AUTHOR + b"\n",
           _blob(message)]
    if parent is not None:
        out.append(b"from " + parent + b"\n")
    for path, data in files.items():
        out.append(b"M 100644 inline " + path.encode() + b"\n" + _blob(data))
    out.append(b"\n")
    return b"".join(out)


def module_path(index: int) -> str:
    """Where module ``index`` lives: a hundred modules per package folder."""
    return f"src/pkg_{index // 100:03d}/mod_{index:05d}.py"


def new_repo(path: Path) -> list[str]:
    """An empty repository at ``path`` (replacing it) on branch main; the git argv prefix for it."""
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)
    git = ["git", "-C", str(path)]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    return git


def base_files(modules: int) -> dict[str, bytes]:
    """The base commit's files: the example policy and flaky list, and ``modules`` modules."""
    base = {"lanes.yaml": (EXAMPLES / "lanes.yaml").read_bytes(),
            "flaky.yaml": (EXAMPLES / "flaky.yaml").read_bytes(),
            "store.py": b"def put(key, body):\n    return body\n"}
    base.update({module_path(i): _module(i, patched=False) for i in range(modules)})
    return base


def make_repo(path: Path, files: int) -> dict[str, object]:
    """Create the repository at ``path`` (replacing it) and describe it."""
    git = new_repo(path)
    base = base_files(files)
    patch = {module_path(i): _module(i, patched=True) for i in range(files)}
    stream = (_commit(b"refs/heads/main", b"base", base, None)
              + _commit(b"refs/heads/patch", b"a wide agent patch", patch, b"refs/heads/main"))
    subprocess.run([*git, "fast-import", "--quiet"], input=stream, check=True)
    # A CI job runs the router on a checkout of the patch, so check it out.
    subprocess.run([*git, "checkout", "-q", "patch"], check=True)
    numstat = subprocess.run([*git, "diff", "--numstat", "main...patch"], capture_output=True, check=True)
    touched = numstat.stdout.count(b"\n")
    if touched != files:
        raise RuntimeError(f"generated patch touches {touched} files, expected {files}")
    return {"path": str(path), "base": "main", "head": "patch", "files_touched": touched,
            "lines_changed": 3 * files}
