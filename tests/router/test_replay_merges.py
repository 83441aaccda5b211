"""Replay of a merge-based history: --first-parent, --dedupe, the warnings, and the evidence."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.router.conftest import LANES_YAML, Repo


def lanelog(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "lanelog", *args], capture_output=True, text=True, timeout=120)


@pytest.fixture
def at_next_day(monkeypatch) -> Callable[[], None]:
    """Call before each commit or merge: it is dated a day after the one before, from 2026-10-01."""
    day = iter(range(1, 20))

    def next_day() -> None:
        stamp = f"2026-10-{next(day):02d}T12:00:00+00:00"
        monkeypatch.setenv("GIT_AUTHOR_DATE", stamp)
        monkeypatch.setenv("GIT_COMMITTER_DATE", stamp)

    return next_day


@pytest.fixture
def candidate(tmp_path: Path) -> Path:
    """The candidate policy: the one the repositories adopt."""
    path = tmp_path / "candidate.yaml"
    path.write_text(LANES_YAML, encoding="utf-8")
    return path


def started(repo: Repo, at_next_day: Callable[[], None]) -> dict[str, str]:
    """Both histories' start, on main: its head as "base", then c1, a copy returned from put."""
    repo.git("checkout", "-q", "main")
    ids = {"base": repo.git("rev-parse", "main").strip()}
    at_next_day()
    ids["c1"] = repo.write({"store.py": "def put(key, body):\n    return dict(body)\n"}).commit("Return a copy")
    return ids


@pytest.fixture
def merged(make_repo, at_next_day, candidate):
    """main: a patch before any policy, the policy adopted on its own, a merged pull request
    of two commits, a hotfix cherry-picked onto main, then the hotfix branch merged too."""
    repo = make_repo(omit=("lanes.yaml",))
    ids = started(repo, at_next_day)
    at_next_day()
    ids["c2"] = repo.write({"lanes.yaml": LANES_YAML}).commit("Adopt lanelog")
    repo.git("checkout", "-q", "-b", "feature")
    at_next_day()
    ids["f1"] = repo.write({"api.py": "def handle(payload):\n    assert payload\n    return payload or {}\n"}).commit(
        "Default an empty payload")
    at_next_day()
    ids["f2"] = repo.write({"store.py": "def put(key, body):\n    return dict(body or {})\n"}).commit("Tidy put")
    repo.git("checkout", "-q", "main")
    at_next_day()
    repo.git("merge", "-q", "--no-ff", "-m", "Merge pull request #1 from acme/feature", "feature")
    ids["m1"] = repo.git("rev-parse", "HEAD").strip()
    repo.git("checkout", "-q", "-b", "hotfix")
    at_next_day()
    ids["h1"] = repo.write({"store.py": "def put(key, body):\n    return dict(body or {}) or None\n"}).commit(
        "Guard an empty body")
    repo.git("checkout", "-q", "main")
    at_next_day()
    repo.git("cherry-pick", ids["h1"])
    ids["h1_copy"] = repo.git("rev-parse", "HEAD").strip()
    at_next_day()
    repo.git("merge", "-q", "--no-ff", "-m", "Merge pull request #2 from acme/hotfix", "hotfix")
    ids["m2"] = repo.git("rev-parse", "HEAD").strip()
    return repo, ids, candidate


def replay(repo, candidate, *args: str) -> tuple[dict, str]:
    done = lanelog("replay", "--repo", str(repo.root), "--policy", str(candidate), *args, "--format", "json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), done.stderr


def test_without_first_parent_the_merged_commits_are_replayed_one_by_one_with_a_note(merged):
    repo, ids, candidate = merged
    result, stderr = replay(repo, candidate, "--commits", f"{ids['base']}..main")
    # By hand: six non-merge commits; f1, f2 and h1 came only through the two merges.
    assert [record["head"] for record in result["records"]] == [
        ids["c1"], ids["c2"], ids["f1"], ids["f2"], ids["h1"], ids["h1_copy"]]
    assert (result["merges"], result["through_merges"], result["first_parent"]) == (2, 3, False)
    assert any("--first-parent" in warning for warning in result["warnings"])
    assert "lanelog replay: warning: 3 of the replayed patches came through 2 merge(s)" in stderr


def test_first_parent_replays_each_merged_pull_request_as_one_patch(merged):
    repo, ids, candidate = merged
    result, _ = replay(repo, candidate, "--commits", f"{ids['base']}..main", "--first-parent")
    records = {record["head"]: record for record in result["records"]}
    assert list(records) == [ids["c1"], ids["c2"], ids["m1"], ids["h1_copy"], ids["m2"]]
    assert (result["merges"], result["behind_merges"], result["first_parent"]) == (2, 3, True)
    assert result["warnings"] == []  # 2 of 5 bases without a policy: under half
    # By hand.  c1: the base holds no policy (policy_missing); the candidate passes it.
    # c2 adds the first policy: the baseline says merge it first; the candidate maps nothing.
    # m1 is the pull request as CI routed it: api.py and store.py, 3 units, a pass both sides.
    # m2's first-parent diff is empty (the hotfix was cherry-picked already): no_properties.
    decided = {head: (r["baseline"]["probe"], r["baseline"]["reasons"], r["candidate"]["probe"],
                      r["candidate"]["reasons"]) for head, r in records.items()}
    assert decided == {
        ids["c1"]: ("reject", ["policy_missing"], "pass", []),
        ids["c2"]: ("reject", ["policy_missing", "policy_changed"], "reject", ["no_properties"]),
        ids["m1"]: ("pass", [], "pass", []),
        ids["h1_copy"]: ("pass", [], "pass", []),
        ids["m2"]: ("reject", ["no_properties"], "reject", ["no_properties"]),
    }
    # m1: one line replaced in api.py and one in store.py: 2 removed, 2 added.
    assert records[ids["m1"]]["candidate"]["lines_changed"] == 4 and records[ids["m1"]]["candidate"]["units"] == 3
    assert "merge the policy first in its own pull request" in records[ids["c2"]]["baseline"]["message"]
    assert [flip["head"] for flip in result["flips"]] == [ids["c1"]]
    assert result["flips"][0]["evidence"]["baseline"]["message"].startswith("policy_missing: lanes.yaml is not in")
    # Reason-level changes: c2 stays rejected, yet loses two reasons and gains one.
    assert result["reason_changes"] == {"no_properties": {"gained": 1, "lost": 0},
                                        "policy_changed": {"gained": 0, "lost": 1},
                                        "policy_missing": {"gained": 0, "lost": 2}}


def test_dedupe_replays_a_cherry_picked_change_once(merged):
    repo, ids, candidate = merged
    result, _ = replay(repo, candidate, "--commits", f"{ids['base']}..main", "--dedupe")
    assert [record["head"] for record in result["records"]] == [
        ids["c1"], ids["c2"], ids["f1"], ids["f2"], ids["h1"]]
    assert result["duplicates"] == 1
    assert result["skipped"] == [{"head": ids["h1_copy"], "subject": "Guard an empty body",
                                  "reason": f"the same change as {ids['h1'][:12]} (git patch-id): replayed once"}]


def test_a_baseline_of_bases_without_a_policy_is_warned_about(merged, tmp_path):
    repo, ids, candidate = merged
    result, stderr = replay(repo, candidate, "--commits", f"{ids['base']}..{ids['m1']}", "--first-parent")
    assert len(result["records"]) == 3
    assert result["warnings"] == [
        "2 of 3 replayed base commits hold no policy, so the baseline rejects them as policy_missing and "
        "their flips compare with nothing; pass --baseline FILE (the policy you run, or the first one you adopted)"]
    assert "lanelog replay: warning: 2 of 3 replayed base commits hold no policy" in stderr
    table = lanelog("replay", "--repo", str(repo.root), "--policy", str(candidate),
                    "--commits", f"{ids['base']}..{ids['m1']}", "--first-parent")
    assert "warning: 2 of 3 replayed base commits hold no policy" in table.stdout
    with_baseline, _ = replay(repo, candidate, "--commits", f"{ids['base']}..{ids['m1']}", "--first-parent",
                              "--baseline", str(candidate))
    assert with_baseline["warnings"] == [] and with_baseline["flips"] == []


def test_first_parent_and_dedupe_need_a_commit_range(merged, tmp_path):
    repo, ids, candidate = merged
    done = lanelog("replay", "--repo", str(repo.root), "--policy", str(candidate),
                   str(tmp_path / "none.jsonl"), "--first-parent")
    assert done.returncode == 2 and "give --commits A..B" in done.stderr


def test_the_table_says_first_n_of_m_and_the_markdown_lists_all(make_repo, tmp_path):
    """25 flips: the table shows 20 and says how many there are and how to see all; the markdown,
    the policy-review comment, lists every one."""
    repo = make_repo({"lanes.yaml": LANES_YAML})
    repo.git("checkout", "-q", "main")
    base = repo.git("rev-parse", "main").strip()
    for n in range(25):
        repo.write({"api.py": f"def handle(payload):\n    assert payload\n    return payload or {n}\n"}).commit(
            f"Patch {n}")
    candidate = tmp_path / "strict.yaml"
    candidate.write_text(LANES_YAML.replace("line_cap: 400", "line_cap: 1"), encoding="utf-8")
    table = lanelog("replay", "--repo", str(repo.root), "--policy", str(candidate), "--commits", f"{base}..main")
    assert "25 flips (first 20 of 25; --format json lists all)" in table.stdout
    assert table.stdout.count(" pass -> reject ") == 20
    review = lanelog("replay", "--repo", str(repo.root), "--policy", str(candidate), "--commits", f"{base}..main",
                     "--format", "markdown").stdout
    assert "## Flips (25)" in review and review.count("<details>") == 25
    assert "| 25 | " in review and "Every flip is listed with its lines" in review
    assert "| line\\_cap | 25 | 0 |" in review


@pytest.fixture
def merged_apart(make_repo, at_next_day, candidate):
    """main: c1, then three merges.  M1 merges a feature branch that merged a branch of its
    own (X, a merge off main's first-parent chain); M2 merges a history with its own root
    commit (r1); M3 merges a backport of c1 (c1_copy, the same change).  Then c2."""
    repo = make_repo()
    ids = started(repo, at_next_day)
    repo.git("checkout", "-q", "-b", "feature")
    at_next_day()
    ids["f1"] = repo.write({"api.py": "def handle(payload):\n    assert payload\n    return payload or {}\n"}).commit(
        "Default an empty payload")
    repo.git("checkout", "-q", "-b", "sub")
    at_next_day()
    ids["s1"] = repo.write({"notes.txt": "payloads default to {}\n"}).commit("Note the default")
    repo.git("checkout", "-q", "feature")
    at_next_day()
    ids["f2"] = repo.write({"tests/test_api.py": "def test_handle():\n    assert True\n"}).commit("Test handle")
    at_next_day()
    repo.git("merge", "-q", "--no-ff", "-m", "Merge branch sub", "sub")
    ids["x"] = repo.git("rev-parse", "HEAD").strip()
    repo.git("checkout", "-q", "main")
    at_next_day()
    repo.git("merge", "-q", "--no-ff", "-m", "Merge pull request #1 from acme/feature", "feature")
    ids["m1"] = repo.git("rev-parse", "HEAD").strip()
    repo.git("checkout", "-q", "--orphan", "vendored")
    repo.git("rm", "-rfq", ".")
    at_next_day()
    ids["r1"] = repo.write({"vendor/LICENSE": "MIT\n"}).commit("Vendor a library")
    repo.git("checkout", "-q", "main")
    at_next_day()
    repo.git("merge", "-q", "--no-ff", "--allow-unrelated-histories", "-m", "Merge pull request #2 from acme/vendored",
             "vendored")
    ids["m2"] = repo.git("rev-parse", "HEAD").strip()
    repo.git("checkout", "-q", "-b", "backport", ids["base"])
    at_next_day()
    repo.git("cherry-pick", ids["c1"])
    ids["c1_copy"] = repo.git("rev-parse", "HEAD").strip()
    repo.git("checkout", "-q", "main")
    at_next_day()
    repo.git("merge", "-q", "--no-ff", "-m", "Merge pull request #3 from acme/backport", "backport")
    ids["m3"] = repo.git("rev-parse", "HEAD").strip()
    at_next_day()
    ids["c2"] = repo.write({"api.py": "def handle(payload):\n    assert payload is not None\n    return payload\n"}
                           ).commit("Accept an empty payload")
    return repo, ids, candidate


def test_the_merge_counts_are_of_the_patches_replayed_not_of_the_range(merged_apart):
    """r1, a root commit behind M2, is skipped: it came through no merge as a replayed patch,
    and M2 brought no replayed patch.  X is a merge off the chain: f1, s1 and f2 came through M1."""
    repo, ids, candidate = merged_apart
    result, stderr = replay(repo, candidate, "--commits", f"{ids['base']}..main")
    assert [record["head"] for record in result["records"]] == [
        ids["c1"], ids["f1"], ids["s1"], ids["f2"], ids["c1_copy"], ids["c2"]]
    assert [skip["head"] for skip in result["skipped"]] == [ids["r1"]]
    # By hand: f1, s1 and f2 through M1, c1_copy through M3.
    assert (result["merges"], result["through_merges"]) == (2, 4)
    assert "lanelog replay: warning: 4 of the replayed patches came through 2 merge(s)" in stderr


def test_first_parent_counts_the_merges_of_the_chain_it_replays(merged_apart):
    repo, ids, candidate = merged_apart
    result, _ = replay(repo, candidate, "--commits", f"{ids['base']}..main", "--first-parent")
    assert [record["head"] for record in result["records"]] == [ids["c1"], ids["m1"], ids["m2"], ids["m3"], ids["c2"]]
    # By hand: M1, M2 and M3 are replayed, X is not; behind them f1, s1, f2, X, r1 and c1_copy.
    assert (result["merges"], result["behind_merges"]) == (3, 6)


def test_a_copy_left_out_by_dedupe_is_not_counted_as_came_through_a_merge(merged_apart):
    repo, ids, candidate = merged_apart
    result, stderr = replay(repo, candidate, "--commits", f"{ids['base']}..main", "--dedupe")
    assert [record["head"] for record in result["records"]] == [ids["c1"], ids["f1"], ids["s1"], ids["f2"], ids["c2"]]
    assert result["duplicates"] == 1
    # M3 brought only the copy, left out: f1, s1 and f2 came through M1 alone.
    assert (result["merges"], result["through_merges"]) == (1, 3)
    assert "lanelog replay: warning: 3 of the replayed patches came through 1 merge(s)" in stderr
