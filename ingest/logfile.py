"""Lane-log files as byte streams read by offset: plain files, gzip files and uploads.

Offsets always count the log's (decompressed) bytes.  A plain file is read
with positioned reads, so a run touches only the bytes it needs; a gzip file
can only be read forward, so each run decompresses it up to the point where
reading resumes.
"""

from __future__ import annotations

import gzip
import io
import os
import re
import zlib
from collections.abc import Iterator
from pathlib import Path

from lanelog.errors import IngestError
from lanelog.files import NotRegular, open_regular

LOG_SUFFIXES = (".jsonl", ".jsonl.gz")

# What a damaged or truncated gzip stream raises while it is read.
GZIP_ERRORS = (gzip.BadGzipFile, EOFError, zlib.error)


class LogStream:
    """An open log read by offset (gzip streams seek forward by decompressing)."""

    def __init__(self, name: str, fileobj: io.BufferedIOBase, size: int | None, *, held: bool = False) -> None:
        self.name = name  # the path or URL it was opened by (undecodable bytes as surrogates)
        self.shown = shown(name)  # the name in messages and in sources.path
        self._file = fileobj
        self.size = size  # bytes in the log now; None for gzip (known only once read)
        # Its bytes cannot change while it is read: an upload or an object held in
        # memory, or an object whose every read is pinned to the ETag it was listed with.
        self.held = held or isinstance(fileobj, io.BytesIO)

    def read_at(self, offset: int, size: int) -> bytes:
        """Up to `size` bytes from `offset`; fewer only at the end of the log."""
        buf = bytearray(size)
        got = self.readinto_at(offset, memoryview(buf))
        del buf[got:]
        return bytes(buf)

    def readinto_at(self, offset: int, view: memoryview) -> int:
        """Fill `view` from `offset`; returns the byte count (short only at the end)."""
        try:
            if self._file.tell() != offset:
                self._file.seek(offset)
            total = 0
            while total < len(view):
                got = self._file.readinto(view[total:])
                if not got:
                    break
                total += got
            return total
        except GZIP_ERRORS as exc:
            raise IngestError(f"{self.shown}: corrupt gzip data ({exc})") from exc
        except OSError as exc:
            raise IngestError(f"{self.shown}: cannot read ({exc.strerror or exc})") from exc

    def holds(self, offset: int, data: bytes) -> bool:
        """Whether the file holds `data` at `offset` now, read past any buffer.

        A plain file can be truncated and rewritten while it is read; a gzip
        stream (a rotated archive) and a held log (an upload, an object) are taken as they are.
        """
        if self.size is None or not data or self.held:
            return True
        try:
            return os.pread(self._file.fileno(), len(data), offset) == data
        except OSError:
            return False

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> LogStream:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def open_log(path: Path) -> LogStream:
    """Open a lane-log file; a name ending in .gz is read through gzip.

    Only a regular file is read.  The file is opened without blocking and checked
    on the open descriptor, so a FIFO cannot hang the run (while it holds the
    database) and a link to a device such as /dev/zero cannot feed it forever,
    even if the name is swapped between a check and the open.
    """
    try:
        fd = open_regular(path)
    except NotRegular as exc:
        raise IngestError(f"{shown(path)}: not a regular file ({exc.kind}); only regular files are read") from None
    except OSError as exc:
        raise IngestError(f"{shown(path)}: cannot open ({exc.strerror or exc})") from exc
    try:
        raw = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    if path.name.endswith(".gz"):
        return LogStream(str(path), gzip.GzipFile(fileobj=raw, mode="rb"), None)
    return LogStream(str(path), raw, os.fstat(raw.fileno()).st_size)


def shown(path: str | os.PathLike[str]) -> str:
    """A file name as people see it, in messages and in sources.path.

    Paths are bytes until they are shown: a name need not be UTF-8 (Python holds
    its undecodable bytes as surrogates, which no UTF-8 text, Arrow array or
    DuckDB string can carry) and may hold control characters (a newline, an
    escape sequence that would rewrite the terminal).  Both are shown as \\xNN;
    every other character as it is.
    """
    try:
        raw = os.fsencode(path)
    except UnicodeEncodeError:  # a lone surrogate that no undecodable byte became (an upload's name)
        raw = os.fspath(path).encode("utf-8", "backslashreplace")
    return _CONTROL.sub(lambda match: f"\\x{ord(match[0]):02x}", raw.decode("utf-8", "backslashreplace"))


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


def bytes_log(name: str, data: bytes) -> LogStream:
    """A log held in memory (an upload, a fetched object); a name ending in .gz is read through gzip, as for files."""
    fileobj = io.BytesIO(data)
    if name.endswith(".gz"):
        return LogStream(name, gzip.GzipFile(fileobj=fileobj, mode="rb"), None, held=True)
    return LogStream(name, fileobj, len(data), held=True)


def is_object_url(text: object) -> bool:
    """Whether an ingest argument is an object-store URL (s3://bucket/prefix/) rather than a local path.

    A str with a scheme; a local path of that shape is given as ./s3://...
    """
    return isinstance(text, str) and _URL.match(text) is not None


_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def expand_paths(paths: list[Path]) -> Iterator[Path | IngestError]:
    """Each log file named by paths: files as given, folders searched for *.jsonl(.gz).

    A path that does not exist, or a folder with no log below it, yields an
    IngestError in its place, so the caller can report it and go on with the others.
    """
    for path in paths:
        if path.is_dir():
            found = sorted(logs_below(path))
            if found:
                yield from found
            else:
                yield no_logs_in(path)
        elif path.exists():
            yield path
        else:
            yield IngestError(f"{shown(path)}: no such file or folder")


def logs_below(folder: Path) -> Iterator[Path]:
    """The *.jsonl and *.jsonl.gz files below a folder, as the walk finds them."""
    for root, _dirs, names in os.walk(folder):
        for name in names:
            if name.endswith(LOG_SUFFIXES):
                yield Path(root) / name


def no_logs_in(folder: Path) -> IngestError:
    """The error for a folder that holds no lane log: ingest reads *.jsonl and *.jsonl.gz below it."""
    return IngestError(f"{shown(folder)}: no lane logs in this folder (ingest reads the *.jsonl and "
                       "*.jsonl.gz files below it, and there are none)")
