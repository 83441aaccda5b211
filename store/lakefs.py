"""Where a Parquet lake lives: its layout, its state file and its atomic writes.

A lake is a folder (or an fsspec URL such as ``s3://bucket/lanelog`` where the
matching fsspec package is installed) laid out as Hive-partitioned Parquet::

    DIR/attempts/week=2026-10-05/data.parquet
    DIR/attempts/week=__HIVE_DEFAULT_PARTITION__/data.parquet   (the undated bucket)
    DIR/rejected_lines/data.parquet
    DIR/sources/data.parquet
    DIR/_lanelog/lake.json                                       (version and digests)

Each data file is written under a hidden temporary name beside its final one
and then renamed over it, so a reader sees the old file or the new one, never
half of either.  Names starting with "." or "_" are skipped by Spark, Hive and
DuckDB's ``*.parquet`` globs alike.
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from lanelog.errors import IngestError, SchemaMismatch

# Bump with any change to the lake's tables, columns, types or their meaning (docs/lake.md).
LAKE_SCHEMA_VERSION = 2
# Hive's own name for a NULL partition value: Hive, Spark and Trino read it as NULL.
UNDATED = "__HIVE_DEFAULT_PARTITION__"
TABLES = ("attempts", "rejected_lines", "sources")
DATA_FILE = "data.parquet"
STATE_FILE = "_lanelog/lake.json"
LOCK_FILE = "_lanelog/export.lock"
_TEMP_SUFFIX = ".tmp"


class LakeFolder:
    """A lake's root: a local folder, or a folder on an fsspec filesystem."""

    def __init__(self, target: str | os.PathLike[str]) -> None:
        text = os.fspath(target)
        self.name = text
        if "://" in text:
            self.fs: Any = _fsspec_filesystem(text)
            self.root = text.split("://", 1)[1].rstrip("/")
            self.protocol = text.split("://", 1)[0]
        else:
            self.fs = None
            self.root = str(Path(text))
            self.protocol = ""

    # paths ---------------------------------------------------------------
    def path(self, *parts: str) -> str:
        """The filesystem path of a file or folder inside the lake."""
        return "/".join([self.root, *parts])

    def url(self, *parts: str) -> str:
        """What a reader (DuckDB, Spark) opens: the path, with its protocol for a remote lake."""
        return f"{self.protocol}://{self.path(*parts)}" if self.protocol else self.path(*parts)

    def exists(self, *parts: str) -> bool:
        where = self.path(*parts)
        return self.fs.exists(where) if self.fs else os.path.exists(where)

    def makedirs(self, *parts: str) -> None:
        where = self.path(*parts)
        if self.fs:
            self.fs.makedirs(where, exist_ok=True)
        else:
            os.makedirs(where, exist_ok=True)

    def listdir(self, *parts: str) -> list[str]:
        """Names in a folder of the lake (none when it is missing)."""
        where = self.path(*parts)
        if self.fs:
            if not self.fs.exists(where):
                return []
            return sorted(entry.rstrip("/").rsplit("/", 1)[-1] for entry in self.fs.ls(where, detail=False))
        try:
            return sorted(os.listdir(where))
        except FileNotFoundError:
            return []

    def remove(self, *parts: str) -> None:
        where = self.path(*parts)
        if self.fs:
            if self.fs.exists(where):
                self.fs.rm(where, recursive=True)
        elif os.path.isdir(where):
            for name in os.listdir(where):
                os.remove(os.path.join(where, name))
            os.rmdir(where)
        elif os.path.exists(where):
            os.remove(where)

    # the data files ---------------------------------------------------------
    def partitions(self) -> list[str]:
        """The week partition values present under attempts/ (UNDATED for the undated bucket)."""
        return [name.split("=", 1)[1] for name in self.listdir("attempts") if name.startswith("week=")]

    def data_files(self, table: str) -> list[str]:
        """The URLs of a table's data files, as readers open them."""
        if table != "attempts":
            return [self.url(table, DATA_FILE)] if self.exists(table, DATA_FILE) else []
        return [self.url("attempts", f"week={value}", DATA_FILE) for value in self.partitions()
                if self.exists("attempts", f"week={value}", DATA_FILE)]

    def write_parquet(self, parts: tuple[str, ...], schema: Any, batches: Iterable[Any]) -> int:
        """Write batches to a hidden temporary file, then rename it over the final one; rows written."""
        import pyarrow.parquet as pq

        folder, final = parts[:-1], parts[-1]
        self.makedirs(*folder)
        temp = self.path(*folder, f".{final}.{secrets.token_hex(6)}{_TEMP_SUFFIX}")
        rows = 0
        try:
            with self._open_binary(temp) as sink:
                with pq.ParquetWriter(sink, schema, compression="zstd") as writer:
                    for batch in batches:
                        writer.write_batch(batch)
                        rows += batch.num_rows
                sink.flush()
                if self.fs is None:
                    os.fsync(sink.fileno())
            self._replace(temp, self.path(*parts))
        except BaseException:
            self._discard(temp)
            raise
        return rows

    def remove_temporaries(self) -> int:
        """Delete what an interrupted export left: hidden temporary files. Returns how many."""
        removed = 0
        folders = [(table,) for table in TABLES] + [("attempts", f"week={value}") for value in self.partitions()]
        for folder in folders:
            for name in self.listdir(*folder):
                if name.startswith(".") and name.endswith(_TEMP_SUFFIX):
                    self._discard(self.path(*folder, name))
                    removed += 1
        return removed

    # the state file ----------------------------------------------------------
    def read_state(self) -> dict[str, Any] | None:
        """The lake's state file, or None when there is none (not a lake yet)."""
        where = self.path(STATE_FILE)
        try:
            if self.fs:
                if not self.fs.exists(where):
                    return None
                text = self.fs.cat_file(where).decode("utf-8")
            else:
                text = Path(where).read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        try:
            state = json.loads(text)
        except json.JSONDecodeError as error:
            raise IngestError(f"{self.url(STATE_FILE)}: not a lanelog lake state file ({error})") from None
        if not isinstance(state, dict):
            raise IngestError(f"{self.url(STATE_FILE)}: not a lanelog lake state file (not an object)")
        return state

    def check_version(self, state: dict[str, Any]) -> None:
        found = state.get("lake_schema_version")
        if found != LAKE_SCHEMA_VERSION:
            raise SchemaMismatch(
                f"the lake at {self.name} has lake schema version {found}, and this lanelog "
                f"reads and writes version {LAKE_SCHEMA_VERSION}: export into a new folder "
                "(the lake is made from the database, so nothing is lost)"
            )

    def write_state(self, state: dict[str, Any]) -> None:
        """Replace the state file in one rename."""
        self.makedirs("_lanelog")
        data = (json.dumps(state, indent=1, sort_keys=True) + "\n").encode("utf-8")
        temp = self.path("_lanelog", f".lake.json.{secrets.token_hex(6)}{_TEMP_SUFFIX}")
        with self._open_binary(temp) as sink:
            sink.write(data)
        self._replace(temp, self.path(STATE_FILE))

    @contextmanager
    def export_lock(self) -> Iterator[None]:
        """Hold the lake for one export; a second export at once is refused, not interleaved."""
        if self.fs is not None:
            # An object store has no lock: one scheduled export per lake is the rule (docs/scale.md).
            yield
            return
        import fcntl

        self.makedirs("_lanelog")
        with open(self.path(LOCK_FILE), "a+b") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise IngestError(f"another `lanelog export` is writing the lake at {self.name}; "
                                  "run one export at a time") from None
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    # helpers -------------------------------------------------------------------
    def _open_binary(self, where: str) -> Any:
        return self.fs.open(where, "wb") if self.fs else open(where, "wb")

    def _replace(self, source: str, target: str) -> None:
        if self.fs:
            # An object store's put of a whole object is atomic; a rename is copy then delete.
            self.fs.mv(source, target)
        else:
            os.replace(source, target)

    def _discard(self, where: str) -> None:
        try:
            if self.fs:
                if self.fs.exists(where):
                    self.fs.rm(where)
            else:
                os.remove(where)
        except FileNotFoundError:
            pass


def _fsspec_filesystem(url: str) -> Any:
    try:
        import fsspec
    except ImportError:
        raise IngestError(f"{url}: a lake URL needs fsspec and the package for its protocol "
                          "(e.g. pip install s3fs); a local folder needs neither") from None
    try:
        return fsspec.filesystem(url.split("://", 1)[0])
    except (ImportError, ValueError) as error:
        raise IngestError(f"{url}: cannot open this filesystem: {error}") from None


def partition_value(week: Any) -> str:
    """The partition value of a week: its Monday as YYYY-MM-DD, or UNDATED for NULL."""
    return UNDATED if week is None else week.isoformat()
