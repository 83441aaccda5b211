"""Outcome lines (`"kind": "outcome"`): stored in outcomes, never as attempts, each outcome once.

Every way ingest stores lines (the stream, the careful way, a batch of small logs, a
provisional last line, a bucket: tests/ingest/test_s3.py) is held to the same result:
what an ingest of the same bytes at once stores.
"""

from __future__ import annotations

import json
from datetime import date, datetime
from pathlib import Path

import duckdb
import pytest

from lanelog import ingest, store
from lanelog.ingest import ingest_bytes, ingest_paths, small_logs
from lanelog.ingest import run as run_module
from lanelog.ingest.lines import split_lines
from lanelog.ingest.load import Handover, store_stream
from lanelog.ingest.small_logs import Batcher
from lanelog.store.db import roll_back
from tests.ingest.support import attempts, counts, line, outcome, outcomes, stored

MERGED = {
    "outcome_id": "outcome-0123456789abcdef0123456789abcdef", "ts": "2026-10-08T14:03:00Z", "repo": "orders-service",
    "pull_request": {"repository": "octo-org/orders-service", "number": 42,
                     "url": "https://github.com/octo-org/orders-service/pull/42"},
    "head": "a" * 40, "state": "merged", "merged_at": "2026-10-08T14:03:00Z", "closed_at": "2026-10-08T14:03:00Z",
    "merged_by": {"login": "alice", "type": "User"},
    "auto_merge": {"enabled_by": {"login": "alice", "type": "User"}, "merge_method": "squash"},
    "author": {"login": "copilot-swe-agent[bot]", "type": "Bot"},
    "approvals": [{"login": "bob", "type": "User", "submitted_at": "2026-10-08T13:50:00Z", "commit_id": "b" * 40}],
    "labels": [{"name": "lanelog:accept-quarantine", "set_by": {"login": "carol", "type": "User"},
                "set_at": "2026-10-08T13:40:00Z"}],
    "merge_commit": "c" * 40,
    "ci_run": {"id": "9876543210", "attempt": 2,
               "url": "https://github.com/octo-org/orders-service/actions/runs/9876543210/attempts/2"},
}


def closed(n: int, **fields: object) -> bytes:
    """A short outcome line of pull request n, closed without merge."""
    return outcome(outcome_id=f"outcome-{n}", ts="2026-10-09T10:00:00Z", state="closed",
                   pull_request={"repository": "o/r", "number": n}, **fields)


def test_an_outcome_line_is_typed_into_outcomes_and_never_into_attempts(con: duckdb.DuckDBPyConnection) -> None:
    data = line(attempt_id="a1", ts="2026-10-08T12:00:00Z", probe="pass") + outcome(**MERGED)
    summary = ingest_bytes(con, "lane.jsonl", data)
    assert (summary.attempts_added, summary.outcomes_added, summary.duplicates) == (1, 1, 0)
    assert attempts(con, "line_no, attempt_id") == [(1, "a1")]
    (row,) = con.execute("SELECT * EXCLUDE (source_id) FROM outcomes").fetchall()
    names = [column[0] for column in con.description]
    assert dict(zip(names, row)) == {
        "line_no": 2, "byte_offset": len(line(attempt_id="a1", ts="2026-10-08T12:00:00Z", probe="pass")),
        "raw": outcome(**MERGED).decode().rstrip("\n"), "provisional": False,
        "outcome_id": MERGED["outcome_id"], "ts": datetime(2026, 10, 8, 14, 3), "week": date(2026, 10, 5),
        "repo": "orders-service", "producer": "lanelog-outcome",
        "pr_repository": "octo-org/orders-service", "pr_number": 42,
        "pr_url": "https://github.com/octo-org/orders-service/pull/42",
        "head": "a" * 40, "state": "merged",
        "merged_at": datetime(2026, 10, 8, 14, 3), "closed_at": datetime(2026, 10, 8, 14, 3),
        "merged_by": "alice", "merged_by_type": "User",
        "auto_merge": True, "auto_merge_by": "alice", "auto_merge_by_type": "User", "auto_merge_method": "squash",
        "author": "copilot-swe-agent[bot]", "author_type": "Bot",
        "approvals": [{"login": "bob", "type": "User", "submitted_at": datetime(2026, 10, 8, 13, 50),
                       "commit_id": "b" * 40}],
        "labels": [{"name": "lanelog:accept-quarantine", "set_by": "carol", "set_by_type": "User",
                    "set_at": datetime(2026, 10, 8, 13, 40), "via_app": None, "removed_at": None}],
        "merge_commit": "c" * 40,
        "ci_run_id": "9876543210", "ci_run_attempt": 2,
        "ci_run_url": "https://github.com/octo-org/orders-service/actions/runs/9876543210/attempts/2",
        "type_anomalies": [],
    }


def test_an_outcome_without_approvals_has_them_unknown_and_a_closed_one_no_merge(
    con: duckdb.DuckDBPyConnection,
) -> None:
    ingest_bytes(con, "lane.jsonl", closed(7, merged_by=None, auto_merge=None, merge_commit=None, approvals=[]) +
                 closed(8))
    assert outcomes(con, "pr_number, state, merged_by, auto_merge, merge_commit, approvals, labels, "
                         "type_anomalies") == [
        (7, "closed", None, False, None, [], None, []),
        (8, "closed", None, False, None, None, None, []),  # approvals absent: unknown, never "none"
    ]


HOSTILE = [
    ({"outcome_id": 7, "ts": [1], "repo": {"a": 1}, "state": True}, ["outcome_id", "ts", "repo", "state"]),
    ({"pull_request": {"repository": 7, "number": 42.5, "url": None}}, ["pull_request"]),
    ({"pull_request": {"number": "42"}}, ["pull_request"]),
    ({"pull_request": [42], "ci_run": "9876"}, ["pull_request", "ci_run"]),
    ({"merged_by": "alice", "author": {"login": ["a"]}}, ["merged_by", "author"]),
    ({"auto_merge": True}, ["auto_merge"]),
    ({"auto_merge": {"enabled_by": "alice", "merge_method": 1}}, ["auto_merge"]),
    ({"approvals": {"login": "bob"}, "labels": ["needs-review"]}, ["approvals", "labels"]),
    ({"approvals": [None, 3, {"login": "bob", "submitted_at": {}}]}, ["approvals"]),
    ({"labels": [{"name": 5, "set_by": {"login": "carol", "type": 2}}]}, ["labels"]),
    ({"approvals": [{"login": "bob"}] * 1001}, ["approvals"]),  # more than lanelog outcome ever writes
    ({"merged_at": "yesterday", "closed_at": 1791468180, "ts": "2026-13-45T00:00:00Z"}, []),
    ({"head": "x\u202e\u0000y", "state": "reopened", "merge_commit": None}, []),
]


@pytest.mark.parametrize(("fields", "named"), HOSTILE)
def test_a_field_of_an_unexpected_type_is_null_and_named_and_the_line_kept(
    con: duckdb.DuckDBPyConnection, fields: dict[str, object], named: list[str]
) -> None:
    data = outcome(**fields)
    summary = ingest_bytes(con, "lane.jsonl", data)
    assert summary.errors == [] and summary.outcomes_added == 1
    ((raw, anomalies),) = outcomes(con, "raw, type_anomalies")
    assert raw == data.decode().rstrip("\n")
    assert anomalies == named


def test_hostile_values_are_typed_by_the_rules_of_attempts(con: duckdb.DuckDBPyConnection) -> None:
    ingest_bytes(con, "lane.jsonl", b"".join([
        outcome(merged_at="yesterday", closed_at=1791468180, ts="2026-13-45T00:00:00Z", state="reopened"),
        outcome(approvals=[None, 3, {"login": "bob", "submitted_at": {}}], pull_request={"number": 2**63}),
        outcome(approvals=[{"login": "bob"}] * 1001, outcome_id=""),
    ]))
    assert outcomes(con, "ts, week, merged_at, closed_at, state, approvals, pr_number, outcome_id") == [
        (None, None, None, datetime(2026, 10, 8, 14, 3), "reopened", None, None, None),
        (None, None, None, None, None,
         [None, {"login": None, "type": None, "submitted_at": None, "commit_id": None},
          {"login": "bob", "type": None, "submitted_at": None, "commit_id": None}], None, None),
        (None, None, None, None, None, None, None, None),  # an empty outcome_id is none: never a duplicate
    ]


def test_a_kind_that_is_not_outcome_keeps_the_line_an_attempt_and_names_kind(con: duckdb.DuckDBPyConnection) -> None:
    data = b"".join([
        line(attempt_id="a1", kind="review"), line(attempt_id="a2", kind=7), line(attempt_id="a3", kind=None),
        line(attempt_id="a4", kind="Outcome"), b'{"attempt_id": "a5", "kind": "x", "kind": "outcome"}\n',
        line(attempt_id="a6", evidence={"kind": "outcome"}),
    ])
    summary = ingest_bytes(con, "lane.jsonl", data)
    assert (summary.attempts_added, summary.outcomes_added) == (6, 0)
    assert attempts(con, "attempt_id, type_anomalies") == [
        ("a1", ["kind"]), ("a2", ["kind"]), ("a3", []), ("a4", ["kind"]), ("a5", ["kind"]), ("a6", []),
    ]


def test_the_first_kind_of_a_line_decides_as_for_every_field(con: duckdb.DuckDBPyConnection) -> None:
    ingest_bytes(con, "lane.jsonl", b'{"kind": "outcome", "kind": "attempt", "outcome_id": "o1"}\n')
    assert outcomes(con) == [(1, "o1")] and attempts(con) == []


def test_an_outcome_line_with_escaped_words_is_found_and_stored_once(tmp_path: Path) -> None:
    """The reader keeps aside the lines that may be outcome lines by their text; a kind written
    with escapes is missed there, and the stream hands the lines over to the careful way."""
    escaped = b'{"\\u006bind": "\\u006futcome", "outcome_id": "o-escaped"}\n'
    data = b"".join(line(attempt_id=f"a{n}") for n in range(20)) + escaped + closed(1) + closed(1)
    reference = store.open_memory()
    whole = ingest_bytes(reference, "lane.jsonl", data)
    assert (whole.attempts_added, whole.outcomes_added, whole.duplicates) == (20, 2, 1)
    assert outcomes(reference) == [(21, "o-escaped"), (22, "outcome-1")]
    lines = split_lines(memoryview(data), base_offset=0, first_line_no=1, complete=True)
    assert lines.outcomes == [22, 23] and lines.unsure == []
    for leave_out_stored in (False, True):
        con = store.open_memory()
        con.execute("INSERT INTO sources VALUES (1, 'lane.jsonl', '', 0, 0, '', 0, '', 0, 0, now(), now())")
        con.execute("BEGIN TRANSACTION")
        assert store_stream(con, 1, [lines], leave_out_stored=leave_out_stored) is Handover.CAREFUL
        roll_back(con)
        con.close()
    log = tmp_path / "lane.jsonl"
    log.write_bytes(data)
    con = store.open_db(tmp_path / "t.duckdb")
    try:
        assert counts(ingest_paths(con, [log])) == counts(whole)
        assert stored(con) == stored(reference)
    finally:
        con.close()


@pytest.mark.parametrize("where", ["same log", "a copy sent again", "a later run", "another log"])
def test_an_outcome_id_seen_before_is_a_duplicate_counted_once(tmp_path: Path, where: str) -> None:
    first = line(attempt_id="a1") + closed(1) + line(attempt_id="a2")
    runs = {
        "same log": [("a.jsonl", first + closed(1))],
        "a copy sent again": [("a.jsonl", first), ("resent.jsonl", line(attempt_id="r0") + first)],
        "a later run": [("a.jsonl", first), ("a.jsonl", first + line(attempt_id="a3") + closed(1))],
        "another log": [("a.jsonl", first), ("rerun.jsonl", closed(1, ci_run={"id": "9", "attempt": 2}))],
    }[where]
    con = store.open_db(tmp_path / "t.duckdb")
    try:
        for name, data in runs:
            (tmp_path / name).write_bytes(data)
            ingest_paths(con, [tmp_path / name])
        assert outcomes(con) == [(2, "outcome-1")]
        assert con.execute("SELECT sum(duplicates) FROM sources").fetchone()[0] >= 1
        assert con.execute("SELECT sum(outcomes_added), sum(lines_read) - sum(attempts_added) - sum(duplicates) "
                           "FROM ingest_runs").fetchone() == (1, 1)
    finally:
        con.close()


def test_a_provisional_outcome_line_is_read_again_when_it_is_complete(tmp_path: Path) -> None:
    log = tmp_path / "lane.jsonl"
    log.write_bytes(line(attempt_id="a1") + closed(1)[:-1])  # the last line has no newline yet
    con = store.open_db(tmp_path / "t.duckdb")
    try:
        assert ingest_paths(con, [log]).outcomes_added == 1
        assert outcomes(con, "line_no, outcome_id, provisional") == [(2, "outcome-1", True)]
        log.write_bytes(line(attempt_id="a1") + closed(1) + closed(2))
        summary = ingest_paths(con, [log])  # (a run that reads the provisional line counts it again)
        assert (summary.lines_read, summary.outcomes_added, summary.duplicates) == (2, 2, 0)
        assert outcomes(con, "line_no, outcome_id, provisional") == [(2, "outcome-1", False), (3, "outcome-2", False)]
    finally:
        con.close()


def test_a_complete_outcome_line_takes_the_place_of_another_logs_provisional_one(tmp_path: Path) -> None:
    """No verdict rests on a line still being written: the complete line is the outcome, and
    the provisional one, read again when it is complete, is its duplicate."""
    (tmp_path / "writing.jsonl").write_bytes(closed(1)[:-1])
    (tmp_path / "done.jsonl").write_bytes(line(attempt_id="d1") + closed(1))
    con = store.open_db(tmp_path / "t.duckdb")
    try:
        ingest_paths(con, [tmp_path / "writing.jsonl"])
        ingest_paths(con, [tmp_path / "done.jsonl"])
        (tmp_path / "writing.jsonl").write_bytes(closed(1))
        third = ingest_paths(con, [tmp_path / "writing.jsonl"])
        assert (third.outcomes_added, third.duplicates) == (0, 1)
        assert con.execute("SELECT s.path, o.provisional FROM outcomes AS o JOIN sources AS s USING (source_id)"
                           ).fetchall() == [(str(tmp_path / "done.jsonl"), False)]
    finally:
        con.close()


def mixed(n: int) -> bytes:
    """Attempts, outcome lines (re-sent ones among them) and odd lines, as a lane log may mix them."""
    out = []
    for k in range(n):
        if k % 9 == 4:
            out.append(closed(k % 25, labels=[{"name": "x"}]))
        elif k % 17 == 8:
            out.append(b'{"kind": "outcome", "outcome_id": }\n')  # broken, though it looks like one
        elif k % 23 == 11:
            out.append(b'{"\\u006bind": "outcome", "outcome_id": "esc-%d"}\n' % (k % 2))
        else:
            out.append(line(attempt_id=f"a{k % 70}", ts="2026-10-08T12:00:00Z"))
    return b"".join(out)


@pytest.mark.parametrize("way", ["stream", "careful"])
def test_every_way_stores_outcome_lines_as_one_ingest_of_the_same_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, way: str
) -> None:
    data = mixed(300) + closed(99)[:-1]  # a provisional outcome line at the end
    reference = store.open_memory()
    whole = ingest_bytes(reference, "lane.jsonl", data)
    assert whole.outcomes_added == 25 + 2 + 1 and whole.rejected > 0 and whole.duplicates > 0
    monkeypatch.setattr(ingest.chunks, "ROW_GROUP_LINES", 8)
    monkeypatch.setattr(ingest.chunks, "GROUP_ROW_GROUPS", 2)
    monkeypatch.setattr(ingest.chunks, "CHUNK_BYTES", 512)
    streamed: list[int] = []  # the outcome lines each stream stored that did not hand over
    if way == "careful":
        monkeypatch.setattr("lanelog.ingest.one_log.store_stream", lambda *a, **k: Handover.CAREFUL)
    else:
        real = ingest.load.store_stream

        def stream(*args: object, **kwargs: object) -> object:
            result = real(*args, **kwargs)
            if not isinstance(result, Handover):
                streamed.append(result.outcomes)
            return result
        monkeypatch.setattr("lanelog.ingest.one_log.store_stream", stream)
    con = store.open_db(tmp_path / "t.duckdb")
    try:
        log = tmp_path / "lane.jsonl"
        log.write_bytes(data[:1000])  # in two runs, cut anywhere
        first = ingest_paths(con, [log])
        log.write_bytes(data)
        second = ingest_paths(con, [log])
        assert first.outcomes_added + second.outcomes_added >= whole.outcomes_added
        assert stored(con) == stored(reference)
        assert con.execute("SELECT lines_read, duplicates FROM sources").fetchall() == \
            reference.execute("SELECT lines_read, duplicates FROM sources").fetchall()
        # Groups without an escaped kind stream, outcome lines and all; the others go the careful way.
        assert (sum(streamed) > 0) == (way == "stream")
    finally:
        con.close()


class _OneLogWay(Batcher):
    """The batcher that holds no log: every log goes the one-log way."""

    def take(self, log: object) -> bool:
        return False


def write_week(folder: Path) -> None:
    """A week of CI artifacts: a route job's log per patch, an outcome job's per closed pull
    request (the jobs of four pull requests run twice: their lines are duplicates)."""
    folder.mkdir()
    for n in range(12):
        (folder / f"route-{n:03d}.jsonl").write_bytes(line(attempt_id=f"r{n}", ts="2026-10-08T12:00:00Z"))
        (folder / f"outcome-{n:03d}.jsonl").write_bytes(closed(n % 8, ci_run={"id": str(n), "attempt": 1}))


def one_log_way(paths: list[Path], monkeypatch: pytest.MonkeyPatch) -> tuple[duckdb.DuckDBPyConnection, object]:
    with monkeypatch.context() as patch:
        patch.setattr(run_module, "Batcher", _OneLogWay)
        reference = store.open_memory()
        return reference, ingest_paths(reference, paths)


def test_a_folder_of_outcome_jobs_logs_is_stored_in_batches_as_the_one_log_way_stores_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_week(tmp_path / "week")
    one_log: list[str] = []
    real = small_logs.ingest_log
    monkeypatch.setattr(small_logs, "ingest_log", lambda con, log, *a: one_log.append(log.name) or real(con, log, *a))
    con = store.open_memory()
    summary = ingest_paths(con, [tmp_path / "week"])
    assert one_log == []  # every log went into a batch
    assert (summary.files, summary.attempts_added, summary.outcomes_added, summary.duplicates) == (24, 12, 8, 4)
    reference, whole = one_log_way([tmp_path / "week"], monkeypatch)
    assert counts(summary) == counts(whole) and summary.outcomes_added == whole.outcomes_added
    assert sorted_rows(con) == sorted_rows(reference)


def test_a_batch_with_a_line_that_only_looks_like_an_outcome_goes_the_one_log_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_week(tmp_path / "week")
    (tmp_path / "week" / "route-odd.jsonl").write_bytes(line(attempt_id="odd", evidence={"kind": "outcome"}))
    con = store.open_memory()
    summary = ingest_paths(con, [tmp_path / "week"])
    reference, whole = one_log_way([tmp_path / "week"], monkeypatch)
    assert (summary.attempts_added, summary.outcomes_added) == (13, 8)
    assert counts(summary) == counts(whole)
    assert sorted_rows(con) == sorted_rows(reference)


def sorted_rows(con: duckdb.DuckDBPyConnection) -> list[list[tuple]]:
    """What stored() holds, each table's rows sorted (logs stored in another order get other ids)."""
    return [sorted(rows, key=repr) for rows in stored(con)]


def test_a_huge_outcome_line_fails_nothing(con: duckdb.DuckDBPyConnection) -> None:
    """A line under the 8 MiB limit with 300,000 labels: stored with its labels untyped, the
    lines around it as usual."""
    huge = outcome(outcome_id="big", labels=[{"name": "x" * 8}] * 300_000)
    assert len(huge) < 8 * 1024 * 1024
    summary = ingest_bytes(con, "lane.jsonl", line(attempt_id="a1") + huge + line(attempt_id="a2"))
    assert (summary.errors, summary.attempts_added, summary.outcomes_added) == ([], 2, 1)
    assert outcomes(con, "outcome_id, labels, type_anomalies") == [("big", None, ["labels"])]
    assert json.loads(outcomes(con, "raw")[0][0])["labels"][-1] == {"name": "x" * 8}
