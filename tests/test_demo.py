"""`lanelog demo`: real router lines covering every reject reason, lane outcomes, and credit bugs."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from lanelog.cli.demo.runner import wanted_outcome
from lanelog.router.decide import REASONS
from lanelog.store.db import SCHEMA_VERSION
from tests.install.support import leaving_out

# internal_error marks a router bug (an unexpected exception); honest demo data has none.
DEMO_REASONS = set(REASONS) - {"internal_error"}
ROUTER_FIELDS = {
    "schema", "ts", "attempt_id", "repo", "base", "head", "probe", "reasons", "message", "lines_changed",
    "files", "files_count", "properties", "units", "quarantine", "expired_freezes", "merge_credit",
    "model_call_allowed", "review", "producer", "budget_cap", "line_cap", "lane", "results",
    "pull_request", "agent",
}


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(text) for text in path.read_text().splitlines()]


@pytest.fixture
def made_by_the_demo(demo_dir: Path, tmp_path: Path) -> Path:
    """A database `lanelog demo` made (a copy of the run's four-week demo), as the set-up command leaves it."""
    db = tmp_path / "lanelog.duckdb"
    shutil.copyfile(demo_dir / "demo.duckdb", db)
    return db


def test_demo_lines_come_from_the_real_router_and_cover_every_reject_reason(demo_dir: Path) -> None:
    routed = lines(demo_dir / "logs" / "lane-log.jsonl")
    assert 40 <= len(routed) <= 80  # 4 weeks of 10-20 patches
    # `freezes` is optional: present exactly when the line lists a freeze id; `usage` when a run reported one;
    # `evidence` when the decision read some; `cost_estimate` when the policy sets a cost cap (billing's).
    assert all(set(row) - {"freezes", "usage", "evidence", "cost_estimate"} == ROUTER_FIELDS
               and row["producer"] == "lanelog-route" for row in routed)
    assert {row["repo"] for row in routed if "cost_estimate" in row} == {"billing-service"}
    assert all(("freezes" in row) == bool(row["quarantine"] or row["expired_freezes"]) for row in routed)
    assert all(row["schema"] == 1 and row["merge_credit"] == 0 and row["review"] == "pending" for row in routed)
    assert {reason for row in routed for reason in row["reasons"]} == DEMO_REASONS
    assert {row["lane"] for row in routed} == {"not_started", "hold", "fail", "unresolved"}
    assert len({row["attempt_id"] for row in routed}) == len(routed)
    weeks = {row["ts"][:10] for row in routed}
    assert min(weeks) == "2026-09-21" and max(weeks) <= "2026-10-16"


def test_demo_has_live_and_expired_freezes(demo_dir: Path) -> None:
    routed = lines(demo_dir / "logs" / "lane-log.jsonl")
    assert any(row["quarantine"] for row in routed)
    assert any(row["expired_freezes"] for row in routed)


def test_faulty_producer_lines_are_labelled_and_are_credit_bugs(demo_dir: Path) -> None:
    promoted = lines(demo_dir / "logs" / "legacy-promoter.jsonl")
    routed = {row["attempt_id"]: row for row in lines(demo_dir / "logs" / "lane-log.jsonl")}
    assert promoted
    for row in promoted:
        assert row["producer"] == "legacy-promoter"
        assert row["merge_credit"] == 1 and row["quarantine"]
        assert routed[row["promotes"]]["lane"] == "hold"
    summary = json.loads((demo_dir / "summary.json").read_text())
    assert summary["credit_bugs"] == len(promoted)
    assert summary["ingest"]["attempts_added"] == len(routed) + len(promoted)


def test_demo_database_reports_the_credit_bugs(demo_dir: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "lanelog", "check", "--db", str(demo_dir / "demo.duckdb"), "--format", "json"],
        capture_output=True, text=True,
    )
    assert done.returncode == 1
    promoted = {row["attempt_id"] for row in lines(demo_dir / "logs" / "legacy-promoter.jsonl")}
    rows = [json.loads(text) for text in done.stdout.splitlines() if text.strip()]
    flagged = {row["attempt_id"] for row in rows if row["kind"] == "credit_bug"}
    assert flagged == promoted


def test_demo_refuses_to_overwrite_an_existing_database(tmp_path: Path) -> None:
    db = tmp_path / "real.duckdb"
    db.write_bytes(b"not mine")
    done = subprocess.run(
        [sys.executable, "-m", "lanelog", "demo", "--db", str(db), "--weeks", "1"],
        capture_output=True, text=True,
    )
    assert done.returncode == 2
    assert f"Error: {db} already exists and is not a database the demo made; keep it" in done.stderr
    assert f"`lanelog demo --db {db} --replace`" in done.stderr  # the hint names the user's own --db
    assert db.read_bytes() == b"not mine"


def test_demo_run_again_rebuilds_its_own_database(made_by_the_demo: Path, demo_dir: Path) -> None:
    db = made_by_the_demo
    first = json.loads((demo_dir / "summary.json").read_text())  # four weeks
    again = subprocess.run(
        [sys.executable, "-m", "lanelog", "demo", "--db", str(db), "--weeks", "1", "--format", "json"],
        capture_output=True, text=True, timeout=300,
    )
    assert again.returncode == 0, again.stderr
    second = json.loads(again.stdout)
    report = subprocess.run(
        [sys.executable, "-m", "lanelog", "report", "--db", str(db), "--format", "json"],
        capture_output=True, text=True, check=True, timeout=120,
    )
    # Rebuilt, not appended to: the database holds the second run's attempts only.
    assert 0 < json.loads(report.stdout)["totals"]["attempts"] == second["attempts"] < first["attempts"]


def test_a_demo_database_of_an_earlier_schema_is_rebuilt_and_a_user_one_is_not(tmp_path: Path) -> None:
    import shutil

    import duckdb

    fixture = Path(__file__).parent / "store" / "data" / "v2.duckdb"
    demo_v2, user_v2 = tmp_path / "demo-v2.duckdb", tmp_path / "user-v2.duckdb"
    shutil.copyfile(fixture, demo_v2)
    shutil.copyfile(fixture, user_v2)
    with duckdb.connect(str(demo_v2)) as con:  # as an earlier lanelog's demo left it: no replay of a user's
        con.execute("DELETE FROM replay_patches")
        con.execute("DELETE FROM replays")
        fingerprints = [row[0] for row in con.execute("SELECT fingerprint FROM sources").fetchall()]
        con.execute("INSERT INTO lanelog_meta VALUES ('made_by', 'lanelog demo'), ('demo_logs', ?)",
                    [json.dumps(fingerprints)])
    user_before = user_v2.read_bytes()

    def demo(db: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "lanelog", "demo", "--db", str(db), "--weeks", "1",
                               "--format", "json"], capture_output=True, text=True, timeout=300)

    rebuilt = demo(demo_v2)
    assert rebuilt.returncode == 0, rebuilt.stderr
    with duckdb.connect(str(demo_v2), read_only=True) as con:
        # Rebuilt at this lanelog's schema version, whatever the earlier one was.
        assert con.execute("SELECT value FROM lanelog_meta WHERE key = 'schema_version'").fetchone() == (
            str(SCHEMA_VERSION),)
        assert con.execute("SELECT count(*) FROM attempts").fetchone() == (json.loads(rebuilt.stdout)["attempts"],)
    refused = demo(user_v2)
    assert refused.returncode == 2
    assert f"Error: {user_v2} already exists and was not made by the demo; keep it" in refused.stderr
    assert user_v2.read_bytes() == user_before


def test_the_set_up_command_twice_keeps_what_the_user_ingested_in_between(
    made_by_the_demo: Path, tmp_path: Path
) -> None:
    db = made_by_the_demo
    demo = [sys.executable, "-m", "lanelog", "demo", "--db", str(db), "--weeks", "1", "--format", "json"]
    own = tmp_path / "mine.jsonl"
    own.write_text("".join(
        json.dumps({"attempt_id": f"mine-{i}", "ts": "2026-10-05T09:00:00Z", "probe": "pass", "repo": "mine"}) + "\n"
        for i in range(6)
    ))
    subprocess.run([sys.executable, "-m", "lanelog", "ingest", "--db", str(db), str(own)],
                   capture_output=True, text=True, check=True, timeout=120)
    before = db.read_bytes()

    again = subprocess.run(demo, capture_output=True, text=True, timeout=300)
    assert again.returncode == 2
    assert again.stdout == ""
    assert (f"Error: {db} was made by the demo, but holds 1 log(s) the demo did not write ({own}), "
            "so it is not rebuilt; keep it and make the demo elsewhere with `lanelog demo --db OTHER.duckdb`"
            in again.stderr)
    assert f"`lanelog demo --db {db} --replace`" in again.stderr  # the hint carries the user's --db
    assert db.read_bytes() == before
    report = subprocess.run(
        [sys.executable, "-m", "lanelog", "report", "--db", str(db), "--repo-name", "mine", "--format", "json"],
        capture_output=True, text=True, check=True, timeout=120,
    )
    assert json.loads(report.stdout)["totals"]["attempts"] == 6


def test_serve_on_a_busy_port_fails_before_building_anything(tmp_path: Path) -> None:
    db = tmp_path / "lanelog.duckdb"
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "lanelog", "demo", "--db", str(db), "--serve", "--port", str(port)],
            capture_output=True, text=True, timeout=60,
        )
    assert done.returncode == 2
    assert f"Error: port {port} on 127.0.0.1 is not free (Address already in use)" in done.stderr
    assert not db.exists()


# A home folder holding the clone at ./lanelog: the whole source tree (a namespace package
# that wins over an editable install), or just its lanelog/ folder (which wins over a wheel's).
CLONES = {
    "clone": (".", leaving_out("bench")),
    "lanelog folder": ("lanelog", shutil.ignore_patterns("__pycache__")),
}


@pytest.mark.parametrize("shape", sorted(CLONES))
def test_the_demo_runs_from_a_folder_holding_a_clone_of_lanelog(shape: str, tmp_path: Path) -> None:
    """Every Python the demo starts imports the installed package, never the working folder's `lanelog/`."""
    home = tmp_path / "home"
    part, ignore = CLONES[shape]
    shutil.copytree(Path(__file__).parents[1] / part, home / "lanelog", ignore=ignore)
    done = subprocess.run(
        [sys.executable, "-P", "-m", "lanelog", "demo", "--db", str(tmp_path / "demo.duckdb"), "--weeks", "1",
         "--out", str(tmp_path / "logs"), "--format", "json"],
        capture_output=True, text=True, cwd=home, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["attempts"] == len(lines(tmp_path / "logs" / "lane-log.jsonl")) > 0
    assert sum(summary["lanes"].values()) == summary["attempts"]
    assert summary["lanes"].get("hold", 0) > 0  # the property runner ran, from the installed package too


@pytest.mark.parametrize(
    ("marker", "prop", "expected"),
    [
        ("+# demo-outcome: *=hold", "prop_round_trip", "hold"),
        ("+# demo-outcome: prop_idempotent_put=fail", "prop_idempotent_put", "fail"),
        ("+# demo-outcome: prop_idempotent_put=fail", "prop_round_trip", "hold"),
        ("+# demo-outcome: prop_round_trip=prose *=hold", "prop_round_trip", "prose"),
        ("-# demo-outcome: *=fail", "prop_round_trip", "hold"),
    ],
)
def test_runner_answers_what_the_patch_marker_asks(marker: str, prop: str, expected: str) -> None:
    assert wanted_outcome(f"--- a/store.py\n+++ b/store.py\n{marker}\n", prop) == expected



def test_the_demo_summary_accounts_for_every_attempt(demo_dir: Path) -> None:
    summary = json.loads((demo_dir / "summary.json").read_text())
    attempts = summary["attempts"]
    assert sum(summary["producers"].values()) == attempts
    assert sum(summary["outcomes"].values()) == attempts
    assert sum(summary["lanes"].values()) == attempts
    assert summary["producers"]["legacy-promoter"] == summary["credit_bugs"] > 0
    assert summary["outcomes"]["neither"] == summary["credit_bugs"]  # the promoter arms nothing
    report = subprocess.run(
        [sys.executable, "-m", "lanelog", "report", "--db", str(demo_dir / "demo.duckdb"), "--format", "json"],
        capture_output=True, text=True, check=True,
    )
    totals = json.loads(report.stdout)["totals"]
    assert (totals["attempts"], totals["probe_rejects"], totals["calls_armed"]) == (
        attempts, summary["outcomes"]["probe_reject"], summary["outcomes"]["armed"])
    # The one credit-bug count: the summary's is the report's, both kinds, read from what was stored.
    assert (summary["credit_bugs"], summary["merge_credit_bugs"], summary["credit_bugs_total"]) == (
        totals["credit_bugs"], totals["merge_credit_bugs"], totals["credit_bugs_total"])
    assert summary["merge_credit_bugs"] > 0


def test_the_demo_text_summary_states_the_one_credit_bug_count(demo_dir: Path) -> None:
    from lanelog.cli.commands.demo import summary_text

    summary = json.loads((demo_dir / "summary.json").read_text())
    first = summary_text(summary)[0]
    total = summary["credit_bugs"] + summary["merge_credit_bugs"]
    assert f"; {total} credit bugs ({summary['credit_bugs']} attempts given merge credit while quarantined, " in first
    assert f"{summary['merge_credit_bugs']} pull request" in first and "merged over a live quarantine" in first


def test_demo_runs_report_usage_and_the_policy_prices_it(demo_dir: Path) -> None:
    routed = lines(demo_dir / "logs" / "lane-log.jsonl")
    ran = [row for row in routed if row["results"]]
    assert ran and all(set(row.get("usage", {})) <= set(row["results"]) for row in ran)
    entries = [entry for row in ran for entry in row.get("usage", {}).values()]
    assert entries and all(entry["model"] == "demo-model" and entry["currency"] == "USD" for entry in entries)
    for entry in entries:  # demo-model at 3.00 and 15.00 USD per million input and output tokens
        expected = (entry["input_tokens"] * 3.0 + entry["output_tokens"] * 15.0) / 1_000_000
        assert entry["cost"] == pytest.approx(expected, abs=1e-9)
    # A prose answer reports its usage through the usage file, and was paid for all the same.
    assert any(row["results"][prop] == "unresolved" and prop in row.get("usage", {})
               for row in ran for prop in row["results"])


def test_demo_report_has_money_every_week(demo_dir: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "lanelog", "report", "--db", str(demo_dir / "demo.duckdb"), "--format", "json"],
        capture_output=True, text=True, timeout=120,
    )
    money = json.loads(done.stdout)["money"]
    dated = [week for week in money["weeks"] if week["week"] is not None]
    assert dated and all(week["cost"] > 0 and week["currency"] == "USD" for week in dated)
    assert all(week["spend_avoided_estimate"] is not None for week in dated)
    assert money["totals"]["cost"] == pytest.approx(sum(week["cost"] for week in money["weeks"]
                                                        if week["cost"] is not None))
    assert money["totals"]["spend_avoided_estimate"] > 0


@pytest.mark.parametrize("fmt", ["markdown", "text"])
def test_the_review_says_in_words_that_the_spend_avoided_is_an_estimate(demo_dir: Path, fmt: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "lanelog", "report", "--db", str(demo_dir / "demo.duckdb"), "--format", fmt],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert ("Spend avoided is an estimate: each week's patch rejects (setup rejects saved nothing) times that "
            "week's mean cost per armed call" in done.stdout)
    # The JSON's key name, plain or as markdown escapes it, is no word of the review.
    assert "spend_avoided_estimate" not in done.stdout.replace("\\_", "_")


def _git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@x",
           "GIT_COMMITTER_NAME": "Ada", "GIT_COMMITTER_EMAIL": "ada@x"}
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True, env=env,
                          timeout=60).stdout.strip()


def _stored_replay(tmp_path: Path, db: Path) -> None:
    """`lanelog replay --db` of a two-commit history into the database, as the What-if page suggests."""
    repo = tmp_path / "orders"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    lanes = Path(__file__).resolve().parents[1] / "examples" / "lanes.yaml"
    (repo / "lanes.yaml").write_text(lanes.read_text(encoding="utf-8"), encoding="utf-8")
    (repo / "store.py").write_text("def put(key, body):\n    return body\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "start")
    (repo / "store.py").write_text("def put(key, body):\n    return dict(body)\n")
    _git(repo, "commit", "-qam", "copy the body")
    done = subprocess.run([sys.executable, "-m", "lanelog", "replay", "--repo", str(repo), "--policy", str(lanes),
                           "--no-baseline", "--commits", "HEAD~1..HEAD", "--format", "json"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    stored = subprocess.run([sys.executable, "-m", "lanelog", "replay", "--repo", str(repo), "--policy", str(lanes),
                             "--baseline", str(lanes), "--commits", "HEAD~1..HEAD", "--db", str(db)],
                            capture_output=True, text=True, timeout=120)
    assert stored.returncode == 0, stored.stderr


def _alert_sent(tmp_path: Path, db: Path) -> None:
    """`check --notify` posting a budget's alert (and the demo's credit bugs) to a receiver, so alerts_sent
    holds their marks."""
    from tests.alerts.receiver import receiver

    budgets = tmp_path / "budgets.yaml"
    budgets.write_text("budgets:\n  - {name: tiny, amount: 0.0001, currency: USD, period: month}\n")
    with receiver() as hook:
        done = subprocess.run([sys.executable, "-m", "lanelog", "check", "--db", str(db), "--budgets", str(budgets),
                               "--today", "2026-09-25", "--notify", hook.url], capture_output=True, text=True,
                              timeout=120)
    assert done.returncode == 1, done.stderr
    assert [post for post in hook.posts if "tiny" in post["body"]["text"]], hook.posts


@pytest.mark.parametrize(("made", "table"), [(_stored_replay, "replay_patches"), (_alert_sent, "alerts_sent")],
                         ids=["a stored replay", "alerts sent"])
def test_the_demo_keeps_a_database_holding_what_it_did_not_make(
    made_by_the_demo: Path, tmp_path: Path, made: Any, table: str
) -> None:
    """A replay stored with `replay --db`, or the marks of alerts sent, are the user's: the demo never
    discards them by rebuilding its database."""
    db = made_by_the_demo
    demo = [sys.executable, "-m", "lanelog", "demo", "--db", str(db), "--weeks", "1", "--format", "json"]
    made(tmp_path, db)
    before = db.read_bytes()
    again = subprocess.run(demo, capture_output=True, text=True, timeout=300)
    assert again.returncode == 2 and again.stdout == ""
    assert f"Error: {db} was made by the demo, but holds what the demo did not make (" in again.stderr
    assert f" row(s) of {table}" in again.stderr and "so it is not rebuilt; keep it" in again.stderr
    assert db.read_bytes() == before
