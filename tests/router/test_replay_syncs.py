"""--first-parent tells a merged pull request from a branch sync ("Merge branch 'stable'"), and lists syncs apart."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.router.conftest import LANES_YAML

GITLAB = "Merge branch 'fix' into 'main'\n\nFix the put\n\nSee merge request acme/orders!7"


def lanelog(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "lanelog", *args], capture_output=True, text=True, timeout=120)


@pytest.fixture
def synced(make_repo, tmp_path):
    """main: a GitHub pull request, a sync of `stable` (two commits, one dropping an assert), a
    GitLab merge request, git's own merge of a local branch, a sync of `3.0.x`, then a commit."""
    repo = make_repo()
    repo.git("checkout", "-q", "main")
    ids = {"base": repo.git("rev-parse", "main").strip()}

    def branch(name: str, *changes: dict[str, str]) -> None:
        repo.git("checkout", "-q", "-b", name, "main")
        for number, files in enumerate(changes):
            repo.write(files).commit(f"{name} {number}")
        repo.git("checkout", "-q", "main")

    def merge(key: str, name: str, message: str) -> None:
        repo.git("merge", "-q", "--no-ff", "-m", message, name)
        ids[key] = repo.git("rev-parse", "HEAD").strip()

    branch("stable", {"api.py": "def handle(payload):\n    return payload\n"}, {"NOTES": "3.0.1\n"})
    branch("feature", {"store.py": "def put(key, body):\n    return dict(body)\n"})
    merge("pull", "feature", "Merge pull request #1 from acme/feature")
    merge("stable", "stable", "Merge branch 'stable'")
    branch("fix", {"store.py": "def put(key, body):\n    return dict(body or {})\n"})
    merge("gitlab", "fix", GITLAB)
    branch("topic", {"README": "orders\n"})
    merge("topic", "topic", "Merge branch 'topic'")
    branch("3.0.x", {"CHANGES": "3.0.2\n"})
    merge("old", "3.0.x", "Merge branch '3.0.x'")
    ids["commit"] = repo.write({"store.py": "def put(key, body):\n    return dict(body or {}) or None\n"}).commit(
        "Guard an empty body")
    candidate = tmp_path / "candidate.yaml"
    candidate.write_text(LANES_YAML, encoding="utf-8")
    return repo, ids, candidate


def replay(repo, ids, candidate, *args: str, fmt: str = "json"):
    done = lanelog("replay", "--repo", str(repo.root), "--policy", str(candidate), "--baseline", str(candidate),
                   "--commits", f"{ids['base']}..main", "--first-parent", *args, "--format", fmt)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout) if fmt == "json" else done.stdout


def test_by_default_a_merge_a_forge_wrote_is_a_pull_request_and_any_other_a_sync(synced):
    repo, ids, candidate = synced
    result = replay(repo, ids, candidate)
    assert [record["head"] for record in result["records"]] == [ids["pull"], ids["gitlab"], ids["commit"]]
    assert [record["merge"] for record in result["records"]] == ["pull_request", "pull_request", None]
    # By hand: the pull requests brought one commit each; stable two, topic and 3.0.x one each.
    assert result["syncs"] == [
        {"head": ids["stable"], "subject": "Merge branch 'stable'", "day": result["syncs"][0]["day"], "brought": 2},
        {"head": ids["topic"], "subject": "Merge branch 'topic'", "day": result["syncs"][1]["day"], "brought": 1},
        {"head": ids["old"], "subject": "Merge branch '3.0.x'", "day": result["syncs"][2]["day"], "brought": 1}]
    assert result["merge_kinds"] == {"pull_request": 2, "sync": 3}
    assert (result["merges"], result["behind_merges"], result["syncs_included"]) == (2, 2, False)
    # The sync that drops an assert is left out of the figures.
    assert "assertion_removed" not in result["candidate"]["reasons"]
    assert result["patches"] == 3


def test_include_syncs_replays_them_and_counts_them(synced):
    repo, ids, candidate = synced
    result = replay(repo, ids, candidate, "--include-syncs")
    assert [record["head"] for record in result["records"]] == [
        ids["pull"], ids["stable"], ids["gitlab"], ids["topic"], ids["old"], ids["commit"]]
    assert [record["merge"] for record in result["records"]][:2] == ["pull_request", "sync"]
    assert (result["merges"], result["behind_merges"], result["syncs_included"]) == (5, 6, True)
    assert result["candidate"]["reasons"]["assertion_removed"] == 1
    assert len(result["syncs"]) == 3  # still listed apart


def test_sync_merges_names_the_syncs_and_every_other_merge_is_a_pull_request(synced):
    repo, ids, candidate = synced
    result = replay(repo, ids, candidate, "--sync-merges", r"^Merge branch '(stable|[0-9.]+x)'$")
    assert [sync["head"] for sync in result["syncs"]] == [ids["stable"], ids["old"]]
    assert [record["head"] for record in result["records"]] == [ids["pull"], ids["gitlab"], ids["topic"],
                                                                ids["commit"]]
    assert result["merge_kinds"] == {"pull_request": 3, "sync": 2} and result["sync_rule"] == "--sync-merges"


def test_the_table_and_the_markdown_list_the_syncs_apart(synced):
    repo, ids, candidate = synced
    table = replay(repo, ids, candidate, fmt="text")
    assert "Of the first-parent chain's merges, 2 are pull requests and 3 branch syncs" in table
    assert f"  sync {ids['stable'][:12]} Merge branch 'stable' (brought 2 commits)" in table
    review = replay(repo, ids, candidate, fmt="markdown")
    assert "## Branch syncs (3)" in review
    assert f"| {ids['old'][:12]} |" in review and "| Merge branch '3.0.x' | 1 |" in review


def test_a_sync_pattern_re2_refuses_is_an_error_before_anything_is_replayed(synced):
    repo, ids, candidate = synced
    done = lanelog("replay", "--repo", str(repo.root), "--policy", str(candidate), "--commits",
                   f"{ids['base']}..main", "--first-parent", "--sync-merges", "(?<=x)stable")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("Error: --sync-merges '(?<=x)stable' is not an RE2 pattern (")


@pytest.mark.parametrize("flag", [("--sync-merges", "stable"), ("--include-syncs",)])
def test_sync_flags_need_first_parent(synced, flag):
    repo, ids, candidate = synced
    done = lanelog("replay", "--repo", str(repo.root), "--policy", str(candidate), "--commits",
                   f"{ids['base']}..main", *flag)
    assert done.returncode == 2 and "give --first-parent" in done.stderr
