"""A run's last line read as it streams: the members json.loads would give, whatever the chunks."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from lanelog.router.result_line import MAX_MEMBER, Oversized, ResultLine

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(alphabet=st.sampled_from('ab"\\{}[],: \u00e9\x01'), max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=20,
)


def scanned(data: bytes, cuts: list[int]) -> tuple[int, dict[str, Any] | None]:
    reader = ResultLine()
    start = 0
    for cut in sorted({min(cut, len(data)) for cut in cuts}) + [len(data)]:
        reader.feed(data[start:cut])
        start = cut
    return reader.last()


def expected(data: bytes) -> dict[str, Any] | None:
    lines = [line for line in data.split(b"\n") if line.strip(b" \t\r")]
    if not lines or not lines[-1].lstrip(b" \t\r").startswith(b"{"):
        return None
    try:
        value = json.loads(lines[-1])
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


@settings(max_examples=300, deadline=None)
@given(value=st.dictionaries(st.text(max_size=4), JSON, max_size=5), cuts=st.lists(st.integers(0, 400)),
       spaced=st.booleans())
def test_an_object_line_gives_what_json_loads_gives(value: dict[str, Any], cuts: list[int], spaced: bool) -> None:
    data = json.dumps(value, separators=(", ", ": ") if spaced else (",", ":")).encode()
    assert scanned(b"chatter\n" + data + b"\n \n", cuts)[1] == value


@settings(max_examples=300, deadline=None)
@given(value=st.dictionaries(st.text(max_size=4), JSON, min_size=1, max_size=5), at=st.integers(0, 10_000),
       byte=st.sampled_from(b'{}[],":\\x '), cuts=st.lists(st.integers(0, 400)))
def test_a_damaged_line_is_an_object_exactly_when_json_loads_reads_one(
        value: dict[str, Any], at: int, byte: int, cuts: list[int]) -> None:
    data = json.dumps(value).encode()
    at %= len(data)
    damaged = data[:at] + bytes([byte]) + data[at + 1:]
    assert scanned(damaged, cuts)[1] == expected(damaged)


def test_a_huge_usage_is_measured_not_held_and_the_token_after_it_is_read() -> None:
    usage = b'{"notes": [' + b'{"a": "]}\\"", "b": [1, 2]}, ' * 200_000 + b"0]}"
    line = b'{"usage": ' + usage + b', "token": "hold"}\n'
    reader = ResultLine()
    for start in range(0, len(line), 65536):
        reader.feed(line[start:start + 65536])
    length, members = reader.last()
    assert length == len(line) - 1
    assert members == {"usage": Oversized(len(b" " + usage)), "token": "hold"}  # as written, the space too
    assert len(usage) > MAX_MEMBER
