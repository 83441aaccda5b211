"""A stored row as JSON, typed as the lane log types it: for events, `check --format json` and outcomes.

A timestamp is RFC 3339 in UTC with a Z (2026-10-07T12:00:00Z), as route writes `ts`; a day is
YYYY-MM-DD; `merge_credit`, kept as the line's JSON text, is its JSON value again (1, true),
never a string.  It sits on lanelog.times alone.
"""

from __future__ import annotations

import json
from datetime import date, datetime
from typing import Any

from lanelog.times import rfc3339

# Columns that hold a line's value as JSON text: shown as that value.
JSON_TEXT = ("merge_credit",)


def jsonable(value: Any, key: str = "") -> Any:
    """One stored value as the event carries it."""
    if isinstance(value, datetime):
        return rfc3339(value, fraction=True)
    if isinstance(value, date):
        return value.isoformat()
    if key in JSON_TEXT and isinstance(value, str):
        return json.loads(value)
    return value


def row_json(row: dict[str, Any]) -> dict[str, Any]:
    """A stored row with every value typed as the lane log types it."""
    return {key: jsonable(value, key) for key, value in row.items()}
