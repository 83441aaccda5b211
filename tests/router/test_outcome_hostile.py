"""`lanelog outcome` on inputs nobody vouches for: a hostile field or file forges nothing and writes nothing.

A value that is not well formed is an error naming the file and the key (exit 2, no line), but
for a login or a label name, which is left out and named (tests/router/test_outcome_omitted.py); the
title and the body are never read; a login that looks like a workflow command is data; a file
that is a FIFO, a folder, huge, not UTF-8 or not JSON is refused without hanging.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from lanelog.cli import cli
from lanelog.framing import UNSAFE
from tests.router import github_payloads as gh
from tests.router.test_route_github import runner_reads

TEN_MB = "x" * (10 * 1024 * 1024)


def written(tmp_path: Path, payload: object, name: str = "event.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(payload), encoding="utf-8")  # ensure_ascii: a lone surrogate as its escape
    return path


def merged_with(**change: object) -> dict:
    payload = gh.auto_merged()
    payload["pull_request"].update(change)
    return payload


@pytest.mark.parametrize(("change", "error"), [
    ({"merged": "true"}, "key pull_request.merged: must be true or false, not a string of 4 characters"),
    ({"number": -1}, "key pull_request.number: must be a whole number from 1 to 2147483647"),
    ({"number": 4.2}, "key pull_request.number: must be a whole number from 1 to 2147483647, not a number"),
    ({"html_url": "https://github.com/x\n::error::y"},
     "key pull_request.html_url: must be an http or https URL of at most 2048 printable ASCII characters"),
    ({"head": {"sha": "6dcb09b"}}, "key pull_request.head.sha: must be a commit's full id, 40 or 64 hex digits"),
    ({"head": None}, "key pull_request.head: must be an object, not null"),
    ({"merge_commit_sha": "z" * 40},
     "key pull_request.merge_commit_sha: must be a commit's full id, 40 or 64 hex digits"),
    ({"closed_at": None}, "key pull_request.closed_at: must be a time with its offset, such as "
                          "2026-10-08T14:03:00Z, not null"),
    ({"merged_at": "2026-10-08 14:03"}, "key pull_request.merged_at: must be a time with its offset, such as "
                                        "2026-10-08T14:03:00Z"),
    ({"auto_merge": {"enabled_by": None, "merge_method": "force"}},
     "key pull_request.auto_merge.merge_method: must be one of merge, squash, rebase"),
    ({"auto_merge": []}, "key pull_request.auto_merge: must be an object, not an array"),
    ({"labels": {"name": "x"}}, "key pull_request.labels: must be an array, not an object"),
    ({"labels": [gh.label(f"l{n}") for n in range(101)]},
     "key pull_request.labels: holds 101 labels; a pull request has at most 100"),
])
def test_a_hostile_field_is_an_error_naming_the_file_and_key_and_nothing_is_written(outcome, tmp_path, change,
                                                                                    error, log_file):
    event = written(tmp_path, merged_with(**change))
    done = outcome("--event", str(event))
    assert (done.exit_code, done.stdout, done.stderr) == (2, "", f"Error: {event}, {error}\n")
    assert not log_file.exists()


def test_a_repository_that_breaks_githubs_rules_is_an_error(outcome, tmp_path):
    payload = gh.merged_by_a_person()
    payload["repository"]["full_name"] = "octo-org/orders service"
    event = written(tmp_path, payload)
    assert outcome("--event", str(event)).stderr == (
        f"Error: {event}, key repository.full_name: must be OWNER/NAME, each part 1 to 100 letters, digits, '.', "
        "'_' or '-'\n")


def test_a_title_and_body_are_never_read(outcome, tmp_path):
    payload = merged_with(title="\x1b[2J::error::forged\u2028" + TEN_MB, body={"not": ["text"]})
    line = outcome("--event", str(written(tmp_path, payload))).line
    assert "title" not in json.dumps(line) and line["state"] == "merged"


def test_a_login_that_looks_like_a_workflow_command_is_data_and_forges_nothing(tmp_path):
    payload = merged_with(user={"login": "::error::forged", "type": "Bot"},
                          merged_by={"login": "##[error]forged", "type": "User"})
    log = tmp_path / "lane-log.jsonl"
    done = subprocess.run([sys.executable, "-m", "lanelog", "outcome", "--event", str(written(tmp_path, payload)),
                           "--out", str(log)], capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    line = json.loads(done.stdout)
    assert (line["author"]["login"], line["merged_by"]["login"]) == ("::error::forged", "##[error]forged")
    assert runner_reads(done.stdout) == runner_reads(done.stderr) == []
    assert not any(text.lstrip().startswith(("::", "##[")) for text in done.stdout.decode().splitlines())
    assert json.loads(log.read_text(encoding="utf-8")) == line


def _bad_file(kind: str, path: Path) -> None:
    if kind == "fifo":
        os.mkfifo(path)  # no writer: a blocking read would wait for ever
    elif kind == "folder":
        path.mkdir()
    elif kind == "not JSON":
        path.write_text("action: closed\n", encoding="utf-8")
    elif kind == "NaN":
        path.write_text('{"action": "closed", "pull_request": {"number": Infinity}}', encoding="utf-8")
    elif kind == "deep":
        path.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    elif kind == "not UTF-8":
        path.write_bytes(b'\xff\xfe{\x00}\x00')
    elif kind == "huge":
        with path.open("wb") as out:
            out.truncate(25 * 1024 * 1024 + 1)


@pytest.mark.parametrize(("kind", "why"), [
    ("fifo", "is not a regular file (a FIFO, a device or a socket)"),
    ("folder", "is a folder, not a file"),
    ("missing", "cannot be read (No such file or directory)"),
    ("not JSON", "is not JSON (line 1, column 1: Expecting value)"),
    ("NaN", "is not JSON (Infinity is not a JSON number)"),
    ("deep", "is not JSON (nested too deeply)"),
    ("not UTF-8", "is not UTF-8 text (byte 0)"),
    ("huge", "is larger than 26214400 bytes"),
])
@pytest.mark.parametrize("option", ["--event", "--reviews", "--label-events"])
def test_a_file_that_cannot_be_read_is_refused_without_hanging(tmp_path, kind, why, option):
    bad = tmp_path / "input.json"
    _bad_file(kind, bad)
    args = [] if option == "--event" else ["--event", str(written(tmp_path, gh.merged_by_a_person(), "ok.json"))]
    log = tmp_path / "lane-log.jsonl"
    done = subprocess.run([sys.executable, "-m", "lanelog", "outcome", *args, option, str(bad), "--out", str(log)],
                          capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", f"Error: {bad}: {why}\n")
    assert not log.exists()


@pytest.mark.parametrize(("payload", "found"), [
    (gh.event("opened", merged=False, state="open", closed_at=None), "action 'opened'"),
    ({"action": "closed", "issue": {"number": 42}, "repository": gh.repository()},
     "action 'closed', no pull_request object"),
    ({"ref": "refs/heads/main", "after": gh.HEAD}, "action null, no pull_request object"),
    ({"action": "::error::x" * 10, "pull_request": {}}, "action a string of 100 characters"),
    ([gh.merged_by_a_person()], "the payload is an array"),
])
def test_a_payload_that_is_not_a_closed_pull_request_event_is_named(outcome, tmp_path, payload, found):
    event = written(tmp_path, payload)
    done = outcome("--event", str(event))
    assert (done.exit_code, done.stderr) == (2, f"Error: {event}: is not a pull_request closed event ({found})\n")


def test_under_actions_the_runners_event_is_named_by_its_variable(outcome, tmp_path):
    event = written(tmp_path, gh.event("reopened", merged=False, state="open", closed_at=None))
    done = outcome(env={"GITHUB_ACTIONS": "true", "GITHUB_EVENT_PATH": str(event)})
    assert done.stderr == f"Error: $GITHUB_EVENT_PATH ({event}): is not a pull_request closed event (action " \
                          "'reopened')\n"


@pytest.mark.parametrize(("reviews", "error"), [
    ({"reviews": []}, "must be the JSON array of reviews that `gh api ... --paginate` prints, not an object"),
    ("", "must be the JSON array of reviews that `gh api ... --paginate` prints, not an empty file"),
    ([1], "key [0]: must be a review object, not a number"),
    ([gh.review(gh.BOB, "APPROVED", "2026-10-08T13:50:00Z", 1), "x"], "key [1]: must be a review object, not a string "
                                                                     "of 1 characters"),
    ([gh.review(gh.BOB, "LGTM", "2026-10-08T13:50:00Z", 1)],
     "key [0].state: must be one of APPROVED, CHANGES_REQUESTED, COMMENTED, DISMISSED, PENDING"),
    ([gh.review(gh.BOB, "APPROVED", None, 1)],
     "key [0].submitted_at: must be a time with its offset, such as 2026-10-08T14:03:00Z, not null"),
    ([{**gh.review(gh.BOB, "APPROVED", "2026-10-08T13:50:00Z", 1),
       "pull_request_url": f"https://api.github.com/repos/{gh.REPOSITORY}/pulls/41"}],
     f"key [0].pull_request_url: the review is of another pull request than {gh.REPOSITORY}#42"),
])
def test_a_reviews_file_that_is_not_what_gh_prints_is_named(outcome, tmp_path, reviews, error):
    event = written(tmp_path, gh.merged_by_a_person())
    path = tmp_path / "reviews.json"
    path.write_text(reviews if isinstance(reviews, str) else json.dumps(reviews), encoding="utf-8")
    done = outcome("--event", str(event), "--reviews", str(path))
    separator = ", " if error.startswith("key") else ": "
    assert (done.exit_code, done.stderr) == (2, f"Error: {path}{separator}{error}\n")


def test_more_than_a_hundred_approving_reviewers_is_an_error(outcome, tmp_path):
    event = written(tmp_path, gh.merged_by_a_person())
    reviews = gh.write(tmp_path / "reviews.json", [
        gh.review(gh.account(f"reviewer-{n}", "User", n), "APPROVED", "2026-10-08T13:50:00Z", n) for n in range(101)])
    done = outcome("--event", str(event), "--reviews", str(reviews))
    assert done.stderr == f"Error: {reviews}: 101 reviewers approve; an outcome keeps at most 100\n"


@pytest.mark.parametrize(("events", "error"), [
    ([gh.labeled("agent-pr", gh.BOB, "2026-10-08T13:00:00Z", 1) | {"label": None}],
     "key [0].label: must be a label object, not null"),
])
def test_a_label_events_file_with_a_hostile_labeled_event_is_named(outcome, tmp_path, events, error):
    event = written(tmp_path, gh.event(merged=True, merged_by=gh.ALICE, labels=("agent-pr",)))
    path = gh.write(tmp_path / "events.json", events)
    done = outcome("--event", str(event), "--label-events", str(path))
    assert (done.exit_code, done.stderr) == (2, f"Error: {path}, {error}\n")


def test_a_path_that_tries_to_start_a_command_is_shown_framed(tmp_path):
    path = tmp_path / "event\n::warning::forged.json"
    done = subprocess.run([sys.executable, "-m", "lanelog", "outcome", "--event", str(path), "--out",
                           str(tmp_path / "log.jsonl")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr == f"Error: {tmp_path}/event\\x0a::warning::forged.json: cannot be read (No such file or " \
                          "directory)\n"
    assert runner_reads(done.stderr.encode()) == []


@settings(max_examples=200, deadline=None)
@given(author=st.text(max_size=120), label=st.text(max_size=120), url=st.text(max_size=60))
def test_any_text_in_a_field_is_refused_or_left_out_by_name_or_kept_as_it_is_on_one_line(author, label, url):
    payload = merged_with(user={"login": author, "type": "Bot"}, labels=[gh.label(label)],
                          html_url=f"https://github.com/{url}")
    with tempfile.TemporaryDirectory() as folder:
        event, log = written(Path(folder), payload), Path(folder) / "lane-log.jsonl"
        done = CliRunner().invoke(cli, ["outcome", "--event", str(event), "--out", str(log)])
        if done.exit_code == 2:
            assert done.stderr.startswith(f"Error: {event}, key pull_request.") and not log.exists()
            return
        assert done.exit_code == 0, done.output
        text = log.read_text(encoding="utf-8")
    assert text.endswith("\n") and not UNSAFE.search(text[:-1]) and len(text.splitlines()) == 1
    line = json.loads(text)
    left_out = {item["key"] for item in line.get("omitted", [])}
    assert line["author"] is None if "pull_request.user.login" in left_out else line["author"]["login"] == author
    assert line["labels"] == [] if "pull_request.labels[0].name" in left_out else line["labels"][0]["name"] == label
    assert left_out <= {"pull_request.user.login", "pull_request.labels[0].name"}
    assert line["pull_request"]["url"] == f"https://github.com/{url}"
