"""Outcome lines (`"kind": "outcome"`, written by `lanelog outcome`): stored in outcomes, never as attempts.

Every way lines are stored first stores the attempts (load.sql's lane_attempt_rows
leaves outcome lines out); the lines left over that may be outcome lines come here,
in the same transaction: those that are (schema.sql's lane_outcome_rows) are typed
and stored, all but the duplicates, and the caller settles what the others are.
A line whose non-empty string outcome_id is stored already (by any log, a complete
line or a provisional one), or is on an earlier line among these, is a duplicate:
counted, never stored.  A complete line takes the place of another log's
provisional line with its outcome_id (as an attempt does, load.sql's
displace_provisional): no verdict rests on a line still being written.  Outcome
lines are few (one per closed pull request), so they always go this careful way.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import duckdb
import pyarrow as pa

from lanelog.ingest.lines import arrow_table, bytes_array, int32_array, int64_array
from lanelog.ingest.statements import statement
from lanelog.store import arrow_view


@dataclass
class Outcomes:
    """Which of the lines given were outcome lines, and how many of each log's were stored."""

    lines: dict[int, set[int]] = field(default_factory=dict)  # source_id: line numbers of outcome lines
    stored: Counter[int] = field(default_factory=Counter)  # source_id: outcome lines stored (not duplicates)

    def of(self, source_id: int) -> set[int]:
        """The line numbers of the log's outcome lines, stored or duplicates."""
        return self.lines.get(source_id, set())

    def duplicates(self, source_id: int) -> int:
        """The log's outcome lines that were duplicates."""
        return len(self.of(source_id)) - self.stored[source_id]

    @property
    def count(self) -> int:
        """Outcome lines among those given, in every log."""
        return sum(len(line_nos) for line_nos in self.lines.values())


def may_be_outcome(line: bytes) -> bool:
    """Whether a line's text can hold a `kind` key at all: written as it is, or with escapes.
    Only such lines are asked of SQL (a line broken in its middle, say, never is)."""
    return b"kind" in line or b"\\u" in line


def store_outcomes(
    con: duckdb.DuckDBPyConnection, lines: list[tuple[int, int, int, bytes]], *, provisional: bool
) -> Outcomes:
    """Store the outcome lines among `lines` (source_id, line_no, byte offset, the line's text
    as valid UTF-8), duplicates left out, inside the caller's transaction; say which they were."""
    found = Outcomes()
    lines = [line for line in lines if may_be_outcome(line[3])]
    if not lines:
        return found
    table = arrow_table(
        source_id=int32_array([line[0] for line in lines]),
        line_no=int64_array([line[1] for line in lines]),
        byte_offset=int64_array([line[2] for line in lines]),
        line=bytes_array([line[3] for line in lines], pa.large_string()),
    )
    try:
        with arrow_view(con, "lane_outcome_lines", table):
            statement("stage_outcomes").run(con, provisional=provisional)
        if not provisional:
            statement("displace_provisional_outcomes").run(con)
        stored = statement("insert_staged_outcomes").rows(con)
        staged = statement("staged_outcomes").rows(con)
    finally:
        statement("drop_staged_outcomes").run(con)
    for source_id, line_no in staged:
        found.lines.setdefault(source_id, set()).add(line_no)
    found.stored.update(source_id for source_id, _line_no in stored)
    return found
