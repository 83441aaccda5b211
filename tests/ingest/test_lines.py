"""What one line becomes: an attempt, a rejected line, a duplicate, pending, or nothing (blank)."""

from __future__ import annotations

import json
from datetime import date, datetime

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lanelog.ingest import ingest_bytes
from lanelog.ingest.lines import split_lines
from tests.ingest.support import attempts, counts, line, rejected


def test_bom_crlf_and_blank_lines(con) -> None:
    data = (
        b'\xef\xbb\xbf{"attempt_id": "a1"}\r\n'  # BOM ignored, \r dropped
        b"\n"  # blank
        b" \t \r\n"  # blank
        b'{"attempt_id": "a2"}\r\r\n'  # only one trailing \r is dropped
        b'\xef\xbb\xbf{"attempt_id": "a3"}\n'  # a BOM inside the file is not JSON
    )
    summary = ingest_bytes(con, "lane.jsonl", data)
    assert counts(summary) == (3, 2, 0, 1, 0)
    assert attempts(con, "line_no, byte_offset, raw") == [
        (1, 3, '{"attempt_id": "a1"}'),
        (4, data.index(b'{"attempt_id": "a2"}'), '{"attempt_id": "a2"}\r'),
    ]
    assert rejected(con) == [
        (
            5,
            data.index(b'\xef\xbb\xbf{"attempt_id": "a3"}'),
            b'\xef\xbb\xbf{"attempt_id": "a3"}',
            '\ufeff{"attempt_id": "a3"}',
            "invalid_json",
        )
    ]


def test_invalid_utf8_is_kept_exactly_with_a_readable_text(con) -> None:
    data = b'{"repo": "caf\xc3\xa9"}\n{"repo": "caf\xe9"}\n\xed\xa0\x80\n'
    summary = ingest_bytes(con, "lane.jsonl", data)
    assert counts(summary) == (3, 1, 0, 2, 0)
    assert attempts(con, "line_no, repo") == [(1, "café")]
    assert rejected(con) == [
        (2, data.index(b'{"repo": "caf\xe9"}'), b'{"repo": "caf\xe9"}', '{"repo": "caf\\xe9"}', "invalid_utf8"),
        # a UTF-8 encoded surrogate is not valid UTF-8
        (3, data.index(b"\xed\xa0\x80"), b"\xed\xa0\x80", "\\xed\\xa0\\x80", "invalid_utf8"),
    ]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('{"merge_credit": NaN}', "invalid_json"),
        ('{"units": Infinity}', "invalid_json"),
        ('{"units": -Infinity}', "invalid_json"),
        ('{"units": [1, nan]}', "invalid_json"),  # DuckDB alone also takes these, in any case
        ('{"units": -inf}', "invalid_json"),
        ('{"quarantine": ["t",]}', "invalid_json"),  # trailing commas: DuckDB takes them
        ('{"repo": "svc" , }', "invalid_json"),
        ("NaN", "invalid_json"),
        ('{"repo": "svc"', "invalid_json"),
        ("{'repo': 'svc'}", "invalid_json"),
        ('{"a": 1} {"b": 2}', "invalid_json"),
        ('{"a": 1} // note', "invalid_json"),
        ('{"a": "\x01"}', "invalid_json"),  # a raw control character in a string
        ('{"a": 01}', "invalid_json"),
        ("\x0c{}", "invalid_json"),  # form feed is not JSON whitespace
        ("[1, 2]", "not_an_object"),
        ('"text"', "not_an_object"),
        ("42", "not_an_object"),
        ("null", "not_an_object"),
        ("true", "not_an_object"),
        ("[]", "not_an_object"),
    ],
)
def test_lines_that_are_not_json_objects_are_rejected_with_a_reason(con, text: str, reason: str) -> None:
    summary = ingest_bytes(con, "lane.jsonl", text.encode() + b"\n")
    assert counts(summary) == (1, 0, 0, 1, 0)
    assert rejected(con) == [(1, 0, text.encode(), text, reason)]


@pytest.mark.parametrize(
    "text",
    [
        "{}",
        '{"probe": "pass", "properties": [], "quarantine": [], "merge_credit": 0,'
        ' "model_call_allowed": true}',  # the seed's five-field shape, no ts
        '{"message": "NaN, Infinity and a trailing ,} in a string are text"}',
        '{"message": "\\",NaN"}',
        '{"units": 1e400, "budget_cap": -1E400}',  # RFC 8259 allows any size of number
        '  {"repo": "svc"}  ',
        '{"a": 1, "a": 2}',  # duplicate names: RFC 8259 says SHOULD be unique, not MUST
        '{"deep": ' + "[" * 300 + "]" * 300 + "}",
    ],
)
def test_every_json_object_is_an_attempt(con, text: str) -> None:
    summary = ingest_bytes(con, "lane.jsonl", text.encode() + b"\n")
    assert counts(summary) == (1, 1, 0, 0, 0)
    assert attempts(con) == [(1, text)]


def test_unknown_fields_stay_in_raw(con) -> None:
    text = '{"attempt_id": "a1", "extra": {"nested": [1, 2]}, "review": "pending"}'
    ingest_bytes(con, "lane.jsonl", text.encode() + b"\n")
    ((raw,),) = attempts(con, "raw")
    assert json.loads(raw) == json.loads(text)


def test_router_line_becomes_typed_columns(con) -> None:
    data = line(
        schema=1, ts="2026-10-08T12:00:00Z", attempt_id="r-1", repo="svc", base="b0", head="c0ffee",
        probe="pass", reasons=[], message=None, lines_changed=40, files=["store.py"],
        files_count=1, properties=["prop_round_trip", "prop_idempotent_put"], units=2,
        quarantine=["test_export_race"], expired_freezes=[], merge_credit=0,
        model_call_allowed=True, review="pending", producer="lanelog-route", budget_cap=3,
        line_cap=400, lane="hold", results={"prop_round_trip": "hold", "prop_idempotent_put": "hold"},
    )
    ingest_bytes(con, "lane.jsonl", data)
    row = con.execute(
        "SELECT attempt_id, ts, week, repo, head, producer, probe, lane, is_reject, armed,"
        " quarantined, has_credit, credit_bug, merge_credit, units, budget_cap, properties,"
        " quarantine, reasons, expired_freezes, CAST(results AS VARCHAR), type_anomalies,"
        " provisional FROM attempts"
    ).fetchone()
    assert row == (
        "r-1", datetime(2026, 10, 8, 12), date(2026, 10, 5), "svc", "c0ffee", "lanelog-route",
        "pass", "hold", False, True, True, False, False, "0", 2.0, 3.0,
        ["prop_round_trip", "prop_idempotent_put"], ["test_export_race"], [], [],
        '{"prop_round_trip":"hold","prop_idempotent_put":"hold"}', [], False,
    )


@pytest.mark.parametrize(
    ("merge_credit", "quarantine", "has_credit", "quarantined", "credit_bug"),
    [
        ("0", ["t"], True, True, True),  # the string "0" is truthy
        (0.0, ["t"], False, True, False),
        (-0.0, ["t"], False, True, False),
        (None, ["t"], False, True, False),
        ([], ["t"], False, True, False),
        ({}, ["t"], False, True, False),
        ("", ["t"], False, True, False),
        (1, [], True, False, False),
        (1, {}, True, False, False),
        (0.5, "test_x", True, True, True),  # a non-empty string quarantine is truthy
        (True, [None], True, True, True),
        ([0], [""], True, True, True),
    ],
)
def test_credit_bug_uses_python_truthiness(
    con, merge_credit, quarantine, has_credit: bool, quarantined: bool, credit_bug: bool
) -> None:
    ingest_bytes(con, "lane.jsonl", line(merge_credit=merge_credit, quarantine=quarantine))
    assert attempts(con, "has_credit, quarantined, credit_bug") == [
        (has_credit, quarantined, credit_bug)
    ]
    assert has_credit is bool(merge_credit) and quarantined is bool(quarantine)


@pytest.mark.parametrize(
    ("value", "armed"),
    [(True, True), (False, False), (None, False), (1, True), (0, False), ("no", True), ("", False)],
)
def test_armed_is_truthy_model_call_allowed(con, value, armed: bool) -> None:
    ingest_bytes(con, "lane.jsonl", line(model_call_allowed=value))
    assert attempts(con, "armed") == [(armed,)]


def test_absent_fields_are_falsy_and_null(con) -> None:
    ingest_bytes(con, "lane.jsonl", b"{}\n")
    assert attempts(
        con,
        "attempt_id, ts, week, probe, is_reject, armed, quarantined, has_credit, credit_bug,"
        " merge_credit, units, properties, quarantine, results, type_anomalies",
    ) == [(None, None, None, None, False, False, False, False, False, None, None, None, None, None, [])]


def test_probe_reject_is_exactly_the_string_reject(con) -> None:
    data = line(probe="reject") + line(probe="Reject") + line(probe=["reject"]) + line(probe="pass")
    ingest_bytes(con, "lane.jsonl", data)
    assert attempts(con, "is_reject, probe") == [
        (True, "reject"), (False, "Reject"), (False, None), (False, "pass")
    ]


def test_wrong_typed_fields_keep_the_row_and_are_flagged(con) -> None:
    data = line(
        attempt_id=7, ts=True, repo=["svc"], head=None, probe=1, model_call_allowed="yes",
        merge_credit="0", units="2", quarantine="t", properties={"p": 1}, reasons="r",
        results=["hold"], lane=3, producer=False, budget_cap="3", expired_freezes=0,
    )
    summary = ingest_bytes(con, "lane.jsonl", data)
    assert counts(summary) == (1, 1, 0, 0, 0)
    assert attempts(con, "attempt_id, ts, repo, probe, units, properties, results, type_anomalies") == [
        (
            None, None, None, None, None, None, None,
            [
                "attempt_id", "ts", "repo", "producer", "probe", "lane", "model_call_allowed",
                "quarantine", "merge_credit", "units", "budget_cap", "properties", "reasons",
                "expired_freezes", "results",
            ],
        )
    ]


def test_null_is_never_a_type_anomaly(con) -> None:
    fields = ["attempt_id", "ts", "repo", "head", "probe", "model_call_allowed", "merge_credit",
              "units", "quarantine", "properties", "reasons", "results", "lane"]
    ingest_bytes(con, "lane.jsonl", line(**dict.fromkeys(fields)))
    assert attempts(con, "type_anomalies, merge_credit") == [([], None)]


def test_lists_keep_their_elements_as_text(con) -> None:
    ingest_bytes(con, "lane.jsonl", line(properties=["p\u00e9", 1, None, [2], {"k": "v"}, True]))
    assert attempts(con, "properties") == [(["pé", "1", None, "[2]", '{"k":"v"}', "true"],)]


def test_string_fields_are_unescaped(con) -> None:
    ingest_bytes(con, "lane.jsonl", b'{"repo": "sv\\u00e9c\\n", "attempt_id": "a\\"1"}\n')
    assert attempts(con, "repo, attempt_id") == [("sv\u00e9c\n", 'a"1')]


def test_a_repeated_name_takes_its_first_value(con) -> None:
    # DuckDB reads the first of repeated names; Python's json takes the last.
    # raw keeps both; RFC 8259 leaves the meaning to the reader.
    text = '{"merge_credit": 1, "quarantine": ["t"], "merge_credit": 0}'
    ingest_bytes(con, "lane.jsonl", text.encode() + b"\n")
    assert attempts(con, "raw, has_credit, credit_bug") == [(text, True, True)]
    assert json.loads(text)["merge_credit"] == 0


def test_a_lone_surrogate_escape_is_invalid_json(con) -> None:
    # Python's json accepts "\ud800" (giving a string that is not Unicode);
    # DuckDB refuses it, so such a line is rejected, deterministically.
    text = '{"repo": "\\ud800"}'
    summary = ingest_bytes(con, "lane.jsonl", text.encode() + b"\n")
    assert counts(summary) == (1, 0, 0, 1, 0)
    assert rejected(con)[0][4] == "invalid_json"
    assert json.loads(text)["repo"] == "\ud800"


def test_nul_bytes(con) -> None:
    data = b'{"repo": "a\\u0000b"}\n{"repo": "a\x00b"}\n\x00\n'
    summary = ingest_bytes(con, "lane.jsonl", data)
    assert counts(summary) == (3, 1, 0, 2, 0)
    assert attempts(con, "repo") == [("a\x00b",)]
    assert [row[4] for row in rejected(con)] == ["invalid_json", "invalid_json"]


def test_line_numbers_and_offsets_count_every_physical_line(con) -> None:
    data = b'{"repo": "\xc3\xa9"}\n\n[1]\n   \n{"repo": "b"}\n'
    ingest_bytes(con, "lane.jsonl", data)
    assert attempts(con, "line_no, byte_offset") == [(1, 0), (5, data.index(b'{"repo": "b"}'))]
    assert rejected(con)[0][:2] == (3, data.index(b"[1]"))


# Texts of every length around the 12 bytes a string view holds inline, with
# characters of one to four bytes, and \r, NUL and spaces among them.
_texts = st.lists(
    st.text(alphabet=st.sampled_from(["a", "{", "\r", "\x00", " ", "é", "€", "𝄞", '"']), max_size=20),
    min_size=1, max_size=40,
)


@settings(max_examples=150, deadline=None)
@given(_texts, st.booleans())
def test_duckdb_reads_each_line_as_its_exact_text(texts: list[str], crlf: bool) -> None:
    """The string views handed to DuckDB point at each line's text, inline or not:
    its value, length, comparisons and order (which read a view's first bytes) are
    the text's own."""
    data = b"".join(text.encode() + (b"\r\n" if crlf else b"\n") for text in texts)
    lines = split_lines(memoryview(data), base_offset=1, first_line_no=1, complete=True)
    # One \r just before the newline is dropped: the terminator's, or else the text's last.
    expected = texts if crlf else [text[:-1] if text.endswith("\r") else text for text in texts]
    connection = duckdb.connect()
    connection.register("lane_lines", lines.table)
    got = connection.execute(
        "SELECT line, strlen(line), line = texts[line_no] "
        "FROM lane_lines, (SELECT $texts AS texts) ORDER BY line_no", {"texts": expected}
    ).fetchall()
    assert got == [(text, len(text.encode()), True) for text in expected]
    ordered = connection.execute("SELECT line FROM lane_lines ORDER BY line, line_no").fetchall()
    assert [row[0] for row in ordered] == sorted(expected, key=str.encode)
    assert connection.execute("SELECT count(DISTINCT line) FROM lane_lines").fetchone()[0] == len(set(expected))
