"""Shared by the dashboard tests: the app's entry script, its pages, and a router-shaped line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lanelog import ingest, store

APP = Path(__file__).resolve().parents[2] / "dashboard" / "app.py"
PAGES = [
    "views/overview.py",
    "views/triage.py",
    "views/spend.py",
    "views/outcomes.py",
    "views/probe.py",
    "views/quarantine.py",
    "views/health.py",
    "views/whatif.py",
]


def line(week_day: str, **fields: Any) -> dict[str, Any]:
    """A router-shaped line on a given day; fields override the defaults of a passing attempt."""
    base = {
        "schema": 1, "producer": "lanelog-route", "ts": f"{week_day}T10:00:00Z", "repo": "orders-service",
        "head": "abc123", "probe": "pass", "reasons": [], "properties": ["prop_round_trip"], "units": 1,
        "quarantine": [], "expired_freezes": [], "merge_credit": 0, "model_call_allowed": True,
        "review": "pending", "lane": "hold", "results": {"prop_round_trip": "hold"},
    }
    return {**base, **fields}


HISTORY_START = "2025-08-04"  # a Monday
HISTORY_WEEKS = 66
QUIET_WEEKS = (20, 21, 22)  # a holiday: no attempts at all
THIN_WEEK = 40  # one attempt: a ratio from it would mean nothing


def write_long_history(path: Path, per_week: int = 45) -> int:
    """A lane log over 66 weeks and five repositories, in the bench generator's router-shaped mix.

    Each line is the generator's (reasons, freezes, lanes, the legacy promoter's credit bugs),
    re-dated into its week; three weeks hold nothing and one holds a single attempt. Lines that
    list freezes name their owners and expiry, as the router writes them. Returns the line count.
    """
    from datetime import date, timedelta

    from bench.generate import line as generated_line

    start = date.fromisoformat(HISTORY_START)
    out, index = [], 0
    for week in range(HISTORY_WEEKS):
        if week in QUIET_WEEKS:
            continue
        for slot in range(1 if week == THIN_WEEK else per_week):
            data, row = generated_line(7, index, 100_000)
            index += 1
            if row is None:
                out.append(data)
                continue
            day = start + timedelta(weeks=week, days=slot % 5)
            row["ts"] = f"{day.isoformat()}T{9 + slot % 8:02d}:{slot % 60:02d}:00Z"
            listed = [*row.get("quarantine", []), *row.get("expired_freezes", [])]
            if listed and row.get("producer") == "lanelog-route":
                row["freezes"] = {test_id: {"owner": f"team-{test_id.split('_')[1]}", "expires": "2027-01-15"}
                                  for test_id in listed}
            out.append(json.dumps(row).encode())
    path.write_bytes(b"".join(data + b"\n" for data in out))
    return len(out)


def ingested(log: Path, db: Path) -> Path:
    """`log` ingested into a new database at `db`, closed again: the database's path."""
    con = store.open_db(db)
    try:
        ingest.ingest_paths(con, [log])
    finally:
        con.close()
    return db
