"""Time, one home: a moment as the lane log writes it (RFC 3339, UTC, a Z), and the week.

route writes ``ts`` in whole seconds (2026-10-08T12:00:00Z); a stored moment is written back the
same way, with its microseconds when it has some (2026-10-08T12:00:00.250000Z), so an event, a
check's JSON and a table show the time the line gave.  A week is an ISO week, from Monday, as
store/schema.sql's lane_week buckets attempts: ``monday`` is its Python side.  This leaf imports nothing of lanelog.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta


def rfc3339(moment: datetime, fraction: bool = False) -> str:
    """``2026-10-08T12:00:00Z``: the moment in UTC (a naive one is UTC already, as the store keeps it), in
    whole seconds, or with ``fraction`` its microseconds when it has some."""
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return moment.isoformat(timespec="microseconds" if fraction and moment.microsecond else "seconds") + "Z"


def monday(day: date) -> date:
    """The Monday of the ISO week holding ``day``: the week it falls in."""
    return day - timedelta(days=day.weekday())
