"""Credit bugs from real merges: `lanelog outcome` records the close, `check` judges it and `--notify`
posts it once; a person's approval after the attempt makes it a reviewed exception, never alerted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.alerts.receiver import receiver
from tests.alerts.support import lanelog, slack_problems, slack_text
from tests.router import github_payloads as gh

REPOSITORY, NUMBER = gh.REPOSITORY, gh.NUMBER


def attempt(attempt_id: str, ts: str, quarantine: list[str], **extra: Any) -> dict[str, Any]:
    """A route line naming the pull request (as `route` writes it under GitHub Actions)."""
    return {"schema": 1, "attempt_id": attempt_id, "ts": ts, "repo": "orders-service", "producer": "lanelog-route",
            "probe": "pass", "model_call_allowed": True, "lane": "hold", "quarantine": quarantine,
            "merge_credit": 0, "properties": ["prop_round_trip"],
            "pull_request": {"repository": REPOSITORY, "number": NUMBER}, "agent": "copilot-swe-agent[bot]", **extra}


def closed_log(tmp_path: Path, event: dict[str, Any], reviews: list[dict[str, Any]] | None,
               attempts: list[dict[str, Any]]) -> Path:
    """The attempts' log, then the outcome line `lanelog outcome` appends for the closed event; ingested."""
    log = tmp_path / "lane-log.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in attempts), encoding="utf-8")
    args = ["outcome", "--event", str(gh.write(tmp_path / "event.json", event)), "--out", str(log)]
    if reviews is not None:
        args += ["--reviews", str(gh.write(tmp_path / "reviews.json", reviews))]
    done = lanelog(*args)
    assert done.returncode == 0, done.stderr
    db = tmp_path / "lanelog.duckdb"
    done = lanelog("ingest", str(log), "--db", str(db))
    assert done.returncode == 0, done.stderr
    return db


QUARANTINED = [attempt("a1", "2026-10-07T09:00:00Z", []), attempt("a2", "2026-10-08T12:30:00Z", ["test_export_race"])]


def test_an_auto_merge_over_a_live_quarantine_is_a_credit_bug_check_exits_1_and_posts_once(tmp_path: Path) -> None:
    # bob approved the merged head: a person's merge would be a reviewed exception, an auto-merge is not.
    approved = [gh.review(gh.BOB, "APPROVED", "2026-10-08T10:00:00Z", 1)]
    db = closed_log(tmp_path, gh.auto_merged(), approved, QUARANTINED)
    done = lanelog("check", "--db", str(db))
    assert done.returncode == 1, done.stderr
    (bug,) = [text for text in done.stdout.splitlines() if text.startswith("CREDIT BUG (merge)")]
    assert f"{REPOSITORY}#{NUMBER} https://github.com/{REPOSITORY}/pull/{NUMBER}" in bug
    assert "merged by alice (User), auto-merge enabled by alice" in bug
    assert "over quarantine [test_export_race]: last attempt a2 at 2026-10-08T12:30:00Z" in bug
    assert "1 credit bug (1 pull request merged over a live quarantine nobody said may go) in range" in done.stdout

    as_json = [json.loads(text) for text in lanelog("check", "--db", str(db), "--format", "json").stdout.splitlines()]
    assert [(row["kind"], row["pr_number"], row["auto_merge"], row["said_by"]) for row in as_json] == [
        ("merge_credit_bug", NUMBER, True, ["approved by bob"])]

    with receiver() as hook:
        for _ in range(2):  # the nightly job, run twice
            done = lanelog("check", "--db", str(db), "--notify", hook.url, "--dashboard-url", "https://lanelog.example/")
            assert done.returncode == 1, done.stderr
        (post,) = hook.posts
        assert slack_problems(post["body"]) == []
        text = slack_text(post["body"])
        assert post["body"]["text"] == (f"lanelog credit bug: pull request {REPOSITORY}#{NUMBER} merged over a live "
                                        "quarantine")
        assert "auto-merge enabled by `alice`" in text and "`test_export_race`" in text
        assert "an auto-merge over a live quarantine is always a credit bug: no approval or label would have " \
               "changed it" in text and "makes such a merge a reviewed exception" not in text
        assert "Open in credit-bug triage" in text

    with receiver() as hook:
        done = lanelog("check", "--db", str(db), "--notify", hook.url, "--notify-format", "json")
        (post,) = hook.posts
        event = post["body"]
        assert {key: event[key] for key in ("event", "verdict", "pr_repository", "pr_number", "merged_by",
                                             "auto_merge", "auto_merge_by", "quarantine", "last_attempt")} == {
            "event": "merge_credit_bug", "verdict": "credit_bug", "pr_repository": REPOSITORY, "pr_number": NUMBER,
            "merged_by": "alice", "auto_merge": True, "auto_merge_by": "alice", "quarantine": ["test_export_race"],
            "last_attempt": "a2"}
        assert event["merged_at"] == "2026-10-08T14:03:00Z" and event["week"] == "2026-10-05"


@pytest.mark.parametrize(("event", "reviews", "said"), [
    (gh.merged_by_a_person(), [gh.review(gh.BOB, "APPROVED", "2026-10-08T13:00:00Z", 1)], "approved by bob"),
    (gh.event(merged=True, merged_by=gh.ALICE, labels=("lanelog:accept-quarantine",)), None, None),
])
def test_a_persons_word_after_the_attempt_makes_a_reviewed_exception_never_alerted(
        tmp_path: Path, event: dict[str, Any], reviews: list[dict[str, Any]] | None, said: str | None) -> None:
    db = closed_log(tmp_path, event, reviews, QUARANTINED)
    done = lanelog("check", "--db", str(db))
    lines = done.stdout.splitlines()
    if said is None:
        # The label alone, with no label events fetched, says nothing of who set it: not a person's word.
        assert done.returncode == 1 and any(text.startswith("CREDIT BUG (merge)") for text in lines)
        return
    assert done.returncode == 0, done.stdout
    (exception,) = [text for text in lines if text.startswith("reviewed exception")]
    assert exception.endswith(f"said by: {said}")
    assert "no credit bugs in range" in done.stdout and "1 reviewed exception(s)" in done.stdout
    with receiver() as hook:
        assert lanelog("check", "--db", str(db), "--notify", hook.url).returncode == 0
        assert hook.posts == []


def test_a_label_set_by_a_person_is_a_reviewed_exception_and_by_a_bot_is_not(tmp_path: Path) -> None:
    event = gh.event(merged=True, merged_by=gh.ALICE, labels=("lanelog:accept-quarantine",))
    for who, exit_code in ((gh.CAROL, 0), (gh.MERGIFY, 1)):
        folder = tmp_path / who["login"]
        folder.mkdir()
        log = folder / "lane-log.jsonl"
        log.write_text("".join(json.dumps(line) + "\n" for line in QUARANTINED), encoding="utf-8")
        labelled = gh.labeled("lanelog:accept-quarantine", who, "2026-10-08T13:30:00Z", 5)
        events = gh.write(folder / "events.json", [labelled])
        done = lanelog("outcome", "--event", str(gh.write(folder / "event.json", event)), "--label-events", str(events),
                       "--out", str(log))
        assert done.returncode == 0, done.stderr
        assert lanelog("ingest", str(log), "--db", str(folder / "db.duckdb")).returncode == 0
        assert lanelog("check", "--db", str(folder / "db.duckdb")).returncode == exit_code, who["login"]


def test_a_merge_without_a_live_quarantine_and_a_close_without_merge_are_no_credit_bugs(tmp_path: Path) -> None:
    merged, closed = tmp_path / "merged", tmp_path / "closed"
    merged.mkdir()
    closed.mkdir()
    clean = [attempt("a1", "2026-10-08T12:30:00Z", [])]
    done = lanelog("check", "--db", str(closed_log(merged, gh.merged_by_a_bot(), None, clean)))
    assert done.returncode == 0 and "CREDIT BUG" not in done.stdout, done.stdout
    done = lanelog("check", "--db", str(closed_log(closed, gh.closed_without_merge(), None, QUARANTINED)))
    assert done.returncode == 0 and "CREDIT BUG" not in done.stdout, done.stdout
