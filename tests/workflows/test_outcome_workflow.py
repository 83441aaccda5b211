"""From attempt to outcome, as GitHub runs it: the route job on three agent pull requests, the
outcome job when each closes (one job re-run), and the nightly job, twice, reading both.

The closed events are GitHub's payloads (tests/router/github_payloads.py) for this repository;
`gh api` answers with the recorded reviews; S3 is moto's server, the webhook a real receiver.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.alerts.receiver import receiver
from tests.router import github_payloads as gh
from tests.workflows.harness import Event, GitHub, make_origin
from tests.workflows.test_examples import BARE, BASE_FILES, EXAMPLES, NIGHTLY, REPOSITORY, ROUTE, WITH_S3, Team, example
from tests.workflows.test_examples import _git_identity as _git_identity  # noqa: F401  (the same git everywhere)
from tests.workflows.test_examples import s3 as s3  # noqa: F401  (one S3 server for the module)

pytestmark = pytest.mark.s3

OUTCOME = EXAMPLES / "github-actions" / "lanelog-outcome.yml"
AGENT = {"login": "copilot-swe-agent[bot]", "id": 198982749, "type": "Bot"}
# A freeze on store.py that stays live whatever day the suite runs: every patch below is quarantined.
FLAKY = """\
flaky:
  - id: test_put_race
    expires: 2099-12-31
    owner: storage-team
    reason: two puts race on the fixture's clock
    paths: ["store.py"]
"""


def stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def closed_event(number: int, head: str, closed: datetime, **pull: Any) -> dict[str, Any]:
    """GitHub's pull_request closed event for pull request `number` of this repository."""
    payload = gh.event(closed_at=stamp(closed), **pull)
    text = json.dumps(payload).replace(gh.REPOSITORY, REPOSITORY).replace("octo-org", "acme")
    payload = json.loads(text.replace(f"/pull/{gh.NUMBER}", f"/pull/{number}")
                         .replace(f"/pulls/{gh.NUMBER}", f"/pulls/{number}")
                         .replace(f"/issues/{gh.NUMBER}", f"/issues/{number}"))
    payload["number"] = payload["pull_request"]["number"] = number
    payload["pull_request"]["head"]["sha"] = head
    return payload


def approval(number: int, who: dict[str, Any], at: datetime, head: str) -> dict[str, Any]:
    review = gh.review(who, "APPROVED", stamp(at), number, commit=head)
    review["pull_request_url"] = f"https://api.github.com/repos/{REPOSITORY}/pulls/{number}"
    return review


def stored_figures(s3_server: Any, bucket: str, tmp_path: Path) -> dict[str, Any]:
    """What every job uploaded, ingested apart and reported: the outcomes section."""
    env = {**os.environ, **s3_server.env(), "AWS_ENDPOINT_URL": s3_server.endpoint}
    db = tmp_path / "read-back.duckdb"
    for args in (["ingest", f"s3://{bucket}/lanelog/", "--db", str(db)],
                 ["report", "--db", str(db), "--format", "json"]):
        done = subprocess.run([sys.executable, "-m", "lanelog", *args], capture_output=True, text=True, env=env,
                              timeout=300)
        assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["outcomes"]


def test_merges_over_a_live_quarantine_from_route_to_the_nightly_alert(tmp_path: Path, s3: Any) -> None:
    team = Team(tmp_path / "orders")
    team.commit({**BASE_FILES, "lanes.yaml": example("lanes.yaml"), "flaky.yaml": FLAKY}, "Orders under lanelog")
    heads = {}
    for number in (7, 8, 9):
        team.git("checkout", "-q", "main")
        heads[number] = team.open_pull_request(
            f"agent/{number}", {"store.py": f"def put(key, body):\n    return dict(body)  # {number}\n"},
            f"Agent patch {number}")
    origin = make_origin(team.root, tmp_path / "origin.git")
    for number, head in heads.items():
        subprocess.run(["git", "-C", str(origin), "update-ref", f"refs/pull/{number}/head", head], check=True,
                       timeout=60)
    bucket = s3.bucket()
    upload = {"LANELOG_BUCKET": bucket, "LANELOG_ROLE_ARN": "arn:aws:iam::123456789012:role/ci",
              "AWS_REGION": "us-east-1"}
    github = GitHub(tmp_path / "github", origin=origin, aws={**s3.env(), "AWS_ENDPOINT_URL": s3.endpoint})

    # The route job on each pull request: the lane holds, under the live freeze.
    for number, head in heads.items():
        event = Event(name="pull_request", repository=REPOSITORY, run_id=100 + number, sha=head, base_ref="main",
                      head_ref=f"agent/{number}", vars=upload,
                      pull_request={"number": number, "head": {"sha": head, "ref": f"agent/{number}"},
                                    "user": AGENT})
        run = github.run(ROUTE, "probe", event, installed=BARE)
        assert run.status == "success", run.log()
        line = json.loads((github.artifacts / f"lane-log-{100 + number}-1" / "lane-log.jsonl").read_text())
        assert (line["pull_request"], line["agent"], line["quarantine"]) == (
            {"repository": REPOSITORY, "number": number}, AGENT["login"], ["test_put_race"])

    # Each pull request closes after its attempt: auto-merged with no review after it (7), merged by a
    # person after bob approved (8), closed without merge (9). The outcome job of 7 is re-run.
    after = datetime.now(UTC) + timedelta(minutes=5)
    auto = {"enabled_by": copy.deepcopy(gh.ALICE), "merge_method": "squash", "commit_title": "Patch (#7)",
            "commit_message": ""}
    closes = {
        7: (closed_event(7, heads[7], after, merged=True, merged_by=gh.ALICE, auto_merge=auto, author=AGENT),
            [approval(7, gh.BOB, after - timedelta(hours=2), heads[7])]),  # approved before the attempt
        8: (closed_event(8, heads[8], after, merged=True, merged_by=gh.ALICE, author=AGENT),
            [approval(8, gh.BOB, after - timedelta(minutes=1), heads[8])]),
        9: (closed_event(9, heads[9], after, merged=False, author=AGENT), []),
    }
    runs = [(7, 1), (8, 1), (9, 1), (7, 2)]
    for number, attempt in runs:
        payload, reviews = closes[number]
        github.answer(f"repos/{REPOSITORY}/pulls/{number}/reviews", reviews)
        github.answer(f"repos/{REPOSITORY}/issues/{number}/events", [])
        event = Event(name="pull_request", repository=REPOSITORY, run_id=200 + number, run_attempt=attempt,
                      payload=payload, vars=upload)
        run = github.run(OUTCOME, "outcome", event, installed=BARE)
        assert run.status == "success", run.log()
    # The re-run job uploaded the same outcome again, under its own key: the figures below count it once.
    client = s3.client()
    rerun = [json.loads(client.get_object(Bucket=bucket, Key=f"lanelog/{REPOSITORY}/207-{attempt}/lane-log.jsonl")
                        ["Body"].read()) for attempt in (1, 2)]
    assert [line.pop("ci_run")["attempt"] for line in rerun] == [1, 2]
    assert rerun[0] == rerun[1] and rerun[0]["state"] == "merged" and rerun[0]["auto_merge"] is not None

    figures = stored_figures(s3, bucket, tmp_path)
    assert {key: figures["totals"][key] for key in ("pull_requests", "merged", "closed_without_merge", "open",
                                                     "merge_rate", "merge_rate_denominator", "merge_credit_bugs",
                                                     "reviewed_exceptions")} == {
        "pull_requests": 3, "merged": 2, "closed_without_merge": 1, "open": 0, "merge_rate": 0.6667,
        "merge_rate_denominator": 3, "merge_credit_bugs": 1, "reviewed_exceptions": 1}
    assert [row["agent"] for row in figures["by_agent"]] == [AGENT["login"]]

    # The nightly job, twice: the credit bug fails the check both nights and is posted once.
    figures_repo = Team(tmp_path / "figures")
    head = figures_repo.commit({"lanelog-budgets.yaml": "budgets:\n  - {name: all-spend, amount: 5, currency: USD, "
                                                       "period: week}\n"}, "Budget the model calls")
    nightly = GitHub(tmp_path / "nightly", origin=make_origin(figures_repo.root, tmp_path / "figures.git"),
                     aws={**s3.env(), "AWS_ENDPOINT_URL": s3.endpoint})
    with receiver() as webhook:
        for run_id in (5001, 5002):
            event = Event(name="schedule", repository=REPOSITORY, run_id=run_id, base_ref="main", sha=head,
                          vars={"LANELOG_BUCKET": bucket, "LANELOG_LAKE_BUCKET": s3.bucket(),
                                "AWS_REGION": "us-east-1", "LANELOG_ROLE_ARN": "arn:aws:iam::123456789012:role/n"},
                          secrets={"LANELOG_NOTIFY": webhook.url})
            night = nightly.run(NIGHTLY, "nightly", event, installed=WITH_S3)
            check = night.step("Check the figures (exit 1 on a credit bug)")
            assert check.outcome == "failure", night.log()
            assert f"CREDIT BUG (merge) {REPOSITORY}#7 https://github.com/{REPOSITORY}/pull/7 merged by alice " \
                   "(User), auto-merge enabled by alice" in check.stdout, night.log()
            assert f"reviewed exception {REPOSITORY}#8" in check.stdout and "said by: approved by bob" in check.stdout
            assert f"{REPOSITORY}#9" not in check.stdout
        posts = list(webhook.posts)
    assert len(posts) == 1, posts
    assert posts[0]["body"]["text"] == f"lanelog credit bug: pull request {REPOSITORY}#7 merged over a live quarantine"
