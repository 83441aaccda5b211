"""Which stored log a file is, and where reading resumes: identity by content.

As log shippers do, a log is known by a hash of its first 4 KiB (all of it
while it is shorter), not by its path: a copy under another path, or a file
renamed by rotation, is the same log.  Before resuming at the recorded read
position, the bytes just before it are checked too, so a file rewritten in
place (truncated and restarted) is read again from its start as a new log.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass

import duckdb

from lanelog.ingest.logfile import LogStream
from lanelog.ingest.statements import statement

FINGERPRINT_BYTES = 4096
TAIL_BYTES = 4096


def digest(data: bytes | memoryview) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass
class Resume:
    """Where a run starts reading one log."""

    source_id: int | None  # None: a log not seen before
    head: bytes  # the log's first (up to) FINGERPRINT_BYTES bytes, as read now
    bytes_read: int  # committed position: reading resumes here
    lines_read: int  # physical lines before bytes_read
    duplicates: int  # committed duplicates so far
    tail: bytes  # the (up to) TAIL_BYTES bytes just before bytes_read
    unchanged: bool  # nothing new since the last run: no need to read on
    has_provisional: bool  # an earlier run read a provisional last line


def locate(con: duckdb.DuckDBPyConnection, log: LogStream) -> Resume:
    """Find the stored log this stream continues, or start a new one at offset 0."""
    head = log.read_at(0, FINGERPRINT_BYTES)
    for row in _candidates(con, head):
        source_id, bytes_read, lines_read, duplicates, tail_fp, bytes_seen, seen_fp = row
        found = continues(log.read_at, bytes_read, tail_fp, bytes_seen, seen_fp)
        if found is None:
            continue
        tail, unchanged = found
        # Past bytes_read there was a provisional last line; if it was an
        # attempt, its row is replaced when the line is read again.
        provisional = bytes_seen > bytes_read
        return Resume(
            source_id, head, bytes_read, lines_read, duplicates, tail, unchanged, provisional
        )
    return Resume(None, head, 0, 0, 0, b"", False, False)


def continues(read: Callable[[int, int], bytes], bytes_read: int, tail_fingerprint: str,
              bytes_seen: int, seen_fingerprint: str) -> tuple[bytes, bool] | None:
    """Whether a file whose head matched a stored log is that log: the bytes just before the
    recorded read position must digest as they did.  None when it is not; else those bytes
    and whether nothing is new past them (the provisional bytes seen, if any, unchanged).
    `read(offset, size)` reads the file, short only at its end.
    """
    tail = read(max(0, bytes_read - TAIL_BYTES), min(bytes_read, TAIL_BYTES))
    if len(tail) != min(bytes_read, TAIL_BYTES) or digest(tail) != tail_fingerprint:
        return None
    rest = read(bytes_read, bytes_seen - bytes_read + 1)
    return tail, len(rest) == bytes_seen - bytes_read and digest(rest) == seen_fingerprint


def _candidates(con: duckdb.DuckDBPyConnection, head: bytes) -> list[tuple]:
    """Stored logs whose fingerprinted first bytes agree with this head, longest read first.

    A log fingerprinted while shorter than 4 KiB is matched on as many bytes
    as it had then, so a small log that has grown is still the same log.
    """
    if not head:
        return []
    lengths = [row[0] for row in statement("fingerprint_lengths").rows(con, n=len(head))]
    if not lengths:
        return []
    keys = [digest(head[:length]) for length in lengths]
    return statement("fingerprint_candidates").rows(con, keys=keys)
