"""`lanelog report --format json`'s money equals an independent reader of the JSON lines.

The reader below is plain Python over the lines, written from docs/report.md's
definitions, not from the SQL: tokens and cost of armed attempts, one currency
per sum (each currency's total where there are several), and the spend-avoided estimate.
"""

from __future__ import annotations

import json
import math
import re
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from lanelog.cli import cli
from tests.depth import at_depths

CODE = re.compile(r"[A-Z]{3}\Z")


def number(value: Any) -> float | None:
    """A usage figure: a JSON number from 0 to 1e12 (no call gives more tokens), else nothing."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) and 0 <= value <= 1e12 else None


def cost_of(value: Any) -> float | None:
    """A call's cost: a number from 0 to 1e9, else nothing."""
    found = number(value)
    return found if found is not None and found <= 1e9 else None


def entries(usage: Any) -> list[dict[str, Any]] | None:
    if not isinstance(usage, dict) or not usage:
        return None
    out = []
    for value in usage.values():
        value = value if isinstance(value, dict) else {}
        currency = value.get("currency")
        currency = currency if isinstance(currency, str) and CODE.match(currency) else None
        cost = cost_of(value.get("cost"))
        out.append({"input": number(value.get("input_tokens")),
                    "output": number(value.get("output_tokens")),
                    "cost": cost if currency is not None else None, "currency": currency})
    return out


def total(values: list[float | None]) -> float | None:
    kept = [value for value in values if value is not None]
    return sum(kept) if kept else None


def attempt_money(row: dict[str, Any]) -> dict[str, Any]:
    """One line's part: armed or not, its usage, tokens, cost and currency, spent units."""
    armed = bool(row.get("model_call_allowed"))
    found = entries(row.get("usage")) if armed else None
    units = row.get("units")
    if isinstance(units, bool) or not isinstance(units, (int, float)):
        properties = row.get("properties")
        units = len(properties) if isinstance(properties, list) else 0
    money = {"armed": armed, "reject": row.get("probe") == "reject", "usage": found is not None,
             "input": None, "output": None, "cost": None, "currency": None,
             "units": float(units) if armed else 0.0,
             "priced": [(entry["currency"], entry["cost"]) for entry in found or [] if entry["cost"] is not None]}
    if found:
        money["input"] = total([entry["input"] for entry in found])
        money["output"] = total([entry["output"] for entry in found])
        currencies = {entry["currency"] for entry in found if entry["cost"] is not None}
        if len(currencies) == 1:
            money["cost"] = total([entry["cost"] for entry in found])
            money["currency"] = currencies.pop()
    return money


def week_of(row: dict[str, Any]) -> str | None:
    ts = row.get("ts")
    if not isinstance(ts, str):
        return None
    day = datetime.strptime(ts, "%Y-%m-%dT%H:%M:%SZ").date()
    return (day - timedelta(days=day.weekday())).isoformat()


def figures(parts: list[dict[str, Any]]) -> dict[str, Any]:
    priced = [part for part in parts if part["cost"] is not None]
    by_currency: dict[str, float] = {}
    for part in parts:
        for currency, amount in part["priced"]:
            by_currency[currency] = by_currency.get(currency, 0.0) + amount
    several = len(by_currency) > 1
    currencies = {part["currency"] for part in priced}
    cost = sum(part["cost"] for part in priced) if len(currencies) == 1 and not several else None
    units = sum(part["units"] for part in priced)
    per_call = cost / len(priced) if cost is not None else None
    rejects = sum(part["reject"] for part in parts)
    costs = {"costs": [{"currency": currency, "cost": amount} for currency, amount in sorted(by_currency.items())]}
    return {
        **(costs if several else {}),
        "attempts": len(parts),
        "probe_rejects": rejects,
        "calls_armed": sum(part["armed"] for part in parts),
        "units": sum(part["units"] for part in parts),
        "calls_with_usage": sum(part["usage"] for part in parts),
        "calls_priced": len(priced),
        "input_tokens": total([part["input"] for part in parts]),
        "output_tokens": total([part["output"] for part in parts]),
        "currency": currencies.copy().pop() if cost is not None else None,
        "cost": cost,
        "cost_per_armed_call": per_call,
        "cost_per_unit": cost / units if cost is not None and units else None,
        "spend_avoided_estimate": rejects * per_call if per_call is not None else None,
    }


def reader(path: Path) -> dict[str, Any]:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    by_week: dict[str | None, list[dict[str, Any]]] = {}
    for row in rows:
        by_week.setdefault(week_of(row), []).append(attempt_money(row))
    order = sorted(week for week in by_week if week is not None) + ([None] if None in by_week else [])
    weeks = [{"week": week, **figures(by_week[week])} for week in order]
    totals = figures([part for parts in by_week.values() for part in parts])
    counted = [week for week in weeks if week["probe_rejects"] or week["cost_per_armed_call"] is not None]
    known = all(week["cost_per_armed_call"] is not None for week in counted if week["probe_rejects"])
    week_currencies = {week["currency"] for week in counted if week["currency"] is not None}
    totals["spend_avoided_estimate"] = (
        sum(week["probe_rejects"] * week["cost_per_armed_call"] for week in counted)
        if totals["currency"] is not None and known and len(week_currencies) == 1 else None)
    return {"weeks": weeks, "totals": totals}


FIGURE = st.sampled_from([None, True, "12", -1, 0, 0.0, 3, 250, 1.5, 10**6, 1e9, 2e9, 1e308, [1], {"a": 1}])
CURRENCY = st.sampled_from(["USD", "EUR", "", "usd", "US$", "[x](y)", 7, None])
ENTRY = st.fixed_dictionaries({}, optional={
    "input_tokens": FIGURE, "output_tokens": FIGURE, "cost": FIGURE, "currency": CURRENCY,
    "model": st.sampled_from(["m", 3]),
}) | st.sampled_from([7, "x", [], None])
USAGE = (st.dictionaries(st.sampled_from(["p1", "p2", "p.3", "weird key \u00e9"]), ENTRY, max_size=3)
         | st.sampled_from([None, [], "lots", 0]))
DAYS = [date(2026, 10, 5), date(2026, 10, 11), date(2026, 10, 12), date(2026, 11, 2)]


@st.composite
def lane_log(draw: st.DrawFn) -> list[str]:
    lines = []
    for number_ in range(draw(st.integers(min_value=0, max_value=14))):
        row: dict[str, Any] = {"attempt_id": f"attempt-{number_}"}
        day = draw(st.sampled_from([*DAYS, None]))
        if day is not None:
            row["ts"] = f"{day.isoformat()}T12:00:00Z"
        row["probe"] = draw(st.sampled_from(["pass", "reject", None]))
        row["model_call_allowed"] = draw(st.sampled_from([True, True, False, 1, 0, None]))
        if draw(st.booleans()):
            row["properties"] = draw(st.lists(st.sampled_from(["p1", "p2"]), max_size=3))
        if draw(st.booleans()):
            row["units"] = draw(st.sampled_from([1, 2, 0, 2.5, "3", None]))
        if draw(st.integers(0, 3)):
            row["usage"] = draw(USAGE)
        lines.append(json.dumps(row))
    return lines


def close(actual: dict[str, Any], expected: dict[str, Any]) -> bool:
    if ("costs" in actual) != ("costs" in expected):
        return False
    for key, value in expected.items():
        got = actual[key]
        if key == "costs":
            if [entry["currency"] for entry in got] != [entry["currency"] for entry in value]:
                return False
            if any(a["cost"] != pytest.approx(b["cost"], rel=1e-9, abs=1e-9) for a, b in zip(got, value)):
                return False
            continue
        if isinstance(value, float) and got is not None:
            if got != pytest.approx(value, rel=1e-9, abs=1e-9):
                return False
        elif got != value:
            return False
    return True


ORACLE = settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
OVERFLOWED = [  # two token counts of 1e308 in one week once summed to infinity
    '{"attempt_id": "a0", "ts": "2026-10-05T12:00:00Z", "probe": "pass", "model_call_allowed": true}',
    '{"attempt_id": "a9", "ts": "2026-10-05T12:00:00Z", "probe": "pass", "model_call_allowed": true, '
    '"usage": {"p1": {"input_tokens": 1e+308}}}',
    '{"attempt_id": "a13", "ts": "2026-10-05T12:00:00Z", "probe": "pass", "model_call_allowed": true, '
    '"usage": {"p1": {"input_tokens": 1e+308}}}']


@at_depths(50, quick=10)
def test_report_money_equals_the_independent_reader(tmp_path: Path, examples: int) -> None:
    check = example(lines=OVERFLOWED)(money_equals_the_independent_reader)
    settings(ORACLE, max_examples=examples)(given(lines=lane_log())(check))(tmp_path)


def money_equals_the_independent_reader(tmp_path: Path, lines: list[str]) -> None:
    log = tmp_path / "lane-log.jsonl"
    log.write_text("".join(line + "\n" for line in lines))
    result = CliRunner().invoke(cli, ["report", str(log), "--format", "json"], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    money = json.loads(result.stdout)["money"]
    expected = reader(log)
    assert [week["week"] for week in money["weeks"]] == [week["week"] for week in expected["weeks"]]
    for got, want in zip(money["weeks"], expected["weeks"]):
        assert close(got, want), (got, want)
    assert close(money["totals"], expected["totals"]), (money["totals"], expected["totals"])
    assert money["estimate"].startswith("spend_avoided_estimate is an estimate")


def test_a_week_without_usage_says_so_and_shows_no_zero_cost(tmp_path: Path) -> None:
    log = tmp_path / "lane-log.jsonl"
    spent = {"p1": {"input_tokens": 1000, "output_tokens": 4, "cost": 0.02, "currency": "USD"}}
    log.write_text("\n".join(json.dumps(row) for row in [
        {"attempt_id": "a", "ts": "2026-10-05T12:00:00Z", "probe": "pass", "model_call_allowed": True,
         "properties": ["p1"], "units": 2, "usage": spent},
        {"attempt_id": "b", "ts": "2026-10-06T12:00:00Z", "probe": "reject", "model_call_allowed": False},
        {"attempt_id": "c", "ts": "2026-10-12T12:00:00Z", "probe": "pass", "model_call_allowed": True,
         "properties": ["p1"]},
        {"attempt_id": "d", "ts": "2026-10-13T12:00:00Z", "probe": "reject", "model_call_allowed": False},
    ]) + "\n")
    result = CliRunner().invoke(cli, ["report", str(log), "--format", "json"], catch_exceptions=False)
    money = json.loads(result.stdout)["money"]
    first, second = money["weeks"]
    assert (first["cost"], first["currency"], first["cost_per_armed_call"], first["cost_per_unit"]) == \
        (0.02, "USD", 0.02, 0.01)
    assert first["spend_avoided_estimate"] == 0.02 and first["note"] is None
    assert second["cost"] is None and second["spend_avoided_estimate"] is None
    assert second["note"] == "no usage recorded"
    # The second week's reject has no week's price to go by: the total estimate is unknown.
    assert money["totals"]["cost"] == 0.02 and money["totals"]["spend_avoided_estimate"] is None
    assert money["by_property"] == [{"week": "2026-10-05", "property": "p1", "calls": 1, "calls_priced": 1,
                                     "input_tokens": 1000, "output_tokens": 4, "currency": "USD",
                                     "cost": 0.02, "note": None}]
    assert [row["repo"] for row in money["by_repo"]] == [None, None]
    table = CliRunner().invoke(cli, ["report", str(log)], catch_exceptions=False).stdout
    assert "no usage recorded" in table and "spend avoided (estimate)" in table
    assert "0.02 USD" in table
    review = CliRunner().invoke(cli, ["report", str(log), "--format", "markdown"],
                                catch_exceptions=False).stdout
    assert "## Money" in review and "spend avoided (estimate)" in review
    assert "| 2026-10-12 | 1 | 1 | 0 | - | - | no usage recorded |" in review
