"""Storing lines: attempts, outcome lines, duplicates and rejected lines, and their counts.

Two ways in, with one set of rules (load.sql's attempt_rows; outcome lines go to
outcome_lines, by schema.sql's lane_outcome_rows):

- store_stream, the usual one: a whole transaction's pieces go through one
  INSERT that DuckDB runs on every core, writing its row groups straight to
  the file.  It stores every attempt, duplicates included, and remembers the
  few lines that may not be attempts (outcome lines among them).  When a
  duplicate was stored, or a line it did not remember was no attempt, it says
  so and the caller rolls back.
  Attempts that repeat stored ids are then stored by the same INSERT leaving
  stored ids out (a log of re-sent lines); anything else with store_lines.
- store_lines, the careful one: one piece at a time, duplicates left out
  before they are stored, every line's fate looked up.

Nothing here commits: the caller's transaction holds the rows and the new
read position.
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import duckdb
import pyarrow as pa

from lanelog.errors import StoreError
from lanelog.ingest.lines import LINES_SCHEMA, Lines, LongLine, arrow_table, bytes_array, int64_array, readable
from lanelog.ingest.outcome_lines import store_outcomes
from lanelog.ingest.statements import attempt_rows, statement
from lanelog.store import arrow_view, settings

# Verdicts of lines that are no attempt; "blank" lines are counted nowhere.
REJECTED = ("not_an_object", "invalid_json")
# The reason of a line too long to read as text (chunks.MAX_LINE_BYTES).
TOO_LONG = "too_long"


# What attempt_rows' fail_broken raises (load.sql): a line the INSERT leaving
# out stored ids could not parse though it was not unsure (lines.Lines.unsure),
# a line broken in its middle (or an outcome line the reader did not see as one,
# lines.Lines.outcomes).  Such a line fails the statement, which is how
# store_stream knows that every other line it left out is a duplicate.
BROKEN_LINE = "lanelog: a line broken in its middle"


@dataclass
class Tally:
    """What the non-blank lines of a run became (provisional lines included): each line
    ends in exactly one of attempts, outcomes, duplicates, rejected or pending."""

    lines: int = 0
    attempts: int = 0
    duplicates: int = 0
    rejected: int = 0
    pending: int = 0
    outcomes: int = 0

    def add(self, other: Tally) -> None:
        """Count another run's lines in with these."""
        self.lines += other.lines
        self.attempts += other.attempts
        self.duplicates += other.duplicates
        self.rejected += other.rejected
        self.pending += other.pending
        self.outcomes += other.outcomes


# The most lines that may not be attempts one statement keeps (with their bytes,
# in Python) before it hands its lines over to the careful way, which settles
# them a piece at a time: a log of 1M lines that are no JSON (a text log ingested
# by mistake) peaked at 970 MB when a group of them was kept whole.
MAX_KEPT_LINES = 16_384


class _KeptTooMany(Exception):
    """Raised inside the stream when it has kept MAX_KEPT_LINES lines."""


@dataclass
class _Unsure:
    """The lines of a stream that may not be attempts, kept while DuckDB reads it."""

    lines: int = 0  # physical lines, empty ones aside
    valid: int = 0  # lines that are valid UTF-8
    first_line: int | None = None
    kept: dict[int, tuple[int, bytes]] = field(default_factory=dict)  # line_no: (offset, bytes)
    invalid_utf8: list[int] = field(default_factory=list)
    too_long: list[LongLine] = field(default_factory=list)

    def take(self, lines: Lines) -> Iterator[pa.RecordBatch]:
        if self.first_line is None:
            self.first_line = lines.first_line_no
        self.lines += lines.counted
        self.valid += lines.valid
        self.invalid_utf8 += lines.invalid_utf8
        self.too_long += lines.too_long
        for line_no in [*lines.unsure, *lines.outcomes, *lines.invalid_utf8]:
            self.kept[line_no] = (lines.offset(line_no), lines.raw(line_no))
        return iter(lines.table.to_batches())


class Handover(enum.Enum):
    """Why store_stream could not settle its lines; the caller rolls the transaction back."""

    STORED_IDS = "attempts repeat stored ids, and nothing else is in the way: store them leaving those out"
    CAREFUL = ("a line broken in its middle, an id repeated within the run or held by a provisional line, "
               "or more lines that may be no attempt than one statement keeps")
    # Lines whose parsed parts (usage entries by the hundred on every line) outgrew the memory
    # ingest holds DuckDB to when every core parsed its share at once: the careful way stores
    # them a piece at a time, on one core.
    MEMORY = "the statement ran out of the memory ingest holds DuckDB to"



def store_stream(
    con: duckdb.DuckDBPyConnection, source_id: int, runs: Iterable[Lines], *, leave_out_stored: bool = False
) -> Tally | Handover:
    """Store runs of complete lines with one INSERT, or say why they must be stored another way.

    With `leave_out_stored`, for a log of re-sent lines, the INSERT leaves out
    the attempts whose attempt_id is stored: they are never written, so
    re-sent lines cost about what new ones do.  Without it, an attempt that
    repeats a stored id is stored, then found: Handover.STORED_IDS.  Ids
    repeated within the run, shared with a provisional line of another log,
    and lines broken in their middle (BROKEN_LINE) need the careful way.

    `runs` is read while DuckDB runs the INSERT; an exception it raises is
    raised here.  On a Handover the transaction holds rows that must not stay
    (or is rolled back already): the caller rolls it back.
    """
    unsure = _Unsure()
    stored = _insert_runs(con, source_id, runs, unsure, leave_out_stored=leave_out_stored)
    if isinstance(stored, Handover):
        return stored
    if unsure.first_line is None:
        return Tally()
    missing: list[int] = []
    unkept = 0
    if stored < unsure.valid:
        invalid = set(unsure.invalid_utf8)
        candidates = [n for n in unsure.kept if n not in invalid]
        found = {row[0] for row in statement("stored_among").rows(con, source_id=source_id, line_nos=candidates)}
        missing = [n for n in candidates if n not in found]
        unkept = unsure.valid - stored - len(missing)
        if unkept and not leave_out_stored:
            return Handover.CAREFUL  # a line broken in its middle, which no one kept
    # (leaving stored ids out, no line was broken in its middle: each line not kept is an attempt left out)
    if stored:
        handover = duplicates_handover(con, source_id, source_id, unsure.first_line, leave_out_stored=leave_out_stored)
        if handover is not None:
            return handover
    return _settle(
        con,
        source_id,
        lines=unsure.lines,
        stored=stored,
        duplicates=unkept,
        missing={n: unsure.kept[n] for n in missing},
        invalid_utf8={n: unsure.kept[n] for n in unsure.invalid_utf8},
        too_long=unsure.too_long,
        provisional=False,
    )


def _insert_runs(con: duckdb.DuckDBPyConnection, source_id: int, runs: Iterable[Lines], unsure: _Unsure, *,
                 leave_out_stored: bool) -> int | Handover:
    """One INSERT of the runs' lines, read while it runs (what is unsure kept in `unsure`): the
    attempts it stored, or why the lines must be stored another way."""
    failure: list[BaseException] = []

    def batches() -> Iterator[pa.RecordBatch]:
        try:
            for lines in runs:
                yield from unsure.take(lines)
                if len(unsure.kept) > MAX_KEPT_LINES:
                    raise _KeptTooMany
        except GeneratorExit:  # DuckDB stopped reading: the statement failed
            raise
        except BaseException as exc:
            failure.append(exc)
            raise

    insert = "insert_new_attempts" if leave_out_stored else "insert_attempts"
    stored = 0
    with arrow_view(con, "lane_lines", pa.RecordBatchReader.from_batches(LINES_SCHEMA, batches())):
        try:
            attempt_rows(con)
            with settings(con, STREAM):
                stored = statement(insert).rows(con, source_id=source_id, provisional=False)[0][0]
        except (StoreError, pa.ArrowException) as exc:
            if not failure:  # (else the stream's own exception, below)
                if leave_out_stored and BROKEN_LINE in str(exc):
                    return Handover.CAREFUL
                if isinstance(exc.__cause__, duckdb.OutOfMemoryException):
                    return Handover.MEMORY
                raise
    if failure:
        if isinstance(failure[0], _KeptTooMany):
            return Handover.CAREFUL
        raise failure[0]
    return stored


def duplicates_handover(
    con: duckdb.DuckDBPyConnection, first_source: int, last_source: int, first_line: int, *, leave_out_stored: bool
) -> Handover | None:
    """After a run's INSERT (the rows of sources first_source to last_source from
    first_line on): None when no stored attempt repeats an attempt_id of the run;
    STORED_IDS when only ids stored before are repeated and leaving them out
    will settle it; CAREFUL otherwise."""
    rows = {"first_source": first_source, "last_source": last_source, "first_line": first_line}
    if not statement("has_duplicates").rows(con, **rows)[0][0]:
        return None
    if leave_out_stored or statement("repeats_own").rows(con, **rows)[0][0]:
        return Handover.CAREFUL
    return Handover.STORED_IDS


def store_lines(
    con: duckdb.DuckDBPyConnection, source_id: int, lines: Lines, *, provisional: bool
) -> Tally:
    """Store a run of lines the careful way and say what each became.

    The attempts are staged in a temporary table, and only those that are no
    duplicate are stored.  A provisional line (the last one, with no newline
    yet) that is not a JSON object is pending instead of rejected: a writer
    may be mid-line.
    """
    stored = staged = 0
    unstaged: list[int] = []
    if lines.valid:
        try:
            with arrow_view(con, "lane_lines", lines.table):
                attempt_rows(con)
                with settings(con, PARSE_ONCE):
                    statement("stage_attempts").run(con, source_id=source_id, provisional=provisional)
                if not provisional:
                    statement("displace_provisional").run(con, source_id=source_id)
                stored = statement("insert_staged").rows(con)[0][0]
                unstaged = [row[0] for row in statement("unstaged").rows(con)]
        finally:
            statement("drop_staged").run(con)
        staged = lines.valid - len(unstaged)
    return _settle(
        con,
        source_id,
        lines=lines.counted,
        stored=stored,
        duplicates=staged - stored,
        missing={n: (lines.offset(n), lines.raw(n)) for n in unstaged},
        invalid_utf8={n: (lines.offset(n), lines.raw(n)) for n in lines.invalid_utf8},
        too_long=lines.too_long,
        provisional=provisional,
    )


def _settle(
    con: duckdb.DuckDBPyConnection,
    source_id: int,
    *,
    lines: int,
    stored: int,
    duplicates: int,
    missing: dict[int, tuple[int, bytes]],
    invalid_utf8: dict[int, tuple[int, bytes]],
    too_long: list[LongLine],
    provisional: bool,
) -> Tally:
    """Say what the lines that are no stored attempt are, store the outcome lines among
    them (outcome_lines) and the rejected ones (unless provisional: then they are
    pending), and count it all.  Of a line too long to read, its first bytes are stored."""
    found = store_outcomes(con, [(source_id, n, offset, raw) for n, (offset, raw) in missing.items()],
                           provisional=provisional)
    missing = {n: kept for n, kept in missing.items() if n not in found.of(source_id)}
    verdicts = _verdicts(con, missing)
    told = Counter(verdicts.values())
    rows = sorted([(n, verdict) for n, verdict in verdicts.items() if verdict in REJECTED]
                  + [(n, "invalid_utf8") for n in invalid_utf8] + [(line.line_no, TOO_LONG) for line in too_long])
    if rows and not provisional:
        texts = {n: (offset, raw, readable(raw)) for n, (offset, raw) in {**missing, **invalid_utf8}.items()}
        texts.update({line.line_no: (line.offset, line.head, line.text()) for line in too_long})
        with arrow_view(con, "lane_rejected", _rejected_rows([(n, *texts[n], reason) for n, reason in rows])):
            statement("insert_rejected").run(con, source_id=source_id)
    tally = Tally(lines=lines - told["blank"], attempts=stored, outcomes=found.stored[source_id],
                  duplicates=duplicates + told["duplicate"] + found.duplicates(source_id))
    if provisional:
        tally.pending = len(rows)
    else:
        tally.rejected = len(rows)
    return tally


def _verdicts(con: duckdb.DuckDBPyConnection, missing: dict[int, tuple[int, bytes]]) -> dict[int, str]:
    """line_no: verdict of the valid UTF-8 lines that are no stored attempt."""
    if not missing:
        return {}
    line_nos = sorted(missing)
    table = arrow_table(
        line_no=int64_array(line_nos),
        line=bytes_array([missing[n][1] for n in line_nos], pa.large_string()),
    )
    with arrow_view(con, "lane_missing", table):
        return dict(statement("verdicts").rows(con))


def _rejected_rows(rows: list[tuple[int, int, bytes, str, str]]) -> pa.Table:
    """rejected_lines rows (without source_id) from (line_no, offset, bytes, text, reason)."""
    return arrow_table(
        line_no=int64_array([row[0] for row in rows]),
        byte_offset=int64_array([row[1] for row in rows]),
        raw=bytes_array([row[2] for row in rows], pa.large_binary()),
        text=bytes_array([row[3].encode() for row in rows], pa.large_string()),
        reason=bytes_array([row[4].encode() for row in rows], pa.large_string()),
    )


# The settings attempt_rows runs under: filter pushdown off (see load.sql).
PARSE_ONCE = {"disabled_optimizers": "filter_pushdown"}
# And for the stream: rows stored in any order (each has its line_no), so
# that each core writes the row groups it fills; and the join that leaves
# stored ids out (insert_new_attempts) builds its hash table on the stored ids,
# as written.  DuckDB takes an Arrow stream for one row and would build it on
# the stream: every parsed row of the transaction, raw text and all, held in
# the join and spilled (1M re-sent router lines: 4.1 s, now 2.5 s).
STREAM = {"disabled_optimizers": PARSE_ONCE["disabled_optimizers"] + ",build_side_probe_side",
          "preserve_insertion_order": False}
