"""Incremental and idempotent: logs are known by content, and only new bytes are read."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pytest

from lanelog import ingest, store
from lanelog.ingest import ingest_paths
from tests.ingest.support import attempts, counts, line, stored


def write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def append(path: Path, data: bytes) -> None:
    with path.open("ab") as handle:
        handle.write(data)


def router_lines(start: int, count: int) -> bytes:
    return b"".join(
        line(ts=f"2026-10-{1 + n % 28:02d}T12:00:00Z", attempt_id=f"a{n}", probe="pass")
        for n in range(start, start + count)
    )


def test_unchanged_file_adds_nothing(file_db, tmp_path: Path) -> None:
    log = write(tmp_path / "lane.jsonl", router_lines(0, 5))
    assert counts(ingest_paths(file_db, [log])) == (5, 5, 0, 0, 0)
    before = stored(file_db)
    again = ingest_paths(file_db, [log])
    assert again.as_dict() == {
        "files": 1, "lines_read": 0, "attempts_added": 0, "outcomes_added": 0, "duplicates": 0, "rejected": 0,
        "pending": 0, "undated_outcomes": 0
    }
    assert stored(file_db) == before


def test_appended_lines_are_read_and_only_they(file_db, tmp_path: Path) -> None:
    log = write(tmp_path / "lane.jsonl", router_lines(0, 3) + b"[1]\n" + b'{"no_id": 1}\n')
    ingest_paths(file_db, [log])
    append(log, router_lines(3, 2) + b'{"no_id": 2}\n')
    assert counts(ingest_paths(file_db, [log])) == (3, 3, 0, 0, 0)
    assert [n for (n,) in attempts(file_db, "line_no")] == [1, 2, 3, 5, 6, 7, 8]
    assert file_db.execute("SELECT count(*) FROM rejected_lines").fetchall() == [(1,)]
    assert file_db.execute("SELECT bytes_read, lines_read FROM sources").fetchall() == [
        (log.stat().st_size, 8)
    ]


def test_a_copy_under_another_path_adds_nothing(file_db, tmp_path: Path) -> None:
    # Lines without attempt_id would be stored twice if the copy were read again.
    data = router_lines(0, 3) + b'{"no_id": true}\n'
    log = write(tmp_path / "lane.jsonl", data)
    ingest_paths(file_db, [log])
    copy = tmp_path / "elsewhere" / "copy.jsonl"
    copy.parent.mkdir()
    shutil.copy(log, copy)
    assert counts(ingest_paths(file_db, [copy])) == (0, 0, 0, 0, 0)
    # A copy that has grown since is the same log: only its new lines are read.
    append(copy, b'{"no_id": false}\n')
    assert counts(ingest_paths(file_db, [copy])) == (1, 1, 0, 0, 0)
    assert file_db.execute("SELECT count(*), count(DISTINCT source_id) FROM attempts").fetchall() == [(5, 1)]


def test_a_compressed_copy_of_a_rotated_log_adds_nothing(file_db, tmp_path: Path) -> None:
    log = write(tmp_path / "lane.jsonl", router_lines(0, 4) + b'{"no_id": 1}\n')
    ingest_paths(file_db, [log])
    archive = tmp_path / "lane.1.jsonl.gz"
    archive.write_bytes(gzip.compress(log.read_bytes()))
    log.write_bytes(router_lines(4, 2))  # the writer starts a new file
    assert counts(ingest_paths(file_db, [tmp_path])) == (2, 2, 0, 0, 0)
    assert file_db.execute("SELECT count(*) FROM attempts").fetchall() == [(7,)]


def test_a_file_rewritten_in_place_is_read_again_from_its_start(file_db, tmp_path: Path) -> None:
    first = router_lines(0, 3)
    log = write(tmp_path / "lane.jsonl", first + b'{"no_id": 1}\n')
    ingest_paths(file_db, [log])
    # Truncated and restarted: the same first line, then different ones.
    log.write_bytes(first[: first.index(b"\n") + 1] + router_lines(10, 2))
    assert counts(ingest_paths(file_db, [log])) == (3, 2, 1, 0, 0)
    assert file_db.execute("SELECT count(*) FROM sources").fetchall() == [(2,)]
    ids = {i for (i,) in attempts(file_db, "attempt_id")}
    assert ids == {"a0", "a1", "a2", "a10", "a11", None}


def test_a_rotated_file_with_new_content_is_a_new_log(file_db, tmp_path: Path) -> None:
    log = write(tmp_path / "lane.jsonl", router_lines(0, 3))
    ingest_paths(file_db, [log])
    log.write_bytes(router_lines(3, 2))
    assert counts(ingest_paths(file_db, [log])) == (2, 2, 0, 0, 0)
    assert file_db.execute("SELECT count(*) FROM attempts").fetchall() == [(5,)]


def test_a_small_log_that_grows_past_the_fingerprint_is_still_the_same_log(file_db, tmp_path: Path) -> None:
    log = write(tmp_path / "lane.jsonl", b'{"no_id": 0}\n')
    ingest_paths(file_db, [log])
    append(log, b"".join(line(no_id=n, pad="x" * 100) for n in range(1, 60)))
    assert counts(ingest_paths(file_db, [log])) == (59, 59, 0, 0, 0)
    assert counts(ingest_paths(file_db, [log])) == (0, 0, 0, 0, 0)
    assert file_db.execute("SELECT count(*), fingerprint_bytes FROM sources GROUP BY ALL").fetchall() == [
        (1, 4096)
    ]


def test_a_pending_last_line_is_completed_by_a_later_append(file_db, tmp_path: Path) -> None:
    log = write(tmp_path / "lane.jsonl", router_lines(0, 1) + b'{"attempt_id": "a1", "pro')
    assert counts(ingest_paths(file_db, [log])) == (2, 1, 0, 0, 1)
    assert counts(ingest_paths(file_db, [log])) == (0, 0, 0, 0, 0)  # unchanged: not read again
    append(log, b'be": "reject"}\n')
    assert counts(ingest_paths(file_db, [log])) == (1, 1, 0, 0, 0)
    assert attempts(file_db, "line_no, attempt_id, is_reject, provisional") == [
        (1, "a0", False, False), (2, "a1", True, False)
    ]
    assert file_db.execute("SELECT count(*) FROM rejected_lines").fetchall() == [(0,)]


def test_a_provisional_attempt_is_replaced_when_its_line_changes(file_db, tmp_path: Path) -> None:
    log = write(tmp_path / "lane.jsonl", b'{"attempt_id": "a1"}')
    assert counts(ingest_paths(file_db, [log])) == (1, 1, 0, 0, 0)
    assert attempts(file_db, "attempt_id, provisional") == [("a1", True)]
    append(log, b' trailing text\n{"attempt_id": "a1"}\n')
    # The first line is now not JSON: its attempt is replaced by a rejected line,
    # and a1 on line 2 is no duplicate of a row that no longer exists.
    assert counts(ingest_paths(file_db, [log])) == (2, 1, 0, 1, 0)
    assert attempts(file_db, "line_no, attempt_id, provisional") == [(2, "a1", False)]


def test_a_provisional_attempt_that_gets_its_newline_is_stored_once(file_db, tmp_path: Path) -> None:
    log = write(tmp_path / "lane.jsonl", b'{"attempt_id": "a1"}')
    ingest_paths(file_db, [log])
    append(log, b"\n")
    assert counts(ingest_paths(file_db, [log])) == (1, 1, 0, 0, 0)
    assert attempts(file_db, "attempt_id, provisional") == [("a1", False)]


def test_duplicates_within_and_across_files(file_db, tmp_path: Path) -> None:
    a = write(tmp_path / "a.jsonl", line(attempt_id="x") + line(attempt_id="x") + line(attempt_id=""))
    b = write(tmp_path / "b.jsonl", line(attempt_id="x", probe="reject") + line(attempt_id="y"))
    summary = ingest_paths(file_db, [a, b])
    assert counts(summary) == (5, 3, 2, 0, 0)
    assert attempts(file_db, "attempt_id, probe") == [("x", None), (None, None), ("y", None)]
    assert file_db.execute("SELECT path, duplicates FROM sources ORDER BY source_id").fetchall() == [
        (str(a), 1), (str(b), 1)
    ]


def test_a_rotated_file_resending_an_old_id_adds_nothing(file_db, tmp_path: Path) -> None:
    log = write(tmp_path / "lane.jsonl", line(attempt_id="x", probe="pass"))
    ingest_paths(file_db, [log])
    log.write_bytes(line(attempt_id="x", probe="reject", note="re-sent"))
    assert counts(ingest_paths(file_db, [log])) == (1, 0, 1, 0, 0)
    assert attempts(file_db, "attempt_id, probe") == [("x", "pass")]


def test_folders_are_searched_for_jsonl_and_jsonl_gz(file_db, tmp_path: Path) -> None:
    (tmp_path / "logs" / "deeper").mkdir(parents=True)
    write(tmp_path / "logs" / "b.jsonl", line(attempt_id="b"))
    (tmp_path / "logs" / "deeper" / "a.jsonl.gz").write_bytes(gzip.compress(line(attempt_id="a")))
    write(tmp_path / "logs" / "notes.txt", line(attempt_id="ignored"))
    write(tmp_path / "logs" / "lane.json", line(attempt_id="ignored too"))
    summary = ingest_paths(file_db, [tmp_path / "logs"])
    assert summary.files == 2
    assert attempts(file_db, "attempt_id") == [("b",), ("a",)]


def test_unreadable_files_are_named_and_the_others_still_ingested(file_db, tmp_path: Path) -> None:
    good = write(tmp_path / "good.jsonl", line(attempt_id="g"))
    broken = write(tmp_path / "broken.jsonl.gz", b"plain text, not gzip")
    truncated = tmp_path / "truncated.jsonl.gz"
    truncated.write_bytes(gzip.compress(router_lines(0, 50))[:-20])
    missing = tmp_path / "missing.jsonl"
    summary = ingest_paths(file_db, [broken, missing, good, truncated])
    assert summary.errors == [
        f"{broken}: corrupt gzip data (Not a gzipped file (b'pl'))",
        f"{missing}: no such file or folder",
        f"{truncated}: corrupt gzip data (Compressed file ended before the end-of-stream marker was reached)",
    ]
    assert attempts(file_db, "attempt_id") == [("g",)]


def test_an_empty_file_is_read_and_stores_nothing(file_db, tmp_path: Path) -> None:
    log = write(tmp_path / "lane.jsonl", b"")
    assert ingest_paths(file_db, [log]).files == 1
    assert file_db.execute("SELECT count(*) FROM sources").fetchall() == [(0,)]
    append(log, line(attempt_id="later"))
    assert counts(ingest_paths(file_db, [log])) == (1, 1, 0, 0, 0)


def test_runs_that_read_something_are_recorded(file_db, tmp_path: Path) -> None:
    log = write(tmp_path / "lane.jsonl", router_lines(0, 2) + b"oops\n")
    ingest_paths(file_db, [log])
    ingest_paths(file_db, [log])  # nothing new: nothing written at all
    ingest_paths(file_db, [log, tmp_path / "missing.jsonl"])  # an error is worth a row
    assert file_db.execute(
        "SELECT run_id, files, lines_read, attempts_added, duplicates, rejected, pending,"
        " finished_at >= started_at FROM ingest_runs ORDER BY run_id"
    ).fetchall() == [(1, 1, 3, 2, 0, 1, 0, True), (2, 1, 0, 0, 0, 0, 0, True)]


@pytest.mark.parametrize(
    ("chunk_bytes", "row_group_lines"), [(1, 1000), (7, 1000), (64, 1000), (300, 1000), (4096, 1), (4096, 3)]
)
def test_chunk_size_does_not_change_what_is_stored(
    file_db, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk_bytes: int, row_group_lines: int
) -> None:
    data = (
        b"\xef\xbb\xbf" + router_lines(0, 3) + b"\n[1]\n\xff\n" + line(pad="y" * 500)
        + router_lines(1, 2) + b'{"attempt_id": "tail"'
    )
    reference = store.open_memory()
    ingest.ingest_bytes(reference, "lane.jsonl", data)
    monkeypatch.setattr(ingest.chunks, "CHUNK_BYTES", chunk_bytes)
    monkeypatch.setattr(ingest.chunks, "ROW_GROUP_LINES", row_group_lines)
    log = write(tmp_path / "lane.jsonl", data)
    assert counts(ingest_paths(file_db, [log])) == (9, 4, 2, 2, 1)
    assert stored(file_db) == stored(reference)
