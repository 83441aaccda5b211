"""`lanelog route --shadow FILE`: the same patch under a second policy, beside the live decision."""

from __future__ import annotations

import hashlib
import os

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


def test_a_missing_or_unusable_shadow_policy_is_a_shadow_reject(make_repo, route, tmp_path):
    repo = make_repo()
    repo.write({"store.py": "def put(key, body):\n    return dict(body)\n"}).commit()
    missing = route(repo, "--shadow", str(tmp_path / "absent.yaml")).line
    assert missing["probe"] == "pass" and missing["shadow"]["reasons"] == ["policy_missing"]
    assert missing["shadow"]["policy_sha256"] is None
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)  # no writer: reading it would wait for ever
    assert route(repo, "--shadow", str(fifo)).line["shadow"]["reasons"] == ["policy_missing"]
    bad = tmp_path / "bad.yaml"
    bad.write_text(LANES_YAML + "assertion_rule: loose\n", encoding="utf-8")
    invalid = route(repo, "--shadow", str(bad)).line
    assert invalid["probe"] == "pass" and invalid["shadow"]["reasons"] == ["policy_invalid"]
    assert "assertion_rule" in invalid["shadow"]["message"]
