"""The Spend review's money for a week priced in more than one currency: each currency's total, never "no cost"."""

from __future__ import annotations

from typing import Any

from tests.dashboard.dashboard_support import line


def test_a_week_in_two_currencies_shows_each_currencys_total_on_the_spend_review(app: Any, make_db: Any) -> None:
    db = make_db([
        line("2026-10-05", usage={"prop_round_trip": {"cost": 0.5, "currency": "USD"},
                                  "prop_idempotent_put": {"cost": 0.25, "currency": "GBP"}}),
        line("2026-10-06", usage={"prop_round_trip": {"cost": 0.125, "currency": "USD"}}),
    ])
    at = app(db, "views/spend.py")
    assert not at.exception
    assert not any(metric.label.startswith("Cost") for metric in at.metric)  # no one amount: in words
    assert any(info.value.startswith("The armed calls cost 0.25 GBP + 0.625000 USD this week, in more than one "
                                     "currency") for info in at.info)
    table = next(frame.value for frame in at.dataframe if "avoided (estimate)" in frame.value.columns)
    assert list(table["cost"]) == ["0.25 GBP + 0.625000 USD"] * 2
    shown = [str(cell) for frame in at.dataframe for column in frame.value.columns for cell in frame.value[column]]
    assert not any("no cost recorded" in cell for cell in shown)
