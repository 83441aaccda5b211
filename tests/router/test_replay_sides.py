"""Replay's sides chosen apart: the candidate alone (--no-baseline, a first policy) and each
side's own flaky list (--baseline-flaky, a flaky-list change)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.router.conftest import FLAKY_YAML, LANES_YAML

# The patches' committer day, so the freezes' expiry dates read the same on every run.
DAY = "2026-10-08T12:00:00+00:00"
PUT_RACE = """\
  - id: test_put_race
    expires: 2026-12-31
    owner: storage-team
    reason: two puts race on the fixture's clock
    paths: ["store.py"]
"""


def lanelog(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "lanelog", "replay", *args], capture_output=True,
                          text=True, timeout=300, check=False)


@pytest.fixture(autouse=True)
def _fixed_day(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_COMMITTER_DATE", DAY)
    monkeypatch.setenv("GIT_AUTHOR_DATE", DAY)


def three_patches(repo) -> tuple[str, list[str]]:
    """A store change (two properties), an assert removed from api.py, a README: on main."""
    repo.git("checkout", "-q", "main")
    base = repo.git("rev-parse", "HEAD").strip()
    heads = [
        repo.write({"store.py": "def put(key, body):\n    return dict(body)\n"}).commit("Copy the body"),
        repo.write({"api.py": "def handle(payload):\n    return payload\n"}).commit("Drop the payload assert"),
        repo.write({"README.md": "orders\n"}).commit("Add a readme"),
    ]
    return base, heads


def test_no_baseline_shows_the_candidate_alone_and_its_rejects(make_repo, tmp_path):
    # The base holds no policy yet: this is the history a first policy pull request replays.
    repo = make_repo(omit=("lanes.yaml", "flaky.yaml"))
    base, heads = three_patches(repo)
    candidate = tmp_path / "lanes.yaml"
    candidate.write_text(LANES_YAML, encoding="utf-8")
    args = ["--repo", str(repo.root), "--policy", str(candidate), "--no-baseline", "--commits", f"{base}..main"]
    done = lanelog(*args, "--format", "json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    # By hand: the store change selects two properties (2 units) and passes; the dropped
    # assert is assertion_removed; the readme maps to no property.
    assert result["baseline"] is None and result["flips"] == [] and result["warnings"] == []
    assert result["candidate"] == {"probe_rejects": 2, "calls_armed": 1, "units": 2,
                                   "reasons": {"assertion_removed": 1, "no_properties": 1}}
    assert [(r["head"], r["baseline"], r["candidate"]["probe"]) for r in result["records"]] == [
        (heads[0], None, "pass"), (heads[1], None, "reject"), (heads[2], None, "reject")]
    assert [week["baseline"] for week in result["weeks"]] == [None]
    review = lanelog(*args, "--format", "markdown").stdout
    assert "alone, with no baseline to compare with: 3 patches, 0 skipped." in review
    assert "| probe rejects | 2 |" in review and "## Rejects (2)" in review
    assert f"| {heads[1][:12]} | reject assertion\\_removed | Drop the payload assert |" in review
    assert f"| {heads[2][:12]} | reject no\\_properties | Add a readme |" in review
    assert "Flips" not in review and "warning" not in review.lower()
    table = lanelog(*args).stdout
    assert "2 rejects" in table and f"{heads[1][:12]} assertion_removed Drop the payload assert" in table


def test_no_baseline_refuses_a_baseline_or_a_database(make_repo, tmp_path):
    repo = make_repo()
    base, _ = three_patches(repo)
    candidate = tmp_path / "lanes.yaml"
    candidate.write_text(LANES_YAML, encoding="utf-8")
    common = ["--repo", str(repo.root), "--policy", str(candidate), "--no-baseline", "--commits", f"{base}..main"]
    with_baseline = lanelog(*common, "--baseline", str(candidate))
    assert with_baseline.returncode == 2
    assert "--no-baseline decides under the candidate alone: leave out --baseline and --baseline-flaky" in (
        with_baseline.stderr)
    with_db = lanelog(*common, "--db", str(tmp_path / "lanelog.duckdb"))
    assert with_db.returncode == 2
    assert "--no-baseline has no baseline to store beside the candidate: leave out --db" in with_db.stderr
    assert not (tmp_path / "lanelog.duckdb").exists()


def test_baseline_flaky_compares_the_pull_requests_flaky_list_with_the_bases(make_repo, tmp_path):
    repo = make_repo()
    base, heads = three_patches(repo)
    before, after = tmp_path / "base-flaky.yaml", tmp_path / "flaky.yaml"
    before.write_text(FLAKY_YAML, encoding="utf-8")
    after.write_text(FLAKY_YAML + PUT_RACE, encoding="utf-8")
    args = ["--repo", str(repo.root), "--policy", str(repo.root / "lanes.yaml"), "--baseline",
            str(repo.root / "lanes.yaml"), "--commits", f"{base}..main"]
    done = lanelog(*args, "--flaky", str(after), "--baseline-flaky", str(before), "--format", "json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    # A flaky list moves no probe: only the passing store change, in test_put_race's paths,
    # gains the new freeze; test_export_race (live on 2026-10-08) guards both sides.
    assert result["flips"] == [] and result["baseline"] == result["candidate"]
    assert result["quarantine_changes"] == {"test_put_race": {"gained": 1, "lost": 0}}
    store = result["records"][0]
    assert store["baseline"]["quarantine"] == ["test_export_race"]
    assert store["candidate"]["quarantine"] == ["test_export_race", "test_put_race"]
    assert [r["candidate"]["quarantine"] for r in result["records"][1:]] == [[], []]
    review = lanelog(*args, "--flaky", str(after), "--baseline-flaky", str(before), "--format", "markdown").stdout
    assert "## Flips (0)" in review and "## Quarantine changes (1)" in review
    assert "| test\\_put\\_race | 1 | 0 |" in review
    assert (f"| {heads[0][:12]} | test\\_export\\_race | test\\_export\\_race, test\\_put\\_race | "
            "Copy the body |") in review
    table = lanelog(*args, "--flaky", str(after), "--baseline-flaky", str(before)).stdout
    assert "quarantined tests gained and lost, patch by patch:\n  test_put_race: +1 -0" in table
    # The same list on both sides (--flaky alone) moves nothing.
    same = json.loads(lanelog(*args, "--flaky", str(after), "--format", "json").stdout)
    assert same["quarantine_changes"] == {} and same["records"][0]["baseline"]["quarantine"] == [
        "test_export_race", "test_put_race"]


def test_an_unusable_baseline_flaky_list_is_an_error_naming_the_file(make_repo, tmp_path):
    repo = make_repo()
    base, _ = three_patches(repo)
    broken = tmp_path / "base-flaky.yaml"
    broken.write_text("flaky:\n  - id: test_export_race\n    expires: 2026-10-22\n", encoding="utf-8")
    done = lanelog("--repo", str(repo.root), "--policy", str(repo.root / "lanes.yaml"),
                   "--baseline-flaky", str(broken), "--commits", f"{base}..main")
    assert done.returncode == 2
    assert f"Error: {broken} line 2, row 1 (test_export_race): missing owner, reason" in done.stderr
