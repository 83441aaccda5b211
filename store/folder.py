"""A lake's files in a local folder: nothing under the root is trusted to be what export left there.

A symbolic link is never followed when removing (the link goes, its target stays),
a folder export writes into that is a link or a file becomes a real folder first,
and a file is written under a hidden temporary name beside its final one, then
renamed over it, so a reader sees the old file or the whole new one.  Names
starting with "." are skipped by Spark, Hive and DuckDB's ``*.parquet`` globs alike.
"""

from __future__ import annotations

import os
import secrets
import shutil
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from typing import BinaryIO

from lanelog.errors import LakeError
from lanelog.files import open_lock

TEMP_SUFFIX = ".tmp"


class LocalFolder:
    """The lake's root as a local folder (made absolute: an engine given the files needs no working folder)."""

    fs = None  # no fsspec filesystem: DuckDB and Spark read local paths themselves

    def __init__(self, name: str) -> None:
        self.name = name
        self.root = os.path.abspath(name)

    def path(self, *parts: str) -> str:
        """The path of a file or folder inside the lake."""
        return "/".join([self.root, *parts])

    def url(self, *parts: str) -> str:
        """What a reader opens: the path itself."""
        return self.path(*parts)

    def check_root(self, create: bool) -> None:
        """Refuse a root that is not a folder (a file, a link loop); make it when create and missing."""
        try:
            mode = os.stat(self.root).st_mode
        except FileNotFoundError:
            if not create:
                return
            try:
                os.makedirs(self.root)
            except OSError as error:
                raise LakeError(f"cannot make the lake folder {self.name}: {error.strerror}") from None
            return
        except OSError as error:
            raise LakeError(f"cannot use {self.name} as a lake: {error.strerror}") from None
        if not stat.S_ISDIR(mode):
            raise LakeError(f"cannot use {self.name} as a lake: it is not a folder")

    def exists(self, *parts: str) -> bool:
        return self._real_folders(parts[:-1]) and os.path.lexists(self.path(*parts))

    def listdir(self, *parts: str) -> list[str]:
        """Names in a real folder of the lake (none when it is missing, a link or a file)."""
        if not self._real_folders(parts):
            return []
        try:
            return sorted(os.listdir(self.path(*parts)))
        except (FileNotFoundError, NotADirectoryError):
            return []

    def remove(self, *parts: str) -> None:
        """Remove a file or folder of the lake, never following a symbolic link."""
        if not self._real_folders(parts[:-1]):
            return  # behind a link: nothing export wrote is there
        where = self.path(*parts)
        try:
            mode = os.lstat(where).st_mode
        except FileNotFoundError:
            return
        if stat.S_ISDIR(mode):
            shutil.rmtree(where)  # fd-based: a link inside is unlinked, never descended into
        else:
            os.unlink(where)

    def read_bytes(self, parts: tuple[str, ...], limit: int) -> bytes | None:
        """At most limit + 1 bytes of a file (so a caller can tell it is larger); None when it is not there."""
        if not self._real_folders(parts[:-1]):
            return None
        try:
            with open(self.path(*parts), "rb") as source:
                return source.read(limit + 1)
        except FileNotFoundError:
            return None
        except OSError as error:
            raise LakeError(f"cannot read {self.url(*parts)}: {error.strerror}") from None

    def write_bytes(self, parts: tuple[str, ...], data: bytes) -> None:
        """Replace a small file whole, in one rename."""
        with self.replacing(parts) as sink:
            sink.write(data)

    @contextmanager
    def replacing(self, parts: tuple[str, ...]) -> Iterator[BinaryIO]:
        """A file written under a hidden temporary name, renamed over parts when the block ends;
        removed, and the old file left as it was, when the block fails."""
        folder, final = parts[:-1], parts[-1]
        self._make_folders(folder)
        temp = self.path(*folder, f".{final}.{secrets.token_hex(6)}{TEMP_SUFFIX}")
        try:
            with open(temp, "xb") as sink:
                yield sink
                sink.flush()
                os.fsync(sink.fileno())
            os.replace(temp, self.path(*parts))
        except BaseException:
            _discard(temp)
            raise

    def remove_temporaries(self, folders: list[tuple[str, ...]]) -> int:
        """Delete the hidden temporary files an interrupted write left in folders. Returns how many."""
        removed = 0
        for folder in folders:
            for name in self.listdir(*folder):
                if name.startswith(".") and name.endswith(TEMP_SUFFIX):
                    _discard(self.path(*folder, name))
                    removed += 1
        return removed

    @contextmanager
    def exclusive(self, parts: tuple[str, ...]) -> Iterator[bool]:
        """Hold a lock file for the block: yields False, holding nothing, when another process holds it."""
        import fcntl

        self._make_folders(parts[:-1])
        descriptor = open_lock(self.path(*parts))
        with os.fdopen(descriptor, "r+b") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                yield False
                return
            try:
                yield True
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def _make_folders(self, parts: tuple[str, ...]) -> None:
        """Make the folders of parts under the root as real folders (a link or file there is replaced)."""
        for depth in range(1, len(parts) + 1):
            where = self.path(*parts[:depth])
            try:
                mode = os.lstat(where).st_mode
            except FileNotFoundError:
                os.mkdir(where)
                continue
            if not stat.S_ISDIR(mode):
                os.unlink(where)  # a planted link or file: removed itself, its target untouched
                os.mkdir(where)

    def _real_folders(self, parts: tuple[str, ...]) -> bool:
        """Whether each of parts under the root is a real folder, not a link."""
        for depth in range(1, len(parts) + 1):
            try:
                if not stat.S_ISDIR(os.lstat(self.path(*parts[:depth])).st_mode):
                    return False
            except FileNotFoundError:
                return False
        return True


def _discard(where: str) -> None:
    try:
        os.unlink(where)
    except FileNotFoundError:
        pass
