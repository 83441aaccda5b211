"""The example CI files of GitLab and Bitbucket, run step by step as their runners run a script.

A `script:` runs in one `bash -e -o pipefail`, its lines in order, in a workspace cloned from a
real bare "origin", with the variables the forge's runner sets and the file's own; a failing
line fails the job.  The package under test is installed: `pip install lanelog` finds it
satisfied.  Real git, the real `lanelog` commands, the lines they append.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from lanelog.router import outside_ci
from tests.router import forge_payloads as fp
from tests.router.conftest import Repo

ROOT = Path(__file__).resolve().parents[2]
GITLAB = ROOT / "examples" / "gitlab-ci" / "lanelog.gitlab-ci.yml"
BITBUCKET = ROOT / "examples" / "bitbucket" / "bitbucket-pipelines.yml"
STEP_TIMEOUT = 300


def workspace(make_repo, tmp_path: Path) -> tuple[Path, str]:
    """A clone of a bare origin (main and the agent's branch), on the branch: what a runner checks out."""
    repo: Repo = make_repo()
    head = repo.write({"store.py": "def put(key, body):\n    return dict(body)\n"}).commit("the agent's change")
    origin = tmp_path / "origin.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(repo.root), str(origin)], check=True, timeout=60)
    work = tmp_path / "build"
    subprocess.run(["git", "clone", "-q", "--branch", "patch", str(origin), str(work)], check=True, timeout=60)
    return work, head


def run_script(lines: list[str], work: Path, variables: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The script's lines in order in one bash, as both runners run a script (an `exit` ends the job); the
    first failing line fails it."""
    scripts = Path(sys.executable).parent
    env = {**outside_ci(dict(os.environ)), "PATH": f"{scripts}{os.pathsep}{os.environ.get('PATH', '')}",
           "GIT_CONFIG_NOSYSTEM": "1", **variables}
    env.pop("LANELOG_LOG", None)
    assert all(isinstance(line, str) for line in lines), "every script line is a string, as the runner reads it"
    job = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", "\n".join(lines)], cwd=work, env=env,
                         capture_output=True, text=True, timeout=STEP_TIMEOUT, check=False)
    assert job.returncode == 0, job.stderr
    return job


def lines_of(work: Path) -> list[dict[str, Any]]:
    log = work / "lane-log.jsonl"
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()] if log.exists() else []


def gitlab_job(name: str) -> tuple[list[str], dict[str, str]]:
    pipeline = yaml.safe_load(GITLAB.read_text(encoding="utf-8"))
    job = pipeline[name]
    return job["script"], {**pipeline.get("variables", {}), **job.get("variables", {})}


GITLAB_CI = {"GITLAB_CI": "true", "CI": "true", "CI_PROJECT_NAME": "ledger", "CI_PIPELINE_ID": "918273",
             "CI_JOB_URL": "https://gitlab.example.com/platform/payments/ledger/-/jobs/5551",
             "GITLAB_USER_LOGIN": "sweep-agent"}


def test_the_gitlab_route_job_names_the_merge_request_of_a_nested_group(tmp_path: Path, make_repo) -> None:
    work, head = workspace(make_repo, tmp_path)
    script, variables = gitlab_job("lanelog-route")
    run_script(script, work, {**variables, **GITLAB_CI, "CI_PIPELINE_SOURCE": "merge_request_event",
                              "CI_MERGE_REQUEST_IID": "7", "CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main",
                              "CI_MERGE_REQUEST_PROJECT_PATH": "platform/payments/ledger",
                              "CI_MERGE_REQUEST_PROJECT_URL": "https://gitlab.example.com/platform/payments/ledger"})
    [line] = lines_of(work)
    assert line["pull_request"] == {"repository": "platform/payments/ledger", "number": 7,
                                    "url": "https://gitlab.example.com/platform/payments/ledger/-/merge_requests/7"}
    assert (line["agent"], line["repo"], line["head"]) == ("sweep-agent", "ledger", head)
    assert line["ci_run"] == {"id": "918273", "url": GITLAB_CI["CI_JOB_URL"]}


def test_the_gitlab_outcome_job_records_a_merge_and_skips_another_action(tmp_path: Path, make_repo) -> None:
    work, _ = workspace(make_repo, tmp_path)
    script, variables = gitlab_job("lanelog-outcome")
    hook = fp.gitlab_hook()
    hook["project"]["path_with_namespace"] = "platform/payments/ledger"
    updated = fp.write(tmp_path / "update.json", fp.gitlab_hook("update", "opened"))
    run_script(script, work, {**variables, **GITLAB_CI, "CI_PIPELINE_SOURCE": "trigger",
                              "TRIGGER_PAYLOAD": str(updated)})
    assert lines_of(work) == []
    merged = fp.write(tmp_path / "merge.json", hook)
    run_script(script, work, {**variables, **GITLAB_CI, "CI_PIPELINE_SOURCE": "trigger",
                              "TRIGGER_PAYLOAD": str(merged)})
    [line] = lines_of(work)
    assert (line["kind"], line["state"], line["repo"], line["forge"]) == ("outcome", "merged", "ledger", "gitlab")
    assert line["ci_run"] == {"id": "918273", "url": GITLAB_CI["CI_JOB_URL"]}


BITBUCKET_PIPELINES = {"BITBUCKET_BUILD_NUMBER": "64", "BITBUCKET_REPO_FULL_NAME": "acme/orders",
                       "BITBUCKET_REPO_SLUG": "orders", "CI": "true"}


def test_the_bitbucket_pull_request_pipeline_names_the_pull_request(tmp_path: Path, make_repo) -> None:
    work, head = workspace(make_repo, tmp_path)
    pipelines = yaml.safe_load(BITBUCKET.read_text(encoding="utf-8"))["pipelines"]
    [step] = [item["step"] for item in pipelines["pull-requests"]["**"]]
    run_script(step["script"], work, {**BITBUCKET_PIPELINES, "BITBUCKET_PR_ID": "12",
                                      "BITBUCKET_PR_DESTINATION_BRANCH": "main", "LANELOG_AGENT": "sweep-agent"})
    [line] = lines_of(work)
    assert line["pull_request"] == {"repository": "acme/orders", "number": 12,
                                    "url": "https://bitbucket.org/acme/orders/pull-requests/12"}
    assert (line["agent"], line["repo"], line["head"]) == ("sweep-agent", "orders", head)
    assert line["ci_run"] == {"id": "64", "url": "https://bitbucket.org/acme/orders/pipelines/results/64"}


def test_the_bitbucket_outcome_pipeline_records_the_close_with_full_ids(tmp_path: Path, make_repo) -> None:
    work, head = workspace(make_repo, tmp_path)
    custom = yaml.safe_load(BITBUCKET.read_text(encoding="utf-8"))["pipelines"]["custom"]["lanelog-outcome"]
    assert {"name": "LANELOG_EVENT"} in next(item["variables"] for item in custom if "variables" in item)
    [step] = [item["step"] for item in custom if "step" in item]
    payload = fp.bitbucket_payload("DECLINED")
    payload["repository"]["full_name"] = "acme/orders"
    payload["pullrequest"]["source"]["commit"]["hash"] = head[:12]
    run_script(step["script"], work, {**BITBUCKET_PIPELINES, "LANELOG_EVENT": json.dumps(payload)})
    [line] = lines_of(work)
    assert (line["state"], line["head"], line["repo"], line["forge"]) == ("closed", head, "orders", "bitbucket")
    assert "short_ids" not in line
