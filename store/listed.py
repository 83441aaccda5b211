"""A lake's files in an object store as one listing saw them: what DuckDB reads a bucket lake through.

DuckDB asks a registered fsspec filesystem about each file it reads (a glob of its name,
its size, its time) every time a query opens it, and on an object store each question is
a request of its own: the Overview of a small lake in a bucket made hundreds of them
(docs/performance.md).  ListedFiles answers those questions from the one listing the lake
was opened with, and sends the store only reads of bytes, each of exactly the range DuckDB
asks for: s3fs's own read-ahead would fetch on to the end of the file, the columns a query
never reads with it.

A file is what the listing saw, so a reader lists the lake again when its state file
changes (every export rewrites it, after the data files).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from fsspec import AbstractFileSystem
from fsspec.utils import glob_translate

# What an object store calls a listed object's time of writing (s3fs, adlfs, gcsfs).
_TIME_KEYS = ("LastModified", "last_modified", "mtime", "updated")


class ListedFiles(AbstractFileSystem):  # type: ignore[misc]  # (fsspec is untyped)
    """The listed files of a store, read through its filesystem; nothing else of the store is there."""

    cachable = False  # each opening of a lake has its own listing: fsspec keeps no instance

    def __init__(self, store: Any, listing: Mapping[str, Mapping[str, Any]]) -> None:
        super().__init__()
        self.store = store
        self.protocol = store.protocol  # the URLs DuckDB sends here: the store's own
        self.listing = {key: dict(details) for key, details in listing.items()
                        if details.get("type", "file") == "file"}

    def _strip_protocol(self, path: Any) -> Any:  # (an instance's: the protocol is the store's)
        return self.store._strip_protocol(path)

    def unstrip_protocol(self, name: str) -> str:
        return str(self.store.unstrip_protocol(name))

    def info(self, path: str, **kwargs: Any) -> dict[str, Any]:
        key = self._strip_protocol(path)
        details = self.listing.get(key)
        if details is None:
            raise FileNotFoundError(f"{self.unstrip_protocol(key)}: not in the lake's listing")
        return {**details, "name": key, "type": "file"}

    def ls(self, path: str, detail: bool = True, **kwargs: Any) -> list[Any]:
        """The listed files just below path (DuckDB lists no folder of a lake; fsspec's glob would)."""
        folder = self._strip_protocol(path).rstrip("/") + "/"
        names = sorted(key for key in self.listing if key.startswith(folder) and "/" not in key[len(folder):])
        return [self.info(name) for name in names] if detail else names

    def glob(self, path: str, maxdepth: int | None = None, **kwargs: Any) -> list[str]:
        """The listed files path names, glob characters taken as fsspec takes them (DuckDB globs every
        file it is given: a lake's are escaped to name themselves alone, store/lake.py's literal_path)."""
        pattern = re.compile(glob_translate(self._strip_protocol(path)))
        return sorted(key for key in self.listing if pattern.match(key))

    def exists(self, path: str, **kwargs: Any) -> bool:
        return self.isfile(path) or self.isdir(path)

    def isfile(self, path: str) -> bool:
        return self._strip_protocol(path) in self.listing

    def isdir(self, path: str) -> bool:
        folder = self._strip_protocol(path).rstrip("/") + "/"
        return any(key.startswith(folder) for key in self.listing)

    def size(self, path: str) -> int:
        return int(self.info(path)["size"])

    def modified(self, path: str) -> datetime:
        """The file's time as listed: DuckDB keeps what it read of a file while this stays the same."""
        details = self.info(path)
        for key in _TIME_KEYS:
            value = details.get(key)
            if isinstance(value, datetime):
                return value
            if isinstance(value, (int, float)):
                return datetime.fromtimestamp(value, UTC)
        return self.store.modified(path)  # type: ignore[no-any-return]  # a store that lists no time

    def _open(self, path: str, mode: str = "rb", block_size: int | None = None, autocommit: bool = True,
              cache_options: dict[str, Any] | None = None, **kwargs: Any) -> Any:
        if mode != "rb":
            raise PermissionError(f"{self.unstrip_protocol(path)}: a lake is only read here")
        details = self.info(path)
        # The listed size and details spare the store a request for them; no read-ahead: DuckDB
        # reads what it needs (and keeps it, in its external file cache).
        handle = self.store.open(path, "rb", size=details["size"], cache_type="none")
        handle.details = details
        if details.get("ETag") and isinstance(getattr(handle, "read_kw", None), dict):
            # s3fs, as when it asks for the details itself: a read of an object replaced since
            # the listing fails (If-Match), never mixes two files' bytes.
            handle.read_kw = {**handle.read_kw, "IfMatch": details["ETag"]}
        return handle
