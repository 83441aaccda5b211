"""Logs as a hostile or careless writer leaves them, through the real `lanelog ingest`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import duckdb

from lanelog.ingest.chunks import CHUNK_BYTES
from tests.ingest.support import line


def ingest_cli(db: Path, *paths: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lanelog", "ingest", "--db", str(db), "--json", *map(str, paths)],
        capture_output=True, text=True, timeout=timeout,
    )


def summary(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert "Traceback" not in done.stderr, done.stderr
    return json.loads(done.stdout)


def stored_ids(db: Path) -> tuple[list[str], int]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        ids = [row[0] for row in con.execute("SELECT attempt_id FROM attempts ORDER BY line_no").fetchall()]
        rejected = con.execute("SELECT count(*) FROM rejected_lines").fetchone()[0]
    finally:
        con.close()
    return ids, rejected


def test_an_unfinished_last_line_across_the_read_boundary_is_one_attempt(tmp_path: Path) -> None:
    pad = "x" * 600
    body = bytearray()
    count = 0
    while len(body) < CHUNK_BYTES - 300:
        body += line(attempt_id=f"a{count}", ts="2026-10-05T10:00:00Z", probe="pass", pad=pad)
        count += 1
    last = line(attempt_id="last", ts="2026-10-05T10:00:00Z", probe="pass", pad="y" * 2000)
    log, db = tmp_path / "lane-log.jsonl", tmp_path / "t.duckdb"
    half = len(last) // 2
    assert len(body) < CHUNK_BYTES < len(body) + half  # the unfinished line crosses the boundary
    log.write_bytes(bytes(body) + last[:half])

    first = ingest_cli(db, log)
    assert first.returncode == 0, first.stderr
    assert summary(first) | {"files": 1} == {
        "files": 1, "lines_read": count + 1, "attempts_added": count, "duplicates": 0, "rejected": 0, "pending": 1,
    }

    with log.open("ab") as handle:
        handle.write(last[half:])
    second = ingest_cli(db, log)
    assert second.returncode == 0, second.stderr
    assert summary(second)["attempts_added"] == 1
    ids, rejected = stored_ids(db)
    assert ids == [f"a{i}" for i in range(count)] + ["last"]
    assert rejected == 0


def test_special_files_in_a_folder_are_named_and_the_rest_ingested(tmp_path: Path) -> None:
    logs, db = tmp_path / "logs", tmp_path / "t.duckdb"
    logs.mkdir()
    (logs / "a.jsonl").write_bytes(line(attempt_id="a1", probe="pass") + line(attempt_id="a2", probe="pass"))
    (logs / "z.jsonl").write_bytes(line(attempt_id="z1", probe="reject"))
    os.mkfifo(logs / "fifo.jsonl")  # no writer: opening it for reading the usual way blocks for ever
    (logs / "zero.jsonl").symlink_to("/dev/zero")
    (logs / "null.jsonl.gz").symlink_to("/dev/null")

    done = ingest_cli(db, logs, timeout=60)
    assert done.returncode == 2
    assert summary(done)["attempts_added"] == 3
    assert done.stderr.startswith("Error: 3 files could not be read:\n")
    assert f"  {logs / 'fifo.jsonl'}: not a regular file (a FIFO); only regular files are read\n" in done.stderr
    assert f"{logs / 'zero.jsonl'}: not a regular file (a character device)" in done.stderr
    assert f"{logs / 'null.jsonl.gz'}: not a regular file (a character device)" in done.stderr
    assert sorted(stored_ids(db)[0]) == ["a1", "a2", "z1"]


def test_a_fifo_named_on_its_own_is_refused_at_once(tmp_path: Path) -> None:
    fifo, db = tmp_path / "lane-log.jsonl", tmp_path / "t.duckdb"
    os.mkfifo(fifo)
    done = ingest_cli(db, fifo, timeout=60)
    assert done.returncode == 2
    assert f"{fifo}: not a regular file (a FIFO)" in done.stderr
