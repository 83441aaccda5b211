"""Merges on GitLab and Bitbucket judged as GitHub's: the outcome lines of their published example
payloads (tests/router/data/forges/README.md), written by the real `lanelog outcome`, ingested by the
real ingest beside a quarantined attempt, and read by the one verdict (queries/outcomes.sql) and the
report.  A person's approval after the last attempt makes a reviewed exception; a bot's merge is a
credit bug, on every forge, because each adapter writes its accounts as User or Bot."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from lanelog import ingest, queries, store
from lanelog.cli import cli
from tests.router import forge_payloads as fp


def attempt(repository: str, number: int, ts: str) -> dict[str, Any]:
    """The last routed attempt of the change: passed, quarantined (a live flaky test), no merge credit."""
    return {"schema": 1, "attempt_id": f"attempt-{number}", "ts": ts, "repo": repository.rsplit("/", 1)[1],
            "producer": "lanelog-route", "probe": "pass", "model_call_allowed": False, "lane": "not_started",
            "quarantine": ["test_export_race"], "merge_credit": 0,
            "pull_request": {"repository": repository, "number": number}}


def record(log: Path, *args: str) -> dict[str, Any]:
    result = CliRunner().invoke(cli, ["outcome", "--out", str(log), *args], env={"GITLAB_CI": None,
                                                                                 "GITHUB_ACTIONS": None,
                                                                                 "BITBUCKET_BUILD_NUMBER": None})
    assert result.exit_code == 0, result.stderr
    line: dict[str, Any] = json.loads(result.stdout)
    return line


def gitlab_merge(tmp_path: Path, log: Path, merger: dict[str, Any], approvals: list[dict[str, Any]]) -> None:
    """GitLab's example merge request (gitlabhq/gitlab-test !1, merged 2013-12-03T17:23:34Z) by ``merger``."""
    log.write_text(json.dumps(attempt("gitlabhq/gitlab-test", 1, "2013-12-03T12:00:00Z")) + "\n", encoding="utf-8")
    hook = fp.gitlab_hook()
    hook["user"] = merger
    record(log, "--forge", "gitlab", "--event", str(fp.write(tmp_path / "hook.json", hook)),
           "--approvals", str(fp.write(tmp_path / "approvals.json", {"iid": 1, "approved_by": approvals})))


def bitbucket_merge(tmp_path: Path, log: Path, merger: dict[str, Any], approvers: list[dict[str, Any]]) -> None:
    """Bitbucket's example pull request (team_name/repo_name #1, merged 2015-04-06T15:23:38Z) by ``merger``."""
    log.write_text(json.dumps(attempt("team_name/repo_name", 1, "2015-04-06T12:00:00Z")) + "\n", encoding="utf-8")
    payload = fp.bitbucket_payload("MERGED")
    payload["pullrequest"]["closed_by"] = merger
    payload["pullrequest"]["participants"] = [{"type": "participant", "role": "REVIEWER", "approved": True,
                                               "user": user} for user in approvers]
    record(log, "--forge", "bitbucket", "--event", str(fp.write(tmp_path / "fulfilled.json", payload)))


def verdicts(log: Path) -> tuple[list[str | None], dict[str, int]]:
    """The merges' verdicts, and the report's credit-bug counts, from the log ingested."""
    con = store.open_memory()
    summary = ingest.ingest_paths(con, [log])
    assert (summary.errors, summary.rejected, summary.attempts_added, summary.outcomes_added) == ([], 0, 1, 1)
    found = queries.credit_bugs(con)
    return [merge["verdict"] for merge in [*found.merges, *found.exceptions]], found.counts()


Merge = Callable[[Path, Path, dict[str, Any], list[dict[str, Any]]], None]
GITLAB_PERSON = {"id": 2, "username": "alice", "name": "Alice"}
GITLAB_BOT = {"id": 9, "username": "project_1_bot_5e2a", "name": "****"}
BITBUCKET_PERSON = fp.bitbucket_account("alice")
BITBUCKET_BOT = fp.bitbucket_account("merge-app", "app_user")
CASES: list[tuple[str, Merge, dict[str, Any], list[dict[str, Any]], str]] = [
    ("gitlab: a person merges, a person approved", gitlab_merge, GITLAB_PERSON,
     [{"user": {"id": 3, "username": "bob"}, "approved_at": "2013-12-03T15:00:00Z"}], "reviewed_exception"),
    ("gitlab: an approval of no known time never counts", gitlab_merge, GITLAB_PERSON,
     [{"user": {"id": 3, "username": "bob"}}], "credit_bug"),
    ("gitlab: an approval before the last attempt does not count", gitlab_merge, GITLAB_PERSON,
     [{"user": {"id": 3, "username": "bob"}, "approved_at": "2013-12-03 11:00:00 UTC"}], "credit_bug"),
    ("gitlab: a bot's approval does not count", gitlab_merge, GITLAB_PERSON,
     [{"user": {"id": 4, "username": "reviewer", "bot": True}, "approved_at": "2013-12-03T15:00:00Z"}],
     "credit_bug"),
    ("gitlab: a bot merges, a person approved", gitlab_merge, GITLAB_BOT,
     [{"user": {"id": 3, "username": "bob"}, "approved_at": "2013-12-03T15:00:00Z"}], "credit_bug"),
    ("bitbucket: a person merges, a person approved", bitbucket_merge, BITBUCKET_PERSON,
     [fp.bitbucket_account("bob")], "reviewed_exception"),
    ("bitbucket: nobody approved", bitbucket_merge, BITBUCKET_PERSON, [], "credit_bug"),
    ("bitbucket: an app's approval does not count", bitbucket_merge, BITBUCKET_PERSON,
     [fp.bitbucket_account("review-app", "app_user")], "credit_bug"),
    ("bitbucket: an app merges, a person approved", bitbucket_merge, BITBUCKET_BOT,
     [fp.bitbucket_account("bob")], "credit_bug"),
]


@pytest.mark.parametrize(("case", "merge", "merger", "approvals", "verdict"), CASES, ids=[case[0] for case in CASES])
def test_a_merge_over_a_live_quarantine_is_judged_by_the_forges_person_rule(
        tmp_path: Path, case: str, merge: Merge, merger: dict[str, Any], approvals: list[dict[str, Any]],
        verdict: str) -> None:
    log = tmp_path / "lane-log.jsonl"
    merge(tmp_path, log, merger, approvals)
    found, counts = verdicts(log)
    assert found == [verdict]
    assert counts["merge_credit_bugs"] == (1 if verdict == "credit_bug" else 0)


def _append(log: Path, line: dict[str, Any]) -> None:
    with log.open("a", encoding="utf-8") as out:
        out.write(json.dumps(line) + "\n")


@pytest.mark.parametrize("name", ["gitlab", "bitbucket"])
def test_the_report_counts_the_forges_merged_and_closed_outcomes(tmp_path: Path, name: str) -> None:
    log = tmp_path / "lane-log.jsonl"
    if name == "gitlab":
        gitlab_merge(tmp_path, log, GITLAB_PERSON, [])
        _append(log, attempt("gitlabhq/gitlab-test", 2, "2013-12-03T12:30:00Z"))
        closed = fp.gitlab_hook("close", "closed", iid=2)
        record(log, "--forge", "gitlab", "--event", str(fp.write(tmp_path / "closed.json", closed)))
    else:
        bitbucket_merge(tmp_path, log, BITBUCKET_PERSON, [])
        _append(log, attempt("team_name/repo_name", 2, "2015-04-06T12:30:00Z"))
        declined = fp.bitbucket_payload("DECLINED")
        declined["pullrequest"]["id"] = 2
        record(log, "--forge", "bitbucket", "--event", str(fp.write(tmp_path / "declined.json", declined)))
    result = CliRunner().invoke(cli, ["report", str(log), "--format", "json"])
    assert result.exit_code == 0, result.stderr
    totals = json.loads(result.stdout)["outcomes"]["totals"]
    assert {key: totals[key] for key in ("pull_requests", "merged", "closed_without_merge", "open",
                                         "merge_credit_bugs", "reviewed_exceptions")} == {
        "pull_requests": 2, "merged": 1, "closed_without_merge": 1, "open": 0,
        "merge_credit_bugs": 1, "reviewed_exceptions": 0}


@pytest.mark.parametrize(("setter", "verdict"), [({"id": 2, "username": "alice"}, "reviewed_exception"),
                                                 ({"id": 9, "username": "group_4_bot_77"}, "credit_bug")])
def test_gitlabs_accept_label_set_by_a_person_makes_a_reviewed_exception(tmp_path: Path, setter: dict[str, Any],
                                                                         verdict: str) -> None:
    log = tmp_path / "lane-log.jsonl"
    log.write_text(json.dumps(attempt("gitlabhq/gitlab-test", 1, "2013-12-03T12:00:00Z")) + "\n", encoding="utf-8")
    hook = fp.gitlab_hook()
    hook["user"] = GITLAB_PERSON
    hook["labels"] = [{"id": 300, "title": queries.ACCEPT_LABEL}]
    events = [{"id": 1, "user": setter, "created_at": "2013-12-03 15:00:00 UTC", "resource_type": "MergeRequest",
               "resource_id": 99, "label": {"id": 300, "name": queries.ACCEPT_LABEL}, "action": "add"}]
    record(log, "--forge", "gitlab", "--event", str(fp.write(tmp_path / "hook.json", hook)),
           "--label-events", str(fp.write(tmp_path / "label-events.json", events)))
    assert verdicts(log)[0] == [verdict]
