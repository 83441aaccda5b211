"""What the weekly figures are called, and which week the latest is compared with.

Defined once here, for every place that shows the figures: the CLI's table and
markdown review, and the dashboard's metrics, legends and headers.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from lanelog.errors import QueryError
from lanelog.times import FIRST_DAY as FIRST_DAY  # re-exported: lanelog.queries names them
from lanelog.times import LAST_DAY as LAST_DAY
from lanelog.times import day_outside as day_outside

# The weeks a dated attempt can fall in: the Mondays of the supported ts range, 1970-01-01
# up to 2200-01-01 UTC (lane_ts_in_range in store/schema.sql; ingest leaves any other ts
# undated).  Whatever steps through weeks keeps to them, so no date can overflow a step.
FIRST_WEEK, LAST_WEEK = date(1969, 12, 29), date(2199, 12, 30)
# The days a command takes (--today, --since, --until, --week, the day budgets are judged on) are
# lanelog.times' FIRST_DAY to LAST_DAY, the same range: one outside it is refused where it is given.


def supported_week(week: date) -> bool:
    """True for a Monday a dated attempt can have (a database stored before the rule may hold others)."""
    return FIRST_WEEK <= week <= LAST_WEEK


def supported_day(day: date, what: str) -> date:
    """``day`` when lanelog takes it; QueryError naming ``what`` (the option or field that gave it) when not."""
    why = day_outside(day)
    if why is not None:
        raise QueryError(f"{what} {why}")
    return day


FIGURES = ("attempts", "probe_rejects", "setup_rejects", "patch_rejects", "calls_armed", "credit_bugs", "quarantined",
           "units")
# The counts of a week row beside FIGURES: the merges over a live quarantine nobody said may go, and the
# one count a person reads (queries/credit.py).
CREDIT_COUNTS = ("merge_credit_bugs", "credit_bugs_total")

# The words a reader sees for each key of the report's JSON: in a table or legend,
# and as the title of a metric standing alone.
_WORDS: dict[str, tuple[str, str]] = {
    "week": ("week", "Week"),
    "attempts": ("attempts", "Attempts"),
    "probe_rejects": ("probe rejects", "Probe rejects"),
    "setup_rejects": ("setup rejects", "Setup rejects"),
    "patch_rejects": ("patch rejects", "Patch rejects"),
    "calls_armed": ("armed calls", "Armed calls"),
    # A person reads one credit-bug count: the total of both kinds (queries/credit.py), its split named.
    "credit_bugs_total": ("credit bugs", "Credit bugs"),
    "quarantined": ("quarantined", "Quarantined"),
    "units": ("units", "Units spent"),
    "armed_per_reject": ("armed calls per patch reject", "Armed calls per patch reject"),
}
LABELS: dict[str, str] = {key: words[0] for key, words in _WORDS.items()}
# Other columns the pages show, where the key with spaces for underscores is not the word.
_WORDS.update({
    "credit_bugs": ("credit bugs on lines", "Credit bugs on lines"),
    "merge_credit_bugs": ("credit bugs by merge", "Credit bugs by merge"),
    "repo": ("repository", "Repository"),
    "quarantine_id": ("freeze", "Freeze"),
})


def label(key: str, title: bool = False) -> str:
    """The words for a figure's key ("calls_armed" -> "armed calls"; title: "Armed calls")."""
    short, long = _WORDS.get(key, (key.replace("_", " "), key.replace("_", " ").capitalize()))
    return long if title else short


@dataclass(frozen=True)
class Comparison:
    """The latest week with attempts, and the week it is compared with (None: nothing before)."""

    latest: dict[str, Any] | None
    before: dict[str, Any] | None

    @property
    def skipped_weeks(self) -> bool:
        """True when the week compared with is not the calendar week just before."""
        if self.latest is None or self.before is None or self.latest["week"] is None:
            return False
        gap = date.fromisoformat(self.latest["week"]) - date.fromisoformat(self.before["week"])
        return gap.days != 7

    def heading(self) -> str:
        """One line naming both weeks, e.g. "Week of 2026-10-12 against the week of 2026-10-05"."""
        if self.latest is None:
            return "No attempts in range"
        if self.latest["week"] is None:
            return "Undated attempts (no dated week in range)"
        text = f"Week of {self.latest['week']}"
        if self.before is None:
            return text + " (no earlier week with attempts to compare with)"
        text += f" against the week of {self.before['week']}"
        return text + (" (the latest earlier week with attempts)" if self.skipped_weeks else "")

    def change(self, key: str) -> int | float | None:
        """The latest week's figure less the earlier week's, or None when either is missing."""
        if self.latest is None or self.before is None:
            return None
        now, then = self.latest.get(key), self.before.get(key)
        if now is None or then is None:
            return None
        delta = now - then
        return int(delta) if float(delta).is_integer() else float(delta)


def compare_latest(weeks: list[dict[str, Any]]) -> Comparison:
    """The latest dated week against the dated week listed before it.

    Weeks are the report's rows (dated weeks in order, the undated bucket last).
    With no dated week, the undated bucket stands alone.
    """
    dated = [week for week in weeks if week["week"] is not None]
    if not dated:
        undated = [week for week in weeks if week["week"] is None]
        return Comparison(undated[-1] if undated else None, None)
    return Comparison(dated[-1], dated[-2] if len(dated) > 1 else None)
