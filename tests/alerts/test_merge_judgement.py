"""The judgement of a merge over a live quarantine, end to end: `lanelog route` on a real git
repository under a live freeze, `lanelog outcome` on GitHub's closed event with the reviews and
issue events `gh api` prints, `lanelog ingest`, and `lanelog check --notify` to a receiver.

The verdict is taken at the merge: an approval counts when a person other than the author approved
the commit that merged before it merged; the accept label when a person other than the author set
it before the merge, by no app, and it was still on at the merge.  An auto-merge, a bot's merge or
the author's own is always a credit bug, and the alert says no approval would have changed it.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.alerts.receiver import receiver
from tests.alerts.support import lanelog, slack_text
from tests.router import github_payloads as gh

ACCEPT = "lanelog:accept-quarantine"
LIVE, LAPSED = "2026-10-08", "2026-11-02"  # the freeze below expires 2026-10-22
FLAKY = "flaky:\n  - id: test_export_race\n    expires: 2026-10-22\n    owner: ci-team\n    reason: shared clock\n"
LANES = """\
line_cap: 400
budget_cap: 3
test_paths: ["tests/"]
properties:
  prop_round_trip: {units: 1, says: "serialize-then-parse returns the same record"}
map:
  store.py: [prop_round_trip]
"""
DANA = gh.account("dana", "User", 1004)  # the agent's machine user: typed User, and the author
GIT_ENV = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "agent",
           "GIT_AUTHOR_EMAIL": "agent@lanelog.invalid", "GIT_COMMITTER_NAME": "agent",
           "GIT_COMMITTER_EMAIL": "agent@lanelog.invalid"}
PERSONS_ADVICE = "a person's approval of the merged commit before the merge"
NO_ADVICE = "is always a credit bug: no approval or label would have changed it"


def stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


class PullRequest:
    """An agent's pull request on a real repository: each push routed by the real `lanelog route`."""

    def __init__(self, root: Path) -> None:
        self.root, self.log, self.pushes = root / "repo", root / "lane-log.jsonl", 0
        self.root.mkdir()
        self.git("init", "-q", "-b", "main")
        self.commit({"lanes.yaml": LANES, "flaky.yaml": FLAKY, "store.py": "def put(key, body):\n    return body\n",
                     "tests/test_store.py": "def test_put():\n    assert True\n"})
        self.git("checkout", "-q", "-b", "agent/fix-put")
        self.head = self.push()

    def git(self, *args: str) -> str:
        return subprocess.run(["git", "-C", str(self.root), *args], capture_output=True, text=True, check=True,
                              timeout=60, env={**os.environ, **GIT_ENV}).stdout.strip()

    def commit(self, files: dict[str, str]) -> str:
        for name, text in files.items():
            (self.root / name).parent.mkdir(parents=True, exist_ok=True)
            (self.root / name).write_text(text, encoding="utf-8")
        self.git("add", "-A")
        self.git("commit", "-q", "-m", "change")
        return self.git("rev-parse", "HEAD")

    def push(self) -> str:
        """The agent pushes a new commit: the pull request's head."""
        self.pushes += 1
        self.head = self.commit({"store.py": f"def put(key, body):\n    return dict(body)  # {self.pushes}\n"})
        return self.head

    def route(self, today: str = LIVE) -> datetime:
        """The route job on the current head; the time its line was written."""
        done = lanelog("route", "--repo", str(self.root), "--base", "main", "--head", self.head, "--today", today,
                       "--out", str(self.log), "--pull-request", str(gh.NUMBER), "--repository", gh.REPOSITORY,
                       "--agent", "copilot-swe-agent[bot]", "--annotations", "never")
        assert done.returncode == 0, done.stderr
        line = json.loads(self.log.read_text(encoding="utf-8").splitlines()[-1])
        assert line["quarantine"] == (["test_export_race"] if today == LIVE else []), line
        assert line["head"] == self.head
        return datetime.fromisoformat(line["ts"].replace("Z", "+00:00"))

    def close(self, event: dict[str, Any], reviews: list[dict[str, Any]] | None = None,
              label_events: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        """`lanelog outcome` on the closed event (its head the current one), then `lanelog ingest`."""
        event = copy.deepcopy(event)
        event["pull_request"]["head"]["sha"] = self.head
        args = ["outcome", "--event", str(gh.write(self.root.parent / "event.json", event)), "--out", str(self.log)]
        if reviews is not None:
            args += ["--reviews", str(gh.write(self.root.parent / "reviews.json", reviews))]
        if label_events is not None:
            args += ["--label-events", str(gh.write(self.root.parent / "events.json", label_events))]
        done = lanelog(*args)
        assert done.returncode == 0, done.stderr
        done = lanelog("ingest", str(self.log), "--db", str(self.db))
        assert done.returncode == 0, done.stderr
        return dict(json.loads(self.log.read_text(encoding="utf-8").splitlines()[-1]))

    @property
    def db(self) -> Path:
        return self.root.parent / "lanelog.duckdb"

    def check(self) -> tuple[int, str, list[str]]:
        """`lanelog check --notify` to a receiver: its exit code, its output, and the texts posted."""
        with receiver() as hook:
            done = lanelog("check", "--db", str(self.db), "--notify", hook.url)
            posted = [slack_text(post["body"]) for post in hook.posts]
        return done.returncode, done.stdout, posted


def merged(at: datetime, by: dict[str, Any] = gh.ALICE, **pull: Any) -> dict[str, Any]:
    """GitHub's closed event of a merge at ``at``."""
    return gh.event(merged=True, merged_by=by, closed_at=stamp(at), **pull)


def approval(who: dict[str, Any], at: datetime, commit: str, ident: int = 1, state: str = "APPROVED") -> dict[str, Any]:
    return gh.review(who, state, stamp(at), gh.NUMBER, commit=commit) | {"id": ident}


def assert_credit_bug(pr: PullRequest, advice: str) -> str:
    """check exits 1 naming the merge, and posts one alert with ``advice``; the alert's text."""
    code, out, posted = pr.check()
    assert code == 1, out
    assert any(text.startswith(f"CREDIT BUG (merge) {gh.REPOSITORY}#{gh.NUMBER}") for text in out.splitlines()), out
    (text,) = posted
    assert advice in text, text
    return text


def triage_says(pr: PullRequest) -> str:
    """What the Credit-bug triage page's chosen merge says of whether it could be an exception."""
    from lanelog import queries, store
    from lanelog.dashboard import triage_tables

    con = store.open_db(pr.db, read_only=True)
    try:
        (merge,) = queries.credit_bugs(con).merges
    finally:
        con.close()
    return str(dict(triage_tables.merge_detail(merge).itertuples(index=False))["an exception?"])


def assert_reviewed_exception(pr: PullRequest, said: str) -> None:
    code, out, posted = pr.check()
    assert code == 0, out
    (line,) = [text for text in out.splitlines() if text.startswith("reviewed exception")]
    assert line.endswith(f"said by: {said}") and posted == []


def test_a_route_job_re_run_on_the_same_head_after_a_persons_approval_leaves_a_reviewed_exception(
        tmp_path: Path) -> None:
    pr = PullRequest(tmp_path)
    first = pr.route()
    again = pr.route()  # the job re-run on the same head, after bob approved it
    reviews = [approval(gh.BOB, first, pr.head)]
    pr.close(merged(again + timedelta(minutes=5)), reviews)
    assert_reviewed_exception(pr, "approved by bob")


def test_an_approval_of_an_older_head_submitted_after_the_last_attempt_is_a_credit_bug(tmp_path: Path) -> None:
    pr = PullRequest(tmp_path)
    pr.route()
    older = pr.head
    pr.push()
    last = pr.route()
    reviews = [approval(gh.BOB, last + timedelta(minutes=1), older)]  # after the attempt, of the commit before
    pr.close(merged(last + timedelta(minutes=5)), reviews)
    text = assert_credit_bug(pr, PERSONS_ADVICE)
    assert NO_ADVICE not in text
    assert triage_says(pr) == "possible: a person merged it"


@pytest.mark.parametrize("word", ["approval", "label"])
def test_an_approval_or_a_label_after_the_merge_is_a_credit_bug(tmp_path: Path, word: str) -> None:
    pr = PullRequest(tmp_path)
    last = pr.route()
    merge, later = last + timedelta(minutes=5), last + timedelta(minutes=6)
    if word == "approval":
        pr.close(merged(merge), [approval(gh.BOB, later, pr.head)])
    else:
        pr.close(merged(merge, labels=(ACCEPT,)), [], [gh.labeled(ACCEPT, gh.CAROL, stamp(later), 5)])
    assert_credit_bug(pr, PERSONS_ADVICE)


def wait_past(moment: datetime) -> None:
    """Until the clock has passed ``moment``'s second: a line written now is timed after it."""
    while datetime.now(UTC) < moment + timedelta(seconds=1):
        time.sleep(0.05)


@pytest.mark.parametrize(("before", "after", "exit_code"), [
    (LIVE, LAPSED, 1),   # the freeze lapsed after the merge: the merge was over it all the same
    (LAPSED, LIVE, 0),   # a freeze started after the merge: the merge was over none
])
def test_a_route_job_re_run_after_the_merge_changes_nothing_the_verdict_is_taken_at_the_merge(
        tmp_path: Path, before: str, after: str, exit_code: int) -> None:
    pr = PullRequest(tmp_path)
    merge = pr.route(today=before)
    wait_past(merge)
    pr.route(today=after)
    pr.close(merged(merge), [])
    code, out, posted = pr.check()
    assert (code, len(posted)) == (exit_code, exit_code), out
    if exit_code:
        assert "over quarantine [test_export_race]" in out


@pytest.mark.parametrize("how", ["approval", "label", "own merge"])
def test_the_authors_approval_label_or_own_merge_is_a_credit_bug(tmp_path: Path, how: str) -> None:
    pr = PullRequest(tmp_path)
    last = pr.route()
    merge, before = last + timedelta(minutes=5), last + timedelta(minutes=1)
    if how == "approval":
        pr.close(merged(merge, author=DANA), [approval(DANA, before, pr.head)])
    elif how == "label":
        pr.close(merged(merge, author=DANA, labels=(ACCEPT,)), [], [gh.labeled(ACCEPT, DANA, stamp(before), 5)])
    else:
        pr.close(merged(merge, by=DANA, author=DANA), [approval(gh.BOB, before, pr.head)])
    assert_credit_bug(pr, PERSONS_ADVICE if how != "own merge" else
                      f"a merge by a bot or by the pull request's author over a live quarantine {NO_ADVICE}")


def test_a_dismissed_approval_is_a_credit_bug(tmp_path: Path) -> None:
    pr = PullRequest(tmp_path)
    last = pr.route()
    # GitHub turns a dismissed approval's own state to DISMISSED; carol's comment changes nothing.
    reviews = [approval(gh.BOB, last + timedelta(minutes=1), pr.head, 1, "DISMISSED"),
               approval(gh.CAROL, last + timedelta(minutes=2), pr.head, 2, "COMMENTED")]
    line = pr.close(merged(last + timedelta(minutes=5)), reviews)
    assert line["approvals"] == []
    assert_credit_bug(pr, PERSONS_ADVICE)


def test_a_label_removed_before_the_merge_is_a_credit_bug(tmp_path: Path) -> None:
    pr = PullRequest(tmp_path)
    last = pr.route()
    events = [gh.labeled(ACCEPT, gh.CAROL, stamp(last + timedelta(minutes=1)), 5),
              gh.labeled(ACCEPT, gh.CAROL, stamp(last + timedelta(minutes=2)), 6, kind="unlabeled")]
    line = pr.close(merged(last + timedelta(minutes=5), labels=(ACCEPT,)), [], events)
    assert line["labels"][0]["removed_at"] == stamp(last + timedelta(minutes=2))
    assert_credit_bug(pr, PERSONS_ADVICE)


def mergify_app() -> dict[str, Any]:
    """``performed_via_github_app`` as GitHub gives it on an issue event an app performed."""
    return {"id": 10562, "slug": "mergify", "node_id": "MDM6QXBwMTA1NjI=",
            "owner": gh.account("Mergifyio", "Organization", 35523355), "name": "Mergify", "description": "",
            "external_url": "https://mergify.com", "html_url": "https://github.com/apps/mergify",
            "created_at": "2018-04-10T13:33:54Z", "updated_at": "2024-01-10T09:00:00Z",
            "permissions": {"issues": "write", "pull_requests": "write"}, "events": ["pull_request", "issues"]}


def test_a_label_set_through_an_app_is_a_credit_bug_and_the_app_is_recorded(tmp_path: Path) -> None:
    pr = PullRequest(tmp_path)
    last = pr.route()
    event = gh.labeled(ACCEPT, gh.CAROL, stamp(last + timedelta(minutes=1)), 5) | {
        "performed_via_github_app": mergify_app()}
    line = pr.close(merged(last + timedelta(minutes=5), labels=(ACCEPT,)), [], [event])
    assert line["labels"] == [{"name": ACCEPT, "set_by": {"login": "carol", "type": "User"},
                               "set_at": stamp(last + timedelta(minutes=1)), "via_app": "mergify"}]
    assert_credit_bug(pr, PERSONS_ADVICE)


def test_the_same_label_set_by_a_person_still_on_at_the_merge_is_a_reviewed_exception(tmp_path: Path) -> None:
    pr = PullRequest(tmp_path)
    last = pr.route()
    pr.close(merged(last + timedelta(minutes=5), labels=(ACCEPT,)), [],
             [gh.labeled(ACCEPT, gh.CAROL, stamp(last + timedelta(minutes=1)), 5)])
    assert_reviewed_exception(pr, f"labelled {ACCEPT} by carol")


def test_an_auto_merge_over_a_live_quarantine_says_no_approval_would_have_changed_it(tmp_path: Path) -> None:
    pr = PullRequest(tmp_path)
    last = pr.route()
    auto = {"enabled_by": copy.deepcopy(gh.ALICE), "merge_method": "squash", "commit_title": "Fix put (#42)",
            "commit_message": ""}
    pr.close(merged(last + timedelta(minutes=5), auto_merge=auto), [approval(gh.BOB, last + timedelta(minutes=1),
                                                                              pr.head)])
    text = assert_credit_bug(pr, f"an auto-merge over a live quarantine {NO_ADVICE}")
    assert "reviewed exception" not in text
    assert triage_says(pr) == "never: auto-merge, a bot or the author"
