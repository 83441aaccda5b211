"""The scope every figure is computed over: the weeks touching [since, until] and one repository."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from lanelog.errors import QueryError
from lanelog.queries.figures import supported_day


@dataclass(frozen=True)
class Filters:
    """The scope of every figure: weeks touching [since, until] (inclusive) and one repo."""

    since: date | None = None
    until: date | None = None
    repo: str | None = None

    def __post_init__(self) -> None:
        for name in ("since", "until"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, datetime) or not isinstance(value, date)):
                raise QueryError(f"{name} must be a date, not {value!r}")
        if self.since and self.until and self.since > self.until:
            raise QueryError(f"since {self.since} is after until {self.until}")
        if self.repo is not None and not isinstance(self.repo, str):
            raise QueryError(f"repo must be a string, not {self.repo!r}")

    @classmethod
    def parse(cls, since: str | None = None, until: str | None = None,
              repo: str | None = None) -> Filters:
        """Filters from text (CLI options, URL query strings); a bad date, or one outside the days lanelog
        takes (figures.FIRST_DAY to LAST_DAY), names itself."""
        return cls(_parse_day("since", since), _parse_day("until", until), repo or None)

    def week_before(self, week: str) -> Filters:
        """The calendar week before `week` (a Monday, YYYY-MM-DD) in this scope's repository: what the
        Overview compares the latest week with when the range holds no earlier week with attempts."""
        monday = date.fromisoformat(week) - timedelta(days=7)
        return Filters(monday, monday + timedelta(days=6), self.repo)

    def bound(self) -> dict[str, Any]:
        """The values every scoped query binds as $since, $until and $repo."""
        return {"since": self.since, "until": self.until, "repo": self.repo}


def _parse_day(name: str, text: str | None) -> date | None:
    if text is None or text == "":
        return None
    try:
        day = date.fromisoformat(text)
    except ValueError:
        raise QueryError(f"bad date for {name}: {text!r} (expected YYYY-MM-DD)") from None
    return supported_day(day, name)  # a day given is one lanelog takes (a week holding it may run past)
