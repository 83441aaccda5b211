"""The weekly digest as Slack gets it: outcomes and a link to the dashboard, within Block Kit's limits whatever
the data, and a week without attempts named; each alert's long quarantine cut, never refused."""

from __future__ import annotations

import json
import shutil
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest

from lanelog.cli.render import alerts as alert_forms
from tests.alerts.receiver import receiver
from tests.alerts.support import SLACK_LIMITS, ingest_lines, lanelog, slack_problems, slack_text
from tests.alerts.test_merge_alerts import attempt, closed_log
from tests.router import github_payloads as gh

MONDAY = date(2026, 10, 5)
DASHBOARD = "https://lanelog.example.com"


def spent(n: int, day: date, cost: float) -> dict[str, Any]:
    return {"attempt_id": f"s{n}", "ts": f"{day.isoformat()}T12:00:00Z", "repo": "svc", "probe": "pass",
            "model_call_allowed": True, "properties": ["prop_a"], "units": 1,
            "usage": {"prop_a": {"input_tokens": 10, "output_tokens": 1, "cost": cost, "currency": "USD"}}}


def digest_posts(db: Path, *args: str, env: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """What `report --notify` posts to a real receiver, the command's exit checked."""
    with receiver() as hook:
        done = lanelog("report", "--db", str(db), "--format", "markdown", *args, "--notify", hook.url, env=env)
    assert done.returncode == 0, done.stderr
    return [post["body"] for post in hook.posts]


def sections(body: dict[str, Any]) -> list[str]:
    return [block["text"]["text"] for block in body["blocks"] if block["type"] == "section" and "text" in block]


def test_the_digest_of_a_demo_week_names_its_merges_and_their_cost_and_links_the_dashboard(
        demo_dir: Path, tmp_path: Path) -> None:
    db = tmp_path / "lanelog.duckdb"
    shutil.copyfile(demo_dir / "demo.duckdb", db)
    report = json.loads(lanelog("report", "--db", str(db), "--format", "json").stdout)
    merged = [row for row in report["outcomes"]["weeks"] if row["merged"] and row["cost_per_merged_pr"] is not None]
    week = merged[-1]
    (body,) = digest_posts(db, "--week", week["week"], "--dashboard-url", DASHBOARD)
    assert slack_problems(body) == []
    text = slack_text(body)
    assert f"*Pull requests merged*\n{week['merged']}" in text
    assert f"*Merge rate*\n{week['merge_rate']:.0%} of {week['merge_rate_denominator']} closed" in text
    cost = f"{week['cost_per_merged_pr']:.6f}".rstrip("0").rstrip(".")
    assert f"*Cost per merged pull request*\n{cost} {week['currency']}" in text
    sunday = (date.fromisoformat(week["week"]) + timedelta(days=6)).isoformat()
    assert f"<{DASHBOARD}/?weeks={week['week']}&amp;weeks={sunday}|Open the week in the dashboard>" in text
    assert f"{week['merged']} pull requests merged" in body["text"]


def test_the_digest_names_each_pull_request_merged_over_a_live_quarantine_as_a_link(tmp_path: Path) -> None:
    db = closed_log(tmp_path, gh.auto_merged(), [], [attempt("a1", "2026-10-08T12:30:00Z", ["test_export_race"])])
    (body,) = digest_posts(db, "--week", "2026-10-05")
    assert slack_problems(body) == []
    (named,) = [text for text in sections(body) if text.startswith("*Credit bugs: merged")]
    assert named.endswith(f"• <https://github.com/{gh.REPOSITORY}/pull/{gh.NUMBER}|{gh.REPOSITORY}#{gh.NUMBER}>")
    assert "*Pull requests merged*\n1" in slack_text(body) and "*Merge rate*\n100% of 1 closed" in slack_text(body)


@pytest.mark.parametrize("count", [40, 100])  # 100: the budgets file's maximum
def test_a_digest_of_many_budgets_keeps_every_section_within_slacks_limits(tmp_path: Path, count: int) -> None:
    db = ingest_lines(tmp_path, [spent(n, MONDAY + timedelta(days=n % 7), 2.0) for n in range(14)])
    budgets = tmp_path / "budgets.yaml"
    budgets.write_text("budgets:\n" + "".join(
        f"  - {{name: team-budget-with-a-long-name-{n:03d}, amount: 1000000, currency: USD, period: month}}\n"
        for n in range(count)))
    (body,) = digest_posts(db, "--week", MONDAY.isoformat(), "--budgets", str(budgets))
    assert slack_problems(body) == []
    assert all(len(text) <= SLACK_LIMITS["section_text"] for text in sections(body))
    (listed,) = [text for text in sections(body) if text.startswith("*Budgets*")]
    shown = listed.count("\n• ")
    assert 0 < shown < count and listed.endswith(f"and {count - shown} more budgets (the markdown review lists each)")


def test_a_digest_of_a_week_without_attempts_names_the_week(tmp_path: Path) -> None:
    db = ingest_lines(tmp_path, [spent(n, MONDAY, 1.0) for n in range(3)])
    (body,) = digest_posts(db, "--week", "2026-11-16")
    assert body["text"] == "lanelog weekly review: week of 2026-11-16: no attempts were routed in that week"
    assert slack_problems(body) == []
    (event,) = digest_posts(tmp_path / "lanelog.duckdb", "--week", "2026-11-23", "--notify-format", "json")
    assert event == {"event": "weekly_review", "week": "2026-11-23", "digest": None, "dashboard_url": None}


def test_the_dashboard_url_may_come_from_the_environment_and_a_bad_one_is_refused(tmp_path: Path) -> None:
    db = ingest_lines(tmp_path, [spent(n, MONDAY, 1.0) for n in range(3)])
    (event,) = digest_posts(db, "--notify-format", "json", env={"LANELOG_DASHBOARD_URL": DASHBOARD + "/"})
    assert event["dashboard_url"] == f"{DASHBOARD}/?weeks=2026-10-05&weeks=2026-10-11"
    refused = lanelog("report", "--db", str(db), "--format", "markdown", "--notify", "http://127.0.0.1:9/x",
                      "--dashboard-url", "javascript:alert(1)")
    assert refused.returncode == 2 and "--dashboard-url must be an http:// or https:// address" in refused.stderr
    for command in ("check", "report"):  # set for every job, it is no mistake without --notify; given, it is
        unposted = lanelog(command, "--db", str(db), env={"LANELOG_DASHBOARD_URL": DASHBOARD})
        assert unposted.returncode == 0, unposted.stderr
        alone = lanelog(command, "--db", str(db), "--dashboard-url", DASHBOARD)
        assert alone.returncode == 2 and "--dashboard-url go" in alone.stderr


LONG_TESTS = [f"tests/integration/test_orders_export.py::TestExport::test_case_{n:03d}_with_a_long_name"
              for n in range(40)]


def test_a_merge_alert_over_a_long_quarantine_is_cut_to_fit_not_refused(tmp_path: Path) -> None:
    db = closed_log(tmp_path, gh.auto_merged(), [], [attempt("a1", "2026-10-08T12:30:00Z", LONG_TESTS)])
    with receiver() as hook:
        done = lanelog("check", "--db", str(db), "--notify", hook.url)
    assert done.returncode == 1, done.stderr
    (post,) = hook.posts
    assert slack_problems(post["body"]) == []
    (detail, *_) = sections(post["body"])
    shown = detail.count("`tests/integration/")
    assert 0 < shown < len(LONG_TESTS) and detail.endswith(f"and {len(LONG_TESTS) - shown} more tests")
    assert f"<https://github.com/{gh.REPOSITORY}/pull/{gh.NUMBER}|{gh.REPOSITORY}#{gh.NUMBER}>" in detail


def test_a_credit_bug_alert_over_a_long_quarantine_is_cut_to_fit_not_refused(tmp_path: Path) -> None:
    db = ingest_lines(tmp_path, [{"attempt_id": "bug", "ts": "2026-10-07T09:30:00Z", "repo": "svc",
                                  "producer": "legacy-promoter", "probe": "pass", "quarantine": LONG_TESTS,
                                  "merge_credit": 1}])
    with receiver() as hook:
        done = lanelog("check", "--db", str(db), "--notify", hook.url)
    assert done.returncode == 1, done.stderr
    (post,) = hook.posts
    assert slack_problems(post["body"]) == []
    assert "more tests" in slack_text(post["body"])


@pytest.mark.parametrize("address", [
    "javascript:alert(1)", "https://evil.example/x|<!channel>", "https://user:pw@evil.example/", "not a url", None])
def test_a_pull_request_address_that_fails_the_url_check_is_code_never_a_link(address: str | None) -> None:
    named = alert_forms.pull_request({"pr_repository": "acme/<!here>", "pr_number": 7, "pr_url": address})
    assert named == "`acme/&lt;!here&gt;#7`"


def test_a_pull_requests_text_in_a_link_is_escaped() -> None:
    named = alert_forms.pull_request({"pr_repository": "acme/<!here>|x", "pr_number": 7,
                                      "pr_url": "https://github.com/acme/x/pull/7"})
    assert named == "<https://github.com/acme/x/pull/7|acme/&lt;!here&gt;|x#7>"
