"""Helpers for the ingest tests: lane-log lines and readable views of what was stored."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb
import pytest

from lanelog import ingest, lane_line
from lanelog.ingest import chunks

# Another process holding the database: argv = path, seconds, rw|ro.
HOLDER = """
import sys, time, duckdb
con = duckdb.connect(sys.argv[1], read_only=sys.argv[3] == "ro")
print("held", flush=True)
time.sleep(float(sys.argv[2]))
print("releasing", flush=True)
con.close()
"""


@contextmanager
def longest_line(limit: int | None) -> Iterator[None]:
    """Ingest's reader, and the rule of what a line is (lanelog/lane_line.py), holding no line
    longer than `limit` bytes (None: the real limit)."""
    with pytest.MonkeyPatch.context() as patch:
        if limit is not None:
            patch.setattr(chunks, "CHUNK_BYTES", limit)
            patch.setattr(chunks, "MAX_LINE_BYTES", limit)
            patch.setattr(lane_line, "MAX_LINE_BYTES", limit)
        yield


def ingest_cli(db: Path, *paths: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """The real `lanelog ingest --format json` in a process of its own."""
    return subprocess.run(
        [sys.executable, "-m", "lanelog", "ingest", "--db", str(db), "--format", "json", *map(str, paths)],
        capture_output=True, text=True, timeout=timeout,
    )


def line(**fields: Any) -> bytes:
    """One lane-log line (with its newline) from keyword fields."""
    return json.dumps(fields).encode() + b"\n"


def attempts(con: duckdb.DuckDBPyConnection, columns: str = "line_no, raw") -> list[tuple]:
    """Stored attempts, in file order."""
    return con.execute(
        f"SELECT {columns} FROM attempts ORDER BY source_id, line_no"
    ).fetchall()


def rejected(con: duckdb.DuckDBPyConnection) -> list[tuple]:
    """Stored rejected lines as (line_no, byte_offset, raw, text, reason)."""
    return con.execute(
        "SELECT line_no, byte_offset, raw, text, reason FROM rejected_lines "
        "ORDER BY source_id, line_no"
    ).fetchall()


def outcome(**fields: Any) -> bytes:
    """One outcome line (with its newline), as `lanelog outcome` writes it, from keyword fields."""
    return json.dumps({"schema": 1, "kind": "outcome", "producer": "lanelog-outcome", **fields}).encode() + b"\n"


def outcomes(con: duckdb.DuckDBPyConnection, columns: str = "line_no, outcome_id") -> list[tuple]:
    """Stored outcome lines, in file order."""
    return con.execute(f"SELECT {columns} FROM outcomes ORDER BY source_id, line_no").fetchall()


def stored(con: duckdb.DuckDBPyConnection) -> tuple[list[tuple], list[tuple], list[tuple]]:
    """Everything ingest stored about the lines (attempts, rejected lines, outcome lines),
    without run-dependent timestamps."""
    rows = con.execute(
        "SELECT * EXCLUDE (source_id) FROM attempts ORDER BY source_id, line_no"
    ).fetchall()
    return rows, rejected(con), outcomes(con, "* EXCLUDE (source_id)")


def counts(summary: ingest.IngestSummary) -> tuple[int, int, int, int, int]:
    """(lines_read, attempts_added, duplicates, rejected, pending)."""
    return (
        summary.lines_read,
        summary.attempts_added,
        summary.duplicates,
        summary.rejected,
        summary.pending,
    )


def kill_after(script: str, db: Path, source: Path, marker: str, count: int) -> None:
    """Run an ingest `script` (argv: db, source) and kill -9 it after `count` `marker` lines.

    The script prints "opened" once it holds the database, then `marker` for each
    committed transaction; the kill lands while the run goes on.
    """
    child = subprocess.Popen([sys.executable, "-c", script, str(db), str(source)],
                             stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    assert child.stdout.readline() == "opened\n"
    for _ in range(count):
        assert child.stdout.readline() == f"{marker}\n"
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    assert child.returncode == -signal.SIGKILL
