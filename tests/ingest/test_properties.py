"""Property tests: arbitrary bytes never lose a line, and reading in parts changes nothing.

Outcome lines (`"kind": "outcome"`) are in the mix: each ends as an outcome or a duplicate,
never as an attempt.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lanelog.ingest import ingest_bytes, ingest_paths
from lanelog.store import open_memory
from tests.depth import at_depths
from tests.ingest.support import counts, longest_line, stored

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
BOM = b"\xef\xbb\xbf"

ids = st.sampled_from(["a1", "a2", "a3", "", 7, None])
objects = st.builds(
    lambda attempt_id, probe, credit, quarantine: json.dumps(
        {"attempt_id": attempt_id, "probe": probe, "merge_credit": credit, "quarantine": quarantine}
    ).encode(),
    ids,
    st.sampled_from(["pass", "reject", None]),
    st.sampled_from([0, 1, "0", None, [], 0.0]),
    st.sampled_from([[], ["t"], None]),
)
outcome_lines = st.builds(
    lambda kind, outcome_id, state: json.dumps({"kind": kind, "outcome_id": outcome_id, "state": state}).encode(),
    st.sampled_from(["outcome", "outcome", "Outcome", 5, None]),
    st.sampled_from(["o1", "o2", "", 7, None]),
    st.sampled_from(["merged", "closed", None]),
)
fragments = st.one_of(
    objects,
    outcome_lines,
    st.sampled_from([b'{"\\u006bind": "outcome", "outcome_id": "o1"}', b'{"kind": "outcome", "outcome_id": }']),
    st.binary(max_size=12),
    st.sampled_from([b"", b" \t", b"\r", b"[1]", b"NaN", b'{"a": 1,}', b"\xff\xfe", b"{", b"}", b'"s"']),
)
line_files = st.builds(
    lambda bom, pieces, ending, eol: (BOM if bom else b"") + eol.join(pieces) + (eol if ending else b""),
    st.booleans(),
    st.lists(fragments, max_size=12),
    st.booleans(),
    st.sampled_from([b"\n", b"\r\n"]),
)
logs = st.one_of(line_files, st.binary(max_size=200))


def non_blank_lines(data: bytes, longest: int | None = None) -> int:
    """The lines a reader must account for: split on \\n, BOM and blank lines aside.
    A line longer than `longest` bytes (its newline and a leading BOM included;
    an unfinished last line of `longest` bytes is known to be longer) is never
    read as text, so it counts even when blank."""
    pieces = data.split(b"\n")
    if pieces[-1] == b"":
        pieces.pop()  # a final newline ends the last line; it does not start one
    finished = [True] * len(pieces)
    if pieces and not data.endswith(b"\n"):
        finished[-1] = False
    too_long = [longest is not None and (len(piece) + 1 > longest if ended else len(piece) >= longest)
                for piece, ended in zip(pieces, finished)]
    if pieces and data.startswith(BOM):
        pieces[0] = pieces[0][len(BOM):]
    return sum(1 for piece, long in zip(pieces, too_long) if long or piece.strip(b" \t\r"))


# Lines longer than the reader holds: with a limit of 80 bytes, some drawn objects are.
LONGEST = 80


def assert_one_outcome_each(data: bytes, limit: int | None) -> None:
    """Every non-blank line of data ends in exactly one outcome, and the stored rows agree."""
    with longest_line(limit):
        con = open_memory()
        summary = ingest_bytes(con, "lane.jsonl", data)
    stored_attempts, stored_rejected, stored_outcomes = stored(con)
    too_long = con.execute("SELECT count(*) FROM rejected_lines WHERE reason = 'too_long'").fetchone()[0]
    longest = max((len(row[1]) for row in con.execute("SELECT line_no, raw FROM attempts").fetchall()), default=0)
    con.close()
    lines, added, duplicates, rejected, pending = counts(summary)
    assert summary.errors == []
    assert lines == non_blank_lines(data, limit)
    assert lines == added + summary.outcomes_added + duplicates + rejected + pending
    assert (len(stored_attempts), len(stored_rejected), len(stored_outcomes)) == (
        added, rejected, summary.outcomes_added)
    assert pending <= 1
    if limit is None:
        assert too_long == 0
    else:
        assert too_long <= rejected and longest < limit


def assert_two_parts_equal_one_shot(data: bytes, cut: int, limit: int | None) -> None:
    """Ingesting data[:cut] and then data stores and records what ingesting data at once does."""
    with longest_line(limit):
        one_shot = open_memory()
        ingest_bytes(one_shot, "lane.jsonl", data)
        in_parts = open_memory()
        ingest_bytes(in_parts, "lane.jsonl", data[:cut])
        ingest_bytes(in_parts, "lane.jsonl", data)
    query = "SELECT bytes_read, bytes_seen, lines_read, duplicates FROM sources"
    assert stored(in_parts) == stored(one_shot)
    assert in_parts.execute(query).fetchall() == one_shot.execute(query).fetchall()
    one_shot.close()
    in_parts.close()


def one_outcome_each(data: bytes) -> None:
    assert_one_outcome_each(data, None)


def one_outcome_each_too_long(data: bytes) -> None:
    assert_one_outcome_each(data, LONGEST)


@at_depths(40, quick=10)
def test_every_non_blank_line_ends_in_exactly_one_outcome(examples: int) -> None:
    settings(SETTINGS, max_examples=examples)(given(logs)(one_outcome_each))()


@at_depths(40, quick=10)
def test_every_line_ends_in_one_outcome_when_lines_are_too_long_to_hold(examples: int) -> None:
    settings(SETTINGS, max_examples=examples)(given(logs)(one_outcome_each_too_long))()


@pytest.mark.slow  # each example ingests twice; the one-outcome properties stay in the fast tier
@SETTINGS
@given(logs, st.data())
def test_two_part_ingest_equals_one_shot_ingest(data: bytes, draw) -> None:
    cut = draw.draw(st.integers(min_value=0, max_value=len(data)), label="cut")
    assert_two_parts_equal_one_shot(data, cut, None)


@pytest.mark.slow  # as above, with lines too long to hold
@SETTINGS
@given(logs, st.data())
def test_two_part_ingest_equals_one_shot_ingest_when_lines_are_too_long_to_hold(data: bytes, draw) -> None:
    cut = draw.draw(st.integers(min_value=0, max_value=len(data)), label="cut")
    assert_two_parts_equal_one_shot(data, cut, LONGEST)


def seed_step6(path: Path) -> dict[str, int]:
    """The seed's Step 6 reader, verbatim apart from the path."""
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return {
        "attempts": len(rows),
        "probe_rejects": sum(r.get("probe") == "reject" for r in rows),
        "calls_armed": sum(bool(r.get("model_call_allowed")) for r in rows),
        "credit_bugs": sum(bool(r.get("merge_credit")) and bool(r.get("quarantine")) for r in rows),
    }


json_values = st.one_of(
    st.none(), st.booleans(), st.integers(-2, 2), st.sampled_from([0.0, -0.0, 0.5, 1e-300]),
    st.sampled_from(["", "0", "reject", "pass", " "]), st.lists(st.sampled_from(["t", 0, ""]), max_size=2),
    st.dictionaries(st.sampled_from(["k"]), st.integers(0, 1), max_size=1),
)
seed_rows = st.lists(
    st.dictionaries(
        st.sampled_from(["probe", "model_call_allowed", "merge_credit", "quarantine", "properties", "kind"]),
        st.one_of(json_values, st.just("outcome")),
    ),
    max_size=15,
)


@at_depths(40, quick=10)
def test_any_file_of_json_objects_gives_the_seed_readers_figures(tmp_path_factory, examples: int) -> None:
    """The seed reader knows no outcome line: it reads the attempts, the lines whose kind is
    not "outcome", and lanelog gives its figures over the whole file, outcome lines and all."""
    settings(SETTINGS, max_examples=examples)(given(seed_rows)(seed_readers_figures))(tmp_path_factory)


def seed_readers_figures(tmp_path_factory, rows) -> None:
    folder = tmp_path_factory.mktemp("seed")
    path, attempt_lines = folder / "lane-log.jsonl", folder / "attempts.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    attempt_lines.write_text("".join(json.dumps(row) + "\n" for row in rows if row.get("kind") != "outcome"))
    con = open_memory()
    summary = ingest_paths(con, [path])
    figures = con.execute(
        "SELECT count(*), count(*) FILTER (is_reject), count(*) FILTER (armed),"
        " count(*) FILTER (credit_bug) FROM attempts"
    ).fetchall()[0]
    con.close()
    assert dict(zip(["attempts", "probe_rejects", "calls_armed", "credit_bugs"], figures)) == seed_step6(attempt_lines)
    assert summary.outcomes_added == sum(row.get("kind") == "outcome" for row in rows)
