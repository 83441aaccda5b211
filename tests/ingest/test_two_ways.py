"""The two ways lines are stored: the one-statement stream, and the careful way it hands over to.

Whichever way a group of lines takes, what is stored and counted is the same;
these tests pin when the stream hands over and that the result does not show it.
"""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pyarrow as pa
import pytest

import lanelog.ingest.batch
import lanelog.ingest.chunks
import lanelog.ingest.load
import lanelog.ingest.statements
from lanelog import ingest, store
from lanelog.ingest import ingest_paths
from lanelog.ingest.lines import LINES_SCHEMA, split_lines
from lanelog.ingest.load import Handover, Tally, store_lines, store_stream
from lanelog.store.db import roll_back, settings
from tests.ingest.support import counts, line, rejected, stored


def lines_of(data: bytes, first_line_no: int = 1):
    return split_lines(memoryview(data), base_offset=0, first_line_no=first_line_no, complete=True)


def stream(con: duckdb.DuckDBPyConnection, data: bytes) -> Tally | Handover:
    con.execute("INSERT INTO sources VALUES (1, 'lane.jsonl', '', 0, 0, '', 0, '', 0, 0, now(), now())")
    return store_stream(con, 1, [lines_of(data)])


def test_the_stream_settles_the_lines_it_kept(con: duckdb.DuckDBPyConnection) -> None:
    # Blank, not an object, cut short, NaN, padded with spaces: all kept while streaming.
    data = (line(attempt_id="a1") + b"\n[1]\n" + b'{"attempt_id": "a2"\n'
            + b'{"units": NaN}\n' + b'  {"attempt_id": "a3"}  \n' + b"\xff\n")
    outcome = stream(con, data)
    assert outcome == Tally(lines=6, attempts=2, duplicates=0, rejected=4, pending=0)
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
@pytest.mark.parametrize("leave_out_stored", [False, True])
def test_the_stream_hands_over_what_it_cannot_settle(
    con: duckdb.DuckDBPyConnection, data: bytes, leave_out_stored: bool
) -> None:
    con.execute("INSERT INTO sources VALUES (1, 'lane.jsonl', '', 0, 0, '', 0, '', 0, 0, now(), now())")
    con.execute("BEGIN TRANSACTION")
    assert store_stream(con, 1, [lines_of(data)], leave_out_stored=leave_out_stored) is Handover.CAREFUL
    roll_back(con)  # (a line broken in its middle failed the statement, which rolled back already)
    assert con.execute("SELECT count(*) FROM attempts").fetchone()[0] == 0


def test_a_duplicate_of_an_earlier_run_is_left_out_by_the_second_stream(con: duckdb.DuckDBPyConnection) -> None:
    ingest.ingest_bytes(con, "old.jsonl", line(attempt_id="a1"))
    data = line(attempt_id="b1") + line(attempt_id="a1") + b"\n" + line(attempt_id="") + line(attempt_id=7)
    con.execute("INSERT INTO sources VALUES (2, 'new.jsonl', '', 0, 0, '', 0, '', 0, 0, now(), now())")
    con.execute("BEGIN TRANSACTION")
    assert store_stream(con, 2, [lines_of(data)]) is Handover.STORED_IDS
    con.execute("ROLLBACK")
    outcome = store_stream(con, 2, [lines_of(data)], leave_out_stored=True)
    assert outcome == Tally(lines=4, attempts=3, duplicates=1, rejected=0, pending=0)
    assert con.execute("SELECT line_no, attempt_id FROM attempts WHERE source_id = 2 ORDER BY line_no").fetchall() == [
        (1, "b1"), (4, None), (5, None)
    ]


def test_the_careful_way_leaves_duplicates_out_before_storing(con: duckdb.DuckDBPyConnection) -> None:
    ingest.ingest_bytes(con, "old.jsonl", line(attempt_id="a1"))
    data = line(attempt_id="a1") + line(attempt_id="b1") + line(attempt_id="b1") + b'{"x": }\n' + line()
    outcome = store_lines(con, 1, lines_of(data, 2), provisional=False)
    assert outcome == Tally(lines=5, attempts=2, duplicates=2, rejected=1, pending=0)
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
    reference = store.open_memory()
    whole = ingest.ingest_bytes(reference, "lane.jsonl", data)
    monkeypatch.setattr(ingest.chunks, "ROW_GROUP_LINES", 4)
    monkeypatch.setattr(ingest.chunks, "GROUP_ROW_GROUPS", 2)
    used: list[str] = []
    real_stream, real_lines = ingest.load.store_stream, ingest.load.store_lines
    monkeypatch.setattr("lanelog.ingest.one_log.store_stream", lambda *a, **k: used.append(
        "leave out" if k.get("leave_out_stored") else "stream") or real_stream(*a, **k))
    monkeypatch.setattr("lanelog.ingest.one_log.store_lines",
                        lambda *a, **k: used.append("careful") or real_lines(*a, **k))
    log = tmp_path / "lane.jsonl"
    log.write_bytes(data)
    summary = ingest_paths(file_db, [log])
    assert counts(summary) == counts(whole) == (100, 40, 48, 12, 0)
    assert stored(file_db) == stored(reference)
    # Groups of 8 lines, the last four lines in the group before them (fewer than a
    # row group's worth: chunks._takes_the_rest).  Eleven hold a line broken in its
    # middle, which leaving stored ids out would not settle: they go the careful
    # way.  The group of lines 65-72 only repeats stored ids: its second stream
    # leaves them out, and so do the first streams of the groups after it.
    ways = [way for n, way in enumerate(used) if not (way == "careful" == used[n - 1])]
    assert ways == ["stream", "careful"] * 8 + ["stream", "leave out"] + ["leave out", "careful"] * 3
    assert 0 < used.count("careful") < 100


# Lines of every kind a re-sent log may hold, around attempts stored already.
ODD_LINES = [
    b"\n", b"   \n", b"[1, 2]\n", b'{"attempt_id": "cut"\n', b'{"units": NaN, "attempt_id": "nan"}\n',
    b"\xff\xfe{}\n", line(attempt_id="") , line(attempt_id=12), line(probe="pass"),
    b'{"attempt_id": "crlf", "probe": "pass"}\r\n', b'  {"attempt_id": "padded"}  \n',
]


def resent_log(old: list[bytes], *, new: int = 3, odd: bool = True) -> bytes:
    """A log of the `old` lines sent again, with `new` new attempts and odd lines among them."""
    out = [line(attempt_id="head-new", probe="pass")]
    for index, text in enumerate(old):
        out.append(text)
        if odd and index % 5 == 3:
            out.append(ODD_LINES[(index // 5) % len(ODD_LINES)])
        if index % 11 == 5 and index // 11 < new:
            out.append(line(attempt_id=f"new{index}", probe="reject"))
    return b"".join(out)


def ingest_both_ways(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, logs: list[tuple[str, bytes]],
                     ) -> tuple[list[tuple], list[str]]:
    """Ingest the logs (one run each, small groups) by the usual ways and by the careful way
    alone; assert both store and count the same, and return the counts and the ways used."""
    monkeypatch.setattr(ingest.chunks, "ROW_GROUP_LINES", 8)
    monkeypatch.setattr(ingest.chunks, "GROUP_ROW_GROUPS", 2)
    monkeypatch.setattr(ingest.batch, "SMALL_LOG_BYTES", 0)
    real_stream, real_lines = ingest.load.store_stream, ingest.load.store_lines
    results = []
    used: list[str] = []
    for way in ("usual", "careful"):
        folder = tmp_path / way
        folder.mkdir()
        if way == "usual":
            def streamed(*a, **k):
                used.append("leave out" if k.get("leave_out_stored") else "stream")
                return real_stream(*a, **k)
        else:
            def streamed(*a, **k):
                return Handover.CAREFUL
        monkeypatch.setattr("lanelog.ingest.one_log.store_stream", streamed)
        monkeypatch.setattr("lanelog.ingest.one_log.store_lines",
                            lambda *a, _way=way, **k: (_way == "usual" and used.append("careful"))
                            or real_lines(*a, **k))
        con = store.open_db(folder / "t.duckdb")
        try:
            runs = []
            for name, data in logs:
                (folder / name).write_bytes(data)
                runs.append(counts(ingest_paths(con, [folder / name])))
            results.append((runs, stored(con), con.execute(
                "SELECT regexp_extract(path, '[^/]*$'), lines_read, duplicates FROM sources ORDER BY source_id"
            ).fetchall()))
        finally:
            con.close()
    assert results[0] == results[1]
    return results[0][0], used


def test_a_log_of_re_sent_lines_costs_one_stream_a_group(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    old = [line(attempt_id=f"a{n}", probe="pass" if n % 3 else "reject", units=n) for n in range(60)]
    runs, used = ingest_both_ways(tmp_path, monkeypatch, [
        ("first.jsonl", b"".join(old[:40])),
        ("second.jsonl", b"".join(old[40:]) + b'{"attempt_id": }\n'),
        ("resent.jsonl", resent_log(old)),
    ])
    # 76 lines, 3 of them blank; the new head, 3 new attempts and 5 odd lines that
    # are attempts all the same; 4 lines rejected ([1, 2], cut short, NaN, \xff).
    assert len(resent_log(old).splitlines()) == 76
    assert runs[2] == (73, 9, 60, 4, 0)
    # The re-sent log's first lines are found stored: every group of it leaves
    # stored ids out in its one stream, and none goes the careful way.
    resent_groups = -(-len(resent_log(old).splitlines()) // 16)
    assert used[-resent_groups:] == ["leave out"] * resent_groups
    assert "careful" in used  # (the second log's broken line)


def _build_sides(plan: dict) -> list[tuple[str, set[str], set[str]]]:
    """Each hash join of an EXPLAIN (FORMAT json) plan: its type, and what its probe and build sides read."""
    def reads(node: dict) -> set[str]:
        info = node.get("extra_info", {})
        found = {info["Table"].rsplit(".", 1)[-1]} if "Table" in info else set()
        if "ARROW_SCAN" in node.get("name", ""):
            found.add("stream")
        return found.union(*(reads(child) for child in node.get("children", [])))

    joins = []
    if plan.get("name") == "HASH_JOIN":
        probe, build = plan["children"]
        joins.append((plan["extra_info"]["Join Type"], reads(probe), reads(build)))
    for child in plan.get("children", []):
        joins += _build_sides(child)
    return joins


@pytest.mark.parametrize("statement", ["insert_new_attempts", "insert_new_attempts_batch"])
def test_leaving_stored_ids_out_holds_the_stored_ids_not_the_lines(
    con: duckdb.DuckDBPyConnection, statement: str
) -> None:
    """The join's hash table is the stored ids: built on the stream (which DuckDB takes
    for one row), it held every parsed line of a transaction and spilled."""
    ingest.ingest_bytes(con, "old.jsonl", b"".join(line(attempt_id=f"a{n}") for n in range(100)))
    schema = lanelog.ingest.batch.BATCH_SCHEMA if statement.endswith("batch") else LINES_SCHEMA
    con.register("lane_lines", pa.RecordBatchReader.from_batches(schema, iter([])))
    query = lanelog.ingest.statements.statements()[statement]
    params = query.bind({name: value for name, value in {"source_id": 1, "provisional": False}.items()
                         if name in query.params})
    lanelog.ingest.statements.attempt_rows(con)  # the macro the statement reads (load.sql)
    with settings(con, lanelog.ingest.load.STREAM):
        plan = json.loads(con.execute("EXPLAIN (FORMAT json) " + query.sql, params).fetchall()[0][1])
    assert [_build_sides(node) for node in plan] == [[("ANTI", {"stream"}, {"attempts"})]]


@pytest.mark.parametrize("shape", ["broken-middle", "repeat-within", "provisional-elsewhere", "new-then-old"])
def test_re_sent_lines_that_need_more_are_stored_as_the_careful_way_would(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shape: str
) -> None:
    old = [line(attempt_id=f"a{n}", probe="pass", ts="2026-10-08T12:00:00Z") for n in range(50)]
    logs = [("first.jsonl", b"".join(old))]
    if shape == "broken-middle":
        logs.append(("resent.jsonl", resent_log(old[:20]) + b'{"attempt_id": x}\n' + resent_log(old[20:])))
    elif shape == "repeat-within":
        logs.append(("resent.jsonl", resent_log(old) + line(attempt_id="twice") + line(attempt_id="twice")))
    elif shape == "provisional-elsewhere":
        logs.append(("writing.jsonl", line(attempt_id="w1") + b'{"attempt_id": "X", "probe": "pass"}'))
        logs.append(("resent.jsonl",
                     resent_log(old[:30]) + line(attempt_id="X", probe="reject") + resent_log(old[30:])))
    else:  # a log of new lines joined to old ones: only its later groups find stored ids
        logs.append(("joined.jsonl", b"".join(line(attempt_id=f"n{n}") for n in range(40)) + resent_log(old)))
    runs, used = ingest_both_ways(tmp_path, monkeypatch, logs)
    assert runs[-1][2] >= 50  # the re-sent attempts were counted as duplicates
    if shape == "new-then-old":
        assert "careful" not in used and "leave out" in used
    else:
        assert "careful" in used


def test_ingest_puts_back_the_settings_it_runs_under(file_db, tmp_path: Path) -> None:
    log = tmp_path / "lane.jsonl"
    log.write_bytes(line(attempt_id="a1") + line(attempt_id="a1"))
    # (memory_limit is put back too, to DuckDB's rounding: see test_db.)
    query = "SELECT current_setting('preserve_insertion_order'), current_setting('disabled_optimizers')"
    before = file_db.execute(query).fetchall()
    assert counts(ingest_paths(file_db, [log])) == (2, 1, 1, 0, 0)
    assert file_db.execute(query).fetchall() == before


@pytest.mark.parametrize("shape", ["broken-middle", "repeat-within"])
def test_a_group_of_many_pieces_read_again_goes_on_after_the_group(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shape: str
) -> None:
    # Pieces of a few lines, groups of 16 lines: a group handed over is read again
    # from its first piece, and the run goes on from the piece after its last one,
    # however far the stream that failed had read.
    monkeypatch.setattr(ingest.chunks, "CHUNK_BYTES", 256)
    old = [line(attempt_id=f"a{n}", probe="pass", ts="2026-10-08T12:00:00Z") for n in range(50)]
    middle = b'{"attempt_id": x}\n' if shape == "broken-middle" else line(attempt_id="twice") * 2
    logs = [("first.jsonl", b"".join(old)),
            ("resent.jsonl", resent_log(old[:20], odd=False) + middle + resent_log(old[20:], odd=False))]
    runs, used = ingest_both_ways(tmp_path, monkeypatch, logs)
    assert runs[-1][0] == len(logs[1][1].splitlines())
    assert "careful" in used


def test_a_group_of_many_lines_that_may_be_no_attempt_goes_the_careful_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A text log ingested by mistake: the stream keeps the bytes of every line that
    may be no attempt until its statement ends (970 MB for 1M such lines), so past
    MAX_KEPT_LINES it hands over, and the careful way settles a piece at a time.
    What is stored and counted is what a stream keeping them all stores."""
    junk = [b"ERROR job failed: {not json}\n", b"[1]\n", b'{"units": NaN}\n', b"\xff\n", b"  \n"]
    data = b"".join(line(attempt_id=f"a{n % 30}") if n % 3 == 0 else junk[n % len(junk)] for n in range(120))
    reference = store.open_memory()
    whole = ingest.ingest_bytes(reference, "lane.jsonl", data)
    assert lanelog.ingest.load.MAX_KEPT_LINES > len(data.splitlines())  # the reference kept them all

    monkeypatch.setattr(lanelog.ingest.load, "MAX_KEPT_LINES", 10)
    monkeypatch.setattr(ingest.batch, "SMALL_LOG_BYTES", 0)
    monkeypatch.setattr(ingest.chunks, "CHUNK_BYTES", 256)
    real_lines = ingest.load.store_lines
    careful: list[int] = []
    monkeypatch.setattr("lanelog.ingest.one_log.store_lines",
                        lambda con, source_id, lines, **k: careful.append(lines.count) or real_lines(
                            con, source_id, lines, **k))
    log = tmp_path / "lane.jsonl"
    log.write_bytes(data)
    con = store.open_db(tmp_path / "t.duckdb")
    try:
        summary = ingest_paths(con, [log])
        assert counts(summary) == counts(whole) == (104, 10, 30, 64, 0)  # 16 blank lines
        assert stored(con) == stored(reference)
        assert sum(careful) == 120 and max(careful) < 30  # every line, a piece of 256 bytes at a time
    finally:
        con.close()


def test_empty_lines_are_settled_where_they_are_split(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An empty line is blank as soon as it is split: never kept aside, never asked of
    SQL.  5M newlines between two attempts took 35 s and 1.7 GB, every one of them
    kept and given a verdict; a 486 KB gzip file of 500M newlines did not finish in
    10 minutes."""
    data = (line(attempt_id="a1") + b"\n" * 700 + b"\r\n" * 300 + b" \t\n" + b"\xff\n"
            + line(attempt_id="a2") + b"\n" * 50 + b"\r")
    reference = store.open_memory()
    whole = ingest.ingest_bytes(reference, "lane.jsonl", data)
    assert counts(whole) == (3, 2, 0, 1, 0)  # the line of spaces is blank too, found by SQL

    monkeypatch.setattr(lanelog.ingest.load, "MAX_KEPT_LINES", 10)
    monkeypatch.setattr(ingest.batch, "SMALL_LOG_BYTES", 0)
    real_lines = ingest.load.store_lines
    careful: list[bool] = []
    monkeypatch.setattr("lanelog.ingest.one_log.store_lines",
                        lambda *a, **k: careful.append(k["provisional"]) or real_lines(*a, **k))
    log = tmp_path / "lane.jsonl"
    log.write_bytes(data)
    con = store.open_db(tmp_path / "t.duckdb")
    try:
        assert counts(ingest_paths(con, [log])) == counts(whole)
        assert careful == [True]  # the provisional "\r" alone: no group went the careful way
        assert stored(con) == stored(reference)
        assert con.execute("SELECT lines_read, bytes_read, bytes_seen FROM sources").fetchall() == [
            (1054, len(data) - 1, len(data))]  # the complete lines; the provisional "\r" is seen, not read
    finally:
        con.close()
