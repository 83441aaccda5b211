"""The examples stay valid: the policy and flaky list load, and the CI step runs as written."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from lanelog.router import parse_flaky, parse_policy

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
WORKFLOW = EXAMPLES / "github-actions" / "lanelog-route.yml"



def _with_this_lanelog() -> dict[str, str]:
    """The environment with this interpreter's scripts first on PATH: the steps' `lanelog` is
    the one under test, not another install's that a shell would find first."""
    return {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}

def test_example_policy_and_flaky_list_load():
    policy = parse_policy((EXAMPLES / "lanes.yaml").read_text(encoding="utf-8"), "lanes.yaml")
    assert policy.line_cap == 400 and policy.budget_cap == 3
    assert policy.properties_for("store.py") == ["prop_round_trip", "prop_idempotent_put"]
    (row,) = parse_flaky((EXAMPLES / "flaky.yaml").read_text(encoding="utf-8"), "flaky.yaml")
    assert row.id == "test_export_race" and row.owner == "ci-team"


def _steps() -> list[dict]:
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    return workflow["jobs"]["probe"]["steps"]


def test_workflow_keeps_the_lane_log_even_when_the_probe_rejects():
    upload = next(step for step in _steps() if step.get("uses", "").startswith(
        "actions/upload-artifact@"))
    assert upload["if"] == "always()"
    assert upload["with"]["path"] == "lane-log.jsonl"


def test_workflow_route_step_runs_as_written(make_repo, tmp_path):
    repo = make_repo()
    for name in ("lanes.yaml", "flaky.yaml"):
        shutil.copy(EXAMPLES / name, repo.root / name)
    repo.commit("the example policy")
    origin = tmp_path / "origin.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(repo.root), str(origin)], check=True)
    repo.git("remote", "add", "origin", str(origin))
    repo.git("fetch", "-q", "origin")
    repo.git("checkout", "-q", "-B", "patch", "main")
    head = repo.write({"store.py": "def put(key, body):\n    return dict(body)\n"}).commit()
    script = next(step["run"] for step in _steps() if step.get("name", "").startswith("Bound"))
    env = {**_with_this_lanelog(), "BASE_REF": "main", "HEAD_SHA": head, "GITHUB_REPOSITORY": "acme/orders"}
    env.pop("LANELOG_LOG", None)
    done = subprocess.run(["bash", "-e", "-c", script], cwd=repo.root, env=env,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    line = json.loads((repo.root / "lane-log.jsonl").read_text(encoding="utf-8"))
    assert line["repo"] == "acme/orders" and line["head"] == head
    assert line["probe"] == "pass"
    # The job clock is the real date here: the example row is live or expired, never lost.
    assert line["quarantine"] + line["expired_freezes"] == ["test_export_race"]


REVIEW = EXAMPLES / "github-actions" / "policy-review.yml"


def test_policy_review_runs_on_policy_changes_only_and_can_comment():
    workflow = yaml.safe_load(REVIEW.read_text(encoding="utf-8"))
    # PyYAML reads the key `on` as True.
    assert workflow[True]["pull_request"]["paths"] == ["lanes.yaml", "flaky.yaml"]
    assert workflow["permissions"] == {"contents": "read", "pull-requests": "write"}


def test_policy_review_replay_steps_run_as_written(make_repo, tmp_path):
    """A base branch with three patches, a pull request that judges assertions by their net
    change: the steps write both policies and a markdown review of what flips."""
    repo = make_repo()
    repo.git("checkout", "-q", "main")
    repo.write({"api.py": "def handle(payload):\n    assert payload is not None\n    return payload\n"}).commit(
        "Rewrite the payload assert")
    repo.write({"api.py": "def handle(payload):\n    return payload\n"}).commit("Drop the payload assert")
    repo.write({"api.py": "def handle(payload):\n    return payload or None\n"}).commit("Return None for empty")
    origin = tmp_path / "origin.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(repo.root), str(origin)], check=True)
    repo.git("remote", "add", "origin", str(origin))
    repo.git("fetch", "-q", "origin")
    repo.git("checkout", "-q", "-B", "loosen", "main")
    policy = (repo.root / "lanes.yaml").read_text(encoding="utf-8")
    repo.write({"lanes.yaml": policy + "assertion_rule: net\n"}).commit("Judge assertions by net change")
    steps = yaml.safe_load(REVIEW.read_text(encoding="utf-8"))["jobs"]["replay"]["steps"]
    temp = tmp_path / "runner-temp"
    temp.mkdir()
    env = {**_with_this_lanelog(), "BASE_REF": "main", "MERGED": "300", "RUNNER_TEMP": str(temp)}
    for name in ("Both policies, as files", "Replay the last merged pull requests"):
        script = next(step["run"] for step in steps if step.get("name") == name)
        done = subprocess.run(["bash", "-e", "-c", script], cwd=repo.root, env=env,
                              capture_output=True, text=True, check=False, timeout=120)
        assert done.returncode == 0, done.stderr
    review = (temp / "policy-review.md").read_text(encoding="utf-8")
    assert review.startswith("# Policy replay")
    # By hand: the rewritten assert removes one matching line and adds one: strict rejects,
    # net passes (a flip); the dropped assert rejects under both; the last passes under both.
    assert "| probe rejects | 2 | 1 |" in review
    assert "## Flips (1)" in review and "| reject assertion\\_removed | pass  | Rewrite the payload assert |" in review
