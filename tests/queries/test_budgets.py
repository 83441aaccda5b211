"""Budgets and spend spikes, judged on lane logs that went through the real ingest."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from lanelog import ingest, store
from lanelog.errors import QueryError
from lanelog.queries import PERIODS, period
from lanelog.queries.budget_file import parse_budgets
from lanelog.queries.budgets import budget_status, scope_warnings, spikes


def spent(attempt_id: str, day: date, cost: float, *, repo: str = "svc-orders", prop: str = "prop_round_trip",
          currency: str = "USD", armed: bool = True) -> dict[str, Any]:
    """An armed attempt whose one property run recorded a cost."""
    return {"attempt_id": attempt_id, "ts": f"{day.isoformat()}T12:00:00Z", "repo": repo, "probe": "pass",
            "model_call_allowed": armed, "properties": [prop], "units": 1,
            "usage": {prop: {"input_tokens": 1000, "output_tokens": 5, "cost": cost, "currency": currency}}}


@pytest.fixture
def database(tmp_path: Path) -> Iterator[Any]:
    """Fill an in-memory database from lane-log lines (ingested as `lanelog ingest` reads them)."""
    cons = []

    def fill(*lines: dict[str, Any]) -> Any:
        log = tmp_path / f"lane-log-{len(cons)}.jsonl"
        log.write_text("".join(json.dumps(line) + "\n" for line in lines))
        con = store.open_memory()
        cons.append(con)
        summary = ingest.ingest_paths(con, [log])
        assert not summary.errors
        return con

    yield fill
    for con in cons:
        con.close()


def budgets(text: str) -> list[Any]:
    return parse_budgets(text, "budgets.yaml")


WEEKLY = budgets("""
budgets:
  - name: all-spend
    amount: 10.0
    currency: USD
    period: week
    thresholds: [0.5, 0.8, 1.0]
""")


def test_the_periods_are_the_iso_week_and_the_calendar_month_holding_today() -> None:
    assert period("week").bounds(date(2026, 10, 8)) == (date(2026, 10, 5), date(2026, 10, 11))
    assert period("week").bounds(date(2026, 10, 5)) == (date(2026, 10, 5), date(2026, 10, 11))
    assert period("month").bounds(date(2026, 2, 14)) == (date(2026, 2, 1), date(2026, 2, 28))
    assert period("month").bounds(date(2028, 2, 29)) == (date(2028, 2, 1), date(2028, 2, 29))
    assert period("month").bounds(date(2026, 12, 31)) == (date(2026, 12, 1), date(2026, 12, 31))


def test_a_week_of_each_period_is_its_share_of_the_period_holding_the_day() -> None:
    assert period("week").weekly_share(date(2026, 10, 8)) == 1
    assert period("month").weekly_share(date(2026, 2, 14)) == 7 / 28
    assert period("month").weekly_share(date(2026, 10, 31)) == 7 / 31


def test_a_period_not_in_the_table_is_an_error_that_names_the_known_ones() -> None:
    with pytest.raises(QueryError) as raised:
        period("quarter")
    assert str(raised.value) == f"no budget period 'quarter'; known: {', '.join(PERIODS)}"


def test_a_budget_crosses_each_threshold_as_its_week_spends(database) -> None:
    monday = date(2026, 10, 5)
    # Three generated weeks: 3 USD a day, so 6, 9, 12, ... by the week's days; the weeks before
    # spend as much, and must never count in the week that holds today.
    lines = [spent(f"w{week}d{day}", monday + timedelta(days=7 * week + day), 3.0)
             for week in (-2, -1, 0) for day in range(7)]
    con = database(*lines)
    seen = []
    for day in range(7):
        today = monday + timedelta(days=day)
        (status,) = budget_status(con, WEEKLY, today)
        assert (status.start, status.end) == (monday, monday + timedelta(days=6))
        assert status.spend == 3 * (day + 1)
        assert status.calls == day + 1
        # At the same rate to Sunday: 3 USD a day for seven days.
        assert status.projected == 21
        seen.append((status.crossed, status.over))
    assert seen == [((), False), ((0.5,), False), ((0.5, 0.8), False), ((0.5, 0.8, 1.0), True),
                    ((0.5, 0.8, 1.0), True), ((0.5, 0.8, 1.0), True), ((0.5, 0.8, 1.0), True)]


def test_exactly_the_amount_reaches_the_last_threshold_without_being_over(database) -> None:
    con = database(spent("a", date(2026, 10, 5), 4.0), spent("b", date(2026, 10, 6), 6.0))
    (status,) = budget_status(con, WEEKLY, date(2026, 10, 6))
    assert status.spend == 10 and status.share == 1
    assert status.crossed == (0.5, 0.8, 1.0) and not status.over


def test_spend_in_another_currency_unarmed_or_after_today_never_counts(database) -> None:
    con = database(
        spent("usd", date(2026, 10, 5), 2.0),
        spent("eur", date(2026, 10, 5), 50.0, currency="EUR"),
        spent("unarmed", date(2026, 10, 6), 50.0, armed=False),
        spent("tomorrow", date(2026, 10, 8), 50.0),
        {"attempt_id": "undated", "repo": "svc-orders", "model_call_allowed": True,
         "usage": {"p": {"cost": 50.0, "currency": "USD"}}},
    )
    (status,) = budget_status(con, WEEKLY, date(2026, 10, 7))
    assert status.spend == 2
    assert status.as_dict()["share"] == 0.2


def test_a_scope_counts_its_repositories_and_its_property_only(database) -> None:
    con = database(
        spent("a", date(2026, 10, 5), 1.0, repo="svc-orders"),
        spent("b", date(2026, 10, 5), 2.0, repo="svc-billing", prop="prop_reject_empty"),
        spent("c", date(2026, 10, 5), 4.0, repo="web-shop"),
        spent("d", date(2026, 10, 5), 8.0, repo="svc-*"),  # a name that is the pattern's text
    )
    scoped = budgets("""
budgets:
  - {name: svc, amount: 100, currency: USD, period: week, repo: "svc-*"}
  - {name: one-prop, amount: 100, currency: USD, period: week, property: prop_round_trip}
  - {name: both, amount: 100, currency: USD, period: week, repo: "svc-?r*", property: prop_round_trip}
  - {name: literal, amount: 100, currency: USD, period: week, repo: "web-shop"}
""")
    spends = {status.budget.name: status.spend for status in budget_status(con, scoped, date(2026, 10, 5))}
    assert spends == {"svc": 11, "one-prop": 13, "both": 1, "literal": 4}


def test_a_month_budget_projects_its_rate_to_the_months_end(database) -> None:
    con = database(spent("a", date(2026, 9, 30), 100.0), spent("b", date(2026, 10, 1), 3.0),
                   spent("c", date(2026, 10, 10), 3.0))
    monthly = budgets("budgets:\n  - {name: month, amount: 20, currency: USD, period: month}\n")
    (status,) = budget_status(con, monthly, date(2026, 10, 10))
    assert (status.start, status.end) == (date(2026, 10, 1), date(2026, 10, 31))
    assert status.spend == Decimal("6")
    assert status.projected == Decimal("18.6")  # 6 in 10 days, at that rate over 31
    assert status.crossed == ()


def test_money_is_summed_and_compared_exactly(database) -> None:
    """Three calls of 0.10 against a budget of 0.30: in binary floats 0.30000000000000004, over; exactly,
    the whole amount and not over.  Thresholds are compared exactly too (0.9999999 is not 1)."""
    con = database(*(spent(f"c{n}", date(2026, 10, 5), 0.1) for n in range(3)))
    tight = budgets("budgets:\n  - {name: tight, amount: 0.30, currency: USD, period: week, "
                    "thresholds: [0.9999999, 1.0]}\n")
    (status,) = budget_status(con, tight, date(2026, 10, 5))
    assert status.spend == Decimal("0.3") and status.share == 1
    assert not status.over and status.crossed == (0.9999999, 1.0)
    assert status.as_dict()["spend"] == 0.3


def test_a_scope_that_matches_nothing_is_a_warning_naming_the_file_line_and_budget(database) -> None:
    con = database(spent("a", date(2026, 10, 5), 1.0))
    scoped = budgets("""budgets:
  - {name: typo, amount: 1, currency: USD, period: week, repo: "svc-ordrs"}
  - {name: ok, amount: 1, currency: USD, period: week, repo: "svc-*", property: prop_round_trip}
  - {name: gone, amount: 1, currency: USD, period: week, property: prop_nobody}
""")
    assert scope_warnings(con, scoped) == [
        "budgets.yaml line 2, key budgets[0]: budget typo: repo 'svc-ordrs' matches no repository in the "
        "database, so it counts nothing yet",
        "budgets.yaml line 4, key budgets[2]: budget gone: property 'prop_nobody' is named by no attempt in "
        "the database, so it counts nothing yet",
    ]


def weeks_of_spend(amounts: list[float], last_monday: date, currency: str = "USD") -> list[dict[str, Any]]:
    """One priced call on the Wednesday of each week, the last week's Monday given."""
    first = last_monday - timedelta(days=7 * (len(amounts) - 1))
    return [spent(f"{currency}{n}", first + timedelta(days=7 * n + 2), cost, currency=currency)
            for n, cost in enumerate(amounts) if cost]


def test_a_week_above_twice_the_mean_of_the_four_before_is_a_spike(database) -> None:
    monday = date(2026, 10, 26)
    con = database(*weeks_of_spend([2.0, 3.0, 1.0, 2.0, 4.5], monday),
                   *weeks_of_spend([1.0, 1.0, 1.0, 1.0, 1.5], monday, currency="EUR"))
    (spike,) = spikes(con, monday + timedelta(days=3))
    assert (spike.week, spike.currency) == (monday, "USD")
    assert spike.as_dict() == {"week": "2026-10-26", "currency": "USD", "spend": 4.5, "mean_before": 2.0,
                               "factor": 2.0, "ratio": 2.25}
    assert spike.key == "spike:2026-10-26:USD"
    # The factor and the minimum are options: 2.5 times is not reached, nor a minimum of 5.
    assert spikes(con, monday + timedelta(days=3), factor=2.5) == []
    assert spikes(con, monday + timedelta(days=3), minimum=5.0) == []


def test_last_weeks_spike_is_still_judged_on_monday_and_a_first_week_is_none(database) -> None:
    monday = date(2026, 10, 26)
    con = database(*weeks_of_spend([1.0, 1.0, 1.0, 1.0, 9.0], monday))
    (spike,) = spikes(con, monday + timedelta(days=7))
    assert spike.week == monday
    assert spikes(database(*weeks_of_spend([50.0], monday)), monday) == []
    # Exactly twice the mean is not more than twice.
    assert spikes(database(*weeks_of_spend([1.0, 1.0, 1.0, 1.0, 2.0], monday)), monday) == []
