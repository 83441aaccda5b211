"""A faulty producer, clearly labelled: the legacy promotion script the alert exists for.

The real router never grants merge credit, so the credit-bug path would have
nothing to show. This script does what the seed warns about: it promotes an
attempt whose lane held by writing `merge_credit: 1`, ignoring that the attempt
carries a live quarantine. Its lines say so in `producer` and `message`.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

from lanelog.times import rfc3339

PRODUCER = "legacy-promoter"
MESSAGE = "legacy promotion script: lane held, merge credit granted (quarantine ignored)"


def _later(ts: str, hours: int) -> str:
    moment = datetime.fromisoformat(ts.replace("Z", "+00:00")) + timedelta(hours=hours)
    return rfc3339(moment)


def promotion(line: dict[str, Any]) -> dict[str, Any]:
    """The line the faulty script writes for one router attempt it promotes."""
    return {
        **line,
        "attempt_id": f"{line['attempt_id']}-promoted",
        "ts": _later(line["ts"], 3),
        "producer": PRODUCER,
        "promotes": line["attempt_id"],
        "model_call_allowed": False,
        "units": 0,
        "merge_credit": 1,
        "review": "promoted",
        "message": MESSAGE,
    }


def promotable(line: dict[str, Any]) -> bool:
    """What the faulty script looks for: a held lane. It never checks the quarantine."""
    return line.get("lane") == "hold" and bool(line.get("quarantine"))


def promotion_lines(plans: list[dict[str, Any]], per_week: int = 2) -> list[str]:
    """Promote up to `per_week` held, quarantined attempts from one week's router lines."""
    chosen = [plan for plan in plans if promotable(plan)][:per_week]
    return [json.dumps(promotion(plan), sort_keys=True) for plan in chosen]
