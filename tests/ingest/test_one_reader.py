"""One rule for what a lane-log line is (lanelog/lane_line.py), held by ingest's bulk path on arbitrary bytes.

Ingest splits and judges lines with numpy, Arrow and SQL; replay reads recorded lines with
the leaf itself.  These tests hold the first to the second: every line's outcome, and for
an attempt the fields a name given twice would change.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lanelog import lane_line
from lanelog.ingest import ingest_bytes
from lanelog.store import open_memory
from tests.depth import at_depths
from tests.ingest.support import longest_line

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
REJECTED = {lane_line.INVALID_UTF8, lane_line.INVALID_JSON, lane_line.NOT_AN_OBJECT, lane_line.TOO_LONG}

# Pieces of lines where two readers of JSON could differ: the BOM, NaN and Infinity, bytes that are
# no UTF-8 (an encoded surrogate among them), surrogate escapes alone and in pairs, a name given twice,
# controls and white space JSON has no place for, numbers too large for a double or an int, deep nesting.
PIECES = [
    b"{", b"}", b"[", b"]", b",", b":", b" ", b"\t", b"\r", b"\x0c", b"\x00", b'"a"', b'"probe"', b'"attempt_id"',
    b'"pass"', b'"reject"', b"1", b"-0", b"1e400", b"1" * 5000, b"0.5", b"01", b"true", b"null", b"NaN",
    b"-Infinity", b"nan", b"inf", b'"\\ud800"', b'"\\udc00x"', b'"\\ud83d\\ude00"', b'"\\ud83d\\u0041"',
    b'"\\\\ud800"', b'"\\u0000"', b'"\x01"', b'"\xe2\x80\xa8"', b"\xef\xbb\xbf", b"\xff", b"\xed\xa0\x80",
    b"\xc3\xa9", b'"\\x"', b"'",
]
OBJECTS = [
    b'{"probe": "reject", "probe": "pass"}', b'{"attempt_id": "a1", "attempt_id": "a2", "probe": "pass"}',
    b'{"probe": {"x": 1, "x": 2}}', b'{"attempt_id": "a1"}', b'{"n": NaN}', b'{"n": Infinity}', b'{"n": 1e999}',
    b'{"s": "\\ud800"}', b'{"\\udfff": 1}', b'{"s": "\\ud83d\\ude00"}', b'{"a": [1,]}', b'{"deep": ' + b"[" * 3000
    + b"]" * 3000 + b"}", b'{"probe": "pass"}\x0c', b"\xef\xbb\xbf{}", b"{} {}", b'{"probe": "\xff"}',
]
lines = st.one_of(st.lists(st.sampled_from(PIECES), max_size=8).map(b"".join), st.sampled_from(OBJECTS),
                  st.binary(max_size=10))
logs = st.builds(lambda bom, body, eol, end: (lane_line.BOM if bom else b"") + eol.join(body) + (eol if end else b""),
                 st.booleans(), st.lists(lines, max_size=10), st.sampled_from([b"\n", b"\r\n"]), st.booleans())


def assert_ingest_reads_as_the_rule(data: bytes, limit: int | None = None) -> None:
    with longest_line(limit):
        read = list(lane_line.read_lines([data]))
        con = open_memory()
        summary = ingest_bytes(con, "lane.jsonl", data)
    attempts = {row[0]: row[1:] for row in con.execute("SELECT line_no, probe, attempt_id FROM attempts").fetchall()}
    rejected = dict(con.execute("SELECT line_no, reason FROM rejected_lines").fetchall())
    con.close()
    assert summary.errors == []
    last_unfinished = bool(data) and not data.endswith(b"\n") and bool(read)
    objects = [line for line in read if line.verdict == lane_line.OBJECT]
    for line in read:
        pending = last_unfinished and line is read[-1]
        if line.verdict in REJECTED:
            assert rejected.get(line.number) == (None if pending else line.verdict), (line, data)
        else:
            assert line.number not in rejected, (line, data)
        if line.verdict != lane_line.OBJECT:
            assert line.number not in attempts, (line, data)
    # An object is an attempt or a duplicate of one; stored, its fields are its first values.
    assert set(attempts) <= {line.number for line in objects}
    assert summary.attempts_added + summary.duplicates == len(objects)
    for line in objects:
        if line.number in attempts:
            assert line.value is not None
            assert attempts[line.number] == tuple(
                value if isinstance(value, str) else None
                for value in (line.value.get("probe"), line.value.get("attempt_id"))), (line, data)
    assert summary.pending == sum(1 for line in read[-1:] if last_unfinished and line.verdict in REJECTED)


@at_depths(60, quick=12)
def test_ingest_reads_any_log_of_near_json_lines_as_the_rule_says(examples: int) -> None:
    settings(SETTINGS, max_examples=examples)(given(logs)(reads_as_the_rule))()


@at_depths(60, quick=12)
def test_ingest_reads_arbitrary_bytes_as_the_rule_says(examples: int) -> None:
    settings(SETTINGS, max_examples=examples)(given(st.binary(max_size=300))(reads_as_the_rule))()


def reads_as_the_rule(data: bytes) -> None:
    assert_ingest_reads_as_the_rule(data)


def reads_too_long_lines_as_the_rule(data: bytes) -> None:
    assert_ingest_reads_as_the_rule(data, limit=64)


@at_depths(60, quick=12)
def test_ingest_reads_lines_too_long_to_hold_as_the_rule_says(examples: int) -> None:
    settings(SETTINGS, max_examples=examples)(given(logs)(reads_too_long_lines_as_the_rule))()


@pytest.mark.parametrize(("text", "verdict", "value"), [
    (b"", lane_line.BLANK, None),
    (b" \t\r ", lane_line.BLANK, None),
    (b'{"probe": "reject", "probe": "pass"}', lane_line.OBJECT, {"probe": "reject"}),
    (b'{"a": {"b": 1, "b": 2}}', lane_line.OBJECT, {"a": {"b": 1}}),
    (b'{"n": NaN}', lane_line.INVALID_JSON, None),
    (b'{"n": -infinity}', lane_line.INVALID_JSON, None),
    (b'{"s": "\\ud800"}', lane_line.INVALID_JSON, None),
    (b'{"s": "\\ud83d\\ude00"}', lane_line.OBJECT, {"s": "\U0001f600"}),
    (b'{"s": "\\\\ud800"}', lane_line.OBJECT, {"s": "\\ud800"}),
    (b'{"s": "\xed\xa0\x80"}', lane_line.INVALID_UTF8, None),
    (b"\xef\xbb\xbf{}", lane_line.INVALID_JSON, None),  # a BOM past the file's start is text
    (b'{"n": 1e400}', lane_line.OBJECT, {"n": float("inf")}),
    (b'{"n": ' + b"7" * 5000 + b"}", lane_line.OBJECT, {"n": float("inf")}),
    (b"[1]", lane_line.NOT_AN_OBJECT, None),
    (b"\x0c{}", lane_line.INVALID_JSON, None),
])
def test_the_rule_says_what_a_line_is(text: bytes, verdict: str, value: object) -> None:
    assert lane_line.verdict_of(text) == (verdict, value)


def test_a_line_nested_deeper_than_pythons_stack_is_an_object_read_whole() -> None:
    depth = 200_000
    verdict, value = lane_line.verdict_of(b'{"probe": "pass", "d": ' + b"[" * depth + b"]" * depth + b', "d": 1}')
    assert verdict == lane_line.OBJECT and value is not None and value["probe"] == "pass"
    inner, levels = value["d"], 1  # the first "d", not the 1 given after it
    while inner:
        (inner,) = inner
        levels += 1
    assert (levels, inner) == (depth, [])
    assert lane_line.verdict_of(b'{"d": ' + b"[" * depth + b"NaN" + b"]" * depth + b"}")[0] == lane_line.INVALID_JSON
    assert lane_line.verdict_of(b"[" * depth + b"]" * (depth - 1))[0] == lane_line.INVALID_JSON


def _outcome(read, text: str) -> object:
    try:
        return ("value", read(text))
    except ValueError:
        return "invalid"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([piece.decode("utf-8", "replace") for piece in PIECES] + ["{}", "[]", '"x"']),
                max_size=12).map("".join))
def test_the_reader_of_deep_lines_reads_any_line_as_the_usual_one(text: str) -> None:
    # lane_line reads a line nested deeper than Python's stack with a reader of its own: the same rule.
    assert _outcome(lane_line._parsed_deep, text) == _outcome(lane_line._loads, text)


def test_lines_split_on_newlines_alone_a_bom_skipped_at_the_start_only() -> None:
    data = lane_line.BOM + b'{"a": 1}\r\n\xe2\x80\xa8x\ry\n' + lane_line.BOM + b"{}\n\nlast\r"
    assert list(lane_line.split([data[:5], data[5:]])) == [
        (1, b'{"a": 1}'), (2, b"\xe2\x80\xa8x\ry"), (3, lane_line.BOM + b"{}"), (4, b""), (5, b"last")]


def test_a_line_over_the_limit_with_its_newline_is_too_long_and_never_held(monkeypatch) -> None:
    monkeypatch.setattr(lane_line, "MAX_LINE_BYTES", 8)
    data = b"1234567\n12345678\n" + b"x" * 100 + b"\n1234567"
    pieces = [data[at:at + 3] for at in range(0, len(data), 3)]
    assert list(lane_line.split(pieces)) == [(1, b"1234567"), (2, None), (3, None), (4, b"1234567")]
    assert list(lane_line.split([b"12345678"])) == [(1, None)]  # unfinished, and as long as the limit
    assert json.dumps([line.verdict for line in lane_line.read_lines([data])]) == json.dumps(
        [lane_line.NOT_AN_OBJECT, lane_line.TOO_LONG, lane_line.TOO_LONG, lane_line.NOT_AN_OBJECT])
