"""Storing one run of lines: classify, insert attempts and rejected lines, count outcomes.

The SQL lives in load.sql under `-- name:` headers.  Nothing here commits:
the caller wraps the rows and the new read position in one transaction.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

import duckdb
import pyarrow as pa

from ingest.lines import Lines, may_hold_lenient_json, readable

_NAME = re.compile(r"^-- name: (\w+)\s*$", re.MULTILINE)

_REJECTED_SCHEMA = pa.schema(
    [
        ("source_id", pa.int32()),
        ("line_no", pa.int64()),
        ("byte_offset", pa.int64()),
        ("raw", pa.binary()),
        ("text", pa.large_string()),
        ("reason", pa.string()),
    ]
)


@cache
def statements() -> dict[str, str]:
    """The named statements of load.sql."""
    text = resources.files("ingest").joinpath("load.sql").read_text(encoding="utf-8")
    parts = _NAME.split(text)
    return {name: body.strip() for name, body in zip(parts[1::2], parts[2::2])}


def run(con: duckdb.DuckDBPyConnection, name: str, params: dict[str, object] | None = None) -> list:
    """Execute one named statement and fetch its rows."""
    return con.execute(statements()[name], params or {}).fetchall()


@dataclass
class Outcome:
    """What the non-blank lines of a run became (provisional lines included)."""

    lines: int = 0
    attempts: int = 0
    duplicates: int = 0
    rejected: int = 0
    pending: int = 0

    def add(self, other: Outcome) -> None:
        self.lines += other.lines
        self.attempts += other.attempts
        self.duplicates += other.duplicates
        self.rejected += other.rejected
        self.pending += other.pending


def store_lines(
    con: duckdb.DuckDBPyConnection, source_id: int, lines: Lines, *, provisional: bool
) -> Outcome:
    """Store lines: attempts, duplicates, rejected lines.

    A provisional line (the last one, with no newline yet) that is not a JSON
    object is pending instead of rejected: a writer may be mid-line.
    """
    con.register("lane_chunk", lines.table)
    try:
        verdicts = []
        if lines.table.num_rows:
            strict = may_hold_lenient_json(lines.data)
            verdicts = run(con, "classify_strict" if strict else "classify")
        blank = sum(1 for _line_no, verdict in verdicts if verdict == "blank")
        not_attempts = [(line_no, verdict) for line_no, verdict in verdicts if verdict != "blank"]
        not_attempts += [(line_no, "invalid_utf8") for line_no in lines.invalid_utf8]
        skip = pa.table({"line_no": pa.array([n for n, _v in verdicts], pa.int64())})
        con.register("lane_skip", skip)
        candidates = lines.table.num_rows - len(verdicts)
        added = 0
        if candidates:
            added = run(
                con, "insert_attempts", {"source_id": source_id, "provisional": provisional}
            )[0][0]
        if not_attempts and not provisional:
            _insert_rejected(con, source_id, lines, not_attempts)
    finally:
        con.unregister("lane_chunk")
        con.unregister("lane_skip")
    outcome = Outcome(
        lines=lines.count - blank,
        attempts=added,
        duplicates=candidates - added,
    )
    if provisional:
        outcome.pending = len(not_attempts)
    else:
        outcome.rejected = len(not_attempts)
    return outcome


def _insert_rejected(
    con: duckdb.DuckDBPyConnection,
    source_id: int,
    lines: Lines,
    rows: list[tuple[int, str]],
) -> None:
    rows = sorted(rows)
    raws = [lines.raw(line_no) for line_no, _reason in rows]
    table = pa.table(
        [
            pa.array([source_id] * len(rows), pa.int32()),
            pa.array([line_no for line_no, _reason in rows], pa.int64()),
            pa.array(
                [lines.base_offset + int(lines.starts[n - lines.first_line_no]) for n, _r in rows],
                pa.int64(),
            ),
            pa.array(raws, pa.binary()),
            pa.array([readable(raw) for raw in raws], pa.large_string()),
            pa.array([reason for _line_no, reason in rows], pa.string()),
        ],
        schema=_REJECTED_SCHEMA,
    )
    con.register("lane_rejected", table)
    try:
        run(con, "insert_rejected")
    finally:
        con.unregister("lane_rejected")
