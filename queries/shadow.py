"""The live shadow (`route --shadow`): its figures per shadow policy, its errors, and the flips."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from lanelog.queries.engine import records
from lanelog.queries.filters import Filters
from lanelog.queries.named import SQL

if TYPE_CHECKING:
    from lanelog.queries.engine import Readable

ROW_LIMIT = 1000  # rows listed; counts are never limited

SHADOW_FIGURES = ("attempts", "probe_rejects", "shadow_probe_rejects", "calls_armed", "shadow_calls_armed",
                  "flips")


def shadow_report(engine: Readable, filters: Filters | None = None) -> dict[str, Any] | None:
    """The live shadow (`route --shadow`) per shadow policy, and its errors; None when no line in scope has one.

    ``policies``: one entry per policy digest (``policy_sha256``, None for a shadow that
    named none), newest first by its last attempt, each with its ``weeks`` and ``totals``
    over the attempts decided under it, live beside shadow; shadows of different policies
    are never summed.  ``errors``: the attempts whose shadow is an error (no decision: its
    policy could not be used), counted apart, in ``attempts``, per ``reasons`` and per week.
    """
    rows = records(engine, SQL.shadow_figures, filters)
    failed = records(engine, SQL.shadow_errors, filters)
    if not rows and not failed:
        return None
    policies: dict[str | None, dict[str, Any]] = {}
    newest: dict[str | None, Any] = {}
    for row in rows:
        entry = policies.setdefault(row["policy"], {"policy_sha256": row["policy"], "weeks": [], "totals": {}})
        figures = {key: row[key] for key in SHADOW_FIGURES}
        if row["is_total"]:
            entry["totals"] = figures
            newest[row["policy"]] = row["last_ts"]
        else:
            entry["weeks"].append({"week": row["week"].isoformat() if row["week"] else None, **figures})
    # Newest policy first (the candidate CI decides by now), an undated one last; equals by digest.
    by_digest = sorted(policies, key=lambda policy: (policy is None, policy or ""))
    order = sorted(by_digest, key=lambda policy: newest[policy] or datetime.min, reverse=True)
    reasons: dict[str, int] = {}
    weeks: dict[str | None, int] = {}
    for row in failed:
        reasons[row["reason"]] = reasons.get(row["reason"], 0) + row["attempts"]
        week = row["week"].isoformat() if row["week"] else None
        weeks[week] = weeks.get(week, 0) + row["attempts"]
    errors = {"attempts": sum(reasons.values()), "reasons": dict(sorted(reasons.items())),
              "weeks": [{"week": week, "attempts": count} for week, count in weeks.items()]}
    return {"policies": [policies[policy] for policy in order], "errors": errors}


def shadow_flips(engine: Readable, filters: Filters | None = None,
                 limit: int = ROW_LIMIT) -> list[dict[str, Any]]:
    """The attempts whose probe the shadow policy would flip, newest first (at most ``limit``)."""
    return records(engine, SQL.shadow_flips, filters, limit=limit)
