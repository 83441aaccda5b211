"""lines_changed is the sum of `git diff --numstat`'s two columns, in route and replay alike."""

from __future__ import annotations

import json
import re
import subprocess
import sys

from tests.router.conftest import LANES_YAML

# Groups of four lines only one side has, each followed by one line both sides have
# many times, and a common tail of over a kilobyte.  At -U0 git trims that tail before
# diffing, the repeated line then counts as frequent and is discarded: the -U0 diff
# removes and adds it (198 lines), where `git diff --numstat` matches it (160).
TAIL = [f"tail line {i:04d} " + "." * 30 for i in range(2000)]
OLD = [x for i in range(20) for x in (*(f"old {i} {j}" for j in range(4)), "X")] + TAIL
NEW = [x for i in range(20) for x in (*(f"new {i} {j}" for j in range(4)), "X")] + TAIL


def numstat_sum(repo, *extra: str) -> int:
    """The numstat rows' sum (-U0 makes git print the patch too: its lines are left out)."""
    out = repo.git("diff", "--numstat", *extra, "main", "patch")
    rows = [row.split("\t") for row in out.splitlines() if re.match(r"\d+\t\d+\t", row)]
    return sum(int(added) + int(deleted) for added, deleted, _ in rows)


def test_lines_changed_is_numstats_count_where_the_U0_diff_differs(make_repo, route, tmp_path):
    repo = make_repo({"store.py": "\n".join(OLD) + "\n"})
    repo.write({"store.py": "\n".join(NEW) + "\n"}).commit("rewrite the head of store.py")
    # The history reproduces the difference: written out by hand, 80 lines removed and 80 added.
    assert (numstat_sum(repo), numstat_sum(repo, "-U0")) == (160, 198)
    line = route(repo).line
    assert line["lines_changed"] == 160
    candidate = tmp_path / "candidate.yaml"
    candidate.write_text(LANES_YAML, encoding="utf-8")
    base = repo.git("rev-parse", "main").strip()
    done = subprocess.run([sys.executable, "-m", "lanelog", "replay", "--repo", str(repo.root),
                           "--policy", str(candidate), "--commits", f"{base}..patch", "--format", "json"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    records = json.loads(done.stdout)["records"]
    assert [(record["baseline"]["lines_changed"], record["candidate"]["lines_changed"]) for record in records] == [
        (160, 160)]


def test_a_user_diff_context_setting_does_not_change_the_count(make_repo, route, monkeypatch, tmp_path):
    repo = make_repo({"store.py": "\n".join(OLD) + "\n"})
    repo.write({"store.py": "\n".join(NEW) + "\n"}).commit("rewrite the head of store.py")
    config = tmp_path / "gitconfig"
    config.write_text("[diff]\n\tcontext = 0\n", encoding="utf-8")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    assert route(repo).line["lines_changed"] == 160
