"""`lanelog route --shadow FILE`: the same patch under a second policy, beside the live decision."""

from __future__ import annotations

import hashlib
import json
import os

import pytest

from tests.router.conftest import LANES_YAML

NET = LANES_YAML + "assertion_rule: net\n"
# Rewrites the assert in api.py: strict (the live policy) rejects, net (the shadow) passes.
REWRITE = {"api.py": "def handle(payload):\n    assert payload is not None\n    return payload\n"}
LIVE_KEYS = ("probe", "reasons", "message", "lines_changed", "units", "model_call_allowed", "lane", "results",
             "properties", "files", "quarantine")


def test_the_shadow_decides_beside_the_live_policy_and_changes_nothing(make_repo, route, tmp_path):
    repo = make_repo()
    repo.write(REWRITE).commit()
    shadow = tmp_path / "net.yaml"
    shadow.write_text(NET, encoding="utf-8")
    alone = route(repo)
    both = route(repo, "--shadow", str(shadow))
    assert both.exit_code == alone.exit_code == 1  # the live policy decides the exit code
    assert {key: both.line[key] for key in LIVE_KEYS} == {key: alone.line[key] for key in LIVE_KEYS}
    assert "shadow" not in alone.line and both.line["schema"] == 1
    assert both.line["shadow"] == {
        "policy": str(shadow), "policy_sha256": hashlib.sha256(NET.encode()).hexdigest(),
        "probe": "pass", "reasons": [], "units": 1, "model_call_allowed": True, "lines_changed": 2,
        "message": None}


def test_no_lane_runs_for_the_shadow(make_repo, route, py_cmd, tmp_path):
    repo = make_repo()
    repo.write({"store.py": "def put(key, body):\n    return dict(body)\n"}).commit()
    shadow = tmp_path / "same.yaml"
    shadow.write_text(LANES_YAML, encoding="utf-8")
    runs = tmp_path / "runs.txt"
    runner = py_cmd(f"import os; open({str(runs)!r}, 'a').write(os.environ['LANELOG_PROPERTY'] + '\\n'); "
                    "print('hold')")
    line = route(repo, "--run", runner, "--shadow", str(shadow)).line
    assert line["lane"] == "hold" and line["shadow"]["probe"] == "pass"
    assert runs.read_text().splitlines() == ["prop_round_trip", "prop_idempotent_put"]  # once each: live only


@pytest.mark.parametrize("problem", ["missing", "folder", "fifo", "invalid", "too large"])
def test_any_problem_with_the_shadow_is_its_error_and_the_live_decision_stands(make_repo, route, tmp_path,
                                                                               problem):
    repo = make_repo()
    repo.write({"store.py": "def put(key, body):\n    return dict(body)\n"}).commit()
    path = tmp_path / "shadow.yaml"
    if problem == "folder":
        path.mkdir()
    elif problem == "fifo":
        os.mkfifo(path)  # no writer: reading it would wait for ever
    elif problem == "invalid":
        path.write_text(LANES_YAML + "assertion_rule: loose\n", encoding="utf-8")
    elif problem == "too large":
        path.write_text(LANES_YAML + "#" * (1024 * 1024), encoding="utf-8")
    alone = route(repo)
    routed = route(repo, "--shadow", str(path))
    # The live decision, its exit code and its stderr are as without --shadow; the line is written.
    assert routed.exit_code == alone.exit_code == 0
    assert {key: routed.line[key] for key in LIVE_KEYS} == {key: alone.line[key] for key in LIVE_KEYS}
    shadow = routed.line["shadow"]
    reason = "policy_invalid" if problem == "invalid" else "policy_missing"
    assert set(shadow) == {"policy", "policy_sha256", "error", "message"}  # an error, no decision
    assert shadow["policy"] == str(path) and shadow["error"] == reason
    assert shadow["message"].startswith(f"{reason}: {path}")
    digest = hashlib.sha256(path.read_bytes()).hexdigest() if problem == "invalid" else None
    assert shadow["policy_sha256"] == digest
    warning = f"lanelog route: warning: no shadow decision, the live decision stands: {shadow['message']}\n"
    assert routed.stderr == alone.stderr + warning


def test_a_folder_given_as_the_shadow_is_no_usage_error_and_the_attempt_is_logged(make_repo, cli, tmp_path):
    repo = make_repo()
    repo.write({"store.py": "def put(key, body):\n    return dict(body)\n"}).commit()
    log = tmp_path / "lane-log.jsonl"
    done = cli("--repo", str(repo.root), "--base", "main", "--out", str(log), "--shadow", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert json.loads(log.read_text())["shadow"]["error"] == "policy_missing"
    assert done.stderr == (f"lanelog route: warning: no shadow decision, the live decision stands: "
                           f"policy_missing: {tmp_path}: a folder, not a policy file\n")
