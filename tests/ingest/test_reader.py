"""The Reader: a log's pieces read one ahead by a thread, and read again from an earlier position."""

from __future__ import annotations

import gzip
import io
import threading

import pytest

import lanelog.ingest.chunks as chunks
from lanelog.errors import IngestError
from lanelog.ingest.chunks import Reader
from lanelog.ingest.logfile import LogStream, bytes_log
from tests.ingest.support import line

DATA = b"".join(line(attempt_id=f"a{n}") for n in range(40))


def texts(reader: Reader) -> list[tuple[int, bytes]]:
    """(first line number, bytes) of each piece until the provisional one."""
    out = []
    for piece in reader:
        out.append((piece.lines.first_line_no if piece.lines else 0, piece.data()))
        if not piece.complete:
            break
    return out


@pytest.fixture
def small_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chunks, "CHUNK_BYTES", 100)


def test_the_reader_hands_over_every_piece_in_order(small_pieces: None) -> None:
    with bytes_log("lane.jsonl", DATA + b'{"cut') as log:
        reader = Reader(log, 0, 1)
        pieces = texts(reader)
        reader.close()
    assert b"".join(data for _, data in pieces) == DATA + b'{"cut'
    assert len(pieces) > 5  # pieces of at most 100 bytes
    # Each piece's first line number follows the lines of the pieces before it.
    assert [n for n, _ in pieces] == [1 + sum(data.count(b"\n") for _, data in pieces[:i]) for i in range(len(pieces))]
    assert pieces[-1] == (41, b'{"cut')


def test_restart_reads_from_the_given_position_and_drops_what_was_read_ahead(small_pieces: None) -> None:
    with bytes_log("lane.jsonl", DATA) as log:
        reader = Reader(log, 0, 1)
        for _ in range(5):
            next(reader)
        second = len(line(attempt_id="a0"))
        reader.restart(second, 2)
        pieces = texts(reader)
        reader.close()
    assert pieces[0][0] == 2
    assert b"".join(data for _, data in pieces) == DATA[second:]


def test_an_error_while_reading_is_raised_by_next_and_ends_the_pieces(small_pieces: None) -> None:
    broken = gzip.compress(DATA)[:-30]  # cut short: decompressing fails near the end
    with bytes_log("lane.jsonl.gz", broken) as log:
        reader = Reader(log, 0, 1)
        with pytest.raises(IngestError, match="lane.jsonl.gz"):
            texts(reader)
        with pytest.raises(StopIteration):
            next(reader)
        reader.close()


def test_close_stops_the_thread_while_it_waits_to_hand_over(small_pieces: None) -> None:
    with bytes_log("lane.jsonl", DATA) as log:
        reader = Reader(log, 0, 1)
        next(reader)
        reader.close()
        assert not [t for t in threading.enumerate() if t.name == "lanelog-read-ahead"]
        with pytest.raises(StopIteration):
            next(reader)


def test_the_reader_reads_a_plain_stream_too(small_pieces: None) -> None:
    log = LogStream("lane.jsonl", io.BytesIO(DATA), len(DATA))
    reader = Reader(log, 0, 1)
    assert b"".join(data for _, data in texts(reader)) == DATA
    reader.close()


def groups(data: bytes, *, gzipped: bool = False) -> list[int]:
    """The lines of each group (transaction) read_pieces makes of a log."""
    stream = gzip.compress(data) if gzipped else data
    with bytes_log("lane.jsonl.gz" if gzipped else "lane.jsonl", stream) as log:
        counts, lines = [], 0
        for piece in chunks.read_pieces(log, 0, 1):
            if piece.complete:
                lines += piece.lines.count
            if piece.ends_group and lines:
                counts.append(lines)
                lines = 0
    return counts


@pytest.fixture
def small_groups(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chunks, "ROW_GROUP_LINES", 4)
    monkeypatch.setattr(chunks, "GROUP_ROW_GROUPS", 2)  # groups of 8 lines
    monkeypatch.setattr(chunks, "CHUNK_BYTES", 100)


def test_a_log_s_last_lines_join_the_group_before_when_fewer_than_a_row_group(small_groups: None) -> None:
    lines = [line(attempt_id=f"a{n:02d}") for n in range(30)]  # all of one length
    assert groups(b"".join(lines[:9])) == [9]  # one line left: it joins
    assert groups(b"".join(lines[:11])) == [11]  # three: less than a row group's worth
    assert groups(b"".join(lines[:12])) == [8, 4]  # four: a row group's worth, a group of its own
    assert groups(b"".join(lines[:17])) == [8, 9]
    # Past the one row group more the group takes, the rest is a group of its own.
    assert groups(b"".join(lines[:8]) + b"{}\n" * 6) == [12, 2]


def test_a_stream_of_unknown_size_keeps_its_groups(small_groups: None) -> None:
    data = b"".join(line(attempt_id=f"a{n:02d}") for n in range(9))
    assert groups(data, gzipped=True) == [8, 1]
