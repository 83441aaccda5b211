"""Logs as a hostile or careless writer leaves them, through the real `lanelog ingest`."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import duckdb
import pytest

import lanelog.ingest.batch
import lanelog.ingest.chunks
import lanelog.ingest.lines
from lanelog import ingest, store
from lanelog.ingest.chunks import CHUNK_BYTES
from lanelog.ingest.logfile import LogStream
from tests.ingest.support import ingest_cli, line


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
        "files": 1, "lines_read": count + 1, "attempts_added": count, "outcomes_added": 0, "duplicates": 0,
        "rejected": 0, "pending": 1, "undated_outcomes": 0,
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


def test_a_log_rewritten_while_it_is_read_keeps_only_what_was_read_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Truncated and rewritten between two transactions of one run, as a careless rotation does."""
    old = b"".join(line(attempt_id=f"old{i}", probe="pass", pad="o" * 40) for i in range(400))
    new = b"".join(line(attempt_id=f"new{i}", probe="pass", pad="n" * 40) for i in range(300)) + b"[1]\n{not json\n"
    log, db_path = tmp_path / "lane-log.jsonl", tmp_path / "t.duckdb"
    log.write_bytes(old)
    monkeypatch.setattr(lanelog.ingest.chunks, "CHUNK_BYTES", 512)
    monkeypatch.setattr(lanelog.ingest.chunks, "ROW_GROUP_LINES", 5)
    # Read in many transactions, as a log too big for a batch of small logs is.
    monkeypatch.setattr(lanelog.ingest.batch, "SMALL_LOG_BYTES", 0)
    reads = 0
    real = LogStream.readinto_at

    def rewrite_after_three_reads(self: LogStream, offset: int, view: memoryview) -> int:
        nonlocal reads
        reads += 1
        if reads == 40:  # the head, then pieces: several transactions are committed by now
            log.write_bytes(new)
        return real(self, offset, view)

    monkeypatch.setattr(LogStream, "readinto_at", rewrite_after_three_reads)
    con = store.open_db(db_path)
    try:
        first = ingest.ingest_paths(con, [log])
        assert len(first.errors) == 1 and first.errors[0].startswith(f"{log}: changed while it was read")
        monkeypatch.setattr(LogStream, "readinto_at", real)
        kept = [row[0] for row in con.execute("SELECT attempt_id FROM attempts ORDER BY line_no").fetchall()]
        assert kept and all(attempt_id.startswith("old") for attempt_id in kept)
        assert kept == [f"old{i}" for i in range(len(kept))]
        assert con.execute("SELECT count(*) FROM rejected_lines").fetchone()[0] == 0

        second = ingest.ingest_paths(con, [log])
        assert second.errors == []
        third = ingest.ingest_paths(con, [log])
        assert (third.lines_read, third.rejected) == (0, 0)
        rows = con.execute("SELECT attempt_id FROM attempts WHERE attempt_id LIKE 'new%'").fetchall()
        assert len(rows) == 300
        assert con.execute("SELECT count(*) FROM rejected_lines").fetchone()[0] == 2
    finally:
        con.close()


def test_a_log_cut_short_while_its_group_is_read_again_is_named_and_the_run_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A group stored again (it repeats an attempt_id) is cut short under the
    second read: the error is the log's, nothing of that group stays, the next
    log is stored, and the connection's settings are put back."""
    text = b"".join(line(attempt_id=f"c{i % 300}", probe="pass", pad="c" * 40) for i in range(400))
    log, other, db_path = tmp_path / "cut.jsonl", tmp_path / "other.jsonl", tmp_path / "t.duckdb"
    log.write_bytes(text)
    other.write_bytes(line(attempt_id="o1", probe="pass"))
    monkeypatch.setattr(lanelog.ingest.chunks, "CHUNK_BYTES", 1024)
    monkeypatch.setattr(lanelog.ingest.batch, "SMALL_LOG_BYTES", 0)
    furthest = 0
    real = LogStream.readinto_at

    def cut_when_read_again(self: LogStream, offset: int, view: memoryview) -> int:
        nonlocal furthest
        if self.name == str(log):
            if offset < furthest and log.stat().st_size == len(text):
                with log.open("r+b") as file:
                    file.truncate(10)  # in the middle of its first line
            furthest = max(furthest, offset)
        return real(self, offset, view)

    monkeypatch.setattr(LogStream, "readinto_at", cut_when_read_again)
    con = store.open_db(db_path)
    try:
        before = con.execute("SELECT current_setting('preserve_insertion_order'), "
                             "current_setting('disabled_optimizers')").fetchall()
        done = ingest.ingest_paths(con, [log, other])
        assert log.stat().st_size < len(text)
        assert len(done.errors) == 1, done.errors
        assert done.errors[0].startswith(f"{log}: changed while it was read"), done.errors
        assert con.execute("SELECT current_setting('preserve_insertion_order'), "
                           "current_setting('disabled_optimizers')").fetchall() == before
        assert [row[0] for row in con.execute("SELECT attempt_id FROM attempts").fetchall()] == ["o1"]
        assert con.execute("SELECT count(*) FROM sources WHERE path = ?", [str(log)]).fetchone()[0] == 0
    finally:
        con.close()


@pytest.mark.parametrize("ending", [b'oops\n', b'\n', b'{"attempt_id": "Y"}\n'])
def test_an_attempt_is_never_lost_to_another_logs_provisional_line(tmp_path: Path, ending: bytes) -> None:
    """A complete line whose id another log holds only provisionally is the attempt."""
    writing, shipped, db = tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "t.duckdb"
    writing.write_bytes(line(attempt_id="a1", probe="pass") + b'{"attempt_id": "X", "probe": "pass"}')
    shipped.write_bytes(line(attempt_id="X", probe="reject") + line(attempt_id="b2", probe="pass"))
    assert summary(ingest_cli(db, writing))["attempts_added"] == 2  # the provisional line: an attempt for now
    second = summary(ingest_cli(db, shipped))
    assert (second["attempts_added"], second["duplicates"]) == (2, 0)

    with writing.open("ab") as handle:  # the writer finishes its last line as something else
        handle.write(ending)
    summary(ingest_cli(db, writing))
    con = duckdb.connect(str(db), read_only=True)
    try:
        xs = con.execute("SELECT raw FROM attempts WHERE attempt_id = 'X'").fetchall()
        provisional = con.execute("SELECT count(*) FROM attempts WHERE provisional").fetchone()[0]
    finally:
        con.close()
    assert len(xs) == 1 and json.loads(xs[0][0])["probe"] == "reject"  # the first complete line
    assert provisional == 0


def _padded(attempt_id: str, size: int) -> bytes:
    """A JSON object line of exactly `size` bytes, its newline included."""
    start, end = b'{"attempt_id": "' + attempt_id.encode() + b'", "pad": "', b'"}\n'
    return start + b"p" * (size - len(start) - len(end)) + end


@pytest.mark.parametrize("name", ["lane-log.jsonl", "lane-log.jsonl.gz"])
def test_a_line_longer_than_the_reader_holds_is_rejected_as_too_long_and_the_log_goes_on(
    tmp_path: Path, name: str
) -> None:
    """A 60 MB line failed its whole log, on every run: DuckDB's parse of it needed
    more than the run's memory share.  Past the limit a line is read past, not held."""
    limit = lanelog.ingest.chunks.MAX_LINE_BYTES
    first = line(attempt_id="a1", probe="pass")
    fits, over = _padded("fits", limit), _padded("over", limit + 1)
    data = first + over + fits + b"\xff\n" + line(attempt_id="a5", probe="pass")
    log, db = tmp_path / name, tmp_path / "t.duckdb"
    if name.endswith(".gz"):
        log.write_bytes(gzip.compress(data, compresslevel=1))
    else:
        log.write_bytes(data)

    done = ingest_cli(db, log)
    assert done.returncode == 0, done.stderr
    assert summary(done) == {"files": 1, "lines_read": 5, "attempts_added": 3, "duplicates": 0,
                             "outcomes_added": 0, "rejected": 2, "pending": 0,
                             "undated_outcomes": 0}
    again = ingest_cli(db, log)
    assert summary(again)["lines_read"] == 0
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.execute("SELECT line_no, attempt_id, octet_length(CAST(raw AS BLOB)) FROM attempts "
                           "ORDER BY line_no").fetchall() == [(1, "a1", len(first) - 1), (3, "fits", limit - 1),
                                                             (5, "a5", len(first) - 1)]
        rows = con.execute("SELECT line_no, byte_offset, raw, text, reason FROM rejected_lines "
                           "ORDER BY line_no").fetchall()
        assert [(row[0], row[1], row[4]) for row in rows] == [
            (2, len(first), "too_long"), (4, len(first) + len(over) + len(fits), "invalid_utf8")]
        kept = over[: lanelog.ingest.lines.LONG_LINE_HEAD]
        assert rows[0][2] == kept
        assert rows[0][3] == f"{kept.decode()} [... {limit + 1:,} bytes in all]"
        assert con.execute("SELECT bytes_read, bytes_seen, lines_read FROM sources").fetchall() == [
            (len(data), len(data), 5)]
    finally:
        con.close()


def test_an_unfinished_line_too_long_to_hold_is_pending_until_it_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Still being written, it is not held either: pending on every run that reads
    past it, nothing stored, until its newline comes and it is rejected."""
    monkeypatch.setattr(lanelog.ingest.chunks, "CHUNK_BYTES", 64)
    monkeypatch.setattr(lanelog.ingest.chunks, "MAX_LINE_BYTES", 64)
    monkeypatch.setattr(lanelog.ingest.batch, "SMALL_LOG_BYTES", 0)
    first = line(attempt_id="a1")
    growing = b'{"attempt_id": "long", "pad": "' + b"q" * 100
    log = tmp_path / "lane-log.jsonl"
    log.write_bytes(first + growing)
    con = store.open_db(tmp_path / "t.duckdb")
    try:
        runs = [ingest.ingest_paths(con, [log]) for _ in range(2)]
        assert [(run.lines_read, run.attempts_added, run.rejected, run.pending) for run in runs] == [
            (2, 1, 0, 1), (1, 0, 0, 1)]
        assert con.execute("SELECT bytes_read, bytes_seen FROM sources").fetchall() == [(len(first), len(first))]
        assert con.execute("SELECT count(*) FROM rejected_lines").fetchone()[0] == 0

        with log.open("ab") as file:
            file.write(b'"}\n' + line(attempt_id="a3"))
        done = ingest.ingest_paths(con, [log])
        assert (done.lines_read, done.attempts_added, done.rejected, done.pending) == (2, 1, 1, 0)
        assert con.execute("SELECT line_no, reason, byte_offset FROM rejected_lines").fetchall() == [
            (2, "too_long", len(first))]
        assert [row[0] for row in con.execute("SELECT attempt_id FROM attempts ORDER BY line_no").fetchall()] == [
            "a1", "a3"]
    finally:
        con.close()


def test_file_names_that_are_not_utf8_or_hold_control_characters_are_read_and_shown_escaped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Such a name failed `lanelog ingest` over its folder with a traceback (its
    undecodable byte reached Arrow as a surrogate), and an escape sequence in a
    name went to the terminal as it was."""
    folder = tmp_path / "logs"
    folder.mkdir()
    name = b"lane\xff\n\x1b[31m.jsonl"
    with open(os.path.join(os.fsencode(folder), name), "wb") as file:
        file.write(line(attempt_id="n1", probe="pass"))
    shown_name = f"{folder}/lane\\xff\\x0a\\x1b[31m.jsonl"
    db = tmp_path / "t.duckdb"

    done = ingest_cli(db, folder, folder / "gone\x1b[2J.jsonl")
    assert done.returncode == 2
    assert summary(done)["attempts_added"] == 1
    assert "\x1b" not in done.stderr and f"{folder}/gone\\x1b[2J.jsonl: no such file or folder" in done.stderr
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.execute("SELECT path FROM sources").fetchall() == [(shown_name,)]
    finally:
        con.close()
    assert summary(ingest_cli(db, folder))["lines_read"] == 0  # known again, by content

    # The same through the one-log way (a log too big for a batch), and an upload's name.
    monkeypatch.setattr(lanelog.ingest.batch, "SMALL_LOG_BYTES", 0)
    con = store.open_memory()
    try:
        assert ingest.ingest_paths(con, [folder]).attempts_added == 1
        uploaded = ingest.ingest_bytes(con, "up\ud800\x07.jsonl", line(attempt_id="u1"))
        assert (uploaded.attempts_added, uploaded.errors) == (1, [])
        assert con.execute("SELECT path FROM sources ORDER BY source_id").fetchall() == [
            (shown_name,), ("up\\ud800\\x07.jsonl",)]
    finally:
        con.close()
