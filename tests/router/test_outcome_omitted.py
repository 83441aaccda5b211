"""An outcome is never lost to one odd field: a login or a label name the line refuses is left out.

A label holding U+202E made `lanelog outcome` exit 2 and write nothing, so the merge was never
judged.  Now such a value is left out of the line, named on stderr and in the line's `omitted`
(its field, its key in the input, what is wrong: never the value), and the merge is recorded.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from lanelog.framing import UNSAFE
from tests.router import github_payloads as gh
from tests.router.test_outcome_hostile import TEN_MB, merged_with, written
from tests.router.test_route_github import runner_reads

BIDI = "holds the control, separator or bidi character U+{}"


@pytest.mark.parametrize(("change", "field", "key", "why"), [
    ({"labels": [gh.label("ok"), gh.label("a\u202eb")]}, "labels", "pull_request.labels[1].name", BIDI.format("202E")),
    ({"labels": [gh.label("ok"), gh.label("a\u2066b")]}, "labels", "pull_request.labels[1].name", BIDI.format("2066")),
    ({"labels": [gh.label("ok"), "agent-pr"]}, "labels", "pull_request.labels[1]",
     "must be an object, not a string of 8 characters"),
    ({"user": {"login": "agent\x1b]0;pwned\x07", "type": "Bot"}}, "author", "pull_request.user.login",
     BIDI.format("001B")),
    ({"user": {"login": "nimda\u202e", "type": "User"}}, "author", "pull_request.user.login", BIDI.format("202E")),
    ({"user": {"login": "\udbff", "type": "User"}}, "author", "pull_request.user.login", BIDI.format("DBFF")),
    ({"user": {"login": TEN_MB, "type": "User"}}, "author", "pull_request.user.login",
     "must be 1 to 100 characters, not 10485760"),
    ({"user": {"login": "", "type": "User"}}, "author", "pull_request.user.login",
     "must be 1 to 100 characters, not 0"),
    ({"user": {"login": ["alice"], "type": "User"}}, "author", "pull_request.user.login",
     "must be a string, not an array"),
    ({"user": {"login": "alice", "type": "User\n"}}, "author", "pull_request.user.type",
     "must be an account type such as User or Bot"),
    ({"merged_by": {"login": "\u0430lice", "type": "User"}},  # a Cyrillic a: would pass for alice
     "merged_by", "pull_request.merged_by.login", "must be printable ASCII, as a login is"),
    ({"merged_by": {"login": "alice", "type": 1}}, "merged_by", "pull_request.merged_by.type",
     "must be an account type such as User or Bot, not a number"),
    ({"merged_by": "alice"}, "merged_by", "pull_request.merged_by",
     "must be an object with a login and a type, not a string of 5 characters"),
    ({"auto_merge": {"enabled_by": {"login": "al\u202eice", "type": "User"}, "merge_method": "squash"}},
     "auto_merge.enabled_by", "pull_request.auto_merge.enabled_by.login", BIDI.format("202E")),
])
def test_a_login_or_label_the_line_refuses_is_left_out_and_named_and_the_merge_is_recorded(
        outcome, tmp_path, change, field, key, why):
    event = written(tmp_path, merged_with(**change))
    done = outcome("--event", str(event))
    assert done.exit_code == 0, done.stderr
    line = done.line
    assert (line["state"], line["merged_at"]) == ("merged", "2026-10-08T14:03:00Z")
    assert line["omitted"] == [{"field": field, "key": key, "why": why}]
    assert done.stderr == (f"lanelog outcome: {event}, key {key}: {why}; left out, and named in the line's "
                           "omitted: the close is recorded\n")
    if field == "labels":
        assert [label["name"] for label in line["labels"]] == ["ok"]
    elif field == "auto_merge.enabled_by":
        assert line["auto_merge"] == {"enabled_by": None, "merge_method": "squash"}
    else:
        assert line[field] is None


def test_a_clean_line_has_no_omitted_field(outcome, tmp_path):
    assert "omitted" not in outcome("--event", str(written(tmp_path, gh.auto_merged()))).line


def test_a_review_by_a_login_the_line_refuses_is_left_out_and_the_others_kept(outcome, tmp_path):
    event = written(tmp_path, gh.merged_by_a_person())
    reviews = gh.write(tmp_path / "reviews.json", [
        gh.review(gh.account("bob\u200f"), "APPROVED", "2026-10-08T13:50:00Z", 1),
        gh.review(gh.CAROL, "APPROVED", "2026-10-08T13:55:00Z", 2)])
    line = outcome("--event", str(event), "--reviews", str(reviews)).line
    assert [approval["login"] for approval in line["approvals"]] == ["carol"]
    assert line["omitted"] == [{"field": "approvals", "key": "[0].user.login", "why": BIDI.format("200F")}]


def test_a_labeled_event_the_line_refuses_is_left_out_and_the_label_kept_without_its_setter(outcome, tmp_path):
    event = written(tmp_path, gh.event(merged=True, merged_by=gh.ALICE, labels=("agent-pr",)))
    events = gh.write(tmp_path / "events.json", [
        gh.labeled("a\u2028b", gh.BOB, "2026-10-08T13:00:00Z", 1),
        gh.labeled("agent-pr", gh.BOB, "2026-10-08T13:00:00Z", 2) | {"actor": "bob"}])
    line = outcome("--event", str(event), "--label-events", str(events)).line
    assert line["labels"] == [{"name": "agent-pr", "set_at": "2026-10-08T13:00:00Z"}]
    assert line["omitted"] == [
        {"field": "labels", "key": "[0].label.name", "why": BIDI.format("2028")},
        {"field": "labels", "key": "[1].actor", "why": "must be an object with a login and a type, not a string of "
                                                        "3 characters"}]


def test_an_omission_forges_no_workflow_command_and_the_line_stays_one_safe_line(tmp_path):
    payload = merged_with(user={"login": "::error::x\u202e", "type": "Bot"},
                          labels=[gh.label("::warning::y\n"), gh.label("\x1b[2Jz")])
    log = tmp_path / "lane-log.jsonl"
    done = subprocess.run([sys.executable, "-m", "lanelog", "outcome", "--event", str(written(tmp_path, payload)),
                           "--out", str(log)], capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert runner_reads(done.stdout) == runner_reads(done.stderr) == []
    text = log.read_text(encoding="utf-8")
    assert not UNSAFE.search(text[:-1]) and len(text.splitlines()) == 1
    line = json.loads(text)
    assert [item["key"] for item in line["omitted"]] == [
        "pull_request.user.login", "pull_request.labels[0].name", "pull_request.labels[1].name"]
    assert "::" not in json.dumps(line["omitted"]) and line["labels"] == [] and line["author"] is None


def test_a_login_or_label_flag_the_line_refuses_is_left_out_and_named_and_the_merge_is_recorded(outcome):
    done = outcome("--repository", "acme/orders", "--pull-request", "7", "--state", "merged",
                   "--closed-at", "2026-10-08T14:03:00Z", "--merged-by", "alice smith", "--merged-by-type", "User",
                   "--author", "codex-\u00e4gent", "--label", "ok", "--label", "a\u202eb")
    line = done.line
    assert (line["state"], line["merged_by"], line["author"], line["labels"]) == ("merged", None, None,
                                                                                 [{"name": "ok"}])
    assert line["omitted"] == [
        {"field": "merged_by", "key": "--merged-by", "why": "must hold no white space"},
        {"field": "author", "key": "--author", "why": "must be printable ASCII, as a login is"},
        {"field": "labels", "key": "--label [1]", "why": BIDI.format("202E")}]
    assert done.stderr.splitlines()[-1] == ("lanelog outcome: --label [1]: holds the control, separator or bidi "
                                            "character U+202E; left out, and named in the line's omitted: the close "
                                            "is recorded")
