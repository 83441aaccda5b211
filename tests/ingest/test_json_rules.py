"""The JSON rules against Python's json module: validity, truthiness, ts and week.

The bulk path lets DuckDB parse.  These tests pin where its reading and
Python's agree, and each place where lanelog decides differently from
DuckDB's own JSON reader (NaN, Infinity, trailing commas) or from Python's
(lone surrogates, repeated names: see test_lines.py).
"""

from __future__ import annotations

import json
import math
import re
from datetime import UTC, date, datetime, timedelta, timezone

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from lanelog import lane_line
from lanelog.ingest import ingest_bytes
from lanelog.store import open_memory
from tests.depth import at_depths

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def python_verdict(text: str) -> str:
    """What a line is by the one rule (lanelog/lane_line.py: RFC 8259, judged with Python's json)."""
    verdict = lane_line.verdict_of(text.encode("utf-8", "surrogatepass"))[0]
    return "attempt" if verdict == lane_line.OBJECT else verdict


def lanelog_verdicts(texts: list[str]) -> list[str]:
    """The outcome of each line (by line number) after one ingest."""
    con = open_memory()
    data = "".join(text + "\n" for text in texts).encode()
    ingest_bytes(con, "lane.jsonl", data)
    outcome = {n: "attempt" for (n,) in con.execute("SELECT line_no FROM attempts").fetchall()}
    outcome.update(con.execute("SELECT line_no, reason FROM rejected_lines").fetchall())
    con.close()
    return [outcome.get(n, "blank") for n in range(1, len(texts) + 1)]


json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)


@at_depths(60, quick=12)
def test_serialized_values_are_classified_as_python_reads_them(examples: int) -> None:
    settings(FAST, max_examples=examples)(given(st.lists(json_values, min_size=1, max_size=12), st.booleans())(
        serialized_values_read_as_python))()


def serialized_values_read_as_python(values, compact: bool) -> None:
    separators = (",", ":") if compact else (", ", ": ")
    texts = [json.dumps(value, separators=separators, ensure_ascii=not compact) for value in values]
    assert lanelog_verdicts(texts) == [python_verdict(text) for text in texts]


# Pieces that make near-JSON: every rule the two readers could disagree on.
near_json_pieces = st.sampled_from(
    [
        "{", "}", "[", "]", ",", ":", " ", "\t", '"a"', '"b"', '"\\u00e9"', '"\\\\"', '"x,}"',
        "1", "-0", "0.5", "1e400", "01", ".5", "+1", "true", "false", "null", "nul", "NaN",
        "-Infinity", "inf", "nan", "Infinity", "\x0c", "'", '"', "\\",
    ]
)


@at_depths(60, quick=12)
def test_near_json_lines_are_judged_by_rfc_8259_like_python(examples: int) -> None:
    settings(FAST, max_examples=examples)(given(
        st.lists(st.lists(near_json_pieces, max_size=10).map("".join), min_size=1, max_size=10))(
        near_json_judged_as_python))()


def near_json_judged_as_python(texts) -> None:
    assume(all("\\ud" not in text.lower() for text in texts))
    assert lanelog_verdicts(texts) == [python_verdict(text) for text in texts]


@pytest.mark.parametrize(
    "text",
    ['{"a":NaN}', '{"a":[1,-Infinity]}', '{"a":[1,]}', '{"a":1,}', '{"a":{"b":nan}}', '[inf]'],
)
def test_duckdb_alone_would_take_these_lines(text: str) -> None:
    """DuckDB's json_valid accepts them; lanelog, like RFC 8259, does not."""
    con = open_memory()
    assert con.execute("SELECT json_valid(?)", [text]).fetchall() == [(True,)]
    assert con.execute("SELECT json_valid_rfc(?)", [text]).fetchall() == [(False,)]
    assert lanelog_verdicts([text]) == ["invalid_json"]


number_texts = st.one_of(
    st.integers().map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.builds(
        lambda sign, digits, frac, exp: f"{sign}{digits}{frac}{exp}",
        st.sampled_from(["", "-"]),
        st.sampled_from(["0", "1", "7", "10", "123456789012345678901234567890"]),
        st.sampled_from(["", ".0", ".000", ".5", ".0001"]),
        st.sampled_from(["", "e0", "E+5", "e-5", "e-400", "E400", "e999999", "e-999999"]),
    ),
)


_MACROS = open_memory()  # one database for the macro-only tests: they store nothing


@settings(max_examples=150, deadline=None)
@given(st.one_of(number_texts, json_values.map(json.dumps)))
def test_py_truthy_is_python_truthiness(text: str) -> None:
    value = json.loads(text)
    assume(not (isinstance(value, float) and math.isnan(value)))
    got = _MACROS.execute(
        "SELECT py_truthy(json_extract(?, '$.v'))", ['{"v": ' + text + "}"]
    ).fetchall()[0][0]
    assert got is bool(value)


def test_py_truthy_of_an_absent_key_is_false() -> None:
    assert _MACROS.execute("SELECT py_truthy(json_extract('{}', '$.v'))").fetchall() == [(False,)]


@pytest.mark.parametrize(
    ("ts", "expected"),
    [
        ("2026-10-08T12:00:00Z", datetime(2026, 10, 8, 12)),
        ("2026-10-08t12:00:00z", datetime(2026, 10, 8, 12)),
        ("2026-10-08 12:00:00", datetime(2026, 10, 8, 12)),  # no offset means UTC
        ("2026-10-08T12:00:00.123456Z", datetime(2026, 10, 8, 12, 0, 0, 123456)),
        ("2026-10-08T12:00:00+05:30", datetime(2026, 10, 8, 6, 30)),
        ("2026-10-11T23:30:00-02:00", datetime(2026, 10, 12, 1, 30)),  # a Sunday, but Monday in UTC
        ("2026-10-12T00:30:00+01:00", datetime(2026, 10, 11, 23, 30)),  # a Monday, but Sunday in UTC
        ("2026-10-08", datetime(2026, 10, 8)),
        (1791460800, datetime(2026, 10, 8, 12)),
        (1791460800.5, datetime(2026, 10, 8, 12, 0, 0, 500000)),
        (0, datetime(1970, 1, 1)),
        ("2026-10-08T24:00:00Z", None),
        ("2026-10-08T23:59:60Z", None),
        ("2026-02-30", None),
        ("2026-13-01", None),
        ("2026-10-8", None),
        ("2026-10-08T12:00Z", None),
        ("2026-10-08T12:00:00 America/New_York", None),
        ("0000-01-01", None),
        # The supported range: 1970-01-01 up to 2200-01-01 UTC; outside it, undated.
        ("9999-12-31T10:00:00Z", None),
        ("0001-01-01", None),
        ("1500-03-02T00:00:00Z", None),
        ("1970-01-01T00:30:00+01:00", None),  # 1969-12-31T23:30 in UTC
        ("1969-12-31T23:30:00-01:00", datetime(1970, 1, 1, 0, 30)),
        ("2199-12-31T23:59:59Z", datetime(2199, 12, 31, 23, 59, 59)),
        ("2200-01-01", None),
        (-1, None),
        (7258118399, datetime(2199, 12, 31, 23, 59, 59)),
        (7258118400, None),
        ("yesterday", None),
        ("", None),
        (1e20, None),
        (-1e20, None),
        (None, None),
    ],
)
def test_ts_and_week(con, ts, expected: datetime | None) -> None:
    ingest_bytes(con, "lane.jsonl", json.dumps({"ts": ts}).encode() + b"\n")
    week = expected.date() - timedelta(days=expected.weekday()) if expected else None
    assert con.execute("SELECT ts, week, type_anomalies FROM attempts").fetchall() == [
        (expected, week, [])
    ]


_TS_SHAPE = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})(?:[Tt ]([01][0-9]|2[0-3]):([0-5][0-9]):([0-5][0-9])(?:\.([0-9]+))?"
    r"([Zz]|([+-])((?:[01][0-9]|2[0-3])):([0-5][0-9]))?)?"
)


def python_ts(text: str) -> datetime | None:
    """The documented ts text rule (schema.sql, lane_ts_text), in Python: the UTC time in the
    supported range (1970-01-01 up to 2200-01-01), or None."""
    match = _TS_SHAPE.fullmatch(text)
    if match is None or text.startswith("0000"):
        return None
    year, month, day, hour, minute, second, fraction, _zone, sign, zone_hours, zone_minutes = match.groups()
    try:
        moment = datetime(int(year), int(month), int(day), int(hour or 0), int(minute or 0), int(second or 0),
                          int((fraction or "0").ljust(6, "0")))
    except ValueError:
        return None
    if sign:
        offset = timedelta(hours=int(zone_hours), minutes=int(zone_minutes))
        moment = moment - offset if sign == "+" else moment + offset
    return moment if datetime(1970, 1, 1) <= moment < datetime(2200, 1, 1) else None


@st.composite
def near_usual_ts(draw) -> str:
    """Texts of the usual shape, 2026-10-08T12:00:00Z, with fields out of range and a character changed."""
    fields = [draw(st.integers(0, 9999)), draw(st.integers(0, 13)), draw(st.integers(0, 32)),
              draw(st.integers(0, 25)), draw(st.integers(0, 61)), draw(st.integers(0, 61))]
    text = "{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}Z".format(*fields)
    for _ in range(draw(st.integers(0, 2))):
        place = draw(st.integers(0, len(text)))
        char = draw(st.sampled_from("0123456789 +-Tt:.Zz\t"))
        text = draw(st.sampled_from([text[:place] + char + text[place + 1:], text[:place] + char + text[place:],
                                     text[:place] + text[place + 1:]]))
    return text


@settings(max_examples=400, deadline=None)
@given(near_usual_ts())
def test_ts_text_of_the_usual_shape_and_near_it_follows_the_rule(text: str) -> None:
    """The usual shape is read by a faster way than the others: the same rule all the same."""
    fraction = re.search(r"\.([0-9]+)", text)
    assume(fraction is None or len(fraction.group(1)) <= 6)  # (DuckDB rounds past microseconds)
    try:
        expected = python_ts(text)
    except OverflowError:  # an offset past year 1 or 9999
        assume(False)
    assert _MACROS.execute("SELECT lane_ts_text(?)", [text]).fetchall() == [(expected,)]


def test_week_does_not_depend_on_the_session_time_zone(con) -> None:
    con.execute("SET TimeZone = 'Pacific/Kiritimati'")
    ingest_bytes(con, "lane.jsonl", b'{"ts": "2026-10-11T23:30:00"}\n{"ts": "2026-10-12"}\n')
    assert con.execute("SELECT week FROM attempts ORDER BY line_no").fetchall() == [
        (date(2026, 10, 5),), (date(2026, 10, 12),)
    ]


@settings(max_examples=80, deadline=None)
@given(st.datetimes(min_value=datetime(1971, 1, 1), max_value=datetime(2100, 1, 1)),
       st.integers(min_value=-23 * 60, max_value=23 * 60))
def test_week_is_the_monday_of_the_iso_week_in_utc(moment: datetime, offset_minutes: int) -> None:
    zone = timezone(timedelta(minutes=offset_minutes))
    local = moment.replace(microsecond=0, tzinfo=zone)
    utc = local.astimezone(UTC).replace(tzinfo=None)
    got = _MACROS.execute(
        "SELECT lane_ts(?, NULL) AS t, lane_week(t)", [local.isoformat()]
    ).fetchall()
    assert got == [(utc, utc.date() - timedelta(days=utc.weekday()))]
    assert got[0][1].isocalendar()[1] == utc.isocalendar()[1]
