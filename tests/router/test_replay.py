"""`lanelog replay` on a real repository with a history of the shapes real projects have."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.router.conftest import LANES_YAML

POLICY = LANES_YAML.replace('  "src/db/*.py": [prop_round_trip]\n',
                           '  "src/db/*.py": [prop_round_trip]\n  "tests/": [prop_round_trip]\n')
TESTS = "".join(f"def test_{n}():\n    assert put({n}, {n}) == {n}, \"put {n}\"\n\n" for n in range(4))


def lanelog(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None
            ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "lanelog", *args], capture_output=True, text=True,
                          timeout=300, cwd=cwd, env={**os.environ, **(env or {})})


@pytest.fixture
def history(make_repo, tmp_path):
    """A base commit, then five patches: a move, a typo in an assert message, a narrow code
    change, a real test removal, and a rename with an edit; subjects name them."""
    repo = make_repo({"lanes.yaml": POLICY, "tests/test_put.py": TESTS})
    repo.git("checkout", "-q", "main")
    steps = []

    def step(subject, change):
        change()
        steps.append(repo.commit(subject))

    def move():
        (repo.root / "tests/unit").mkdir(parents=True, exist_ok=True)
        repo.git("mv", "tests/test_put.py", "tests/unit/test_put.py")

    step("Move the put tests", move)
    step("Fix a typo in an assert message", lambda: repo.write(
        {"tests/unit/test_put.py": TESTS.replace('"put 2"', '"put two"')}))
    step("Return a copy of the body", lambda: repo.write({"store.py": "def put(key, body):\n    return dict(body)\n"}))
    step("Remove duplicate test", lambda: repo.write(
        {"tests/unit/test_put.py": TESTS.replace('"put 2"', '"put two"').replace(
            'def test_3():\n    assert put(3, 3) == 3, "put 3"\n\n', "")}))

    def rename_and_edit():
        repo.git("mv", "store.py", "storage.py")
        repo.write({"storage.py": "def put(key, body):\n    return dict(body or {})\n"})

    step("Rename store to storage", rename_and_edit)
    candidate = tmp_path / "candidate.yaml"
    candidate.write_text(POLICY + "assertion_rule: net\n", encoding="utf-8")
    base = repo.git("rev-list", "--max-parents=0", "HEAD").strip()
    return repo, base, steps, candidate


def test_replay_flips_what_a_reviewer_expects(history):
    repo, base, steps, candidate = history
    done = lanelog("replay", "--repo", str(repo.root), "--policy", str(candidate),
                   "--commits", f"{base}..main", "--format", "json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["patches"] == 5 and result["skipped"] == []
    # By hand: the move is a rename (nothing removed) and passes under both; the typo fix
    # removes one assert line and adds it back changed: strict rejects it, net passes it;
    # the test removal fires under both; the code change and the rename pass under both.
    assert [(flip["subject"], flip["baseline"]["probe"], flip["candidate"]["probe"]) for flip in result["flips"]] == [
        ("Fix a typo in an assert message", "reject", "pass")]
    assert result["flips"][0]["baseline"]["reasons"] == ["assertion_removed"]
    assert result["flips"][0]["candidate"] == {"probe": "pass", "reasons": [], "units": 1}
    assert result["baseline"]["reasons"] == {"assertion_removed": 2}
    assert result["candidate"]["reasons"] == {"assertion_removed": 1}
    assert (result["baseline"]["probe_rejects"], result["candidate"]["probe_rejects"]) == (2, 1)
    assert (result["baseline"]["calls_armed"], result["candidate"]["calls_armed"]) == (3, 4)
    assert sum(week["candidate"]["calls_armed"] for week in result["weeks"]) == 4


def test_replay_equals_routing_each_commit_alone(history, tmp_path):
    repo, base, steps, candidate = history
    replayed = json.loads(lanelog("replay", "--repo", str(repo.root), "--policy", str(candidate),
                                  "--commits", f"{base}..main", "--format", "json").stdout)
    log = tmp_path / "alone.jsonl"
    expected_rejects = expected_armed = expected_units = 0
    reasons: dict[str, int] = {}
    for commit in steps:
        parent = repo.git("rev-parse", f"{commit}^").strip()
        seconds = int(repo.git("show", "-s", "--format=%ct", commit).strip())
        day = datetime.fromtimestamp(seconds, UTC).date().isoformat()
        lanelog("route", "--repo", str(repo.root), "--base", parent, "--head", commit, "--today", day,
                "--policy", str(candidate), "--out", str(log))
    for line in map(json.loads, log.read_text().splitlines()):
        expected_rejects += line["probe"] == "reject"
        expected_armed += line["model_call_allowed"]
        expected_units += line["units"] if line["model_call_allowed"] else 0
        for reason in set(line["reasons"]):
            reasons[reason] = reasons.get(reason, 0) + 1
    assert replayed["candidate"] == {"probe_rejects": expected_rejects, "calls_armed": expected_armed,
                                     "units": expected_units, "reasons": dict(sorted(reasons.items()))}


def test_replaying_a_lane_log_compares_with_the_recorded_decisions(history, tmp_path):
    repo, base, steps, candidate = history
    log = tmp_path / "lane-log.jsonl"
    for commit in steps:
        lanelog("route", "--repo", str(repo.root), "--base", f"{commit}^", "--head", commit, "--out", str(log))
    with log.open("a") as handle:
        handle.write('{"base": "0000000000000000000000000000000000000000", "head": "main", "ts": "2026-10-05"}\n')
    done = lanelog("replay", "--repo", str(repo.root), "--policy", str(candidate), str(log),
                   "--format", "json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["patches"] == 5
    assert result["skipped"] == [{"line": f"{log}:6", "base": "0" * 40, "head": "main",
                                  "reason": "its base or head is not a commit of this repository"}]
    assert [flip["subject"] for flip in result["flips"]] == ["Fix a typo in an assert message"]


def test_the_old_log_flag_replays_the_same_lines_for_one_release_with_a_note(history, tmp_path):
    repo, base, steps, candidate = history
    log = tmp_path / "lane-log.jsonl"
    for commit in steps[:2]:
        lanelog("route", "--repo", str(repo.root), "--base", f"{commit}^", "--head", commit, "--out", str(log))
    positional = lanelog("replay", "--repo", str(repo.root), "--policy", str(candidate), str(log),
                         "--format", "json")
    old = lanelog("replay", "--repo", str(repo.root), "--policy", str(candidate), "--log", str(log), "--json")
    assert positional.returncode == old.returncode == 0, old.stderr
    assert json.loads(old.stdout) == json.loads(positional.stdout)
    assert json.loads(old.stdout)["patches"] == 2
    assert "warning: --log is deprecated and goes in the next release; use LOG arguments" in old.stderr
    assert "warning: --json is deprecated and goes in the next release; use --format json" in old.stderr
    assert positional.stderr == ""


def test_a_root_commit_in_the_range_is_skipped_with_the_reason(history):
    repo, base, steps, candidate = history
    repo.git("checkout", "-q", "--orphan", "imported")
    repo.git("rm", "-rq", "--cached", ".")
    (repo.root / "imported.txt").write_text("history from elsewhere\n")
    repo.git("add", "imported.txt")
    root = repo.commit("Import another history")
    repo.git("checkout", "-q", "-f", "main")
    repo.git("merge", "-q", "--allow-unrelated-histories", "-m", "merge", "imported")
    result = json.loads(lanelog("replay", "--repo", str(repo.root), "--policy", str(candidate),
                                "--commits", f"{base}..main", "--format", "json").stdout)
    assert result["patches"] == 5
    assert result["skipped"] == [{"head": root, "subject": "Import another history",
                                  "reason": "a root commit: no parent to diff against"}]


def test_a_range_reaching_past_a_young_history_replays_all_of_it_and_says_so(history):
    """`--commits origin/main~300..origin/main` on a repository of fewer commits: every one is replayed
    (the first has no parent and is skipped as always), with a warning, never an error."""
    repo, base, steps, candidate = history
    done = lanelog("replay", "--repo", str(repo.root), "--policy", str(candidate),
                   "--commits", "main~300..main", "--format", "json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    whole = json.loads(lanelog("replay", "--repo", str(repo.root), "--policy", str(candidate),
                               "--commits", f"{base}..main", "--format", "json").stdout)
    # The base is the first commit here: the whole history is the five patches after it.
    assert result["patches"] == whole["patches"] == 5
    commits = len(repo.git("rev-list", "--first-parent", "main").split())
    note = (f"main~300 is before the start of main's history ({commits} commit(s) on its first-parent chain): "
            "every commit of it is replayed")
    assert note in result["warnings"] and f"lanelog replay: warning: {note}" in done.stderr
    unknown = lanelog("replay", "--repo", str(repo.root), "--policy", str(candidate), "--commits", "nope~3..main")
    assert unknown.returncode == 2 and "nope~3 names no commit" in unknown.stderr


def test_an_unusable_candidate_is_an_error_naming_file_line_and_key(history):
    repo, base, steps, candidate = history
    candidate.write_text(POLICY + "assertion_rule: loose\n", encoding="utf-8")
    done = lanelog("replay", "--repo", str(repo.root), "--policy", str(candidate), "--commits", f"{base}..main")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(f"Error: {candidate} line ")
    assert "key assertion_rule: must be one of strict, net, moved_ok, not 'loose'" in done.stderr


def test_the_table_and_markdown_say_the_same(history):
    repo, base, steps, candidate = history
    table = lanelog("replay", "--repo", str(repo.root), "--policy", str(candidate), "--commits", f"{base}..main").stdout
    assert "probe rejects          2          1" in table
    assert "assertion_removed: 2 -> 1" in table
    assert "reject -> pass Fix a typo in an assert message" in table
    review = lanelog("replay", "--repo", str(repo.root), "--policy", str(candidate), "--commits", f"{base}..main",
                     "--format", "markdown").stdout
    assert "| probe rejects | 2 | 1 |" in review and "| assertion\\_removed | 2 | 1 |" in review
    assert "| reject assertion\\_removed | pass | Fix a typo in an assert message |" in review


def test_a_replay_stored_with_db_holds_each_patch_and_leaves_the_lane_log_data_alone(history, tmp_path):
    from lanelog.store import open_db
    from lanelog.store.replays import latest

    repo, base, steps, candidate = history
    log = tmp_path / "lane-log.jsonl"
    lanelog("route", "--repo", str(repo.root), "--base", f"{steps[0]}^", "--head", steps[0], "--out", str(log))
    db = tmp_path / "lanelog.duckdb"
    assert lanelog("ingest", "--db", str(db), str(log)).returncode == 0
    before = json.loads(lanelog("report", "--db", str(db), "--format", "json").stdout)

    ids = []
    for _ in range(2):
        done = lanelog("replay", "--repo", str(repo.root), "--policy", str(candidate),
                       "--commits", f"{base}..main", "--format", "json", "--db", str(db))
        assert done.returncode == 0, done.stderr
        result = json.loads(done.stdout)
        ids.append(result["replay_id"])
        assert f"stored as replay {result['replay_id']} in {db}" in done.stderr
    assert ids == [1, 2]
    assert json.loads(lanelog("report", "--db", str(db), "--format", "json").stdout) == before

    con = open_db(db, read_only=True)
    try:
        stored = latest(con)
        rows = con.execute("SELECT replay_id, count(*) FROM replay_patches GROUP BY 1 ORDER BY 1").fetchall()
    finally:
        con.close()
    assert rows == [(1, 5), (2, 5)]
    assert stored["replay"]["replay_id"] == 2 and stored["replay"]["patches"] == 5
    assert stored["replay"]["source"] == f"commits {base}..main"
    # The stored weeks add up to the JSON's figures, side by side.
    for side in ("baseline", "candidate"):
        assert sum(week[f"{side}_rejects"] for week in stored["weeks"]) == result[side]["probe_rejects"]
        assert sum(week[f"{side}_armed"] for week in stored["weeks"]) == result[side]["calls_armed"]
        assert sum(week[f"{side}_units"] for week in stored["weeks"]) == result[side]["units"]
    assert [(flip["subject"], flip["baseline_probe"], flip["candidate_probe"], flip["baseline_reasons"])
            for flip in stored["flips"]] == [("Fix a typo in an assert message", "reject", "pass",
                                              ["assertion_removed"])]
    assert stored["flips"][0]["head"] == result["flips"][0]["head"]


def test_only_db_stores_a_replay_even_when_lanelog_db_names_the_teams_database(history, tmp_path):
    """The readers' --db falls back to $LANELOG_DB; replay stores only where --db says (docs/replay.md)."""
    repo, base, _steps, candidate = history
    work = tmp_path / "work"
    work.mkdir()
    team = tmp_path / "team.duckdb"
    args = ("replay", "--repo", str(repo.root), "--policy", str(candidate), "--commits", f"{base}..main",
            "--format", "json")
    done = lanelog(*args, cwd=work, env={"LANELOG_DB": str(team)})
    assert done.returncode == 0, done.stderr
    assert "replay_id" not in json.loads(done.stdout) and "stored as replay" not in done.stderr
    assert not team.exists() and list(work.iterdir()) == []
    named = lanelog(*args, "--db", str(team), cwd=work, env={"LANELOG_DB": str(team)})
    assert named.returncode == 0, named.stderr
    assert json.loads(named.stdout)["replay_id"] == 1 and f"stored as replay 1 in {team}" in named.stderr
    assert "even when $LANELOG_DB is set" in " ".join(lanelog("replay", "--help").stdout.split())


def test_a_replay_with_db_on_a_file_that_is_no_lanelog_database_stores_nothing(history, tmp_path):
    repo, base, steps, candidate = history
    db = tmp_path / "other.duckdb"
    db.write_bytes(b"not a database")
    done = lanelog("replay", "--repo", str(repo.root), "--policy", str(candidate),
                   "--commits", f"{base}..main", "--db", str(db))
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert str(db) in done.stderr
    assert db.read_bytes() == b"not a database"


def test_a_replay_of_no_patches_with_db_stores_an_empty_replay(history, tmp_path):
    """Issue 28, class 7: `--commits HEAD..HEAD --db` (no patches) raised from executemany."""
    repo, _base, _steps, candidate = history
    db = tmp_path / "lanelog.duckdb"
    done = lanelog("replay", "--repo", str(repo.root), "--policy", str(candidate),
                   "--commits", "HEAD..HEAD", "--db", str(db), "--format", "json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert (result["patches"], result["replay_id"]) == (0, 1)
    from lanelog.store import open_db
    from lanelog.store.replays import latest
    con = open_db(db, read_only=True)
    try:
        stored = latest(con)
    finally:
        con.close()
    assert stored is not None and stored["replay"]["patches"] == 0 and stored["weeks"] == []


def test_a_replay_with_db_on_a_lane_log_names_it_before_replaying(history, tmp_path):
    """Issue 28, class 1: DuckDB opened a .jsonl path as a throwaway in-memory database,
    and `replay --db` said "stored as replay 1"."""
    repo, base, _steps, candidate = history
    log = tmp_path / "lane-log.jsonl"
    log.write_text('{"attempt_id": "a1", "probe": "pass"}\n')
    done = lanelog("replay", "--repo", str(repo.root), "--policy", str(candidate),
                   "--commits", f"{base}..main", "--db", str(log))
    assert done.returncode == 2
    assert done.stdout == "" and "stored as replay" not in done.stderr
    assert f"cannot open the database {log}: it is a lane log (JSON lines), not a database" in done.stderr
    assert log.read_text() == '{"attempt_id": "a1", "probe": "pass"}\n'


def test_a_stored_replay_names_its_checkout_and_policies_by_absolute_path(history, tmp_path):
    """Issue 32: the What-if page showed "." and "lanes.yaml", relative to wherever replay ran."""
    from lanelog.store import open_db
    from lanelog.store.replays import latest

    repo, base, _steps, candidate = history
    baseline = repo.root / "baseline.yaml"
    baseline.write_text(candidate.read_text())
    db = tmp_path / "lanelog.duckdb"
    done = lanelog("replay", "--repo", ".", "--policy", os.path.relpath(candidate, repo.root),
                   "--baseline", "baseline.yaml", "--commits", f"{base}..main", "--db", str(db), cwd=repo.root)
    assert done.returncode == 0, done.stderr
    con = open_db(db, read_only=True)
    try:
        about = latest(con)["replay"]
    finally:
        con.close()
    assert (about["checkout"], about["candidate"], about["baseline"]) == (
        os.path.realpath(repo.root), os.path.abspath(candidate), str(baseline))
    assert about["source"] == f"commits {base}..main"
