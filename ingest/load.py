"""Storing one run of lines: stage (parse and type), then store and count the outcomes.

The SQL lives in load.sql under `-- name:` headers.  Staging writes nothing,
so it can run on a second connection while the previous run commits;
storing runs inside the caller's transaction, which also moves the read
position.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

import duckdb
import pyarrow as pa
import pyarrow.compute as pc

from ingest.lines import Lines, lenient_suspects, readable

_NAME = re.compile(r"^-- name: (\w+)\s*$", re.MULTILINE)
_STAGED_BATCH_ROWS = 16384  # DuckDB scans Arrow batches in parallel, one batch per task

_REJECTED_SCHEMA = pa.schema(
    [
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


@dataclass
class Staged:
    """A run of lines parsed and typed, not yet stored: it holds no reference to the read buffer."""

    lines: int  # physical lines, blank ones included
    blank: int
    objects: int  # JSON object lines: each an attempt or a duplicate
    table: pa.Table | None  # the stage result; object lines have a NULL verdict
    not_objects: pa.Table  # the lines that are not objects, as rejected_lines rows

    @classmethod
    def nothing(cls) -> Staged:
        """No lines at all (an empty provisional last line)."""
        return cls(0, 0, 0, None, _REJECTED_SCHEMA.empty_table())


def stage_lines(cursor: duckdb.DuckDBPyConnection, lines: Lines) -> Staged:
    """Parse and type every line of a run (DuckDB does the parsing, in bulk)."""
    table = None
    verdicts: list[tuple[int, str]] = []
    if lines.table.num_rows:
        cursor.register("lane_chunk", lines.table)
        try:
            relation = cursor.sql(statements()["stage"], params={"suspects": lenient_suspects(lines)})
            table = relation.to_arrow_table(_STAGED_BATCH_ROWS)
        finally:
            cursor.unregister("lane_chunk")
        flagged = table.filter(pc.is_valid(table["verdict"])).select(["line_no", "verdict"])
        verdicts = list(zip(flagged["line_no"].to_pylist(), flagged["verdict"].to_pylist()))
    blank = sum(1 for _line_no, verdict in verdicts if verdict == "blank")
    rows = [(n, verdict) for n, verdict in verdicts if verdict != "blank"]
    rows += [(line_no, "invalid_utf8") for line_no in lines.invalid_utf8]
    return Staged(
        lines=lines.count,
        blank=blank,
        objects=(table.num_rows if table is not None else 0) - len(verdicts),
        table=table,
        not_objects=_rejected_rows(lines, sorted(rows)),
    )


def store_staged(
    con: duckdb.DuckDBPyConnection, source_id: int, staged: Staged, *, provisional: bool
) -> Outcome:
    """Store a staged run in the caller's transaction: attempts, duplicates, rejected lines.

    A provisional line (the last one, with no newline yet) that is not a JSON
    object is pending instead of rejected: a writer may be mid-line.
    """
    added = 0
    if staged.objects:
        con.register("lane_staged", staged.table)
        try:
            params = {"source_id": source_id, "provisional": provisional}
            added = run(con, "insert_attempts", params)[0][0]
        finally:
            con.unregister("lane_staged")
    not_objects = staged.not_objects.num_rows
    if not_objects and not provisional:
        con.register("lane_rejected", staged.not_objects)
        try:
            run(con, "insert_rejected", {"source_id": source_id})
        finally:
            con.unregister("lane_rejected")
    outcome = Outcome(
        lines=staged.lines - staged.blank,
        attempts=added,
        duplicates=staged.objects - added,
    )
    if provisional:
        outcome.pending = not_objects
    else:
        outcome.rejected = not_objects
    return outcome


def _rejected_rows(lines: Lines, rows: list[tuple[int, str]]) -> pa.Table:
    """rejected_lines rows (without source_id) for the lines that are not JSON objects."""
    raws = [lines.raw(line_no) for line_no, _reason in rows]
    return pa.table(
        [
            pa.array([line_no for line_no, _reason in rows], pa.int64()),
            pa.array([lines.offset(line_no) for line_no, _reason in rows], pa.int64()),
            pa.array(raws, pa.binary()),
            pa.array([readable(raw) for raw in raws], pa.large_string()),
            pa.array([reason for _line_no, reason in rows], pa.string()),
        ],
        schema=_REJECTED_SCHEMA,
    )
