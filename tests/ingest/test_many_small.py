"""A folder of many small logs, as CI uploads them: one per job, a line or a few each.

Small new logs are stored in batches (ingest/batch.py); every test here compares
with the one-log way, which stores each log in transactions of its own.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import lanelog.ingest.batch
from lanelog import ingest, store
from lanelog.ingest import run as run_module
from lanelog.ingest import small_logs
from lanelog.ingest.small_logs import Batcher
from tests.ingest.support import counts, kill_after, line, stored


class _OneLogWay(Batcher):
    """The batcher that holds no log: every log goes the one-log way."""

    def take(self, log: object) -> bool:
        return False


def one_log_way(paths: list[Path], monkeypatch: pytest.MonkeyPatch):
    """What the one-log way stores for the same paths: (connection, summary)."""
    with monkeypatch.context() as patch:
        patch.setattr(run_module, "Batcher", _OneLogWay)
        con = store.open_memory()
        return con, ingest.ingest_paths(con, paths)


def write_jobs(folder: Path, count: int, lines_per_log: int = 1, prefix: str = "job") -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for job in range(count):
        path = folder / f"{prefix}-{job:05d}.jsonl"
        path.write_bytes(b"".join(
            line(attempt_id=f"{prefix}-{job}-{n}", ts=f"2026-10-{1 + job % 28:02d}T12:00:00Z",
                 probe="reject" if job % 3 else "pass")
            for n in range(lines_per_log)))
        paths.append(path)
    return paths


def sources(con) -> list[tuple]:
    return sorted(con.execute(
        "SELECT path, fingerprint, fingerprint_bytes, bytes_read, tail_fingerprint, bytes_seen, "
        "seen_fingerprint, lines_read, duplicates FROM sources").fetchall())


@pytest.mark.slow  # about a minute: every log stored both ways
def test_a_folder_of_small_logs_is_stored_as_the_one_log_way_stores_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "artifacts"
    write_jobs(folder, 300)
    write_jobs(folder, 20, lines_per_log=3, prefix="multi")
    (folder / "broken.jsonl").write_bytes(b'{"attempt_id": "b1"}\nnot json\n')  # one-log way
    (folder / "growing.jsonl").write_bytes(line(attempt_id="g1") + b'{"attempt_id": "g2"')  # provisional
    (folder / "empty.jsonl").write_bytes(b"")
    reference, expected = one_log_way([folder], monkeypatch)
    con = store.open_db(tmp_path / "lanelog.duckdb")
    summary = ingest.ingest_paths(con, [folder])
    assert summary.as_dict() == expected.as_dict() and summary.attempts_added == 300 + 60 + 2
    assert stored(con) == stored(reference)
    assert sources(con) == sources(reference)
    # Nothing new: each log is settled from its first and last bytes, no line is read again.
    again = ingest.ingest_paths(con, [folder])
    assert counts(again) == (0, 0, 0, 0, 0) and again.files == summary.files
    # One log grows: only its new line is read.
    with (folder / "job-00007.jsonl").open("ab") as handle:
        handle.write(line(attempt_id="job-7-late"))
    assert counts(ingest.ingest_paths(con, [folder])) == (1, 1, 0, 0, 0)
    con.close()


def test_re_sent_lines_in_small_logs_are_duplicates_never_second_attempts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = tmp_path / "monday", tmp_path / "tuesday"
    write_jobs(first, 20)
    con = store.open_db(tmp_path / "lanelog.duckdb")
    ingest.ingest_paths(con, [first])
    # Tuesday's artifacts: new jobs, two logs that re-send Monday's lines with a new line each,
    # and two new logs that share an attempt between them.
    write_jobs(second, 12, prefix="tue")
    (second / "resent-a.jsonl").write_bytes((first / "job-00001.jsonl").read_bytes() + line(attempt_id="new-a"))
    (second / "resent-b.jsonl").write_bytes(line(attempt_id="new-b") + (first / "job-00002.jsonl").read_bytes())
    (second / "twin-1.jsonl").write_bytes(line(attempt_id="twin", note="first"))
    (second / "twin-2.jsonl").write_bytes(line(attempt_id="twin", note="second"))
    reference, _ = one_log_way([first], monkeypatch)
    expected = ingest.ingest_paths(reference, [second])
    summary = ingest.ingest_paths(con, [second])
    assert summary.as_dict() == expected.as_dict()
    # resent-a starts with all of Monday's job-00001: by content it is that log, grown by a
    # line (as a rotated log is known), so only its new line is read; resent-b's Monday line
    # and the second twin are duplicates.
    assert (summary.attempts_added, summary.duplicates) == (12 + 2 + 1, 2)
    assert stored(con) == stored(reference)
    assert con.execute("SELECT count(*) FROM attempts WHERE attempt_id = 'twin'").fetchall() == [(1,)]
    con.close()


def test_a_folder_of_re_sent_small_logs_is_stored_in_batches_leaving_stored_ids_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = tmp_path / "monday", tmp_path / "tuesday"
    write_jobs(first, 20)
    # Tuesday: each job's log holds a new line and then, sent again, a Monday job's
    # line; a few logs are only new.
    second.mkdir()
    for job in range(250):
        resent = b"" if job % 25 == 0 else (first / f"job-{job % 20:05d}.jsonl").read_bytes()
        (second / f"rerun-{job:05d}.jsonl").write_bytes(line(attempt_id=f"rerun-{job}", probe="pass") + resent)
    reference, _ = one_log_way([first], monkeypatch)
    expected = ingest.ingest_paths(reference, [second])
    con = store.open_db(tmp_path / "lanelog.duckdb")
    ingest.ingest_paths(con, [first])
    monkeypatch.setattr(lanelog.ingest.batch, "BATCH_LOGS", 100)
    ways: list[str] = []
    real = small_logs.store_batch

    def store_batch(con, batch, *, leave_out_stored=False):
        ways.append("leave out" if leave_out_stored else "plain")
        return real(con, batch, leave_out_stored=leave_out_stored)

    monkeypatch.setattr(small_logs, "store_batch", store_batch)
    monkeypatch.setattr(small_logs, "ingest_log", lambda *a: ways.append("one log") or pytest.fail("one-log way"))
    summary = ingest.ingest_paths(con, [second])
    assert summary.as_dict() == expected.as_dict()
    assert (summary.attempts_added, summary.duplicates) == (250, 240)
    assert stored(con) == stored(reference)
    assert sources(con) == sources(reference)
    # The first batch finds stored ids and is stored again leaving them out; the two after it do so at once.
    assert ways == ["plain", "leave out", "leave out", "leave out"]
    con.close()


def test_a_copy_of_a_small_log_in_the_same_folder_is_the_same_log(tmp_path: Path) -> None:
    folder = tmp_path / "artifacts"
    paths = write_jobs(folder, 5)
    (folder / "job-copy.jsonl").write_bytes(paths[3].read_bytes())
    con = store.open_db(tmp_path / "lanelog.duckdb")
    summary = ingest.ingest_paths(con, [folder])
    assert (summary.files, summary.attempts_added, summary.duplicates) == (6, 5, 0)
    assert con.execute("SELECT count(*) FROM sources").fetchall() == [(5,)]
    con.close()



def test_a_small_log_that_continues_another_of_its_batch_is_that_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 28, class 8: b.jsonl holds a.jsonl's line (no attempt_id) and one more.  Ingested in
    two runs, b continues a (docs/ingest.md); in one batch it must too, not store that line twice."""
    folder = tmp_path / "logs"
    folder.mkdir()
    first = line(ts="2026-10-05T09:00:00Z", probe="pass")
    (folder / "a.jsonl").write_bytes(first)
    (folder / "b.jsonl").write_bytes(first + line(ts="2026-10-05T10:00:00Z", probe="reject"))
    two_runs = store.open_db(tmp_path / "two-runs.duckdb")
    ingest.ingest_paths(two_runs, [folder / "a.jsonl"])
    ingest.ingest_paths(two_runs, [folder / "b.jsonl"])
    con = store.open_db(tmp_path / "lanelog.duckdb")
    summary = ingest.ingest_paths(con, [folder])
    assert (summary.files, summary.attempts_added, summary.duplicates) == (2, 2, 0)
    assert stored(con) == stored(two_runs)
    assert con.execute("SELECT count(*) FROM attempts").fetchall() == [(2,)]
    one_log, _ = one_log_way([folder], monkeypatch)
    assert stored(con) == stored(one_log)
    for each in (con, two_runs, one_log):
        each.close()

CHILD = """
import sys
import lanelog.ingest.batch
from lanelog import ingest, store
import lanelog.ingest.batch
lanelog.ingest.batch.BATCH_LOGS = 40  # many batches, so the kill lands inside the run
con = store.open_db(sys.argv[1])
print("opened", flush=True)
ingest.ingest_paths(con, [sys.argv[2]], progress=lambda n, _: print("batch", flush=True) if n else None)
print("done", flush=True)
"""


@pytest.mark.slow  # a minute each: thousands of logs, killed and run again (tests/ingest/test_kill.py is the fast twin)
@pytest.mark.parametrize("batches_before_kill", [0, 2, 7])
def test_kill_9_between_batches_then_rerun_stores_every_log_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, batches_before_kill: int
) -> None:
    folder = tmp_path / "artifacts"
    write_jobs(folder, 400, lines_per_log=2)
    db = tmp_path / "lanelog.duckdb"
    kill_after(CHILD, db, folder, "batch", batches_before_kill)
    con = store.open_db(db)
    partial = con.execute("SELECT count(*) FROM attempts").fetchall()[0][0]
    assert partial < 800 and partial % 80 == 0  # whole batches of 40 logs, nothing in between
    assert con.execute("SELECT count(*) * 2 FROM sources").fetchall() == [(partial,)]
    ingest.ingest_paths(con, [folder])
    reference, _ = one_log_way([folder], monkeypatch)
    assert stored(con) == stored(reference)
    assert sources(con) == sources(reference)
    assert counts(ingest.ingest_paths(con, [folder])) == (0, 0, 0, 0, 0)
    con.close()


def test_the_summary_json_counts_files_of_a_folder_of_small_logs(tmp_path: Path) -> None:
    folder = tmp_path / "artifacts"
    write_jobs(folder, 120)
    db = tmp_path / "lanelog.duckdb"
    done = subprocess.run([sys.executable, "-m", "lanelog", "ingest", "--db", str(db), "--format", "json", str(folder)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"files": 120, "lines_read": 120, "attempts_added": 120, "duplicates": 0,
                                       "outcomes_added": 0, "rejected": 0, "pending": 0,
                                       "undated_outcomes": 0}
