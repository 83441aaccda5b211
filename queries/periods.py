"""The budget periods, in one table: the days a period spans around a day, and its words.

Every caller reads this table (the budgets file's check, the judging, the pages' lines
and words, the alerts), so a period is added here alone; a name not in it is an error
everywhere.  Weeks are ISO weeks from Monday, months calendar months, both in UTC.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from lanelog.errors import QueryError
from lanelog.queries.figures import supported_day
from lanelog.times import monday


def _first_of_next_month(day: date) -> date:
    return date(day.year + 1, 1, 1) if day.month == 12 else date(day.year, day.month + 1, 1)


@dataclass(frozen=True)
class Period:
    """A budget period: its name in the budgets file, its noun, and its first day around any day."""

    name: str
    noun: str
    described: str  # what the name means, for a budgets file's error
    first_day: Callable[[date], date]
    next_first_day: Callable[[date], date]  # the first day of the period after the one holding a day

    def bounds(self, day: date) -> tuple[date, date]:
        """The first and the last day of the period that holds ``day``."""
        return self.first_day(day), self.next_first_day(day) - timedelta(days=1)

    def days(self, day: date) -> int:
        """How many days the period holding ``day`` has."""
        start, end = self.bounds(day)
        return (end - start).days + 1

    def weekly_share(self, day: date) -> float:
        """What a week is of the period holding ``day`` (a budget's amount a week is amount times this)."""
        return 7 / self.days(day)


PERIODS: dict[str, Period] = {period.name: period for period in (
    Period("week", "week", "week (ISO, from Monday, UTC)", monday, lambda day: monday(day) + timedelta(days=7)),
    Period("month", "month", "month (UTC)", lambda day: day.replace(day=1), _first_of_next_month),
)}


def period(name: str) -> Period:
    """The period named ``name``; any other name is an error that lists the known ones."""
    found = PERIODS.get(name)
    if found is None:
        raise QueryError(f"no budget period {name!r}; known: {', '.join(PERIODS)}")
    return found


def today_or_now(today: date | None) -> date:
    """The job clock's day: ``today`` when given (--today), else today in UTC; QueryError for a day lanelog
    does not take (figures.FIRST_DAY to LAST_DAY)."""
    return supported_day(today if today is not None else datetime.now(UTC).date(), "today")


def week_of(text: str, today: date) -> tuple[date, date]:
    """``--week LAST`` (the week before the one holding today) or the week holding a day: its Monday and Sunday."""
    if text.upper() == "LAST":
        day = today - timedelta(days=7)
    else:
        try:
            day = supported_day(date.fromisoformat(text), "week")
        except ValueError:
            raise QueryError(f"{text!r}: give LAST or a day (YYYY-MM-DD)") from None
    return PERIODS["week"].bounds(day)
