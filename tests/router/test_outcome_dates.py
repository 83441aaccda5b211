"""`lanelog outcome` takes only times ingest can date (lanelog.times' FIRST_DAY to LAST_DAY, in UTC).

A close timed in 2300 was written, stored undated and so never seen: the pull request read as
open and `check` exited 0 over a merge it never judged.  Such a time is now refused where it is
given, as `route --today` refuses such a day, naming the key or the option.
"""

from __future__ import annotations

import pytest

from tests.router import github_payloads as gh

OUTSIDE = "is outside the dates lanelog supports (1970-01-01 to 2199-12-31)"


@pytest.mark.parametrize(("key", "value", "day"), [
    ("closed_at", "2300-01-01T00:00:00Z", "2300-01-01"),
    ("merged_at", "1969-12-31T23:59:59Z", "1969-12-31"),
    ("closed_at", "2199-12-31T23:30:00-01:00", "2200-01-01"),  # 2200-01-01T00:30 in UTC
    ("closed_at", "9999-12-31T23:00:00-05:00", "9999-12-31"),  # past Python's last day in UTC
    ("closed_at", "0001-01-01T00:00:00+01:00", "0001-01-01"),
])
def test_an_event_timed_outside_the_dates_ingest_can_date_is_refused_naming_the_key(outcome, tmp_path, key, value,
                                                                                    day, log_file):
    payload = gh.merged_by_a_person()
    payload["pull_request"][key] = value
    event = gh.write(tmp_path / "event.json", payload)
    done = outcome("--event", str(event))
    assert (done.exit_code, done.stdout, done.stderr) == (
        2, "", f"Error: {event}, key pull_request.{key}: {day} {OUTSIDE}\n")
    assert not log_file.exists()


@pytest.mark.parametrize(("value", "kept"), [
    ("2199-12-31T23:59:59Z", "2199-12-31T23:59:59Z"),
    ("1970-01-01T00:30:00+00:00", "1970-01-01T00:30:00Z"),
    ("1969-12-31T23:30:00-01:00", "1970-01-01T00:30:00Z"),
])
def test_a_close_on_the_first_or_last_day_ingest_can_date_is_written(outcome, tmp_path, value, kept):
    payload = gh.closed_without_merge()
    payload["pull_request"]["closed_at"] = value
    done = outcome("--event", str(gh.write(tmp_path / "event.json", payload)))
    assert done.exit_code == 0, done.stderr
    assert (done.line["ts"], done.line["closed_at"]) == (kept, kept)


def test_a_closed_at_flag_outside_the_dates_ingest_can_date_is_a_usage_error_naming_it(outcome):
    done = outcome("--repository", "acme/orders", "--pull-request", "7", "--state", "merged",
                   "--closed-at", "2300-01-01T00:00:00Z")
    assert done.exit_code == 2
    assert f"Invalid value for '--closed-at': 2300-01-01 {OUTSIDE}" in done.stderr


@pytest.mark.parametrize(("option", "items", "key"), [
    ("--reviews", [gh.review(gh.BOB, "APPROVED", "2300-01-01T00:00:00Z", 1)], "[0].submitted_at"),
    ("--label-events", [gh.labeled("agent-pr", gh.BOB, "2300-01-01T00:00:00Z", 1)], "[0].created_at"),
])
def test_a_review_or_label_timed_outside_the_dates_is_refused_naming_the_file_and_key(outcome, tmp_path, option,
                                                                                      items, key):
    event = gh.write(tmp_path / "event.json", gh.event(merged=True, merged_by=gh.ALICE, labels=("agent-pr",)))
    path = gh.write(tmp_path / "items.json", items)
    done = outcome("--event", str(event), option, str(path))
    assert (done.exit_code, done.stderr) == (2, f"Error: {path}, key {key}: 2300-01-01 {OUTSIDE}\n")
    assert done.added == []
