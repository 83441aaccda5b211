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


@dataclass(frozen=True)
class Figure:
    """One figure of the report, its one home: the key of the report's JSON, its words in a table or legend and
    as the title of a metric standing alone, how a value is shown (count, number: a count that may be a
    fraction, ratio: two places, money, hours, rate: a share), which way is worse ("up", "down", None: neither),
    and where it comes from: the named SQL block whose column it is (queries/*.sql), or "credit" (queries/credit.py).

    A weekly figure (WEEKLY) is a column of the report's weeks and totals, its text, markdown and CSV tables,
    and of the Overview's weekly table ``overview`` (0: the rejects, 1: the calls, spend and credit; None: in
    the CSV only); ``metric``: the Overview also shows it as a metric of the latest week."""

    key: str
    words: str
    title: str
    format: str = "count"
    worse: str | None = None
    source: str = "figures"
    overview: int | None = None
    metric: bool = False


# The weekly figures, in the order of the CSV and of the report's JSON (which adds the credit counts last).
# Adding one is its column in weekly.sql's `figures` block, its record here and its line in docs/report.md
# (docs/architecture.md, "How to add a weekly figure").
WEEKLY = (
    Figure("attempts", "attempts", "Attempts", overview=0, metric=True),
    Figure("probe_rejects", "probe rejects", "Probe rejects", overview=0),
    Figure("setup_rejects", "setup rejects", "Setup rejects", worse="up", overview=0),
    Figure("patch_rejects", "patch rejects", "Patch rejects", overview=0, metric=True),
    Figure("calls_armed", "armed calls", "Armed calls", overview=1, metric=True),
    # The seed's credit bugs (lines), and the merges over a live quarantine: the CSV names both, a person
    # reads the one count (queries/credit.py), its split named.
    Figure("credit_bugs", "credit bugs on lines", "Credit bugs on lines", worse="up"),
    Figure("merge_credit_bugs", "credit bugs by merge", "Credit bugs by merge", worse="up", source="credit"),
    Figure("credit_bugs_total", "credit bugs", "Credit bugs", worse="up", source="credit", overview=1, metric=True),
    Figure("quarantined", "quarantined", "Quarantined", overview=0),
    Figure("units", "units", "Units spent", format="number", overview=1, metric=True),
    Figure("armed_per_reject", "armed calls per patch reject", "Armed calls per patch reject", format="ratio",
           overview=1),
)
# The money of a week (queries/money.sql, queries/costs.py) and the outcome figures (queries/outcomes.sql).
MONEY = (
    Figure("cost", "cost", "Cost", format="money", worse="up", source="figures"),
    Figure("cost_per_armed_call", "cost per armed call", "Cost per armed call", format="money", worse="up",
           source="figures"),
    Figure("spend_avoided_estimate", "spend avoided estimate", "Spend avoided estimate", format="money",
           worse="down", source="figures"),
)
OUTCOMES = (
    Figure("merged", "merged", "Merged", source="outcome_groups"),
    Figure("merged_cost_known", "merged, cost known", "Merged, cost known", source="outcome_groups"),
    Figure("cost_coverage", "cost known of merged", "Cost known of merged", format="rate", worse="down",
           source="outcome_groups"),
    Figure("closed_without_merge", "closed without merge", "Closed without merge", source="outcome_groups"),
    Figure("merge_rate", "merge rate", "Merge rate", format="rate", worse="down", source="outcome_groups"),
    Figure("first_try_merges", "merged at the first try", "Merged at the first try", source="outcome_groups"),
    Figure("first_try_rate", "first-try rate", "First-try rate", format="rate", worse="down",
           source="outcome_groups"),
    Figure("cost_per_merged_pr", "cost per merged pr", "Cost per merged pr", format="money", worse="up",
           source="outcome_groups"),
    Figure("spend_closed_without_merge", "spend closed without merge", "Spend closed without merge",
           format="money", worse="up", source="outcome_groups"),
    Figure("median_hours_to_merge", "median hours to merge", "Median hours to merge", format="hours", worse="up",
           source="outcome_groups"),
    Figure("open", "open now", "Open now", source="outcome_groups"),
    Figure("stale_open", "stale, open now", "Stale, open now", worse="up", source="outcome_groups"),
    Figure("open_at_week_end", "open at the week's end", "Open at the week's end", source="outcome_weeks"),
)
TABLE: dict[str, Figure] = {figure.key: figure for figure in (*WEEKLY, *MONEY, *OUTCOMES)}

# The weekly counts the figures block gives (its ratios aside); the counts a week row has beside them (the
# merges over a live quarantine, and the one count a person reads: queries/credit.py).
FIGURES = tuple(figure.key for figure in WEEKLY if figure.source == "figures" and figure.format in ("count", "number"))
CREDIT_COUNTS = tuple(figure.key for figure in WEEKLY if figure.source == "credit")
# The weekly figures a table shows (the CSV shows every one).
SHOWN = tuple(figure.key for figure in WEEKLY if figure.overview is not None)

# The words of other columns the pages show, where the key with spaces for underscores is not the word.
_WORDS: dict[str, tuple[str, str]] = {
    "week": ("week", "Week"),
    "repo": ("repository", "Repository"),
    "quarantine_id": ("freeze", "Freeze"),
}
# The words of the table's columns, the week first: every table of the weekly figures.
LABELS: dict[str, str] = {"week": "week", **{key: TABLE[key].words for key in SHOWN}}


def label(key: str, title: bool = False) -> str:
    """The words for a figure's key ("calls_armed" -> "armed calls"; title: "Armed calls")."""
    figure = TABLE.get(key)
    if figure is not None:
        return figure.title if title else figure.words
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


def compare_latest(weeks: list[dict[str, Any]], earlier: list[dict[str, Any]] | None = None) -> Comparison:
    """The latest dated week against the dated week listed before it, else the last dated week of
    `earlier` (the report's rows of the week before a range that holds one week with attempts).

    Weeks are the report's rows (dated weeks in order, the undated bucket last).
    With no dated week, the undated bucket stands alone.
    """
    dated = [week for week in weeks if week["week"] is not None]
    if not dated:
        undated = [week for week in weeks if week["week"] is None]
        return Comparison(undated[-1] if undated else None, None)
    before = [week for week in earlier or [] if week["week"] is not None and week["week"] < dated[-1]["week"]]
    return Comparison(dated[-1], dated[-2] if len(dated) > 1 else before[-1] if before else None)

