"""The hook's figures (`lanelog hook`): checks and rejects in the agents' own loops, per week and agent."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lanelog.queries.engine import records
from lanelog.queries.filters import Filters
from lanelog.queries.named import SQL

if TYPE_CHECKING:
    from lanelog.queries.engine import Readable

HOOK_FIGURES = ("hook_checks", "hook_rejects")
SESSION_FIGURES = ("sessions_refused", "sessions_narrowed")


def hook_report(engine: Readable, filters: Filters | None = None) -> dict[str, Any] | None:
    """The report's ``hooks`` section; None when no line in scope is a hook's.

    ``weeks``: hook_checks and hook_rejects per week (the undated bucket last); ``totals``:
    over them all; ``by_agent``: per agent, with its sessions refused and narrowed (hooks.sql).
    """
    rows = records(engine, SQL.hook_figures, filters)
    weeks = [row for row in rows if not row["by_agent"]]
    if not weeks:
        return None
    sessions = {row["agent"]: row for row in records(engine, SQL.hook_sessions, filters)}
    return {
        "weeks": [{"week": row["week"].isoformat() if row["week"] else None, **_counts(row)} for row in weeks],
        "totals": {key: sum(_counts(row)[key] for row in weeks) for key in HOOK_FIGURES},
        "by_agent": [{"agent": row["agent"], **_counts(row),
                      **{key: int(sessions.get(row["agent"], {}).get(key) or 0) for key in SESSION_FIGURES}}
                     for row in rows if row["by_agent"]],
    }


def _counts(row: dict[str, Any]) -> dict[str, int]:
    return {key: int(row[key] or 0) for key in HOOK_FIGURES}
