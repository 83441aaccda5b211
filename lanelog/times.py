"""Time, one home: a moment as the lane log writes it (RFC 3339, UTC, a Z), and the week.

route writes ``ts`` in whole seconds (2026-10-08T12:00:00Z); a stored moment is written back the
same way, with its microseconds when it has some (2026-10-08T12:00:00.250000Z), so an event, a
check's JSON and a table show the time the line gave.  A week is an ISO week, from Monday, as
store/schema.sql's lane_week buckets attempts: ``monday`` is its Python side.  This leaf imports nothing of lanelog.

The supported range is here too, for every layer that reads it (the router, which imports no
queries, refuses a time outside it; queries steps weeks within it).
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

# The days lanelog can date: those of store/schema.sql's lane_ts_in_range, 1970-01-01 up to
# 2200-01-01 UTC.  Ingest leaves a line timed outside them undated; a command refuses a day
# outside them where it is given, naming it (stepping a week from 0001-01-01 or 9999-12-31
# overflowed Python's dates), and `lanelog outcome` refuses such a time, which ingest could not date.
FIRST_DAY, LAST_DAY = date(1970, 1, 1), date(2199, 12, 31)


def rfc3339(moment: datetime, fraction: bool = False) -> str:
    """``2026-10-08T12:00:00Z``: the moment in UTC (a naive one is UTC already, as the store keeps it), in
    whole seconds, or with ``fraction`` its microseconds when it has some."""
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return moment.isoformat(timespec="microseconds" if fraction and moment.microsecond else "seconds") + "Z"


def monday(day: date) -> date:
    """The Monday of the ISO week holding ``day``: the week it falls in."""
    return day - timedelta(days=day.weekday())


def day_outside(day: date) -> str | None:
    """Why lanelog takes no such day (outside FIRST_DAY to LAST_DAY), in words; None for a day it takes."""
    if FIRST_DAY <= day <= LAST_DAY:
        return None
    return f"{day.isoformat()} is outside the dates lanelog supports ({FIRST_DAY} to {LAST_DAY})"
