"""Splitting a run of bytes into lines for the bulk path, without a Python loop per line.

The newline positions come from numpy and the lines are handed to DuckDB as
an Arrow string-view array over the same buffer (no copy): each value points
at a line's text, its terminator (the newline and one \r before it) left
out.  So each line's text is a value as it is, stored as `raw` without a copy
cut from it, and DuckDB reads one row per line.  UTF-8 is checked for the
whole run at once; only a run holding an invalid line is checked line by
line in Python.  What a line is, and where one ends, is lanelog/lane_line.py's rule (its BOM,
its newline, its \r); tests/ingest/test_one_reader.py holds this path to it on arbitrary bytes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from lanelog import lane_line

BOM = lane_line.BOM
NEWLINE = lane_line.NEWLINE[0]
CARRIAGE_RETURN = lane_line.CARRIAGE_RETURN[0]
OPEN_BRACE = ord("{")
CLOSE_BRACE = ord("}")
_BATCH_ROWS = 16384  # DuckDB scans Arrow batches in parallel, one batch per task
# ... and parses a batch's lines at once: a batch holds at most this much text (one line more
# than that alone), so a log of long lines (each with a usage object of 1,000 entries) is typed
# within the memory ingest holds DuckDB to, as a log of short ones is.
_BATCH_BYTES = 4 << 20
# What split_lines hands DuckDB: a row for each valid UTF-8 line, its text
# without the terminator; is_text is false for a line with no text at all.
LINES_SCHEMA = pa.schema(
    [("line_no", pa.int64()), ("byte_offset", pa.int64()), ("line", pa.string_view()), ("suspect", pa.bool_()),
     ("unsure", pa.bool_()), ("is_text", pa.bool_())]
)

# What DuckDB's JSON reader accepts and RFC 8259 does not, inside a line: a
# NaN / Infinity literal (any case) after "," ":" or "[", or a trailing comma.
# (At the very start of a line such a value is not an object anyway.)  Each
# pattern starts with one literal byte, which keeps the scan near memchr speed.
_LENIENT_VALUE = r"-?(?:[nN][aA]|[iI])"
_LENIENT_PATTERNS = (
    r",[ \t\r]*(?:[\]}]|" + _LENIENT_VALUE + ")",
    r":[ \t\r]*" + _LENIENT_VALUE,
    r"\[[ \t\r]*" + _LENIENT_VALUE,
)
# What an outcome line (`"kind": "outcome"`, lanelog outcome) holds, as lanelog writes it.
# Such a line is no attempt: the bulk path keeps it aside like the unsure lines, and SQL
# (schema.sql's lane_is_outcome) decides.  A key or value written with escapes is missed
# here; the statement then finds an outcome line it was not told of (load.sql's fail_broken),
# and the lines go the careful way.  Its first byte, k, is rare in lane-log lines, so the
# scan skips along nearly as fast as it reads (a pattern starting with a quote stops at every key).
_OUTCOME_PATTERN = r'kind"[ \t\r]*:[ \t\r]*"outcome"'


@dataclass
class Lines:
    """Physical lines starting at `first_line_no`, split for the bulk path."""

    data: memoryview
    base_offset: int  # file offset of data[0]
    first_line_no: int
    starts: np.ndarray  # offset of each line's first byte within data
    ends: np.ndarray  # end of each line's text within data (terminator and one \r excluded)
    table: pa.Table  # LINES_SCHEMA: the lines that are valid UTF-8
    invalid_utf8: list[int]  # line numbers of the lines that are not
    # The line numbers of the lines that may not be attempts: those that do not
    # start with "{" and end with "}" (blank and broken lines among them) and the
    # suspects of lenient_suspects.  Every other valid UTF-8 line is a JSON object
    # unless it is broken in its middle, which is rare enough to be found
    # afterwards (the table's `unsure` column tells SQL the same).
    unsure: list[int]
    # The line numbers of the lines that may be outcome lines (_OUTCOME_PATTERN), which are
    # no attempts: SQL is told they are unsure too, but a batch of small logs may hold them.
    outcomes: list[int] = field(default_factory=list)
    # A line too long to hold (chunks.MAX_LINE_BYTES) comes alone, in a Lines of
    # its own (long_line): not in `table`, and `data` holds only its last bytes.
    too_long: list[LongLine] = field(default_factory=list)
    # Valid lines with no text at all (a newline, or \r and a newline): blank, as
    # known here; in `table` with is_text false, so SQL never sees them.
    empty: int = 0

    @property
    def count(self) -> int:
        return len(self.starts)

    @property
    def counted(self) -> int:
        """The lines that count (load.Tally.lines): the empty ones are blank, counted nowhere."""
        return self.count - self.empty

    @property
    def valid(self) -> int:
        """How many lines are valid UTF-8 text for SQL (the is_text lines of `table`)."""
        return self.count - len(self.invalid_utf8) - len(self.too_long) - self.empty

    def head(self, lines: int) -> pa.Table:
        """The rows of `table` for its first `lines` lines (or more)."""
        return self.table.slice(0, lines)

    def raw(self, line_no: int) -> bytes:
        """The exact bytes of a line, without its terminator."""
        i = line_no - self.first_line_no
        return bytes(self.data[self.starts[i] : self.ends[i]])

    def offset(self, line_no: int) -> int:
        """The file offset of a line's first byte."""
        return self.base_offset + int(self.starts[line_no - self.first_line_no])


@dataclass(frozen=True)
class LongLine:
    """A line longer than a reader holds: never parsed, rejected as too_long
    with its first bytes kept (or pending, as the provisional last line)."""

    line_no: int
    offset: int  # file offset of its first byte
    size: int  # its bytes, terminator included
    head: bytes  # its first LONG_LINE_HEAD bytes

    def text(self) -> str:
        """What rejected_lines.text shows of it: its first bytes, and how long it is."""
        return f"{readable(self.head)} [... {self.size:,} bytes in all]"


LONG_LINE_HEAD = 4096  # the bytes kept of a line too long to hold (rejected_lines.raw)


def long_line(line: LongLine, ending: bytes) -> Lines:
    """The Lines of one line too long to hold: no text for SQL, and for data only
    `ending`, the bytes that end it (its last bytes, terminator included), which the
    reader's position checks read."""
    return Lines(
        data=memoryview(ending),
        base_offset=line.offset,
        first_line_no=line.line_no,
        starts=np.zeros(1, dtype=np.int64),
        ends=np.zeros(1, dtype=np.int64),
        table=LINES_SCHEMA.empty_table(),
        invalid_utf8=[],
        unsure=[],
        too_long=[line],
    )


def split_lines(
    data: memoryview, *, base_offset: int, first_line_no: int, complete: bool, newlines: np.ndarray | None = None
) -> Lines:
    """Split data into lines: every line ends in a newline when complete, else data is one
    provisional line.  A UTF-8 BOM at file offset 0 is skipped.  `newlines`, when the
    caller has them, are the positions of data's newlines."""
    array = np.frombuffer(data, dtype=np.uint8)
    first = 3 if base_offset == 0 and bytes(data[:3]) == BOM else 0
    if complete:
        if newlines is None:
            newlines = np.flatnonzero(array == NEWLINE)
        starts = np.empty(len(newlines), dtype=np.int64)
        starts[:1] = first
        starts[1:] = newlines[:-1] + 1
        ends = newlines.astype(np.int64)
    else:
        starts = np.array([first], dtype=np.int64)
        ends = np.array([len(data)], dtype=np.int64)
    # "A trailing \r is dropped": one, just before the newline (or at the end of a provisional line).
    before = np.maximum(ends - 1, 0)
    ends = ends - ((ends > starts) & (array[before] == CARRIAGE_RETURN))
    line_nos = np.arange(first_line_no, first_line_no + len(starts), dtype=np.int64)
    suspect = _mask(lenient_suspects(data, starts, first_line_no), len(starts), first_line_no)
    outcome = _mask(lines_matching(data, starts, first_line_no, (_OUTCOME_PATTERN,)), len(starts), first_line_no)
    empty = ends == starts  # blank: no need to keep them aside, or to ask SQL
    unsure = (_unsure(array, starts, ends) | suspect) & ~empty
    if _all_utf8(data, first):
        invalid: list[int] = []
        rows: slice | np.ndarray = slice(None)  # every line: views, not copies
    else:  # rare: which lines are valid, one by one
        valid = _valid_utf8(data, starts, ends)
        invalid = line_nos[~valid].tolist()
        rows = np.flatnonzero(valid)
    is_text = ~empty[rows]
    table = arrow_table(
        line_no=int64_array(line_nos[rows]),
        byte_offset=int64_array(starts[rows] + base_offset),
        line=string_views(data, starts[rows], ends[rows]),
        suspect=bool_array(suspect[rows]),
        unsure=bool_array((unsure | outcome)[rows]),
        is_text=bool_array(is_text),
    )
    return Lines(
        data=data,
        base_offset=base_offset,
        first_line_no=first_line_no,
        starts=starts,
        ends=ends,
        table=pa.Table.from_batches(_bounded(table, ends[rows] - starts[rows]), schema=LINES_SCHEMA),
        invalid_utf8=invalid,
        unsure=(np.flatnonzero(unsure) + first_line_no).tolist(),  # (in the thread that reads ahead)
        outcomes=(np.flatnonzero(outcome) + first_line_no).tolist(),
        empty=len(is_text) - int(np.count_nonzero(is_text)),
    )


def _bounded(table: pa.Table, sizes: np.ndarray) -> list[pa.RecordBatch]:
    """The table's rows in batches of at most _BATCH_ROWS rows and _BATCH_BYTES of text (or one row)."""
    total = int(sizes.sum()) if len(sizes) else 0
    if total <= _BATCH_BYTES:
        return table.to_batches(max_chunksize=_BATCH_ROWS)
    batches: list[pa.RecordBatch] = []
    reach = np.cumsum(sizes)
    start = 0
    while start < len(sizes):
        before = int(reach[start - 1]) if start else 0
        end = int(np.searchsorted(reach, before + _BATCH_BYTES, side="right"))
        end = min(max(end, start + 1), start + _BATCH_ROWS)
        batches += table.slice(start, end - start).to_batches()
        start = end
    return batches


def string_views(data: memoryview, starts: np.ndarray, ends: np.ndarray) -> pa.Array:
    """An Arrow string-view array of the texts data[starts[i]:ends[i]], pointing into data.

    A view is 16 bytes: the length, then a text of up to 12 bytes inline (zero
    padded), or its first 4 bytes, the buffer's index (0) and the text's offset.
    The texts must be valid UTF-8 (the caller checked them).
    """
    if len(data) >= 2**31:
        raise ValueError("a string view's offset is 32 bits: runs of lines are far shorter")
    count = len(starts)
    views = np.zeros((count, 16), dtype=np.uint8)
    words = views.view(np.int32)
    lengths = (ends - starts).astype(np.int32)
    words[:, 0] = lengths
    inline = lengths <= 12
    words[~inline, 3] = starts[~inline]
    array = np.frombuffer(data, dtype=np.uint8)
    # A byte place at a time (memory stays a few arrays of `count`), and only the
    # bytes of a text: its first 4, or all of an inline one.
    for place in range(12):
        has = lengths > place
        if place >= 4:
            has &= inline
        if has.all():
            views[:, 4 + place] = array[starts + place]
        elif has.any():
            views[has, 4 + place] = array[starts[has] + place]
        else:
            break  # (a place's texts are among the place before it's)
    return pa.Array.from_buffers(pa.string_view(), count, [None, pa.py_buffer(views), pa.py_buffer(data)])


def _all_utf8(data: memoryview, first: int) -> bool:
    """Whether data from `first` on is valid UTF-8, in one check: lines end at newlines,
    which no multi-byte character holds, so each line is valid when all of it is."""
    whole = pa.Array.from_buffers(
        pa.large_string(), 1, [None, pa.py_buffer(np.array([first, len(data)], dtype=np.int64)), pa.py_buffer(data)]
    )
    try:
        whole.validate(full=True)
    except pa.ArrowInvalid:
        return False
    return True


def _unsure(array: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Which lines (text from starts to ends in array) do not start with "{" and end with "}"."""
    if not len(array):
        return np.ones(len(starts), dtype=bool)
    first = array[np.minimum(starts, len(array) - 1)]
    last = array[np.maximum(ends - 1, 0)]
    return (ends <= starts) | (first != OPEN_BRACE) | (last != CLOSE_BRACE)


def _valid_utf8(data: memoryview, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """For a run that holds a line that is not valid UTF-8: which lines' texts are (a mask)."""
    valid = np.ones(len(starts), dtype=bool)
    for index, (start, end) in enumerate(zip(starts.tolist(), ends.tolist())):
        try:
            str(data[start:end], "utf-8")
        except UnicodeDecodeError:
            valid[index] = False
    return valid


# Arrow arrays built from buffers: pa.array() would import pandas to check its
# input, which costs a third of a second in a process that has not yet.
_EPOCH = datetime(1970, 1, 1)
_MICROSECOND = timedelta(microseconds=1)


def int64_array(values: np.ndarray | list[int]) -> pa.Array:
    """An int64 Arrow array."""
    data = np.ascontiguousarray(values, dtype=np.int64)
    return pa.Array.from_buffers(pa.int64(), len(data), [None, pa.py_buffer(data)])


def int32_array(values: np.ndarray | list[int]) -> pa.Array:
    """An int32 Arrow array."""
    data = np.ascontiguousarray(values, dtype=np.int32)
    return pa.Array.from_buffers(pa.int32(), len(data), [None, pa.py_buffer(data)])


def timestamp_array(values: list[datetime]) -> pa.Array:
    """A timestamp("us") Arrow array of datetimes without a zone (as the store keeps them: UTC)."""
    micros = [(value - _EPOCH) // _MICROSECOND for value in values]
    return int64_array(micros).view(pa.timestamp("us"))


def text_array(values: list[str | None]) -> pa.Array:
    """A large_string Arrow array of the given texts, None a null."""
    data = bytes_array([b"" if value is None else value.encode("utf-8") for value in values], pa.large_string())
    if all(value is not None for value in values):
        return data
    valid = bool_array(np.array([value is not None for value in values], dtype=bool))
    return pa.Array.from_buffers(pa.large_string(), len(values), [valid.buffers()[1], *data.buffers()[1:]])


def bool_array(values: np.ndarray) -> pa.Array:
    """A boolean Arrow array of a numpy bool array."""
    bits = np.packbits(np.asarray(values, dtype=bool), bitorder="little")
    return pa.Array.from_buffers(pa.bool_(), len(values), [None, pa.py_buffer(bits)])


def bytes_array(values: list[bytes], kind: pa.DataType) -> pa.Array:
    """A large_binary or large_string Arrow array of the given byte strings."""
    offsets = np.zeros(len(values) + 1, dtype=np.int64)
    np.cumsum([len(value) for value in values], out=offsets[1:])
    return pa.Array.from_buffers(kind, len(values), [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(values))])


def arrow_table(**columns: pa.Array) -> pa.Table:
    """A table of the named arrays, in order."""
    return pa.Table.from_arrays(list(columns.values()), names=list(columns))


def _mask(line_nos: list[int], count: int, first_line_no: int) -> np.ndarray:
    """A mask over `count` lines from `first_line_no` of the given line numbers."""
    mask = np.zeros(count, dtype=bool)
    mask[np.asarray(line_nos, dtype=np.int64) - first_line_no] = True
    return mask


def lenient_suspects(data: memoryview, starts: np.ndarray, first_line_no: int) -> list[int]:
    """The line numbers of the lines (starting at `starts` in data) that may hold
    a NaN/Infinity literal or a trailing comma: only these lines need the
    line-by-line RFC 8259 check."""
    return lines_matching(data, starts, first_line_no, _LENIENT_PATTERNS)


def lines_matching(data: memoryview, starts: np.ndarray, first_line_no: int, patterns: tuple[str, ...]) -> list[int]:
    """The line numbers of the lines (starting at `starts` in data) in which one of the
    regular expressions `patterns` matches.

    One scan of the whole run per pattern (resumed after each hit), instead of
    one regex call per line.  The patterns cannot match across a newline.
    """
    suspects: set[int] = set()
    end = len(data)
    count = len(starts)
    for pattern in patterns:
        position = int(starts[0]) if count else end
        while position < end:
            rest = pa.Array.from_buffers(
                pa.large_binary(),
                1,
                [None, pa.py_buffer(np.array([position, end], dtype=np.int64)), pa.py_buffer(data)],
            )
            hit = pc.find_substring_regex(rest, pattern)[0].as_py()
            if hit < 0:
                break
            index = int(np.searchsorted(starts, position + hit, side="right")) - 1
            suspects.add(first_line_no + index)
            # Go on from the next line: one hit is enough to suspect a line.
            position = int(starts[index + 1]) if index + 1 < count else end
    return sorted(suspects)


def readable(raw: bytes) -> str:
    """A line's text for people: invalid UTF-8 bytes shown as \\xNN escapes."""
    return raw.decode("utf-8", "backslashreplace")
