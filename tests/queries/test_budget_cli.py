"""`lanelog check --budgets` and `lanelog report --budgets --week`, run as a user runs them."""

from __future__ import annotations

import json
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from lanelog.cli import cli

MONDAY = date(2026, 10, 5)


def spent(n: int, day: date, cost: float, repo: str = "svc-orders", currency: str = "USD") -> dict[str, Any]:
    return {"attempt_id": f"a{n}", "ts": f"{day.isoformat()}T12:00:00Z", "repo": repo, "probe": "pass",
            "model_call_allowed": True, "properties": ["prop_a"], "units": 1,
            "usage": {"prop_a": {"input_tokens": 10, "output_tokens": 1, "cost": cost, "currency": currency}}}


@pytest.fixture
def files(tmp_path: Path):
    """A lane log of 2 USD a day through the week of MONDAY (and 1 USD a day in the four weeks before),
    and a budgets file of the given text."""
    lines = [spent(n, MONDAY + timedelta(days=n), 2.0) for n in range(7)]
    lines += [spent(100 + n, MONDAY - timedelta(days=n + 1), 1.0) for n in range(28)]

    def make(budgets: str) -> tuple[Path, Path]:
        log, path = tmp_path / "lane-log.jsonl", tmp_path / "budgets.yaml"
        log.write_text("".join(json.dumps(line) + "\n" for line in lines))
        path.write_text(budgets)
        return log, path
    return make


def run(*args: str) -> Any:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


TWO = """\
budgets:
  - {name: all-spend, amount: 10, currency: USD, period: week}
  - {name: roomy, amount: 100, currency: USD, period: month, repo: "svc-*"}
"""


def test_check_prints_each_budget_and_exits_1_when_one_is_over(files) -> None:
    log, budgets = files(TWO)
    under = run("check", str(log), "--budgets", str(budgets), "--today", "2026-10-08", "--spike-min", "1000")
    assert under.exit_code == 0, under.output
    assert ("budget all-spend: 8.00 USD of 10.00 USD (80%, past 80%) in the week 2026-10-05 to 2026-10-11, "
            "all spend; projected 14.00 USD by 2026-10-11") in under.stdout.splitlines()
    assert under.stdout.rstrip().endswith("; 0 warning(s); 2 budget(s), 0 over")
    # All of the amount spent is not more than it: the last threshold is reached, nothing is over.
    full = run("check", str(log), "--budgets", str(budgets), "--today", "2026-10-09", "--spike-min", "1000")
    assert full.exit_code == 0
    assert any(line.startswith("budget all-spend: 10.00 USD of 10.00 USD (100%, past 100%)")
               for line in full.stdout.splitlines())
    later = run("check", str(log), "--budgets", str(budgets), "--today", "2026-10-10", "--spike-min", "1000")
    assert later.exit_code == 1
    assert any(line.startswith("BUDGET OVER all-spend: 12.00 USD of 10.00 USD (120%, past 100%)")
               for line in later.stdout.splitlines())
    assert later.stdout.rstrip().endswith("; 2 budget(s), 1 over (all-spend)")


def test_check_json_gives_a_line_per_budget_with_its_figures(files) -> None:
    log, budgets = files(TWO)
    done = run("check", str(log), "--budgets", str(budgets), "--today", "2026-10-08", "--format", "json",
               "--spike-min", "1000")
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(row["kind"], row["name"]) for row in rows] == [("budget", "all-spend"), ("budget", "roomy")]
    # October so far: 1 USD a day from the 1st to the 4th, 2 a day from the 5th to the 8th; at that
    # rate, 12 / 8 days * 31 days by the 31st.
    assert {key: rows[1][key] for key in ("spend", "share", "projected", "start", "end", "crossed", "over")} == {
        "spend": 12.0, "share": 0.12, "projected": 46.5, "start": "2026-10-01", "end": "2026-10-31",
        "crossed": [], "over": False}
    assert "2 budget(s), 0 over" in done.stderr


def test_a_spike_is_reported_and_exits_1_only_with_strict(files) -> None:
    log, budgets = files(TWO)
    done = run("check", str(log), "--today", "2026-10-11")
    # 14 USD against a mean of 7: exactly twice is not more than twice (the default factor).
    assert done.exit_code == 0 and "SPEND SPIKE" not in done.stdout
    lower = run("check", str(log), "--today", "2026-10-11", "--spike-factor", "1.5")
    assert lower.exit_code == 0
    assert ("SPEND SPIKE in the week 2026-10-05: 14.00 USD, 2.00 times the mean of the four weeks before "
            "(7.00 USD; a spike is more than 1.5 times it)") in lower.stdout.splitlines()
    assert lower.stdout.rstrip().endswith("; 1 spend spike(s)")
    strict = run("check", str(log), "--today", "2026-10-11", "--spike-factor", "1.5", "--strict")
    assert strict.exit_code == 1 and strict.stdout.rstrip().endswith("; 1 spend spike(s) (--strict)")


def test_a_scope_that_matches_nothing_is_a_warning_with_its_line(files) -> None:
    log, budgets = files("budgets:\n  - {name: typo, amount: 5, currency: USD, period: week, repo: 'svc-ordrs'}\n")
    done = run("check", str(log), "--budgets", str(budgets), "--today", "2026-10-08", "--spike-min", "1000")
    assert done.exit_code == 0
    assert (f"warning: {budgets} line 2, key budgets[0]: budget typo: repo 'svc-ordrs' matches no repository "
            "in the database, so it counts nothing yet") in done.stdout.splitlines()
    strict = run("check", str(log), "--budgets", str(budgets), "--today", "2026-10-08", "--spike-min", "1000",
                 "--strict")
    assert strict.exit_code == 1


@pytest.mark.parametrize(("text", "message"), [
    ("budgets:\n  - {name: a, amount: -1, currency: USD, period: week}\n",
     "line 2, key budgets[0].amount: an amount must be a number above 0 and at most 1e+09, not -1"),
    ("budgets:\n  - {name: a, amount: .nan, currency: USD, period: week}\n", "key budgets[0].amount"),
    ("budgets:\n  - {name: a, amount: 1.0e+10, currency: USD, period: week}\n", "key budgets[0].amount"),
    ("budgets:\n  - {name: a, amount: 1, currency: usd, period: week}\n",
     "line 2, key budgets[0].currency: a currency must be three capital letters"),
    ("budgets:\n  - {name: a, amount: 1, currency: USD, period: fortnight}\n", "key budgets[0].period"),
    ("budgets:\n  - {name: a, amount: 1, currency: USD, period: [week]}\n",
     "line 2, key budgets[0].period: a period must be week (ISO, from Monday, UTC) or month (UTC), not a list"),
])
def test_a_hostile_budgets_file_exits_2_naming_its_line_and_key(files, text: str, message: str) -> None:
    log, budgets = files(text)
    for command in ("check", "report"):
        done = run(command, str(log), "--budgets", str(budgets))
        assert done.exit_code == 2
        assert done.stderr.startswith(f"Error: {budgets} ") and message in done.stderr


def test_budgets_are_judged_with_duckdb_only(files, tmp_path: Path) -> None:
    log, budgets = files(TWO)
    done = run("check", "--lake", str(tmp_path / "lake"), "--engine", "spark", "--budgets", str(budgets))
    assert done.exit_code == 2
    assert "--budgets is judged with DuckDB: leave out --engine spark" in done.stderr


def test_report_shows_the_budgets_on_the_last_day_of_its_week(files) -> None:
    log, budgets = files(TWO)
    # LAST from Wednesday 2026-10-14: the week of 2026-10-05, judged on its Sunday.
    done = run("report", str(log), "--week", "LAST", "--today", "2026-10-14", "--budgets", str(budgets),
               "--format", "json")
    report = json.loads(done.stdout)
    assert [row["week"] for row in report["weeks"]] == ["2026-10-05"]
    assert [(row["name"], row["spend"], row["today"], row["over"]) for row in report["budgets"]] == [
        ("all-spend", 14.0, "2026-10-11", True), ("roomy", 18.0, "2026-10-11", False)]
    review = run("report", str(log), "--week", "2026-10-07", "--budgets", str(budgets), "--format", "markdown")
    section = review.stdout.split("## Budgets", 1)[1]
    assert "| all-spend | 2026-10-05 to 2026-10-11 | all spend | 14.00 USD | 10.00 USD | **over: 140%** |" in section
    assert "| roomy | 2026-10-01 to 2026-10-31 | repositories svc-\\* |" in section
    text = run("report", str(log), "--week", "LAST", "--today", "2026-10-14", "--budgets", str(budgets))
    assert "OVER 140%" in text.stdout


def test_report_refuses_what_does_not_fit(files) -> None:
    log, budgets = files(TWO)
    csv = run("report", str(log), "--budgets", str(budgets), "--format", "csv")
    assert csv.exit_code == 2 and "--budgets adds a section a CSV of weeks has no place for" in csv.stderr
    both = run("report", str(log), "--week", "LAST", "--since", "2026-10-01")
    assert both.exit_code == 2 and "--week names the week: leave out --since and --until" in both.stderr
    bad = run("report", str(log), "--week", "yesterday")
    assert bad.exit_code == 2 and "'yesterday': give LAST or a day (YYYY-MM-DD)" in bad.stderr


def test_a_period_added_to_the_table_alone_is_read_judged_and_worded_everywhere(files, monkeypatch) -> None:
    """The period table is the one place a period is defined: a quarter added to it (here, for this
    test) is taken by the budgets file, judged by check and report, and worded on the pages."""
    from lanelog.dashboard import spend_charts
    from lanelog.queries import periods

    def first(day: date) -> date:
        return date(day.year, 3 * ((day.month - 1) // 3) + 1, 1)

    def following(day: date) -> date:
        start = first(day)
        return date(start.year + 1, 1, 1) if start.month == 10 else date(start.year, start.month + 3, 1)

    monkeypatch.setitem(periods.PERIODS, "quarter", periods.Period("quarter", "quarter", "quarter (UTC)", first,
                                                                    following))
    log, budgets = files("budgets:\n  - {name: q, amount: 100, currency: USD, period: quarter}\n")
    checked = run("check", str(log), "--budgets", str(budgets), "--today", "2026-10-08", "--spike-min", "1000")
    assert checked.exit_code == 0, checked.output
    # October 1 to 4 at 1 USD a day, 5 to 8 at 2 USD: 12 USD in 8 of the quarter's 92 days.
    assert ("budget q: 12.00 USD of 100.00 USD (12%) in the quarter 2026-10-01 to 2026-12-31, all spend; "
            "projected 138.00 USD by 2026-12-31") in checked.stdout.splitlines()
    reported = json.loads(run("report", str(log), "--budgets", str(budgets), "--today", "2026-10-08",
                              "--format", "json").stdout)
    assert [(row["period"], row["start"], row["end"]) for row in reported["budgets"]] == [
        ("quarter", "2026-10-01", "2026-12-31")]
    assert spend_charts.budget_line_label(reported["budgets"][0], date(2026, 10, 8)) == \
        "budget q: 100.00 USD a quarter (≈ 7.61 a week)"
