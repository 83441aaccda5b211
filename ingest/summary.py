"""What an ingest run did: its summary, the progress calls that show it, and its ingest_runs row."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

import duckdb

from lanelog.ingest.load import Tally
from lanelog.ingest.statements import statement

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
        }

    def line(self) -> str:
        """The one-line summary for people."""
        return (
            f"{_counted(self.files, 'file')}, {_counted(self.lines_read, 'line')} read: "
            f"{_counted(self.attempts_added, 'attempt')} added, {_counted(self.outcomes_added, 'outcome')} added, "
            f"{_counted(self.duplicates, 'duplicate')}, "
            f"{self.rejected} rejected, {self.pending} pending"
        )

    def add(self, tally: Tally) -> None:
        """Count what one transaction's lines became."""
        self.lines_read += tally.lines
        self.attempts_added += tally.attempts
        self.outcomes_added += tally.outcomes
        self.duplicates += tally.duplicates
        self.rejected += tally.rejected
        self.pending += tally.pending


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
