"""Budget thresholds, spend spikes and the weekly digest, posted once, against a real receiver on 127.0.0.1."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb
import pytest

from tests.alerts.receiver import receiver
from tests.alerts.support import digest, ingest_lines, lanelog, runs_at_once, slack_problems, slack_text

MONDAY = date(2026, 10, 5)
HOSTILE_PATTERN = "<!channel>*`x` <https://evil.example|hi>"


def spent(n: int, day: date, cost: float, repo: str = "svc-orders") -> dict[str, Any]:
    return {"attempt_id": f"s{n}", "ts": f"{day.isoformat()}T12:00:00Z", "repo": repo, "probe": "pass",
            "model_call_allowed": True, "properties": ["prop_a"], "units": 1,
            "usage": {"prop_a": {"input_tokens": 10, "output_tokens": 1, "cost": cost, "currency": "USD"}}}


def make_db(tmp_path: Path, extra: list[dict[str, Any]] | None = None) -> Path:
    """2 USD a day from MONDAY to the Sunday after the next; 1 USD a day in the four weeks before."""
    lines = [spent(n, MONDAY + timedelta(days=n), 2.0) for n in range(14)]
    lines += [spent(100 + n, MONDAY - timedelta(days=n + 1), 1.0) for n in range(28)]
    return ingest_lines(tmp_path, [*lines, *(extra or [])])


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return make_db(tmp_path)


@pytest.fixture
def budgets(tmp_path: Path) -> Path:
    path = tmp_path / "budgets.yaml"
    path.write_text("budgets:\n  - {name: all-spend, amount: 10, currency: USD, period: week}\n")
    return path


def marks(db: Path) -> list[str]:
    with duckdb.connect(str(db), read_only=True) as con:
        return sorted(row[0] for row in con.execute("SELECT bug_key FROM alerts_sent").fetchall())


def texts(hook: Any) -> list[str]:
    return [post["body"]["text"] for post in hook.posts]


def test_each_threshold_of_a_budget_is_posted_once_per_period(db: Path, budgets: Path) -> None:
    def check(day: str) -> subprocess.CompletedProcess[str]:
        return lanelog("check", "--db", str(db), "--budgets", str(budgets), "--today", day, "--notify", hook.url,
                       "--spike-min", "1000")

    with receiver() as hook:
        thursday = check("2026-10-08")  # 8 of 10 USD: past 80%
        assert thursday.returncode == 0, thursday.stderr
        assert "alerts: 1 sent, 0 sent before (to 1 webhook(s))" in thursday.stderr
        again = check("2026-10-08")
        assert "alerts: 0 sent, 1 sent before" in again.stderr and len(hook.posts) == 1
        saturday = check("2026-10-10")  # 12 of 10: past 100% too, and over (exit 1): 100% is posted
        assert saturday.returncode == 1
        assert "alerts: 1 sent, 0 sent before" in saturday.stderr
        next_week = check("2026-10-15")  # a new period: 8 of 10 again
        assert "alerts: 1 sent, 0 sent before" in next_week.stderr
    assert texts(hook) == [
        "lanelog budget all-spend: 80% spent (8.00 USD of 10.00 USD), past 80% in the week from 2026-10-05",
        "lanelog budget all-spend: 120% spent (12.00 USD of 10.00 USD), past 100% in the week from 2026-10-05",
        "lanelog budget all-spend: 80% spent (8.00 USD of 10.00 USD), past 80% in the week from 2026-10-12",
    ]
    assert marks(db) == ["budget:all-spend:0.8:2026-10-05", "budget:all-spend:0.8:2026-10-12",
                         "budget:all-spend:1:2026-10-05"]


def test_a_first_run_past_several_thresholds_posts_the_highest_once(db: Path, budgets: Path) -> None:
    """A budget found past 80% and 100% at once is one crossing: the 100% alert alone, never two posts."""
    with receiver() as hook:
        saturday = lanelog("check", "--db", str(db), "--budgets", str(budgets), "--today", "2026-10-10",
                           "--notify", hook.url, "--spike-min", "1000")
        assert saturday.returncode == 1 and "alerts: 1 sent, 0 sent before" in saturday.stderr
    assert texts(hook) == [
        "lanelog budget all-spend: 120% spent (12.00 USD of 10.00 USD), past 100% in the week from 2026-10-05"]
    assert marks(db) == ["budget:all-spend:1:2026-10-05"]


def test_two_runs_at_once_post_each_budget_alert_once(db: Path, tmp_path: Path) -> None:
    """Each post takes the receiver half a second, so the runs overlap; each claims before it posts."""
    many = tmp_path / "many.yaml"
    many.write_text("budgets:\n" + "".join(
        f"  - {{name: b{n}, amount: {5 + n}, currency: USD, period: week, thresholds: [0.5, 0.8, 1.0]}}\n"
        for n in range(4)))
    command = [sys.executable, "-m", "lanelog", "check", "--db", str(db), "--budgets", str(many),
               "--today", "2026-10-11", "--spike-min", "1000"]
    hook, runs, outputs = runs_at_once(command, delay=0.5)
    # 14 USD spent: every budget (5 to 8 USD) is past all three of its thresholds: one post each, 100%.
    assert [run.returncode for run in runs] == [1, 1], outputs
    expected = sorted(f"budget:b{n}:1:2026-10-05" for n in range(4))
    assert len(hook.posts) == 4
    assert marks(db) == expected
    sent = [int(err.split("alerts: ", 1)[1].split(" sent,", 1)[0]) for _, err in outputs]
    assert sum(sent) == 4


def test_a_budget_alert_shows_its_scope_as_escaped_code_and_links_to_the_spend_review(tmp_path: Path) -> None:
    db = make_db(tmp_path, [spent(999, date(2026, 10, 1), 1.0, repo=HOSTILE_PATTERN)])
    scoped = tmp_path / "scoped.yaml"
    scoped.write_text("budgets:\n  - name: odd\n    amount: 1\n    currency: USD\n    period: month\n"
                      f"    repo: {json.dumps(HOSTILE_PATTERN)}\n")
    with receiver() as hook:
        done = lanelog("check", "--db", str(db), "--budgets", str(scoped), "--today", "2026-10-08",
                       "--notify", hook.url, "--dashboard-url", "https://lanelog.example/", "--spike-min", "1000")
        assert done.returncode == 0, done.stderr  # exactly the amount: both thresholds reached, not over
    assert len(hook.posts) == 1  # the highest threshold reached, once
    body = hook.posts[0]["body"]
    detail = body["blocks"][0]["text"]["text"]
    assert "*Scope:* repositories `&lt;!channel&gt;*\u02cbx\u02cb &lt;https://evil.example|hi&gt;`" in detail
    assert "<!channel>" not in json.dumps(body) and "<https://evil" not in json.dumps(body)
    assert body["blocks"][1]["text"]["text"] == (
        "<https://lanelog.example/spend?weeks=2026-10-01&amp;weeks=2026-10-31|Open the Spend review>")
    assert body["unfurl_links"] is False


def test_a_json_receiver_gets_a_plain_event(db: Path, budgets: Path) -> None:
    with receiver() as hook:
        lanelog("check", "--db", str(db), "--budgets", str(budgets), "--today", "2026-10-08", "--notify", hook.url,
                "--notify-format", "json", "--spike-min", "1000")
    (post,) = hook.posts
    event = post["body"]
    assert (event["event"], event["name"], event["threshold"], event["spend"], event["amount"], event["start"],
            event["spend_url"]) == ("budget_threshold", "all-spend", 0.8, 8.0, 10.0, "2026-10-05", None)


def test_a_spike_is_posted_once(db: Path) -> None:
    # The week of MONDAY spent 14 USD against 7 a week in the four before it: twice, so above 1.5 times.
    with receiver() as hook:
        first = lanelog("check", "--db", str(db), "--today", "2026-10-11", "--notify", hook.url,
                        "--spike-factor", "1.5")
        assert first.returncode == 0, first.stderr
        assert "alerts: 1 sent, 0 sent before" in first.stderr
        second = lanelog("check", "--db", str(db), "--today", "2026-10-11", "--notify", hook.url,
                         "--spike-factor", "1.5")
        assert "alerts: 0 sent, 1 sent before" in second.stderr
    assert texts(hook) == ["lanelog spend spike: 14.00 USD in the week of 2026-10-05, 2.0 times the mean of the "
                           "four weeks before"]
    assert marks(db) == ["spike:2026-10-05:USD"]


def test_the_weekly_digest_is_posted_once_per_week_and_receiver(db: Path, budgets: Path) -> None:
    def review(today: str, *urls: str) -> subprocess.CompletedProcess[str]:
        notify = [arg for url in urls for arg in ("--notify", url)]
        return lanelog("report", "--db", str(db), "--week", "LAST", "--today", today, "--format", "markdown",
                       "--budgets", str(budgets), *notify)

    with receiver() as one, receiver("/other/hook") as two:
        first = review("2026-10-13", one.url)  # Tuesday: last week is the week of MONDAY
        assert first.returncode == 0, first.stderr
        assert "digest of the week 2026-10-05: 1 sent, 0 sent before (to 1 webhook(s))" in first.stderr
        again = review("2026-10-18", one.url, two.url)  # the same week for one; new to two
        assert "digest of the week 2026-10-05: 1 sent, 1 sent before (to 2 webhook(s))" in again.stderr
        later = review("2026-10-20", one.url)  # the next week
        assert "digest of the week 2026-10-12: 1 sent, 0 sent before" in later.stderr
        assert len(one.posts) == 2 and len(two.posts) == 1
    # The week of MONDAY (2 USD a day) against the week before it (1 USD a day), as Slack blocks.
    body = one.posts[0]["body"]
    assert slack_problems(body) == []
    assert body["blocks"][0]["text"]["text"] == "lanelog weekly review: week of 2026-10-05"
    shown = slack_text(body)
    assert "Against the week of 2026-09-28 (weeks from Monday, UTC)" in shown
    assert "*Attempts*\n7 (+0 on the week before)" in shown
    assert "*Cost*\n14.00 USD (+7.00 USD on the week before)" in shown
    assert "*Top repositories by cost*\n1. `svc-orders`: 14.00 USD" in shown
    assert "• *over* all-spend: 14.00 USD of 10.00 USD (140%) in the week to 2026-10-11" in shown
    # The review printed beside it compares the same two weeks, money included.
    assert "Week of 2026-10-05 against the week of 2026-09-28:" in first.stdout
    assert "| cost | 7.00 USD | 14.00 USD | +7.00 USD |" in first.stdout
    with duckdb.connect(str(db), read_only=True) as con:
        sent = sorted(con.execute("SELECT bug_key, receiver FROM alerts_sent").fetchall())
    assert sent == sorted([("digest:2026-10-05", digest(one.url)), ("digest:2026-10-05", digest(two.url)),
                           ("digest:2026-10-12", digest(one.url))])


def test_a_json_receiver_gets_the_digest_as_data(db: Path) -> None:
    with receiver() as hook:
        done = lanelog("report", "--db", str(db), "--week", "2026-10-14", "--format", "markdown",
                       "--notify", hook.url, "--notify-format", "json")
        assert done.returncode == 0, done.stderr
    (post,) = hook.posts
    event = post["body"]
    assert event["event"] == "weekly_review" and event["digest"]["week"] == "2026-10-12"
    assert event["digest"]["week_before"] == "2026-10-05"
    assert event["digest"]["figures"]["calls_armed"] == {"value": 7, "before": 7, "change": 0}
    assert event["digest"]["money"]["cost"] == 14.0 and event["digest"]["money"]["change"] == 0


def test_two_digest_runs_at_once_post_it_once(db: Path) -> None:
    command = [sys.executable, "-m", "lanelog", "report", "--db", str(db), "--week", "2026-10-07",
               "--format", "markdown"]
    hook, runs, outputs = runs_at_once(command, delay=1.0)
    assert [run.returncode for run in runs] == [0, 0], outputs
    assert len(hook.posts) == 1
    told = sorted(err.split("digest of the week 2026-10-05: ", 1)[1].split(" (to", 1)[0] for _, err in outputs)
    assert told in (["0 sent, 0 sent before, 1 being sent by another run", "1 sent, 0 sent before"],
                    ["0 sent, 1 sent before", "1 sent, 0 sent before"])


def test_a_digest_kept_once_needs_the_database(tmp_path: Path) -> None:
    log = tmp_path / "lane-log.jsonl"
    log.write_text(json.dumps(spent(1, MONDAY, 1.0)) + "\n")
    done = lanelog("report", str(log), "--week", "LAST", "--format", "markdown", "--notify", "https://hooks.example/x")
    assert done.returncode == 2
    assert "--notify with --week needs the database (--db)" in done.stderr


def test_thresholds_that_differ_have_keys_that_differ() -> None:
    """A key once wrote its threshold with :g, so 0.9999999 and 1.0 shared one and 100% was never sent."""
    from lanelog.cli.render.alerts import budget_key
    from lanelog.queries import Budget, Status

    status = Status(Budget("b", 1.0, "USD", "week", thresholds=(0.9999999, 1.0)), date(2026, 10, 5),
                    date(2026, 10, 11), date(2026, 10, 6), Decimal(1), 1)
    assert [budget_key(status, threshold) for threshold in status.crossed] == [
        "budget:b:0.9999999:2026-10-05", "budget:b:1:2026-10-05"]
