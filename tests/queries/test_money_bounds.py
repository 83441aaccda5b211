"""Money from hostile usage: costs are finite and bounded, currencies are codes, every currency is shown.

A lane log is written by whatever ran the property; its `usage` is untrusted. These
tests go through the real ingest and `lanelog report`, as a user runs them.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from lanelog import ingest, store
from lanelog.cli import cli
from lanelog.cli.render import money as render_money

HOSTILE_CURRENCY = "[x](http://e)<b>|a|b|c|d|e|f|g|h|"
# An unescaped pipe opens a table cell; an escaped one (\|) does not.
CELL_EDGE = re.compile(r"(?<!\\)\|")
# Markup that renders: a link's "](", an HTML tag's "<", neither behind a backslash.
MARKUP = re.compile(r"(?<!\\)\]\(|(?<!\\)<")


def armed(attempt_id: str, day: str, usage: Any) -> dict[str, Any]:
    return {"attempt_id": attempt_id, "ts": f"{day}T12:00:00Z", "repo": "svc", "probe": "pass",
            "model_call_allowed": True, "properties": ["p1"], "units": 1, "usage": usage}


def report(tmp_path: Path, *lines: dict[str, Any], form: str = "json") -> str:
    log = tmp_path / "lane-log.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = CliRunner().invoke(cli, ["report", str(log), "--format", form], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def stored(tmp_path: Path, *lines: dict[str, Any]) -> list[tuple[Any, ...]]:
    log = tmp_path / "stored.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in lines))
    con = store.open_memory()
    try:
        ingest.ingest_paths(con, [log])
        return con.execute("SELECT attempt_id, cost, currency, [u.cost for u in usage], "
                           "[u.currency for u in usage], type_anomalies FROM attempts ORDER BY line_no").fetchall()
    finally:
        con.close()


def money_rows(review: str) -> list[str]:
    section = review.split("## Money", 1)[1].split("\n\n", 2)[1]
    return [row for row in section.splitlines() if row.startswith("|")]


@pytest.mark.parametrize("cost", [1e308, 1.5e9, -0.01, "0.5", True, [1]])
def test_a_cost_outside_0_to_1e9_is_recorded_absent_with_a_note(tmp_path: Path, cost: Any) -> None:
    (row,) = stored(tmp_path, armed("a", "2026-10-05", {"p1": {"cost": cost, "currency": "USD"}}))
    assert row[1:5] == (None, None, [None], ["USD"])
    assert row[5] == ["usage.cost"]


def test_a_cost_at_the_bounds_is_kept_without_a_note(tmp_path: Path) -> None:
    rows = stored(tmp_path, armed("a", "2026-10-05", {"p1": {"cost": 0, "currency": "USD"}}),
                  armed("b", "2026-10-05", {"p1": {"cost": 1e9, "currency": "USD"}}))
    assert [row[1:3] + (row[5],) for row in rows] == [(0.0, "USD", []), (1e9, "USD", [])]


@pytest.mark.parametrize("currency", ["usd", "US$", "USDX", "", HOSTILE_CURRENCY, 840, "U\nS"])
def test_a_currency_that_is_not_three_capitals_is_recorded_absent_with_its_cost(
        tmp_path: Path, currency: Any) -> None:
    (row,) = stored(tmp_path, armed("a", "2026-10-05", {"p1": {"cost": 0.5, "currency": currency}}))
    assert row[1:5] == (None, None, [None], [None])
    assert row[5] == ["usage.currency"]


def test_a_cost_of_1e308_neither_overflows_nor_mislabels_the_week(tmp_path: Path) -> None:
    lines = [armed("a", "2026-10-05", {"p1": {"cost": 1e308, "currency": "USD"}}),
             armed("b", "2026-10-06", {"p1": {"cost": 1e308, "currency": "USD"}}),
             armed("c", "2026-10-07", {"p1": {"cost": 0.5, "currency": "USD"}}),
             armed("d", "2026-10-13", {"p1": {"cost": 1e308, "currency": "USD"}})]
    money = json.loads(report(tmp_path, *lines))["money"]
    first, second = money["weeks"]
    assert (first["cost"], first["currency"], first["calls_priced"], first["note"]) == (0.5, "USD", 1, None)
    assert (second["cost"], second["note"]) == (None, "no cost recorded")
    assert money["totals"]["cost"] == 0.5 and money["totals"]["currency"] == "USD"
    review = report(tmp_path, *lines, form="markdown")
    assert "inf" not in review and "more than one currency" not in review
    assert "| p1 | 0 | 0 | 0.50 USD |" in review


@pytest.mark.parametrize("one_line", [True, False], ids=["one-call", "two-calls"])
def test_a_week_in_two_currencies_shows_each_currencys_total(tmp_path: Path, one_line: bool) -> None:
    if one_line:
        lines = [armed("a", "2026-10-05", {"p1": {"cost": 0.5, "currency": "USD"},
                                           "p2": {"cost": 0.25, "currency": "GBP"}})]
    else:
        lines = [armed("a", "2026-10-05", {"p1": {"cost": 0.5, "currency": "USD"}}),
                 armed("b", "2026-10-06", {"p2": {"cost": 0.25, "currency": "GBP"}})]
    lines.append(armed("c", "2026-10-07", {"p1": {"cost": 0.125, "currency": "USD"}}))
    money = json.loads(report(tmp_path, *lines))["money"]
    (week,) = money["weeks"]
    expected = [{"currency": "GBP", "cost": 0.25}, {"currency": "USD", "cost": 0.625}]
    assert week["costs"] == expected and money["totals"]["costs"] == expected
    assert week["cost"] is None and week["note"] == "more than one currency"
    for form in ("markdown", "text"):
        text = report(tmp_path, *lines, form=form)
        assert "no cost recorded" not in text
        assert "0.25 GBP + 0.625000 USD" in text
    (row,) = list(csv.DictReader(io.StringIO(report(tmp_path, *lines, form="csv"))))
    assert row["costs"] == "GBP 0.25; USD 0.625" and row["cost"] == "" and row["currency"] == ""


def test_a_one_currency_week_has_no_costs_key(tmp_path: Path) -> None:
    """The JSON contract of ordinary data is unchanged: `costs` appears only beside several currencies."""
    money = json.loads(report(tmp_path, armed("a", "2026-10-05", {"p1": {"cost": 0.5, "currency": "USD"}})))["money"]
    assert "costs" not in money["weeks"][0] and "costs" not in money["totals"]
    assert money["weeks"][0]["cost"] == 0.5


def test_a_hostile_currency_in_the_log_opens_no_link_tag_or_cell(tmp_path: Path) -> None:
    lines = [armed("a", "2026-10-05", {"p1": {"cost": 0.25, "currency": HOSTILE_CURRENCY}})]
    review = report(tmp_path, *lines, form="markdown")
    assert not MARKUP.search(review), review
    header, *rows = money_rows(review)
    assert len(CELL_EDGE.findall(header)) == 12
    assert all(len(CELL_EDGE.findall(row)) == 12 for row in rows), rows


def test_every_money_text_cell_is_escaped_by_the_renderer() -> None:
    """Money from another source (a lake written by hand) is escaped as the other cells are."""
    row = {"week": "2026-10-05", "calls_armed": 1, "units": 1, "calls_with_usage": 1, "input_tokens": None,
           "output_tokens": None, "cost": 0.25, "currency": HOSTILE_CURRENCY, "cost_per_armed_call": 0.25,
           "cost_per_unit": 0.25, "probe_rejects": 0, "spend_avoided_estimate": 0.0, "note": None}
    by = {"week": "2026-10-05", "input_tokens": 1, "output_tokens": 1, "cost": 0.25, "currency": HOSTILE_CURRENCY}
    money = {"weeks": [row], "totals": {**row, "costs": [{"currency": HOSTILE_CURRENCY, "cost": 1.0},
                                                         {"currency": "USD", "cost": 2.0}]},
             "by_property": [{**by, "property": "p1"}], "by_repo": [{**by, "repo": "svc"}], "estimate": "e"}
    review = render_money.markdown(money)
    assert not MARKUP.search(review), review
    for line in review.splitlines():
        if line.startswith("| 2026") or line.startswith("| **total"):
            assert len(CELL_EDGE.findall(line)) == 12, line
        elif line.startswith("| p1") or line.startswith("| svc"):
            assert len(CELL_EDGE.findall(line)) == 5, line


def test_a_currency_with_control_characters_is_one_escaped_line_on_the_terminal() -> None:
    row = {"week": "2026-10-05", "calls_armed": 1, "units": 1, "calls_with_usage": 1, "input_tokens": None,
           "output_tokens": None, "cost": 0.25, "currency": "U\x1b[2J\nS", "cost_per_armed_call": 0.25,
           "cost_per_unit": 0.25, "probe_rejects": 0, "spend_avoided_estimate": 0.0, "note": None}
    table = render_money.table({"weeks": [row], "totals": row, "estimate": "e"})
    assert "\x1b" not in table
    assert len(table.splitlines()) == 6  # title, header, rule, the week, the total, the estimate
    assert "0.25 U\\x1b[2J\\x0aS" in table
