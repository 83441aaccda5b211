"""Storing one run of lines: attempts, duplicates and rejected lines, and their counts.

The SQL lives in load.sql under `-- name:` headers.  Nothing here commits:
the caller's transaction holds the rows and the new read position.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

import duckdb
import pyarrow as pa

from ingest.lines import Lines, arrow_table, bytes_array, int64_array, lenient_suspects, readable

_NAME = re.compile(r"^-- name: (\w+)\s*$", re.MULTILINE)


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


def store_lines(
    con: duckdb.DuckDBPyConnection, source_id: int, lines: Lines, *, provisional: bool
) -> Outcome:
    """Store a run of lines in the caller's transaction and say what each became.

    DuckDB parses every line once, in bulk, and stores the JSON objects;
    only the lines it did not store (usually none) are looked at again.  A
    provisional line (the last one, with no newline yet) that is not a JSON
    object is pending instead of rejected: a writer may be mid-line.
    """
    stored = duplicates = 0
    verdicts: list[tuple[int, str]] = []
    if lines.table.num_rows:
        where = {"source_id": source_id, "first_line": lines.first_line_no}
        con.register("lane_chunk", lines.table)
        try:
            params = {
                "source_id": source_id,
                "provisional": provisional,
                "suspects": lenient_suspects(lines),
            }
            stored = run(con, "insert_attempts", params)[0][0]
            if stored < lines.table.num_rows:
                verdicts = run(con, "verdicts", where)
            if stored:
                duplicates = run(con, "delete_duplicates", where)[0][0]
        finally:
            con.unregister("lane_chunk")
    blank = sum(1 for _line_no, verdict in verdicts if verdict == "blank")
    rows = [(n, verdict) for n, verdict in verdicts if verdict != "blank"]
    rows += [(line_no, "invalid_utf8") for line_no in lines.invalid_utf8]
    if rows and not provisional:
        con.register("lane_rejected", _rejected_rows(lines, sorted(rows)))
        try:
            run(con, "insert_rejected", {"source_id": source_id})
        finally:
            con.unregister("lane_rejected")
    outcome = Outcome(lines=lines.count - blank, attempts=stored - duplicates, duplicates=duplicates)
    if provisional:
        outcome.pending = len(rows)
    else:
        outcome.rejected = len(rows)
    return outcome


def _rejected_rows(lines: Lines, rows: list[tuple[int, str]]) -> pa.Table:
    """rejected_lines rows (without source_id) for the lines that are not JSON objects."""
    raws = [lines.raw(line_no) for line_no, _reason in rows]
    return arrow_table(
        line_no=int64_array([line_no for line_no, _reason in rows]),
        byte_offset=int64_array([lines.offset(line_no) for line_no, _reason in rows]),
        raw=bytes_array(raws, pa.large_binary()),
        text=bytes_array([readable(raw).encode() for raw in raws], pa.large_string()),
        reason=bytes_array([reason.encode() for _line_no, reason in rows], pa.large_string()),
    )
