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

LANES_YAML = """\
line_cap: 400
budget_cap: 3
exclude: ["*.lock", "generated/"]
fixture_paths: ["fixtures/", "*.fixture.json"]
test_paths: ["tests/", "test_*"]
assertion_patterns: ['\\bassert', '\\bexpect\\(', '\\bprop_']
properties:
  prop_round_trip: {units: 1, says: "serialize-then-parse returns the same record"}
  prop_idempotent_put: {units: 1, says: "a second put of the same key does not change the stored body"}
  prop_reject_empty: {units: 1, says: "an empty payload remains a client error"}
map:
  store.py: [prop_round_trip, prop_idempotent_put]
  api.py: [prop_reject_empty]
"""

FLAKY_YAML = """\
flaky:
  - id: test_export_race
    expires: 2026-10-22
    owner: ci-team
    reason: shared clock in the export fixture
"""

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


def make_repo(path: Path, files: int) -> dict[str, object]:
    """Create the repository at ``path`` (replacing it) and describe it."""
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)
    git = ["git", "-C", str(path)]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    base = {"lanes.yaml": LANES_YAML.encode(), "flaky.yaml": FLAKY_YAML.encode(),
            "store.py": b"def put(key, body):\n    return body\n"}
    base.update({module_path(i): _module(i, patched=False) for i in range(files)})
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
