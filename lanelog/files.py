"""Files nobody vouches for, opened the one guarded way, and bytes appended whole.

A path from the command line, the environment or a runner may name a FIFO (an open for
reading waits for a writer, for ever), a device (/dev/zero feeds a read for ever), a socket
or a folder, or be swapped for one between a check and the open.  So a file is opened
without blocking and checked on the open descriptor: only a regular file is read, and
``NotRegular`` says what the path holds instead, for the caller to word as its own error.

``append`` is the one appender (lane-log lines, the job summary): each piece goes to a
descriptor opened with ``O_APPEND``, where the kernel places every write at the end, so the
lines of writers sharing a log never interleave.

A leaf: it imports nothing of lanelog, so every layer may use it.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from pathlib import Path

_KINDS: tuple[tuple[Callable[[int], bool], str], ...] = (
    (stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def kind(mode: int) -> str | None:
    """What a file of this mode is, in words ("a FIFO"), when it is no regular file; None when it is one."""
    if stat.S_ISREG(mode):
        return None
    return next((name for test, name in _KINDS if test(mode)), "a special file")


class NotRegular(OSError):
    """The path holds no regular file: ``mode`` is what it holds, ``kind`` says it in words ("a FIFO")."""

    def __init__(self, mode: int) -> None:
        self.mode = mode
        self.kind = kind(mode) or "a regular file"
        super().__init__(errno.EINVAL, f"it is {self.kind}, not a regular file")


def open_regular(path: str | os.PathLike[str], *, follow: bool = True) -> int:
    """A descriptor of the regular file at ``path``, open for reading (blocking again, closed on exec).

    Opened without blocking and checked on the descriptor, so nothing named in its place can
    hang the caller.  NotRegular when it is no regular file, OSError when it cannot be opened;
    with ``follow`` False a symbolic link is refused (ELOOP), never followed.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegular(mode)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_regular(path: str | os.PathLike[str], limit: int, *, follow: bool = True) -> bytes | None:
    """The bytes of the regular file at ``path``; None when it holds more than ``limit`` (by its size,
    or by what was read: it grew).  NotRegular and OSError as open_regular, and OSError when a read fails."""
    fd = open_regular(path, follow=follow)
    try:
        if os.fstat(fd).st_size > limit:
            return None
        chunks, size = [], 0
        while size <= limit and (chunk := os.read(fd, limit + 1 - size)):
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    return b"".join(chunks) if size <= limit else None


def append(path: Path, data: bytes, *, regular_only: bool = False, permissions: int = 0o644) -> None:
    """Append ``data`` whole to ``path``, creating the file with ``permissions``.

    ``regular_only``: only a regular file (or a new one) is written; anything else is refused
    (NotRegular) before it is opened for writing, and checked again on the descriptor, so a
    FIFO with no reader cannot hold the caller and nothing is written to what was swapped in.
    """
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC
    if regular_only:
        flags |= os.O_NONBLOCK
        try:
            _refuse_irregular(os.stat(path).st_mode)
        except FileNotFoundError:
            pass  # a new file: made by the open below
    fd = os.open(path, flags, permissions)
    try:
        if regular_only:
            _refuse_irregular(os.fstat(fd).st_mode)
        written = os.write(fd, data)
        # A regular file takes the whole buffer in one write unless the disk is full or a
        # signal interrupts it; finish the piece rather than leave half of it.
        while written < len(data):
            written += os.write(fd, data[written:])
    finally:
        os.close(fd)


def open_lock(path: str | os.PathLike[str]) -> int:
    """A descriptor of a lock file of the caller's own, for reading and writing, made if absent;
    a symbolic link in its place is refused (ELOOP), never followed."""
    return os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)


def _refuse_irregular(mode: int) -> None:
    if not stat.S_ISREG(mode):
        raise NotRegular(mode)
