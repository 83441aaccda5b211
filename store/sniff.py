"""What a file given as a database is, told by its first bytes, never by its name.

DuckDB opens a path ending .json, .jsonl, .csv or .parquet as a throwaway
in-memory database over that file, so a write there "succeeds" and stores
nothing; open_db asks here first and refuses anything but a DuckDB file.
"""

from __future__ import annotations

import os
import shlex
import stat
from pathlib import Path

from lanelog.files import kind, open_regular

# A DuckDB file starts with a checksum (8 bytes), then its magic bytes.
DUCKDB_MAGIC = b"DUCK"
DUCKDB_MAGIC_AT = 8
_HEAD_BYTES = 4096
_SUGGESTED_DB = "lanelog.duckdb"


def what_is(path: Path) -> str | None:
    """None when path holds nothing yet or a DuckDB file; else what it is, and what to run instead."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"it cannot be read ({exc.strerror})"
    if stat.S_ISDIR(info.st_mode):
        return "it is a folder, not a database; point --db at a file inside it (e.g. lanelog.duckdb)"
    if kind(info.st_mode) is not None:
        return "it is not a regular file (a pipe or a device), so it is not a database"
    head = _head(path)
    if head is None:
        return "it cannot be read"
    if head[DUCKDB_MAGIC_AT:DUCKDB_MAGIC_AT + len(DUCKDB_MAGIC)] == DUCKDB_MAGIC:
        return None
    return _not_duckdb(path, head)


def _head(path: Path) -> bytes | None:
    try:
        fd = open_regular(path)
    except OSError:
        return None
    try:
        return os.pread(fd, _HEAD_BYTES, 0)
    except OSError:
        return None
    finally:
        os.close(fd)


def _not_duckdb(path: Path, head: bytes) -> str:
    """The words for a file that is no DuckDB database."""
    shown = shlex.quote(str(path))
    ingest = f"run `lanelog ingest {shown} --db {_SUGGESTED_DB}`, then use --db {_SUGGESTED_DB}"
    if not head:
        return "it is an empty file, not a database; remove it, or point --db at another file"
    if head.startswith(b"PAR1"):
        return "it is a Parquet file, not a database; point --db at a lanelog database"
    if head.startswith(b"SQLite format 3\0"):
        return "it is a SQLite database, not a DuckDB one; point --db at a lanelog database"
    if head.startswith(b"\x1f\x8b"):
        return f"it is a gzip file (a compressed lane log?), not a database; to store a lane log, {ingest}"
    text = head.lstrip(b" \t\r\n")
    if text.startswith(b"{") and text.split(b"\n", 1)[0].rstrip().endswith(b"}"):
        return f"it is a lane log (JSON lines), not a database; to store its lines, {ingest}"
    if text.startswith((b"{", b"[")):
        return "it is a JSON file, not a database; point --db at a lanelog database"
    if _is_text(head):
        first = head.split(b"\n", 1)[0]
        kind = "a CSV file" if b"," in first or b"\t" in first else "a text file"
        return f"it is {kind}, not a database; point --db at a lanelog database"
    return "it is not a database at all; point --db at a lanelog database"


def _is_text(head: bytes) -> bool:
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 4:  # (a character cut at the end of the head is fine)
            return False
    return b"\0" not in head
