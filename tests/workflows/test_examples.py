"""The example workflows, run step by step as GitHub runs them (tests/workflows/harness.py).

Real git (the checkout clones a bare "origin"), the real lanelog commands, the real AWS CLI
against moto's S3 server on 127.0.0.1, a real webhook receiver; `gh` alone is recorded.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from lanelog.cli.demo.promoter import promotion
from tests.alerts.receiver import receiver
from tests.ingest.s3server import S3, Proxy, running_s3
from tests.workflows.harness import Event, GitHub, JobRun, make_origin

pytestmark = pytest.mark.s3

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
ROUTE = EXAMPLES / "github-actions" / "lanelog-route.yml"
REVIEW = EXAMPLES / "github-actions" / "policy-review.yml"
NIGHTLY = EXAMPLES / "github-actions" / "lanelog-nightly.yml"
# The package under test is installed: the workflows' pip install finds it satisfied.
BARE = {"LANELOG_PIP": "lanelog"}
WITH_S3 = {"LANELOG_PIP": "lanelog[s3]"}
REPOSITORY = "acme/orders"
# Every commit on one day, so each freeze's expiry reads the same on every run.
DAY = "2026-10-08T12:00:00+00:00"
API = "def handle(payload):\n    assert payload\n    return payload\n"
BASE_FILES = {
    "store.py": "def put(key, body):\n    return body\n",
    "api.py": API,
    "tests/test_store.py": "def test_put():\n    assert True\n",
}
# The base branch's merged pull requests: (branch, files). By hand, under the example policy
# (assertion_rule strict): copy-body maps to two properties and passes; rewrite-assert removes
# one assert line and adds one (strict rejects it, net passes it); drop-assert removes one
# (rejected under both); readme maps to no property.
MERGED = [
    ("copy-body", {"store.py": "def put(key, body):\n    return dict(body)\n"}),
    ("rewrite-assert", {"api.py": API.replace("assert payload", "assert payload is not None")}),
    ("drop-assert", {"api.py": "def handle(payload):\n    return payload\n"}),
    ("readme", {"README.md": "orders\n"}),
]
PUT_RACE = """\
  - id: test_put_race
    expires: 2026-12-31
    owner: storage-team
    reason: two puts race on the fixture's clock
    paths: ["store.py"]
"""


@pytest.fixture(scope="module")
def s3() -> Iterator[S3]:
    with running_s3() as server:
        yield server


@pytest.fixture(autouse=True)
def _git_identity(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same git on every machine, every commit on DAY."""
    for name, value in {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1",
                        "GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@acme.invalid",
                        "GIT_COMMITTER_NAME": "Ada", "GIT_COMMITTER_EMAIL": "ada@acme.invalid",
                        "GIT_AUTHOR_DATE": DAY, "GIT_COMMITTER_DATE": DAY}.items():
        monkeypatch.setenv(name, value)


class Team:
    """The team's repository: `main` with its merged pull requests, and one pull request open."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir()
        self.git("init", "-q", "-b", "main")
        self.merges: dict[str, str] = {}

    def git(self, *args: str) -> str:
        return subprocess.run(["git", "-C", str(self.root), *args], capture_output=True, text=True,
                              check=True, timeout=60).stdout.strip()

    def commit(self, files: dict[str, str], message: str) -> str:
        for name, text in files.items():
            path = self.root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)
        return self.git("rev-parse", "HEAD")

    def merge_pull_requests(self) -> None:
        """Each of MERGED as a branch merged into main with a merge commit, as GitHub merges."""
        for number, (branch, files) in enumerate(MERGED, start=1):
            self.git("checkout", "-q", "-b", branch, "main")
            self.commit(files, f"Change {branch}")
            self.git("checkout", "-q", "main")
            self.git("merge", "-q", "--no-ff", "-m", f"Merge pull request #{number} from acme/{branch}", branch)
            self.merges[branch] = self.git("rev-parse", "HEAD")

    def open_pull_request(self, branch: str, files: dict[str, str], message: str) -> str:
        self.git("checkout", "-q", "-b", branch, "main")
        return self.commit(files, message)

    def origin(self, target: Path, number: int, head: str) -> Path:
        """The repository as GitHub holds it: every branch, and the pull request's head ref."""
        origin = make_origin(self.root, target)
        subprocess.run(["git", "-C", str(origin), "update-ref", f"refs/pull/{number}/head", head],
                       check=True, timeout=60)
        return origin


def pull_request(number: int, branch: str, head: str, run_id: int, variables: dict[str, str] | None = None) -> Event:
    return Event(name="pull_request", repository=REPOSITORY, run_id=run_id, sha=head, base_ref="main",
                 head_ref=branch, pull_request={"number": number, "head": {"sha": head, "ref": branch}},
                 vars=variables or {})


def example(name: str) -> str:
    return (EXAMPLES / name).read_text(encoding="utf-8")


def the_comment(github: GitHub, run: JobRun, number: int) -> str:
    """The one comment the job posted, checked to name no path of the runner."""
    posted = github.posted()
    assert [(post["repo"], post["number"]) for post in posted] == [(REPOSITORY, str(number))], run.log()
    body = posted[0]["body"]
    for private in (str(run.temp), str(run.workspace), str(github.root)):
        assert private not in body
    return body


def review_of(tmp_path: Path, team: Team, branch: str, files: dict[str, str], message: str) -> tuple[GitHub, JobRun]:
    number = 12
    head = team.open_pull_request(branch, files, message)
    github = GitHub(tmp_path / "github", origin=team.origin(tmp_path / "origin.git", number, head))
    run = github.run(REVIEW, "replay", pull_request(number, branch, head, run_id=4242), installed=BARE)
    return github, run


def test_the_first_policy_pull_request_is_reviewed_by_the_policy_alone(tmp_path):
    """The base holds no lanes.yaml yet (the pull request the README has a team open first)."""
    team = Team(tmp_path / "orders")
    team.commit(BASE_FILES, "Orders service")
    team.merge_pull_requests()
    github, run = review_of(tmp_path, team, "lanelog-policy",
                            {"lanes.yaml": example("lanes.yaml"), "flaky.yaml": example("flaky.yaml")},
                            "Adopt lanelog: the first policy")
    assert run.status == "success", run.log()
    comment = the_comment(github, run, 12)
    assert comment.startswith("> The base branch holds no lanes.yaml yet: this pull request brings the first\n")
    assert "the last 4 merged pull requests.\n\n# Policy replay\n" in comment
    assert ("Candidate pull-request/lanes.yaml alone, with no baseline to compare with: 4 patches, 0 skipped."
            in comment)
    assert "| probe rejects | 3 |" in comment and "| armed calls | 1 |" in comment
    assert "## Rejects (3)" in comment
    for number, branch, reason in ((1, "rewrite-assert", "assertion\\_removed"),
                                   (2, "drop-assert", "assertion\\_removed"), (3, "readme", "no\\_properties")):
        assert f"| {number} | {team.merges[branch][:12]} | reject {reason} |" in comment
    assert team.merges["copy-body"][:12] not in comment
    assert "policy\\_missing" not in comment and "Warning" not in comment


def test_a_pull_request_that_changes_only_the_flaky_list_shows_the_quarantine_it_moves(tmp_path):
    team = Team(tmp_path / "orders")
    team.commit({**BASE_FILES, "lanes.yaml": example("lanes.yaml"), "flaky.yaml": example("flaky.yaml")},
                "Orders service under lanelog")
    team.merge_pull_requests()
    github, run = review_of(tmp_path, team, "freeze-put-race", {"flaky.yaml": example("flaky.yaml") + PUT_RACE},
                            "Freeze test_put_race")
    assert run.status == "success", run.log()
    comment = the_comment(github, run, 12)
    assert ("Candidate pull-request/lanes.yaml against base/lanes.yaml: 4 patches, 0 skipped." in comment)
    # A flaky list moves no probe; the one passing patch that touches store.py gains the freeze
    # (test_export_race names no paths and is live on DAY: both sides park it).
    assert "## Flips (0)" in comment and "## Quarantine changes (1)" in comment
    assert "| test\\_put\\_race | 1 | 0 |" in comment
    assert (f"| {team.merges['copy-body'][:12]} | test\\_export\\_race | test\\_export\\_race, test\\_put\\_race | "
            "Merge pull request #1 from acme/copy-body |") in comment


def test_an_ordinary_policy_pull_request_shows_what_flips(tmp_path):
    team = Team(tmp_path / "orders")
    team.commit({**BASE_FILES, "lanes.yaml": example("lanes.yaml"), "flaky.yaml": example("flaky.yaml")},
                "Orders service under lanelog")
    team.merge_pull_requests()
    net = example("lanes.yaml").replace("assertion_rule: strict", "assertion_rule: net")
    github, run = review_of(tmp_path, team, "net-asserts", {"lanes.yaml": net}, "Judge assertions by net change")
    assert run.status == "success", run.log()
    comment = the_comment(github, run, 12)
    assert "Candidate pull-request/lanes.yaml against base/lanes.yaml: 4 patches, 0 skipped." in comment
    assert "| probe rejects | 3 | 2 |" in comment and "| armed calls | 1 | 2 |" in comment
    # How the history was read: the merged pull requests, the branch syncs, the copies left out.
    assert ("Read with --first-parent: 4 merged pull requests and 0 other commits replayed; no merge was a branch "
            "sync. 0 duplicate(s) skipped: the same change as an earlier patch (--dedupe).") in comment
    assert "Branch syncs" not in comment
    assert "## Flips (1)" in comment
    assert (f"| 1 | {team.merges['rewrite-assert'][:12]} | reject assertion\\_removed | pass | "
            "Merge pull request #2 from acme/rewrite-assert |") in comment
    assert "Quarantine changes" not in comment
    # The flip's lines, as the reviewer reads them: the assert the strict baseline rejected, its rewrite
    # and the line around them; then the added assert that offsets it under net.
    assert (f"<details>\n<summary>1. {team.merges['rewrite-assert'][:12]}: baseline reject (assertion removed); "
            "candidate pass</summary>\n") in comment
    assert ("api.py:1   def handle(payload):\napi.py:2  -    assert payload\n"
            "api.py:2  +    assert payload is not None\napi.py:3       return payload\n") in comment
    assert "1 added assertion line(s) offset them under assertion_rule net:\n    api.py:2  +    assert payload is" \
        in comment
    # The whole replay is the run's artifact, and the comment says so.
    assert "the whole replay, every line of every patch, is in policy-review.json (written with --out)." in comment
    assert comment.endswith("\npolicy-review.json is the policy-review artifact of this run: "
                            "https://github.com/acme/orders/actions/runs/4242\n")
    kept = json.loads((github.artifacts / "policy-review" / "policy-review.json").read_text(encoding="utf-8"))
    assert [flip["head"] for flip in kept["flips"]] == [team.merges["rewrite-assert"]]
    assert run.step("Replay the last merged pull requests").summary == comment  # a fork's run shows it too


def test_a_pull_request_that_changes_no_policy_file_does_not_start_the_review(tmp_path):
    from tests.workflows.harness import HarnessError

    team = Team(tmp_path / "orders")
    team.commit({**BASE_FILES, "lanes.yaml": example("lanes.yaml")}, "Orders service under lanelog")
    head = team.open_pull_request("code", {"store.py": "def put(key, body):\n    return body or {}\n"}, "Code")
    github = GitHub(tmp_path / "github", origin=team.origin(tmp_path / "origin.git", 3, head))
    with pytest.raises(HarnessError, match="none of the paths"):
        github.run(REVIEW, "replay", pull_request(3, "code", head, run_id=1), installed=BARE)
    assert github.posted() == []


def test_the_review_comments_with_pull_request_write_permission_only():
    workflow = yaml.safe_load(REVIEW.read_text(encoding="utf-8"))
    assert workflow["permissions"] == {"contents": "read", "pull-requests": "write"}


def agent_pull_request(tmp_path: Path, files: dict[str, str]) -> tuple[Team, str, Path]:
    team = Team(tmp_path / "orders")
    team.commit({**BASE_FILES, "lanes.yaml": example("lanes.yaml"), "flaky.yaml": example("flaky.yaml")},
                "Orders service under lanelog")
    head = team.open_pull_request("agent/patch-1", files, "Agent patch")
    return team, head, team.origin(tmp_path / "origin.git", 7, head)


def test_a_rejected_agent_patch_fails_the_job_and_its_log_is_in_the_bucket(tmp_path, s3):
    team, head, origin = agent_pull_request(tmp_path, {"api.py": "def handle(payload):\n    return payload\n"})
    bucket = s3.bucket()
    github = GitHub(tmp_path / "github", origin=origin, aws={**s3.env(), "AWS_ENDPOINT_URL": s3.endpoint})
    event = pull_request(7, "agent/patch-1", head, run_id=9001,
                         variables={"LANELOG_BUCKET": bucket, "LANELOG_ROLE_ARN": "arn:aws:iam::123456789012:role/ci",
                               "AWS_REGION": "us-east-1"})
    run = github.run(ROUTE, "probe", event, installed=BARE)
    assert run.status == "failure"
    assert run.step("Bound the diff before any model call").outcome == "failure"
    assert [step.outcome for step in run.steps[-3:]] == ["success", "success", "success"], run.log()
    kept = json.loads((github.artifacts / "lane-log-9001-1" / "lane-log.jsonl").read_text(encoding="utf-8"))
    stored = s3.client().get_object(Bucket=bucket, Key="lanelog/acme/orders/9001-1/lane-log.jsonl")["Body"].read()
    line = json.loads(stored)
    assert line == kept
    assert (line["repo"], line["head"], line["probe"], line["reasons"]) == (
        REPOSITORY, head, "reject", ["assertion_removed"])
    assert s3.secret not in run.log()


def test_a_rejected_agent_patch_is_annotated_on_its_line_and_explained_in_the_job_summary(tmp_path):
    team, head, origin = agent_pull_request(tmp_path, {"api.py": "def handle(payload):\n    return payload\n"})
    github = GitHub(tmp_path / "github", origin=origin)
    run = github.run(ROUTE, "probe", pull_request(7, "agent/patch-1", head, run_id=9002), installed=BARE)
    step = run.step("Bound the diff before any model call")
    assert step.outcome == "failure"
    # By hand: `assert payload` was line 2 of api.py; `return payload` stands there now.
    assert step.commands == [("error", {"file": "api.py", "line": "2", "title": "lanelog: assertion removed"},
                              "removed (old line 2): assert payload\n"
                              "assertion_rule strict: a removed assertion line rejects the patch")]
    assert step.summary.startswith("## lanelog route: probe reject\n")
    assert "```\n1 removed line(s) match an assertion pattern" in step.summary
    assert "api.py:1   def handle(payload):\napi.py:2  -    assert payload\napi.py:2       return payload\n```" \
        in step.summary
    assert "- If the assertion moved or was reworded" in step.summary


def test_a_passing_agent_patch_without_a_bucket_keeps_its_log_as_an_artifact_only(tmp_path):
    team, head, origin = agent_pull_request(tmp_path, {"store.py": "def put(key, body):\n    return dict(body)\n"})
    github = GitHub(tmp_path / "github", origin=origin)
    run = github.run(ROUTE, "probe", pull_request(7, "agent/patch-1", head, run_id=9002), installed=BARE)
    assert run.status == "success", run.log()
    assert [step.outcome for step in run.steps[-2:]] == ["skipped", "skipped"]
    line = json.loads((github.artifacts / "lane-log-9002-1" / "lane-log.jsonl").read_text(encoding="utf-8"))
    assert (line["repo"], line["head"], line["probe"], line["units"]) == (REPOSITORY, head, "pass", 2)
    # The job's clock is the real date: the example freeze is live or expired, never lost.
    assert line["quarantine"] + line["expired_freezes"] == ["test_export_race"]


def credit_bug_logs() -> dict[str, bytes]:
    """A router line whose lane held under a live freeze, and the legacy promoter's line that
    gives it merge credit anyway: two jobs' objects."""
    golden = json.loads((ROOT / "tests" / "router" / "golden" / "line_pass.json").read_text(encoding="utf-8"))
    routed = {**golden, "ts": "2026-10-08T12:00:00Z", "attempt_id": "a1f0c3", "repo": REPOSITORY,
              "base": "1" * 40, "head": "2" * 40}
    promoted = promotion(routed)
    assert promoted["merge_credit"] == 1 and promoted["quarantine"] == ["test_export_race"]
    return {"lanelog/acme/orders/311-1/lane-log.jsonl": json.dumps(routed).encode() + b"\n",
            "lanelog/acme/orders/312-1/lane-log.jsonl": json.dumps(promoted).encode() + b"\n"}


def test_the_nightly_job_keeps_its_database_and_sent_marks_through_failing_nights(tmp_path, s3):
    logs, lake = s3.bucket(), s3.bucket()
    client = s3.client()
    for key, body in credit_bug_logs().items():
        client.put_object(Bucket=logs, Key=key, Body=body)
    host, port = s3.endpoint.removeprefix("http://").split(":")
    proxy = Proxy((host, int(port)))
    # The repository that keeps the figures holds the budgets file the check reads.
    team = Team(tmp_path / "figures")
    head = team.commit({"lanelog-budgets.yaml": "budgets:\n  - {name: all-spend, amount: 5, currency: USD, "
                                                "period: week}\n"}, "Budget the model calls")
    github = GitHub(tmp_path / "github", origin=make_origin(team.root, tmp_path / "figures.git"),
                    aws={**s3.env(), "AWS_ENDPOINT_URL": proxy.endpoint})
    nights: list[JobRun] = []
    reads: list[list[str]] = []
    try:
        with receiver() as webhook:
            for run_id in (5001, 5002):
                before = len(proxy.object_reads())
                event = Event(name="schedule", repository=REPOSITORY, run_id=run_id, base_ref="main", sha=head,
                              vars={"LANELOG_BUCKET": logs, "LANELOG_LAKE_BUCKET": lake, "AWS_REGION": "us-east-1",
                                    "LANELOG_ROLE_ARN": "arn:aws:iam::123456789012:role/nightly"},
                              secrets={"LANELOG_NOTIFY": webhook.url})
                nights.append(github.run(NIGHTLY, "nightly", event, installed=WITH_S3))
                reads.append([path for path in proxy.object_reads()[before:] if path.startswith(f"/{logs}/")])
            posts = list(webhook.posts)
    finally:
        proxy.close()
    first, second = nights
    for night in nights:
        # A credit bug fails the check, so the job, every night until it is fixed.
        assert night.status == "failure"
        assert night.step("Check the figures (exit 1 on a credit bug)").outcome == "failure"
        assert "CREDIT BUG" in night.step("Check the figures (exit 1 on a credit bug)").stdout, night.log()
        # No line records a cost: the budget is judged, and nothing of it is spent.
        assert "budget all-spend: 0.00 USD of 5.00 USD (0%) in the week " in night.step(
            "Check the figures (exit 1 on a credit bug)").stdout, night.log()
        assert night.step("Export the lake (only the weeks that changed)").outcome == "success", night.log()
        assert webhook.url not in night.log() and s3.secret not in night.log()
    assert "Cache not found" in first.step("Restore the database").stdout
    saved = first.step("Save the database, whatever the check said")
    assert saved.stdout == "Cache saved with key: lanelog-db-5001-1\n"
    # The second night starts from the first night's database: it reads no object again...
    assert second.step("Restore the database").outputs["cache-matched-key"] == "lanelog-db-5001-1"
    assert len(reads[0]) == 2 and reads[1] == []
    ingest = second.step("Ingest the new logs (one listing when nothing is new)")
    assert "0 lines read: 0 attempts added" in ingest.stdout
    # ...and posts nothing twice: the first night's sent mark survived its failure.
    assert len(posts) == 1 and posts[0]["status"] == 200
    assert "a1f0c3-promoted" in json.dumps(posts[0]["body"])
    assert [entry["key"] for entry in github.caches.entries()] == ["lanelog-db-5001-1", "lanelog-db-5002-1"]
