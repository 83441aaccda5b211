"""Every date a command takes is one lanelog supports, 1970-01-01 to 2199-12-31: else a usage error, exit 2.

`check --today 0001-01-01`, `report --week 9999-12-31` and budgets judged on 9999-12-31 once ended in
an OverflowError traceback with exit 1, which for `check` means a credit bug.  Run as a user runs them,
in a process of their own.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

OUTSIDE = "is outside the dates lanelog supports (1970-01-01 to 2199-12-31)"
BUDGETS = "budgets:\n  - {name: all-spend, amount: 10, currency: USD, period: week}\n" \
          "  - {name: monthly, amount: 50, currency: USD, period: month}\n"


def lanelog(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "lanelog", *map(str, args)], capture_output=True, text=True,
                          timeout=120, check=False)


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """A database of one attempt with a cost, its lane log, and a budgets file."""
    folder = tmp_path_factory.mktemp("dates")
    log = folder / "lane-log.jsonl"
    log.write_text(json.dumps({"attempt_id": "a1", "ts": "2026-10-07T12:00:00Z", "repo": "svc", "probe": "pass",
                               "model_call_allowed": True, "units": 1, "usage": {
                                   "p": {"input_tokens": 1, "output_tokens": 1, "cost": 2.0, "currency": "USD"}}})
                   + "\n")
    db = folder / "lanelog.duckdb"
    assert lanelog("ingest", log, "--db", db).returncode == 0
    budgets = folder / "budgets.yaml"
    budgets.write_text(BUDGETS)
    return db, log, budgets


@pytest.mark.parametrize(("args", "error"), [
    (["check", "--today", "0001-01-01"], f"Error: Invalid value for '--today': 0001-01-01 {OUTSIDE}"),
    (["check", "--today", "9999-12-31", "--budgets", "{budgets}"],
     f"Error: Invalid value for '--today': 9999-12-31 {OUTSIDE}"),
    (["report", "--today", "9999-12-31", "--budgets", "{budgets}"],
     f"Error: Invalid value for '--today': 9999-12-31 {OUTSIDE}"),
    (["report", "--week", "9999-12-31"], f"Error: Invalid value for --week: week 9999-12-31 {OUTSIDE}"),
    (["report", "--week", "0001-01-01"], f"Error: Invalid value for --week: week 0001-01-01 {OUTSIDE}"),
    (["report", "--week", "LAST", "--today", "0001-01-07"],
     f"Error: Invalid value for '--today': 0001-01-07 {OUTSIDE}"),
    (["report", "--since", "0001-01-01"], f"Error: since 0001-01-01 {OUTSIDE}"),
    (["check", "--until", "9999-12-31"], f"Error: until 9999-12-31 {OUTSIDE}"),
    (["check", "--since", "1969-12-31"], f"Error: since 1969-12-31 {OUTSIDE}"),
    (["report", "--until", "2200-01-01", "--format", "json"], f"Error: until 2200-01-01 {OUTSIDE}"),
])
def test_a_date_outside_the_supported_range_is_a_usage_error(files, args: list[str], error: str) -> None:
    db, _log, budgets = files
    done = lanelog(*(arg.format(budgets=budgets) for arg in args), "--db", db)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.strip().splitlines()[-1] == error
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("command", [["route", "--repo", "."], ["dashboard", "--port", "1"]])
def test_route_and_the_dashboard_take_no_day_outside_it_either(files, tmp_path: Path, command: list[str]) -> None:
    done = subprocess.run([sys.executable, "-m", "lanelog", *command, "--today", "9999-12-31"], capture_output=True,
                          text=True, timeout=120, check=False, cwd=tmp_path,
                          env={**os.environ, "LANELOG_LOG": str(tmp_path / "lane-log.jsonl")})
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1] == f"Error: Invalid value for '--today': 9999-12-31 {OUTSIDE}"
    assert not (tmp_path / "lane-log.jsonl").exists()


@pytest.mark.parametrize("args", [
    ["check", "--today", "2199-12-31", "--budgets", "{budgets}"],
    ["check", "--today", "1970-01-01", "--budgets", "{budgets}", "--since", "1970-01-01"],
    ["report", "--week", "2199-12-31", "--budgets", "{budgets}", "--format", "json"],
    ["report", "--week", "1970-01-01", "--format", "markdown"],
    ["report", "--since", "1970-01-01", "--until", "2199-12-31", "--format", "csv"],
])
def test_the_first_and_last_supported_days_are_judged(files, args: list[str]) -> None:
    db, _log, budgets = files
    done = lanelog(*(arg.format(budgets=budgets) for arg in args), "--db", db)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
