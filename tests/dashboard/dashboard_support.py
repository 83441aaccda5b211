"""Shared by the dashboard tests: the app's entry script, its pages, and a router-shaped line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

APP = Path(__file__).resolve().parents[2] / "dashboard" / "app.py"
PAGES = [
    "views/overview.py",
    "views/triage.py",
    "views/spend.py",
    "views/probe.py",
    "views/quarantine.py",
    "views/health.py",
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
