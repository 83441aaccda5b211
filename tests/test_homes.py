"""One home per concept: money, the currency, a timestamp and the week are each defined in one module.

Each rule below names a concept's home and what a second definition of it looks like in the
source; a scan of every source file of the layers fails on one outside its home, naming the
file, the line and what it found.  The SQL side keeps the currency pattern the Python side has.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path

import pytest

from lanelog.money import CURRENCY_PATTERN, DIGITS, amount_text, is_currency, money_text, money_value
from lanelog.times import monday, rfc3339

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("lanelog", "router", "store", "ingest", "queries", "dashboard")


def _calls(tree: ast.AST, name: str) -> Iterator[ast.Call]:
    """Every call of a function or method of that name."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if (isinstance(func, ast.Name) and func.id == name) or (isinstance(func, ast.Attribute)
                                                                    and func.attr == name):
                yield node


def _strings(tree: ast.AST) -> Iterator[ast.Constant]:
    return (node for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str))


def _defined(tree: ast.AST, *names: str) -> Iterator[ast.AST]:
    """Functions of those names, and assignments to them at a module's or a class's top."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in names:
            yield node
        elif isinstance(node, ast.Assign) and any(isinstance(target, ast.Name) and target.id in names
                                                  for target in node.targets):
            yield node


def _money(tree: ast.AST) -> Iterator[tuple[ast.AST, str]]:
    """A converter or a style of its own: a `_money` or a DIGITS, a round to ten places, a bare amount cut
    from money_text."""
    yield from ((node, "a money converter or DIGITS") for node in _defined(tree, "_money", "money_value", "DIGITS"))
    for call in _calls(tree, "round"):
        places = call.args[1] if len(call.args) > 1 else None
        if (isinstance(places, ast.Name) and places.id == "DIGITS") or \
                (isinstance(places, ast.Constant) and places.value == DIGITS):
            yield call, f"money rounded to {DIGITS} places"
    for call in _calls(tree, "money_text"):
        currency = call.args[1] if len(call.args) > 1 else None
        if isinstance(currency, ast.Constant) and currency.value == "":
            yield call, "an amount written by money_text without its currency (amount_text writes one)"


def _currency(tree: ast.AST) -> Iterator[tuple[ast.AST, str]]:
    """A currency pattern of its own."""
    yield from ((node, f"the currency pattern {node.value!r}") for node in _strings(tree)
                if CURRENCY_PATTERN in node.value)
    yield from ((node, "a currency check") for node in _defined(tree, "CURRENCY", "is_currency"))


def _timestamp(tree: ast.AST) -> Iterator[tuple[ast.AST, str]]:
    """A timestamp written by a format of its own: strftime's RFC 3339 parts, or isoformat() + "Z"."""
    yield from ((node, f"a timestamp format {node.value!r}") for node in _strings(tree)
                if "%Y-%m-%dT" in node.value or "%H:%M:%SZ" in node.value)
    yield from ((node, "a timestamp formatter") for node in _defined(tree, "rfc3339"))
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and isinstance(node.left, ast.Call) \
                and isinstance(node.left.func, ast.Attribute) and node.left.func.attr == "isoformat" \
                and isinstance(node.right, ast.Constant) and node.right.value == "Z":
            yield node, 'a timestamp written as isoformat() + "Z"'


def _week(tree: ast.AST) -> Iterator[tuple[ast.AST, str]]:
    """A week of its own: a function monday (a variable may hold a week's Monday), or arithmetic on weekday()."""
    yield from ((node, "a monday") for node in _defined(tree, "monday") if not isinstance(node, ast.Assign))
    yield from ((call, "weekday() arithmetic") for call in _calls(tree, "weekday"))


# Each concept: its home (a path under the repository) and how a second definition is found.
HOMES: dict[str, tuple[str, Callable[[ast.AST], Iterator[tuple[ast.AST, str]]]]] = {
    "money": ("lanelog/money.py", _money),
    "currency": ("lanelog/money.py", _currency),
    "timestamp": ("lanelog/times.py", _timestamp),
    "week": ("lanelog/times.py", _week),
}


def second_homes(source: str, path: str) -> list[str]:
    """Each definition in one source file (its path relative to the repository) that belongs in a home elsewhere."""
    tree = ast.parse(source)
    found: list[tuple[int, str]] = []
    for concept, (home, finder) in HOMES.items():
        if path != home:
            found += [(node.lineno, f"{path} line {node.lineno}: {what} (the {concept}'s home is {home})")
                      for node, what in finder(tree)]
    return [line for _, line in sorted(found)]


def _sources() -> list[Path]:
    return sorted(path for folder in FOLDERS for path in (ROOT / folder).rglob("*.py"))


def test_each_concept_is_defined_in_its_home_alone() -> None:
    found = [line for path in _sources()
             for line in second_homes(path.read_text(encoding="utf-8"), path.relative_to(ROOT).as_posix())]
    assert found == []


SECOND = {
    "week": "def start(day):\n    return day - timedelta(days=day.weekday())\n",
    "timestamp": "def at(moment):\n    return moment.isoformat() + 'Z'\n",
    "money": "def _money(value):\n    return round(float(value), 10)\n",
    "currency": "import re\nCODE = re.compile(r'[A-Z]{3}\\Z')\n",
}


@pytest.mark.parametrize("concept", sorted(HOMES))
def test_the_scan_finds_a_second_home_of_each_concept(concept: str) -> None:
    """Each rule can fail: a module of another layer defining the concept again is caught."""
    found = second_homes(SECOND[concept], "queries/elsewhere.py")
    assert found and all(line.startswith("queries/elsewhere.py line ") for line in found)
    assert any(f"the {concept}'s home is {HOMES[concept][0]}" in line for line in found)
    assert not any(f"the {concept}'s home" in line for line in second_homes(SECOND[concept], HOMES[concept][0]))


def test_money_for_json_is_rounded_once_and_never_made_up() -> None:
    assert money_value(Decimal("0.12345678905")) == 0.1234567890  # half to even, on the exact amount
    assert money_value(Decimal("0.12345678915")) == 0.1234567892
    assert money_value(0.1 + 0.2) == 0.3
    assert money_value(3) == 3.0 and isinstance(money_value(3), float)
    assert [money_value(value) for value in (None, float("nan"), float("inf"), Decimal("NaN"))] == [None] * 4


def test_an_amount_is_written_one_way_with_its_currency_or_without() -> None:
    assert [money_text(value, "USD") for value in (1234.5, 0.0021, 0.5, Decimal("12"))] == [
        "1,234.50 USD", "0.002100 USD", "0.50 USD", "12.00 USD"]
    assert [amount_text(value) for value in (1234.5, 0.0021, 0.5, Decimal("12"))] == [
        "1,234.50", "0.002100", "0.50", "12.00"]
    # Below 1, six decimals whatever the amount, so a column lines up (whole cents keep their cents).
    assert [amount_text(value) for value in (0.065049, 0.00834, 0.0109, 0, Decimal("0.30"), -0.011508)] == [
        "0.065049", "0.008340", "0.010900", "0.00", "0.30", "-0.011508"]


def test_a_moment_is_written_in_utc_with_a_z() -> None:
    paris = timezone(timedelta(hours=2))
    assert rfc3339(datetime(2026, 10, 8, 14, 3, 0, 250000, tzinfo=paris)) == "2026-10-08T12:03:00Z"
    assert rfc3339(datetime(2026, 10, 8, 12, 3, 0, 250000)) == "2026-10-08T12:03:00Z"  # a stored one: UTC
    assert rfc3339(datetime(2026, 10, 8, 12, 3, 0, 250000), fraction=True) == "2026-10-08T12:03:00.250000Z"
    assert rfc3339(datetime(2026, 10, 8, 12, 3), fraction=True) == "2026-10-08T12:03:00Z"
    assert rfc3339(datetime(1, 1, 1, 10, tzinfo=UTC)) == "0001-01-01T10:00:00Z"  # four digits, as RFC 3339 says


def test_a_day_falls_in_the_week_from_its_monday() -> None:
    assert [monday(date(2026, 10, day)).isoformat() for day in (4, 5, 8, 11, 12)] == [
        "2026-09-28", "2026-10-05", "2026-10-05", "2026-10-05", "2026-10-12"]
    assert monday(date(2027, 1, 1)) == date(2026, 12, 28)  # across the year, as an ISO week is


def test_a_currency_is_three_capital_letters_and_nothing_else() -> None:
    assert is_currency("USD") and is_currency("EUR")
    assert not any(is_currency(value) for value in ("usd", "US", "USDX", "USD\n", " USD", "US$", "", 840, None))


def _schema_currency() -> str:
    """The pattern store/schema.sql's lane_currency macro matches a currency against."""
    schema = (ROOT / "store" / "schema.sql").read_text(encoding="utf-8")
    (pattern,) = re.findall(r"MACRO lane_currency\(j\) AS\s+CASE WHEN regexp_full_match\(json_str\(j\), '([^']*)'\)",
                            schema)
    return pattern


def test_the_schema_holds_the_currency_pattern_of_lanelog_money() -> None:
    """One pattern on both sides: the schema's literal is CURRENCY_PATTERN, and no other SQL file has one."""
    assert _schema_currency() == CURRENCY_PATTERN
    holding = sorted(path.relative_to(ROOT).as_posix() for folder in FOLDERS for path in (ROOT / folder).rglob("*.sql")
                     if CURRENCY_PATTERN in path.read_text(encoding="utf-8"))
    assert holding == ["store/schema.sql"]


def test_ingest_takes_as_a_currency_what_lanelog_money_does() -> None:
    from lanelog.store import open_memory

    samples = ["USD", "EUR", "usd", "US", "USDX", "USD\n", " USD", "US$", "", "ÅÄÖ"]
    con = open_memory()
    try:
        kept = [con.execute("SELECT lane_currency(to_json(?::VARCHAR)) IS NOT NULL", [text]).fetchone()
                for text in samples]
    finally:
        con.close()
    assert [row[0] for row in kept if row] == [is_currency(text) for text in samples]
