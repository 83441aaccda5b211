"""`lanelog outcome`: one line for each closed pull request, from GitHub's event or from flags.

The payloads are recorded in the shape GitHub sends them (tests/router/github_payloads.py),
and the command is the real one, run through the `lanelog` group as a user runs it.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from lanelog.cli import cli
from tests.router import github_payloads as gh
from tests.router.conftest import read_log

GOLDEN = Path(__file__).parent / "golden"
CLOSED_AT = "2026-10-08T14:03:00Z"
ALICE = {"login": "alice", "type": "User"}
BOB = {"login": "bob", "type": "User"}
CAROL = {"login": "carol", "type": "User"}
AGENT = {"login": "copilot-swe-agent[bot]", "type": "Bot"}
PULL_REQUEST = {"repository": gh.REPOSITORY, "number": gh.NUMBER,
                "url": f"https://github.com/{gh.REPOSITORY}/pull/{gh.NUMBER}"}


def actions(event: Path, attempt: int = 1) -> dict[str, str | None]:
    """A GitHub Actions job on the pull request's closed event, as the runner sets it up."""
    return {"GITHUB_ACTIONS": "true", "GITHUB_EVENT_PATH": str(event), "GITHUB_REPOSITORY": gh.REPOSITORY,
            "GITHUB_SERVER_URL": "https://github.com", "GITHUB_RUN_ID": "9876543210",
            "GITHUB_RUN_ATTEMPT": str(attempt)}


def outcome_id(state: str) -> str:
    key = f"{gh.REPOSITORY}\n{gh.NUMBER}\n{state}\n{CLOSED_AT}"
    return "outcome-" + hashlib.sha256(key.encode()).hexdigest()[:32]


def test_a_merge_by_a_person_with_an_approval_under_actions_is_the_golden_line(outcome, tmp_path):
    payload = gh.event(merged=True, merged_by=gh.ALICE, labels=("lanelog:accept-quarantine", "agent-pr"))
    event = gh.write(tmp_path / "event.json", payload)
    reviews = gh.write(tmp_path / "reviews.json", [gh.review(gh.BOB, "APPROVED", "2026-10-08T13:50:00Z", 80)])
    labels = gh.write(tmp_path / "events.json", [
        gh.labeled("agent-pr", gh.ACTIONS_BOT, "2026-10-08T12:00:05Z", 1),
        gh.labeled("lanelog:accept-quarantine", gh.CAROL, "2026-10-08T13:40:00Z", 2)])
    done = outcome("--reviews", str(reviews), "--label-events", str(labels), env=actions(event, attempt=2))
    line = done.line
    assert done.stderr == ""
    assert line["outcome_id"] == outcome_id("merged")
    expected = (GOLDEN / "outcome_merged.json").read_text(encoding="utf-8")
    assert json.dumps(line, indent=2, ensure_ascii=False) + "\n" == expected


def test_an_auto_merge_names_who_enabled_it_and_how(outcome, tmp_path):
    line = outcome("--event", str(gh.write(tmp_path / "event.json", gh.auto_merged()))).line
    assert (line["state"], line["merged_by"]) == ("merged", ALICE)
    assert line["auto_merge"] == {"enabled_by": ALICE, "merge_method": "squash"}
    assert (line["merged_at"], line["closed_at"], line["ts"]) == (CLOSED_AT, CLOSED_AT, CLOSED_AT)
    assert "approvals" not in line  # no reviews file: unknown, not none
    assert "ci_run" not in line  # off Actions, no --ci-run-url


def test_a_merge_by_a_bot_says_so(outcome, tmp_path):
    line = outcome("--event", str(gh.write(tmp_path / "event.json", gh.merged_by_a_bot()))).line
    assert line["merged_by"] == {"login": "mergify[bot]", "type": "Bot"}
    assert line["auto_merge"] is None and line["author"] == AGENT


def test_a_pull_request_closed_without_merge_has_no_merge_and_no_merge_commit(outcome, tmp_path):
    payload = gh.closed_without_merge()
    assert payload["pull_request"]["merge_commit_sha"] == gh.MERGE_COMMIT  # GitHub's test merge, never merged
    line = outcome("--event", str(gh.write(tmp_path / "event.json", payload))).line
    assert {key: line[key] for key in ("state", "merged_at", "closed_at", "merged_by", "auto_merge", "merge_commit",
                                       "head", "outcome_id", "ts")} == {
        "state": "closed", "merged_at": None, "closed_at": CLOSED_AT, "merged_by": None, "auto_merge": None,
        "merge_commit": None, "head": gh.HEAD, "outcome_id": outcome_id("closed"), "ts": CLOSED_AT}


def test_a_re_run_job_writes_the_same_line_and_its_run_attempt(outcome, tmp_path, log_file):
    event = gh.write(tmp_path / "event.json", gh.merged_by_a_person())
    first = outcome(env=actions(event)).line
    again = outcome(env=actions(event)).line
    rerun = outcome(env=actions(event, attempt=2)).line
    assert again == first  # the same close, the same line: ingest counts it once
    assert len(read_log(log_file)) == 3 and log_file.read_text().splitlines()[0] == log_file.read_text().splitlines()[1]
    assert rerun["outcome_id"] == first["outcome_id"] == outcome_id("merged")
    assert {key: value for key, value in rerun.items() if key != "ci_run"} == {
        key: value for key, value in first.items() if key != "ci_run"}
    assert (first["ci_run"]["attempt"], rerun["ci_run"]["attempt"]) == (1, 2)


REVIEWS_PAGE_1 = [
    gh.review(gh.ALICE, "APPROVED", "2026-10-08T13:00:00Z", 1),
    gh.review(gh.ACTIONS_BOT, "APPROVED", "2026-10-08T13:05:00Z", 2),
    gh.review(gh.BOB, "APPROVED", "2026-10-08T13:10:00Z", 3),
    gh.review(gh.CAROL, "DISMISSED", "2026-10-08T13:20:00Z", 4),     # her approval, dismissed
    gh.review(gh.ALICE, "CHANGES_REQUESTED", "2026-10-08T13:30:00Z", 5),  # cancels her approval
]
REVIEWS_PAGE_2 = [
    gh.review(gh.BOB, "COMMENTED", "2026-10-08T13:40:00Z", 6),       # changes nothing
    gh.review(gh.account("erin", "User", 1005), "CHANGES_REQUESTED", "2026-10-08T12:50:00Z", 7, commit=gh.BASE),
    gh.review(gh.account("erin", "User", 1005), "APPROVED", "2026-10-08T13:45:00Z", 8),
    gh.review(gh.account("dave", "User", 1004), "PENDING", None, 9),  # not submitted
    {**gh.review(gh.ALICE, "APPROVED", "2026-10-08T13:46:00Z", 10), "user": None},  # a deleted account
]
APPROVED = [
    {"login": "github-actions[bot]", "type": "Bot", "submitted_at": "2026-10-08T13:05:00Z", "commit_id": gh.HEAD},
    {"login": "bob", "type": "User", "submitted_at": "2026-10-08T13:10:00Z", "commit_id": gh.HEAD},
    {"login": "erin", "type": "User", "submitted_at": "2026-10-08T13:45:00Z", "commit_id": gh.HEAD},
]


def test_a_later_change_request_or_dismissal_cancels_an_approval_and_a_comment_does_not(outcome, tmp_path):
    event = gh.write(tmp_path / "event.json", gh.merged_by_a_person())
    # `gh api --paginate` prints each page's array in turn.
    reviews = gh.write(tmp_path / "reviews.json", REVIEWS_PAGE_1, REVIEWS_PAGE_2)
    assert reviews.read_text().count("\n]") == 2
    line = outcome("--event", str(event), "--reviews", str(reviews)).line
    assert line["approvals"] == APPROVED


def test_reviews_printed_with_slurp_are_read_the_same(outcome, tmp_path):
    event = gh.write(tmp_path / "event.json", gh.merged_by_a_person())
    reviews = gh.write(tmp_path / "reviews.json", [REVIEWS_PAGE_1, REVIEWS_PAGE_2])
    assert outcome("--event", str(event), "--reviews", str(reviews)).line["approvals"] == APPROVED


def test_no_reviews_is_an_empty_list_and_no_file_is_unknown(outcome, tmp_path):
    event = gh.write(tmp_path / "event.json", gh.merged_by_a_person())
    assert outcome("--event", str(event), "--reviews", str(gh.write(tmp_path / "r.json", []))).line["approvals"] == []
    assert "approvals" not in outcome("--event", str(event)).line


def test_each_label_names_who_set_it_last_a_person_or_a_bot(outcome, tmp_path):
    payload = gh.event(merged=True, merged_by=gh.ALICE, labels=("lanelog:accept-quarantine", "agent-pr", "needs-docs"))
    events = gh.write(tmp_path / "events.json", [
        gh.labeled("agent-pr", gh.ACTIONS_BOT, "2026-10-08T12:00:05Z", 1),
        gh.labeled("lanelog:accept-quarantine", gh.BOB, "2026-10-08T13:00:00Z", 2),
        gh.labeled("lanelog:accept-quarantine", gh.BOB, "2026-10-08T13:10:00Z", 3, kind="unlabeled"),
        {"id": 4, "event": "assigned", "actor": "not read", "assignee": {"login": "\x1b[2J"}},
        gh.labeled("wip", gh.ALICE, "2026-10-08T13:20:00Z", 5),  # no longer on the pull request
    ], [
        gh.labeled("lanelog:accept-quarantine", gh.CAROL, "2026-10-08T13:40:00Z", 6),
    ])
    event = gh.write(tmp_path / "event.json", payload)
    line = outcome("--event", str(event), "--label-events", str(events)).line
    assert line["labels"] == [
        {"name": "lanelog:accept-quarantine", "set_by": CAROL, "set_at": "2026-10-08T13:40:00Z"},
        {"name": "agent-pr", "set_by": {"login": "github-actions[bot]", "type": "Bot"},
         "set_at": "2026-10-08T12:00:05Z"},
        {"name": "needs-docs"},  # no labeled event: who set it is unknown, never guessed
    ]
    assert outcome("--event", str(event)).line["labels"] == [
        {"name": "lanelog:accept-quarantine"}, {"name": "agent-pr"}, {"name": "needs-docs"}]


def test_a_label_removed_after_it_was_set_says_when_and_one_set_through_an_app_names_the_app(outcome, tmp_path):
    payload = gh.event(merged=True, merged_by=gh.ALICE, labels=("lanelog:accept-quarantine", "agent-pr"))
    through_app = gh.labeled("agent-pr", gh.BOB, "2026-10-08T12:10:00Z", 3)
    through_app["performed_via_github_app"] = {"id": 10562, "slug": "mergify", "name": "Mergify",
                                               "owner": gh.account("Mergifyio", "Organization", 35523355)}
    events = gh.write(tmp_path / "events.json", [
        gh.labeled("lanelog:accept-quarantine", gh.BOB, "2026-10-08T13:00:00Z", 1),
        gh.labeled("lanelog:accept-quarantine", gh.CAROL, "2026-10-08T13:10:00Z", 2, kind="unlabeled"),
        through_app,
    ])
    line = outcome("--event", str(gh.write(tmp_path / "event.json", payload)), "--label-events", str(events)).line
    assert line["labels"] == [
        {"name": "lanelog:accept-quarantine", "set_by": BOB, "set_at": "2026-10-08T13:00:00Z",
         "removed_at": "2026-10-08T13:10:00Z"},
        {"name": "agent-pr", "set_by": BOB, "set_at": "2026-10-08T12:10:00Z", "via_app": "mergify"},
    ]


def test_an_app_the_line_cannot_name_leaves_the_label_set_by_nobody_and_is_named(outcome, tmp_path):
    payload = gh.event(merged=True, merged_by=gh.ALICE, labels=("lanelog:accept-quarantine",))
    event = gh.labeled("lanelog:accept-quarantine", gh.BOB, "2026-10-08T13:00:00Z", 1)
    event["performed_via_github_app"] = {"id": 1, "slug": "merge\u202ebot"}
    done = outcome("--event", str(gh.write(tmp_path / "event.json", payload)),
                   "--label-events", str(gh.write(tmp_path / "events.json", [event])))
    assert done.line["labels"] == [{"name": "lanelog:accept-quarantine", "set_at": "2026-10-08T13:00:00Z"}]
    assert done.line["omitted"] == [{"field": "labels", "key": "[0].performed_via_github_app.slug",
                                     "why": "holds the control, separator or bidi character U+202E"}]


def test_a_pull_request_object_without_a_labels_key_has_no_labels(outcome, tmp_path):
    payload = gh.merged_by_a_person()
    del payload["pull_request"]["labels"]
    assert outcome("--event", str(gh.write(tmp_path / "event.json", payload))).line["labels"] == []


def test_under_actions_without_an_event_file_the_flags_still_work_and_take_the_runs_repository(outcome):
    line = outcome("--pull-request", "7", "--state", "closed", "--closed-at", "2026-10-08T16:03:00+02:00",
                   env={"GITHUB_ACTIONS": "true", "GITHUB_REPOSITORY": "acme/orders", "GITHUB_RUN_ID": "12",
                        "GITHUB_RUN_ATTEMPT": "1"}).line
    assert line["pull_request"] == {"repository": "acme/orders", "number": 7}
    assert line["closed_at"] == CLOSED_AT  # kept in UTC
    assert line["ci_run"] == {"id": "12", "attempt": 1}  # no $GITHUB_SERVER_URL: no url, never guessed


def test_a_bad_run_variable_leaves_the_run_out_with_a_note_and_the_outcome_stands(outcome, tmp_path):
    event = gh.write(tmp_path / "event.json", gh.merged_by_a_person())
    done = outcome(env={**actions(event), "GITHUB_RUN_ATTEMPT": "1\n::error::forged"})
    assert done.stderr == "lanelog outcome: ci_run left out: $GITHUB_RUN_ATTEMPT: must be a whole number from 1 to " \
                          "2147483647\n"
    assert "ci_run" not in done.line and done.line["state"] == "merged"


def test_another_forge_records_its_outcome_by_flags(outcome):
    done = outcome("--repository", "acme/orders", "--pull-request", "7", "--state", "merged", "--closed-at", CLOSED_AT,
                   "--merged-by", "alice", "--merged-by-type", "User", "--auto-merge", "--head", gh.HEAD.upper(),
                   "--merge-commit", gh.MERGE_COMMIT, "--author", "codex-agent", "--author-type", "Bot",
                   "--label", "lanelog:accept-quarantine", "--label", "agent-pr",
                   "--pull-request-url", "https://git.example.org/acme/orders/-/merge_requests/7",
                   "--ci-run-url", "https://ci.example.org/jobs/88", "--repo-name", "acme/orders")
    key = "acme/orders\n7\nmerged\n" + CLOSED_AT
    assert done.line == {
        "schema": 1, "kind": "outcome", "producer": "lanelog-outcome",
        "outcome_id": "outcome-" + hashlib.sha256(key.encode()).hexdigest()[:32], "ts": CLOSED_AT,
        "repo": "acme/orders",
        "pull_request": {"repository": "acme/orders", "number": 7,
                         "url": "https://git.example.org/acme/orders/-/merge_requests/7"},
        "head": gh.HEAD, "state": "merged", "merged_at": CLOSED_AT, "closed_at": CLOSED_AT,
        "merged_by": ALICE, "auto_merge": {"enabled_by": None, "merge_method": None},
        "author": {"login": "codex-agent", "type": "Bot"},
        "labels": [{"name": "lanelog:accept-quarantine"}, {"name": "agent-pr"}],
        "merge_commit": gh.MERGE_COMMIT, "ci_run": {"url": "https://ci.example.org/jobs/88"}}


def test_flags_leave_unknown_facts_null_never_guessed(outcome):
    line = outcome("--repository", "acme/orders", "--pull-request", "7", "--state", "closed",
                   "--closed-at", CLOSED_AT).line
    assert {key: line[key] for key in ("repo", "head", "merged_at", "merged_by", "auto_merge", "author", "labels",
                                       "merge_commit")} == {
        "repo": "orders", "head": None, "merged_at": None, "merged_by": None, "auto_merge": None, "author": None,
        "labels": [], "merge_commit": None}


@pytest.mark.parametrize(("args", "error"), [
    (["--repository", "acme/orders", "--pull-request", "7", "--closed-at", CLOSED_AT],
     "Error: an outcome from flags needs --state merged|closed\n"),
    (["--state", "merged"],
     "Error: an outcome from flags needs --pull-request N, --closed-at TIME\n"),
    (["--pull-request", "7", "--state", "closed", "--closed-at", CLOSED_AT],
     "Error: an outcome from flags needs --repository OWNER/NAME (or $GITHUB_REPOSITORY under GitHub Actions)\n"),
    (["--repository", "acme/orders", "--pull-request", "7", "--state", "closed", "--closed-at", CLOSED_AT,
      "--merged-by", "alice", "--merge-commit", gh.MERGE_COMMIT],
     "Error: --merged-by, --merge-commit describe a merge: --state closed has none\n"),
    (["--repository", "acme/orders", "--pull-request", "7", "--state", "merged", "--closed-at", CLOSED_AT,
      "--merged-by-type", "Bot"], "Error: --merged-by-type needs --merged-by\n"),
    (["--event", "event.json", "--state", "merged", "--label", "x"],
     "Error: --event FILE describes the pull request; leave out --state, --label\n"),
    ([], "Error: no closed pull request to record: give --event FILE (a saved pull_request closed event), or "
         "--pull-request N --state merged|closed --closed-at TIME, or run it under GitHub Actions on a "
         "pull_request closed event\n"),
])
def test_flags_that_do_not_make_an_outcome_are_an_error_and_write_nothing(outcome, args, error, log_file):
    done = outcome(*args)
    assert (done.exit_code, done.stdout, done.stderr) == (2, "", error)
    assert not log_file.exists()


@pytest.mark.parametrize(("args", "error"), [
    (["--pull-request", "0"], "Invalid value for '--pull-request': 0 is not in the range 1<=x<=2147483647."),
    (["--repository", "acme/orders/x"], "Invalid value for '--repository': must be OWNER/NAME, each part 1 to 100 "
                                        "letters, digits, '.', '_' or '-'"),
    (["--repository", "acme/.."], "Invalid value for '--repository': must be OWNER/NAME"),
    (["--closed-at", "yesterday"], "Invalid value for '--closed-at': must be a time with its offset, such as "
                                   "2026-10-08T14:03:00Z"),
    (["--closed-at", "2026-10-08T14:03:00"], "Invalid value for '--closed-at': must be a time with its offset"),
    (["--head", "abc123"], "Invalid value for '--head': must be a commit's full id, 40 or 64 hex digits"),
    (["--pull-request-url", "javascript:alert(1)"],
     "Invalid value for '--pull-request-url': must be an http or https URL with a host and no credentials"),
    (["--ci-run-url", "https://user:token@ci.example.org/run/1"],
     "Invalid value for '--ci-run-url': must be an http or https URL with a host and no credentials"),
    (["--merged-by-type", "Organization"], "Invalid value for '--merged-by-type': 'Organization' is not one of"),
])
def test_a_bad_flag_value_is_a_usage_error(outcome, args, error, log_file):
    done = outcome(*args)
    assert done.exit_code == 2 and done.stdout == ""
    assert error in done.stderr, done.stderr
    assert not log_file.exists()


def test_the_log_defaults_to_lanelog_log_then_lane_log_jsonl(tmp_path, monkeypatch):
    event = gh.write(tmp_path / "event.json", gh.merged_by_a_person())
    monkeypatch.chdir(tmp_path)
    done = CliRunner().invoke(cli, ["outcome", "--event", str(event)])
    assert done.exit_code == 0, done.stderr
    assert read_log(tmp_path / "lane-log.jsonl") == [json.loads(done.stdout)]
    done = CliRunner().invoke(cli, ["outcome", "--event", str(event)], env={"LANELOG_LOG": "logs/team.jsonl"})
    assert read_log(tmp_path / "logs" / "team.jsonl") == [json.loads(done.stdout)]


def test_a_log_that_cannot_be_written_prints_the_line_and_exits_2(tmp_path):
    event = gh.write(tmp_path / "event.json", gh.merged_by_a_person())
    not_a_folder = tmp_path / "a-file"
    not_a_folder.write_text("", encoding="utf-8")
    done = CliRunner().invoke(cli, ["outcome", "--event", str(event), "--out", str(not_a_folder / "log.jsonl")])
    assert done.exit_code == 2
    assert done.stderr.startswith(f"Error: cannot append to the lane log {not_a_folder / 'log.jsonl'}: ")
    assert json.loads(done.stdout)["kind"] == "outcome"
