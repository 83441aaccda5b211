"""Every `--notify-format json` event, made by the real commands, keeps to the schema docs/report.md gives:
keys named there, times in RFC 3339 with a Z, days as days, numbers as numbers (issue: a `ts` without
its Z and `merge_credit` as the string "1")."""

from __future__ import annotations

import re
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from lanelog.queries import CREDIT_COUNTS, FIGURES
from tests.alerts.receiver import receiver
from tests.alerts.support import ingest_lines, lanelog

DOC = Path(__file__).resolve().parents[2] / "docs" / "report.md"
MOMENT = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z\Z")
DAY = re.compile(r"\d{4}-\d\d-\d\d\Z")
TIMES = {"ts"}
DAYS = {"week", "week_before", "start", "end", "today"}
NUMBERS = {"amount", "spend", "calls", "share", "projected", "threshold", "mean_before", "factor", "ratio", "cost",
           "value", "before", "change", "spend_avoided_estimate"}
MONDAY = date(2026, 10, 5)


def documented() -> dict[str, set[str]]:
    """The event table of docs/report.md: each event's key names (every backticked word of its row)."""
    rows = re.findall(r"^\s*\| `(\w+)` \| (.+) \|$", DOC.read_text(encoding="utf-8"), re.MULTILINE)
    return {event: set(re.findall(r"`(\w+)`", keys)) for event, keys in rows}


def problems(value: Any, known: set[str], path: str = "") -> list[str]:
    """Every key not documented and every value not typed as the lane log types it."""
    found: list[str] = []
    if isinstance(value, list):
        for n, item in enumerate(value):
            found += problems(item, known, f"{path}[{n}]")
    if not isinstance(value, dict):
        return found
    # A digest's figures are keyed by the weekly figures' names (the report's JSON contract), and
    # its budgets are each budget's JSON line, as a budget_threshold event carries it.
    names = {*FIGURES, *CREDIT_COUNTS} if path.endswith(".figures") else \
        documented()["budget_threshold"] if re.search(r"\.budgets\[\d+\]\Z", path) else known
    for key, item in value.items():
        where = f"{path}.{key}"
        if key not in names:
            found.append(f"{where}: not in docs/report.md's event table")
        if key in TIMES and not (isinstance(item, str) and MOMENT.match(item)):
            found.append(f"{where}: {item!r} is no RFC 3339 time with Z")
        if key in DAYS and item is not None and not (isinstance(item, str) and DAY.match(item)):
            found.append(f"{where}: {item!r} is no day")
        if key in NUMBERS and item is not None and (isinstance(item, bool) or not isinstance(item, (int, float, dict))):
            found.append(f"{where}: {item!r} is no number")
        if key == "merge_credit" and isinstance(item, str):
            found.append(f"{where}: {item!r} is text, not the line's value")
        found += problems(item, known, where)
    return found


def spent(n: int, day: date, cost: float) -> dict[str, Any]:
    return {"attempt_id": f"s{n}", "ts": f"{day.isoformat()}T12:00:00Z", "repo": "svc", "probe": "pass",
            "model_call_allowed": True, "properties": ["prop_a"], "units": 1,
            "usage": {"prop_a": {"input_tokens": 10, "output_tokens": 1, "cost": cost, "currency": "USD"}}}


def test_every_event_keeps_to_the_documented_schema(tmp_path: Path) -> None:
    lines = [spent(n, MONDAY + timedelta(days=n), 2.0) for n in range(7)]
    lines += [spent(100 + n, MONDAY - timedelta(days=n + 1), 0.5) for n in range(28)]
    lines.append({"attempt_id": "bug", "ts": "2026-10-07T09:30:00Z", "repo": "svc", "producer": "legacy-promoter",
                  "probe": "pass", "quarantine": ["test_flaky"], "merge_credit": 1})
    db = ingest_lines(tmp_path, lines)
    budgets = tmp_path / "budgets.yaml"
    budgets.write_text("budgets:\n  - {name: all-spend, amount: 10, currency: USD, period: week}\n")
    with receiver() as hook:
        checked = lanelog("check", "--db", str(db), "--budgets", str(budgets), "--today", "2026-10-11",
                          "--notify", hook.url, "--notify-format", "json")
        reviewed = lanelog("report", "--db", str(db), "--week", "2026-10-05", "--format", "markdown",
                           "--budgets", str(budgets), "--notify", hook.url, "--notify-format", "json")
    assert checked.returncode == 1 and reviewed.returncode == 0, checked.stderr + reviewed.stderr
    events = [post["body"] for post in hook.posts]
    assert sorted(event["event"] for event in events) == ["budget_threshold", "credit_bug", "spend_spike",
                                                          "weekly_review"]
    schema = documented()
    found = [problem for event in events for problem in problems(event, schema[event["event"]], event["event"])]
    assert found == []
    bug = next(event for event in events if event["event"] == "credit_bug")
    assert (bug["ts"], bug["merge_credit"]) == ("2026-10-07T09:30:00Z", 1)


def test_the_schema_check_catches_a_time_without_z_and_credit_as_text() -> None:
    event = {"event": "credit_bug", "ts": "2026-10-07T09:30:00", "merge_credit": "1", "secret": 2}
    assert problems(event, documented()["credit_bug"]) == [
        ".ts: '2026-10-07T09:30:00' is no RFC 3339 time with Z", ".merge_credit: '1' is text, not the line's value",
        ".secret: not in docs/report.md's event table"]
