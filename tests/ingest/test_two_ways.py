"""The two ways lines are stored: the one-statement stream, and the careful way it hands over to.

Whichever way a group of lines takes, what is stored and counted is the same;
these tests pin when the stream hands over and that the result does not show it.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from lanelog import ingest
import lanelog.ingest.chunks
import lanelog.ingest.load
from lanelog.ingest import ingest_paths
from lanelog.ingest.lines import split_lines
from lanelog.ingest.load import Outcome, store_lines, store_stream
from tests.ingest.support import counts, line, rejected, stored


def lines_of(data: bytes, first_line_no: int = 1):
    return split_lines(memoryview(data), base_offset=0, first_line_no=first_line_no, complete=True)


def stream(con: duckdb.DuckDBPyConnection, data: bytes) -> Outcome | None:
    con.execute("INSERT INTO sources VALUES (1, 'lane.jsonl', '', 0, 0, '', 0, '', 0, 0, now(), now())")
    return store_stream(con, 1, [lines_of(data)])


def test_the_stream_settles_the_lines_it_kept(con: duckdb.DuckDBPyConnection) -> None:
    # Blank, not an object, cut short, NaN, padded with spaces: all kept while streaming.
    data = (line(attempt_id="a1") + b"\n[1]\n" + b'{"attempt_id": "a2"\n'
            + b'{"units": NaN}\n' + b'  {"attempt_id": "a3"}  \n' + b"\xff\n")
    outcome = stream(con, data)
    assert outcome == Outcome(lines=6, attempts=2, duplicates=0, rejected=4, pending=0)
    assert [(n, reason) for n, _offset, _raw, _text, reason in rejected(con)] == [
        (3, "not_an_object"), (4, "invalid_json"), (5, "invalid_json"), (7, "invalid_utf8")
    ]
    assert con.execute("SELECT line_no FROM attempts ORDER BY line_no").fetchall() == [(1,), (6,)]


@pytest.mark.parametrize(
    "data",
    [
        line(attempt_id="a1") + line(attempt_id="a1"),  # a duplicate within the group
        line(attempt_id="a1") + b'{"attempt_id": }\n',  # broken in its middle: starts with { and ends with }
        line(attempt_id="a1") + b'{"a": 1}{"b": 2}\n',  # two objects on one line
    ],
    ids=["duplicate", "broken-middle", "two-objects"],
)
def test_the_stream_hands_over_what_it_cannot_settle(con: duckdb.DuckDBPyConnection, data: bytes) -> None:
    con.execute("BEGIN TRANSACTION")
    assert stream(con, data) is None
    con.execute("ROLLBACK")


def test_a_duplicate_of_an_earlier_run_also_hands_over(con: duckdb.DuckDBPyConnection) -> None:
    ingest.ingest_bytes(con, "old.jsonl", line(attempt_id="a1"))
    con.execute("BEGIN TRANSACTION")
    assert store_stream(con, 1, [lines_of(line(attempt_id="b1") + line(attempt_id="a1"), 2)]) is None
    con.execute("ROLLBACK")


def test_the_careful_way_leaves_duplicates_out_before_storing(con: duckdb.DuckDBPyConnection) -> None:
    ingest.ingest_bytes(con, "old.jsonl", line(attempt_id="a1"))
    data = line(attempt_id="a1") + line(attempt_id="b1") + line(attempt_id="b1") + b'{"x": }\n' + line()
    outcome = store_lines(con, 1, lines_of(data, 2), provisional=False)
    assert outcome == Outcome(lines=5, attempts=2, duplicates=2, rejected=1, pending=0)
    assert con.execute("SELECT line_no, attempt_id FROM attempts ORDER BY line_no").fetchall() == [
        (1, "a1"), (3, "b1"), (6, None)
    ]


def test_handed_over_groups_store_what_streamed_groups_would(
    file_db, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Small groups: some stream, some hand over (a repeated id, a line broken in
    # its middle), and the result equals an ingest of the same bytes at once.
    data = b"".join(
        line(attempt_id=f"a{n % 40}", ts="2026-10-08T12:00:00Z") if n % 9 else b'{"attempt_id": }\n'
        for n in range(100)
    )
    reference = ingest.open_memory()
    whole = ingest.ingest_bytes(reference, "lane.jsonl", data)
    monkeypatch.setattr(ingest.chunks, "ROW_GROUP_LINES", 4)
    monkeypatch.setattr(ingest.chunks, "GROUP_ROW_GROUPS", 2)
    used: list[str] = []
    real_stream, real_lines = ingest.load.store_stream, ingest.load.store_lines
    monkeypatch.setattr("lanelog.ingest.run.store_stream", lambda *a: used.append("stream") or real_stream(*a))
    monkeypatch.setattr("lanelog.ingest.run.store_lines", lambda *a, **k: used.append("careful") or real_lines(*a, **k))
    log = tmp_path / "lane.jsonl"
    log.write_bytes(data)
    summary = ingest_paths(file_db, [log])
    assert counts(summary) == counts(whole) == (100, 40, 48, 12, 0)
    assert stored(file_db) == stored(reference)
    assert used.count("stream") == 13  # one per group of 8 lines
    assert 0 < used.count("careful") < 100


def test_ingest_puts_back_the_settings_it_runs_under(file_db, tmp_path: Path) -> None:
    log = tmp_path / "lane.jsonl"
    log.write_bytes(line(attempt_id="a1") + line(attempt_id="a1"))
    # (memory_limit is put back too, to DuckDB's rounding: see test_db.)
    query = "SELECT current_setting('preserve_insertion_order'), current_setting('disabled_optimizers')"
    before = file_db.execute(query).fetchall()
    assert counts(ingest_paths(file_db, [log])) == (2, 1, 1, 0, 0)
    assert file_db.execute(query).fetchall() == before
