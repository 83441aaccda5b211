"""Test databases for the queries, built by inserting rows straight into the schema.

These rows are written by hand, truthiness columns included, so the queries are tested
apart from ingest; the tests that read real lane-log files go through `ingest`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from datetime import date, datetime
from typing import Any

import duckdb
import pytest

from lanelog import store

COLUMNS = (
    "source_id", "line_no", "byte_offset", "raw", "provisional", "attempt_id", "ts", "week",
    "repo", "head", "producer", "probe", "lane", "is_reject", "armed", "quarantined",
    "has_credit", "credit_bug", "merge_credit", "units", "budget_cap", "properties",
    "quarantine", "reasons", "expired_freezes", "results", "type_anomalies",
    "usage", "input_tokens", "output_tokens", "cost", "currency",
    "shadow_probe", "shadow_reasons", "shadow_units", "shadow_armed", "shadow_policy", "shadow_error",
    "pr_repository", "pr_number", "agent", "source", "hook_agent", "hook_session",
)


def attempt(line_no: int, week: date | None = None, **fields: Any) -> dict[str, Any]:
    """One attempts row: a passing, unarmed attempt unless the fields say otherwise."""
    row: dict[str, Any] = {
        "source_id": 1, "line_no": line_no, "byte_offset": 100 * line_no, "provisional": False,
        "attempt_id": f"a{line_no}", "week": week,
        "ts": datetime(week.year, week.month, week.day, 12) if week else None,
        "repo": "svc", "head": "c0ffee", "producer": "lanelog-route", "probe": "pass",
        "lane": None, "is_reject": False, "armed": False, "quarantined": False,
        "has_credit": False, "credit_bug": False, "merge_credit": "0", "units": None,
        "budget_cap": None, "properties": [], "quarantine": [], "reasons": [],
        "expired_freezes": [], "results": None, "type_anomalies": [],
        "usage": None, "input_tokens": None, "output_tokens": None, "cost": None, "currency": None,
        "shadow_probe": None, "shadow_reasons": None, "shadow_units": None, "shadow_armed": None,
        "shadow_policy": None, "shadow_error": None,
        "pr_repository": None, "pr_number": None, "agent": None,
        "source": None, "hook_agent": None, "hook_session": None,
    }
    row.update(fields)
    listed = [*row["quarantine"], *row["expired_freezes"]]
    # A router line names the owner and expiry of every freeze it lists.
    freezes = {"freezes": {test_id: {"owner": f"owner-of-{test_id}", "expires": "2026-11-01"}
                           for test_id in listed}} if listed else {}
    row["raw"] = fields.get("raw", json.dumps({"attempt_id": row["attempt_id"], **freezes}))
    return row


def _insert_source(con: duckdb.DuckDBPyConnection, path: str) -> None:
    """Source 1 at `path`; its bookkeeping columns (ingest's business) get neutral values."""
    neutral = {"VARCHAR": "", "INTEGER": 0, "BIGINT": 0, "TIMESTAMP": datetime(2026, 10, 1)}
    columns = con.execute(
        "SELECT column_name, data_type FROM information_schema.columns "
        "WHERE table_name = 'sources' ORDER BY ordinal_position"
    ).fetchall()
    values = {name: neutral[kind] for name, kind in columns}
    values.update(source_id=1, path=path)
    names = ", ".join(values)
    con.execute(f"INSERT INTO sources ({names}) VALUES ({', '.join('$' + n for n in values)})",
                values)


def build(rows: Iterable[dict[str, Any]], rejected: int = 0,
          path: str = "lane-log.jsonl") -> duckdb.DuckDBPyConnection:
    con = store.open_memory()
    _insert_source(con, path)
    table = [[row[name] for name in COLUMNS] for row in rows]
    if table:
        placeholders = ", ".join("?" for _ in COLUMNS)
        con.executemany(f"INSERT INTO attempts ({', '.join(COLUMNS)}) VALUES ({placeholders})", table)
    for number in range(rejected):
        con.execute(
            "INSERT INTO rejected_lines VALUES (1, $n, 0, 'x'::BLOB, 'x', 'invalid_json')",
            {"n": 1000 + number},
        )
    return con


@pytest.fixture
def db() -> Callable[..., duckdb.DuckDBPyConnection]:
    """Build an in-memory lanelog database from attempt rows."""
    opened: list[duckdb.DuckDBPyConnection] = []

    def make(rows: Iterable[dict[str, Any]], **options: Any) -> duckdb.DuckDBPyConnection:
        opened.append(build(rows, **options))
        return opened[-1]

    yield make
    for con in opened:
        con.close()
