"""--first-parent tells a merged pull request from a branch sync the way a maintainer reads real
histories (flask's, click's): a merge of a long-lived branch is a sync, every other merge a pull
request, whatever its subject; syncs are listed apart."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.router.conftest import LANES_YAML

GITLAB = "Merge branch 'fix' into 'main'\n\nFix the put\n\nSee merge request acme/orders!7"
NO_ASSERT = "def handle(payload):\n    return payload\n"


def lanelog(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "lanelog", *args], capture_output=True, text=True, timeout=120)


class History:
    """main of a repository with an `origin` it pushes to, and the ids of what was merged."""

    def __init__(self, repo, tmp_path) -> None:
        self.repo = repo
        repo.git("checkout", "-q", "main")
        self.ids = {"base": repo.git("rev-parse", "main").strip()}
        origin = tmp_path / f"{repo.root.name}-origin.git"
        subprocess.run(["git", "init", "-q", "--bare", str(origin)], check=True, timeout=60)
        repo.git("remote", "add", "origin", str(origin))

    def branch(self, name: str, *changes: dict[str, str], start: str = "main") -> str:
        self.repo.git("checkout", "-q", "-B", name, start)
        for number, files in enumerate(changes):
            self.repo.write(files).commit(f"{name} {number}")
        self.repo.git("checkout", "-q", "main")
        return self.repo.git("rev-parse", name).strip()

    def merge(self, key: str, message: str | None, *names: str) -> str:
        """Merge ``names`` into main with ``message`` (None: the message git writes)."""
        self.repo.git("merge", "-q", "--no-ff", *(("-m", message) if message is not None else ("--no-edit",)), *names)
        self.ids[key] = self.repo.git("rev-parse", "HEAD").strip()
        return self.ids[key]

    def publish(self, *names: str) -> None:
        """Push branches to origin and fetch them back as origin/NAME."""
        self.repo.git("push", "-q", "origin", *names)
        self.repo.git("fetch", "-q", "origin")


@pytest.fixture
def flask_shaped(make_repo, tmp_path):
    """main, shaped as flask's history reads: a GitHub pull request, a "title (#N)" merge, git's
    merge of `stable` (two commits, one dropping an assert), a GitLab merge request, git's merge of
    `origin/stable`, a sync of `3.0.x`, an octopus of two feature branches, a hand merge of a
    feature branch deleted since, a "title (#N)" merge of `stable` itself, then a commit."""
    repo = make_repo()
    history = History(repo, tmp_path)
    history.branch("stable", {"api.py": NO_ASSERT}, {"NOTES": "3.0.1\n"})
    history.publish("stable")
    history.branch("feature", {"store.py": "def put(key, body):\n    return dict(body)\n"})
    history.merge("pull", "Merge pull request #1 from acme/feature", "feature")
    history.branch("copy", {"store.py": "def put(key, body):\n    return dict(body or {})\n"})
    history.merge("title", "Return a copy of an empty body (#2)", "copy")
    history.merge("stable", "Merge branch 'stable'", "stable")
    history.branch("fix", {"README": "orders\n"})
    history.merge("gitlab", GITLAB, "fix")
    history.branch("stable", {"NOTES": "3.0.2\n"}, start="stable")
    history.publish("stable")
    history.merge("origin_stable", None, "origin/stable")
    history.branch("3.0.x", {"CHANGES": "3.0.3\n"})
    history.merge("old", "Merge branch '3.0.x'", "3.0.x")
    history.branch("docs", {"docs/index.md": "orders\n"})
    history.branch("lint", {"setup.cfg": "[flake8]\n"})
    history.merge("octopus", None, "docs", "lint")
    history.branch("feature-2", {"tests/test_store.py": "def test_put():\n    pass\n",
                                "store.py": "def put(key, body):\n    return body or {}\n"})
    history.merge("hand", None, "feature-2")
    repo.git("branch", "-q", "-D", "feature-2")
    history.branch("stable", {"NOTES": "3.0.4\n"}, start="stable")
    history.publish("stable")
    history.merge("release", "Release 3.0.4 (#9)", "origin/stable")
    history.ids["commit"] = repo.write({"store.py": "def put(key, body):\n    return body or None\n"}).commit(
        "Guard an empty body")
    repo.git("branch", "-q", "-D", "stable", "3.0.x")  # as CI checks out: the long-lived branches as origin's
    candidate = tmp_path / "candidate.yaml"
    candidate.write_text(LANES_YAML, encoding="utf-8")
    return repo, history.ids, candidate


def replay(repo, ids, candidate, *args: str, fmt: str = "json", end: str = "main"):
    done = lanelog("replay", "--repo", str(repo.root), "--policy", str(candidate), "--baseline", str(candidate),
                   "--commits", f"{ids['base']}..{end}", "--first-parent", *args, "--format", fmt)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout) if fmt == "json" else done.stdout


def test_git_writes_the_subjects_the_shapes_are_named_for(flask_shaped):
    repo, ids, _candidate = flask_shaped
    subject = {key: repo.git("log", "-1", "--format=%s", ids[key]).strip() for key in ("origin_stable", "octopus",
                                                                                          "hand")}
    assert subject == {"origin_stable": "Merge remote-tracking branch 'origin/stable'",
                       "octopus": "Merge branches 'docs' and 'lint'", "hand": "Merge branch 'feature-2'"}


def test_a_merge_of_a_long_lived_branch_is_a_sync_and_any_other_a_pull_request(flask_shaped):
    repo, ids, candidate = flask_shaped
    result = replay(repo, ids, candidate)
    # By hand: the pull request, the title merge, the GitLab merge request, the octopus and the
    # hand merge are pull requests; stable, origin/stable, 3.0.x and the release of origin/stable syncs.
    assert [record["head"] for record in result["records"]] == [
        ids["pull"], ids["title"], ids["gitlab"], ids["octopus"], ids["hand"], ids["commit"]]
    assert [record["merge"] for record in result["records"]] == ["pull_request"] * 5 + [None]
    assert [(sync["head"], sync["brought"], sync["why"]) for sync in result["syncs"]] == [
        (ids["stable"], 2, "it merges stable, a long-lived branch"),
        (ids["origin_stable"], 1, "it merges origin/stable, a long-lived branch"),
        (ids["old"], 1, "it merges 3.0.x, a long-lived branch"),
        (ids["release"], 1, "its merged-in commit is on origin/stable, a long-lived branch that does not hold "
                            "the merge")]
    assert result["merge_kinds"] == {"pull_request": 5, "sync": 4}
    assert result["sync_rule"] == "long-lived branches"
    # The octopus brought two commits; the others one each.
    assert (result["merges"], result["behind_merges"], result["syncs_included"]) == (5, 6, False)
    # feature-2, merged by hand and deleted since, removes an assert: it is replayed and counted.
    assert result["candidate"]["reasons"]["assertion_removed"] == 1
    assert result["warnings"] == []


def test_the_merged_in_branch_is_read_where_the_subject_names_none(flask_shaped):
    """The same release merge is a pull request once origin/stable is gone: nothing then says its
    commit is a long-lived branch's."""
    repo, ids, candidate = flask_shaped
    repo.git("update-ref", "-d", "refs/remotes/origin/stable")
    result = replay(repo, ids, candidate)
    assert ids["release"] in [record["head"] for record in result["records"]]
    assert [sync["head"] for sync in result["syncs"]] == [ids["stable"], ids["origin_stable"], ids["old"]]


def test_include_syncs_replays_them_and_counts_them(flask_shaped):
    repo, ids, candidate = flask_shaped
    result = replay(repo, ids, candidate, "--include-syncs")
    assert [record["head"] for record in result["records"]] == [
        ids["pull"], ids["title"], ids["stable"], ids["gitlab"], ids["origin_stable"], ids["old"], ids["octopus"],
        ids["hand"], ids["release"], ids["commit"]]
    assert [record["merge"] for record in result["records"]][2:4] == ["sync", "pull_request"]
    assert (result["merges"], result["behind_merges"], result["syncs_included"]) == (9, 11, True)
    assert result["candidate"]["reasons"]["assertion_removed"] == 2
    assert len(result["syncs"]) == 4  # still listed apart


def test_sync_merges_names_the_syncs_and_every_other_merge_is_a_pull_request(flask_shaped):
    repo, ids, candidate = flask_shaped
    result = replay(repo, ids, candidate, "--sync-merges", r"^Merge (remote-tracking )?branch '(origin/)?stable'$")
    matched = "its subject matches --sync-merges"
    assert [(sync["head"], sync["why"]) for sync in result["syncs"]] == [(ids["stable"], matched),
                                                                         (ids["origin_stable"], matched)]
    assert ids["old"] in [record["head"] for record in result["records"]]
    assert result["merge_kinds"] == {"pull_request": 7, "sync": 2} and result["sync_rule"] == "--sync-merges"


def test_the_table_and_the_markdown_list_the_syncs_apart(flask_shaped):
    repo, ids, candidate = flask_shaped
    table = replay(repo, ids, candidate, fmt="text")
    assert "Of the first-parent chain's merges, 5 are pull requests and 4 branch syncs" in table
    assert (f"  sync {ids['stable'][:12]} Merge branch 'stable' (brought 2 commits): it merges stable, a "
            "long-lived branch") in table
    review = replay(repo, ids, candidate, fmt="markdown")
    assert "## Branch syncs (4)" in review
    assert f"| {ids['old'][:12]} |" in review
    assert "| Merge branch '3.0.x' | 1 | it merges 3.0.x, a long-lived branch |" in review


def test_a_sync_pattern_re2_refuses_is_an_error_before_anything_is_replayed(flask_shaped):
    repo, ids, candidate = flask_shaped
    done = lanelog("replay", "--repo", str(repo.root), "--policy", str(candidate), "--commits",
                   f"{ids['base']}..main", "--first-parent", "--sync-merges", "(?<=x)stable")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("Error: --sync-merges '(?<=x)stable' is not an RE2 pattern (")


@pytest.mark.parametrize("flag", [("--sync-merges", "stable"), ("--include-syncs",)])
def test_sync_flags_need_first_parent(flask_shaped, flag):
    repo, ids, candidate = flask_shaped
    done = lanelog("replay", "--repo", str(repo.root), "--policy", str(candidate), "--commits",
                   f"{ids['base']}..main", *flag)
    assert done.returncode == 2 and "give --first-parent" in done.stderr


@pytest.fixture
def hand_merged(make_repo, tmp_path):
    """main of a team that merges by hand with git's own subjects: three feature branches, each
    deleted once merged (the second removes an assert), and one merge of `stable`."""
    repo = make_repo()
    history = History(repo, tmp_path)
    for number, files in enumerate(({"store.py": "def put(key, body):\n    return dict(body)\n"},
                                    {"api.py": NO_ASSERT},
                                    {"README": "orders\n"}), start=1):
        history.branch(f"feature-{number}", files)
        history.merge(f"feature-{number}", None, f"feature-{number}")
        repo.git("branch", "-q", "-D", f"feature-{number}")
    history.branch("stable", {"NOTES": "1.0.1\n"})
    history.merge("stable", None, "stable")
    candidate = tmp_path / "candidate.yaml"
    candidate.write_text(LANES_YAML, encoding="utf-8")
    return repo, history.ids, candidate


def test_a_team_that_merges_by_hand_has_its_feature_merges_replayed_as_pull_requests(hand_merged):
    repo, ids, candidate = hand_merged
    result = replay(repo, ids, candidate)
    assert [record["head"] for record in result["records"]] == [ids["feature-1"], ids["feature-2"], ids["feature-3"]]
    assert result["merge_kinds"] == {"pull_request": 3, "sync": 1} and result["warnings"] == []
    assert result["candidate"]["reasons"]["assertion_removed"] == 1  # feature-2's removed assert is seen


def test_a_range_of_syncs_only_warns_naming_both_ways_out(hand_merged):
    repo, ids, candidate = hand_merged
    done = lanelog("replay", "--repo", str(repo.root), "--policy", str(candidate), "--baseline", str(candidate),
                   "--commits", f"{ids['feature-3']}..main", "--first-parent", "--format", "json")
    result = json.loads(done.stdout)
    warning = ("none of the 1 first-parent merges is a pull request: they were judged syncs as merges of long-lived "
               "branches and are left out of the figures; if they are pull requests, name the branch syncs with "
               "--sync-merges PATTERN (every other merge is then a pull request), or replay every merge with "
               "--include-syncs")
    assert result["warnings"] == [warning] and result["patches"] == 0
    assert done.stderr == f"lanelog replay: warning: {warning}\n"
    review = replay(repo, {"base": ids["feature-3"]}, candidate, fmt="markdown")
    assert "> **Warning:** none of the 1 first-parent merges is a pull request" in review


def test_a_range_of_mostly_syncs_warns_and_says_when_they_are_counted(hand_merged):
    repo, ids, candidate = hand_merged
    result = replay(repo, {"base": ids["feature-2"]}, candidate, "--sync-merges", "^Merge branch", "--include-syncs")
    assert result["merge_kinds"] == {"pull_request": 0, "sync": 2}
    assert result["warnings"] == [
        "none of the 2 first-parent merges is a pull request: they were judged syncs by --sync-merges and are "
        "counted in the figures; if they are pull requests, name the branch syncs with --sync-merges PATTERN "
        "(every other merge is then a pull request), or replay every merge with --include-syncs"]
    result = replay(repo, ids, candidate, "--sync-merges", "'(feature-[12]|stable)'")
    assert result["merge_kinds"] == {"pull_request": 1, "sync": 3}
    assert result["warnings"][0].startswith("3 of the 4 first-parent merges are branch syncs: they were judged")


@pytest.fixture
def release_prepared(make_repo, tmp_path):
    """main as pytest's reads in 2020: a release prepared on a branch of main's tip and merged back
    as a pull request ("Preparing release version 1.1.0 (#16)", then GitHub's "Merge pull request
    #17 from acme/release-1.2.0"), each release branch (1.1.x, 1.2.x) cut later from the merged-in
    commit, so it holds that commit but not the merge; and git's merge of stable, a sync."""
    repo = make_repo()
    history = History(repo, tmp_path)
    history.branch("stable", {"NOTES": "1.0.1\n"})
    history.publish("stable")
    history.ids["prep-1.1"] = history.branch("release-1.1.0", {"CHANGELOG": "1.1.0\n"})
    history.merge("release-1.1", "Preparing release version 1.1.0 (#16)", "release-1.1.0")
    repo.write({"api.py": NO_ASSERT}).commit("Add the api")
    history.ids["prep-1.2"] = history.branch("release-1.2.0", {"CHANGELOG": "1.2.0\n"})
    history.merge("release-1.2", "Merge pull request #17 from acme/release-1.2.0", "release-1.2.0")
    history.merge("stable", "Merge branch 'stable'", "stable")
    for line, prep in (("1.1.x", "prep-1.1"), ("1.2.x", "prep-1.2")):
        history.branch(line, {"NOTES": f"{line} fix\n"}, start=history.ids[prep])
    history.publish("1.1.x", "1.2.x")
    repo.git("branch", "-q", "-D", "stable", "1.1.x", "1.2.x", "release-1.1.0", "release-1.2.0")
    candidate = tmp_path / "candidate.yaml"
    candidate.write_text(LANES_YAML, encoding="utf-8")
    return repo, history.ids, candidate


def test_a_merge_whose_subject_names_a_pull_request_is_one_though_a_release_branch_was_cut_from_it_later(
        release_prepared):
    repo, ids, candidate = release_prepared
    for prep, merge, line in (("prep-1.1", "release-1.1", "origin/1.1.x"), ("prep-1.2", "release-1.2", "origin/1.2.x")):
        assert line in repo.git("branch", "-r", "--contains", ids[prep]).split()
        assert line not in repo.git("branch", "-r", "--contains", ids[merge]).split()
    result = replay(repo, ids, candidate)
    assert [(record["head"], record["merge"]) for record in result["records"]] == [
        (ids["release-1.1"], "pull_request"), (repo.git("rev-parse", f"{ids['release-1.2']}^1").strip(), None),
        (ids["release-1.2"], "pull_request")]
    assert [(sync["head"], sync["why"]) for sync in result["syncs"]] == [
        (ids["stable"], "it merges stable, a long-lived branch")]


def sections(review: str) -> dict[str, list[str]]:
    """Each `## ` section of a markdown review, by its heading: the lines of its body that hold text."""
    found: dict[str, list[str]] = {}
    heading = None
    for line in review.splitlines():
        if line.startswith("## "):
            heading = line
            found[heading] = []
        elif heading is not None and line.strip() and not line.startswith("#"):
            found[heading].append(line)
    return found


def test_a_range_without_a_sync_has_no_syncs_section_and_no_empty_one(hand_merged):
    repo, ids, candidate = hand_merged
    review = replay(repo, ids, candidate, fmt="markdown", end=ids["feature-3"])
    assert ("Read with --first-parent: 3 merged pull requests and 0 other commits replayed; no merge was a branch "
            "sync.") in review
    assert "branch syncs left out" not in review and "Branch syncs" not in review
    assert "No reason moved: each is given to as many patches on both sides." in review
    found = sections(review)
    assert list(found) == ["## Flips (0)"]
    assert all(body and body != ["None."] for body in found.values()), found


def test_a_range_with_a_sync_lists_it_in_its_section(hand_merged):
    repo, ids, candidate = hand_merged
    review = replay(repo, ids, candidate, fmt="markdown")
    assert "0 other commits replayed; 1 branch syncs left out (listed below)." in review
    found = sections(review)
    assert list(found) == ["## Branch syncs (1)", "## Flips (0)"]
    assert f"| {ids['stable'][:12]} |" in "\n".join(found["## Branch syncs (1)"])
