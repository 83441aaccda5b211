"""What an ingest run did: its summary, the progress calls that show it, and its ingest_runs row."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import duckdb

from lanelog.ingest.load import Tally
from lanelog.ingest.statements import statement

# At most this many undated outcome lines are named one by one; the others are counted.
UNDATED_LISTED = 20

# Called with the bytes a committed transaction covered (0 when a log is done) and the
# run's summary so far (its files and lines read), so a caller can show rates.
Progress = Callable[[int, "IngestSummary"], None]


def _counted(count: int, noun: str) -> str:
    """"1 line", "2 lines": the summary reads as English at any count."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


@dataclass
class IngestSummary:
    """What one run did.  Every non-blank line read ends in exactly one of
    attempts_added, outcomes_added, duplicates, rejected or pending."""

    files: int = 0
    lines_read: int = 0
    attempts_added: int = 0
    duplicates: int = 0
    rejected: int = 0
    pending: int = 0
    outcomes_added: int = 0
    errors: list[str] = field(default_factory=list)
    # Logs none of whose lines read in this run was a JSON object (a README, a CSV), with
    # their rejected lines: stored as any other's, and the command says what they are.
    not_lane_logs: list[tuple[str, int]] = field(default_factory=list)
    # The database's outcome lines it cannot date (undated_outcomes), one sentence each, the
    # last saying how many more, and how many there are: a close in no week, judged in every range.
    undated_outcomes: list[str] = field(default_factory=list)
    undated_outcome_count: int = 0

    def as_dict(self) -> dict[str, int]:
        """The JSON summary of `lanelog ingest --json`."""
        return {
            "files": self.files,
            "lines_read": self.lines_read,
            "attempts_added": self.attempts_added,
            "outcomes_added": self.outcomes_added,
            "duplicates": self.duplicates,
            "rejected": self.rejected,
            "pending": self.pending,
            "undated_outcomes": self.undated_outcome_count,
        }

    def line(self) -> str:
        """The one-line summary for people."""
        return (
            f"{_counted(self.files, 'file')}, {_counted(self.lines_read, 'line')} read: "
            f"{_counted(self.attempts_added, 'attempt')} added, {_counted(self.outcomes_added, 'outcome')} added, "
            f"{_counted(self.duplicates, 'duplicate')}, "
            f"{self.rejected} rejected, {self.pending} pending"
            + (f", {_counted(self.undated_outcome_count, 'undated outcome')} in the database"
               if self.undated_outcome_count else "")
        )

    def add(self, tally: Tally) -> None:
        """Count what one transaction's lines became."""
        self.lines_read += tally.lines
        self.attempts_added += tally.attempts
        self.outcomes_added += tally.outcomes
        self.duplicates += tally.duplicates
        self.rejected += tally.rejected
        self.pending += tally.pending


def note_undated_outcomes(con: duckdb.DuckDBPyConnection, summary: IngestSummary) -> None:
    """Name in ``summary`` every outcome line the database holds undated (the first UNDATED_LISTED, then a count)."""
    rows = statement("undated_outcomes").records(con, limit=UNDATED_LISTED)
    summary.undated_outcomes = [
        f"{row['source']} line {row['line_no']}: an outcome line ingest cannot date (its ts is no time from "
        f"1970-01-01 to 2199-12-31 UTC), so the close of {_pull_request(row)} ({row['state'] or 'state unknown'}) "
        "is in no week: it counts as closed at an unknown time, judged in every range" for row in rows]
    total = rows[0]["total"] if rows else 0
    summary.undated_outcome_count = total
    if total > len(rows):
        summary.undated_outcomes.append(f"{total - len(rows)} more outcome lines cannot be dated")


def _pull_request(row: dict[str, Any]) -> str:
    if row["pr_repository"] is None or row["pr_number"] is None:
        return "a pull request the line does not name"
    return f"{row['pr_repository']}#{row['pr_number']}"


def record_run(con: duckdb.DuckDBPyConnection, summary: IngestSummary, started: datetime) -> None:
    """One ingest_runs row for a run that read something or failed to; a run
    that found nothing new writes nothing, so it costs almost nothing."""
    if not (summary.lines_read or summary.errors):
        return
    statement("record_run").run(
        con,
        started_at=started,
        finished_at=now(),
        files=summary.files,
        lines_read=summary.lines_read,
        attempts_added=summary.attempts_added,
        outcomes_added=summary.outcomes_added,
        duplicates=summary.duplicates,
        rejected=summary.rejected,
        pending=summary.pending,
    )


def now() -> datetime:
    """The time as the store keeps it: UTC, without a zone."""
    return datetime.now(UTC).replace(tzinfo=None)
