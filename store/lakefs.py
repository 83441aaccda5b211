"""Where a Parquet lake lives: its layout, its state file and its atomic writes.

A lake is a folder (or an fsspec URL such as ``s3://bucket/lanelog`` where the
matching fsspec package is installed) laid out as Hive-partitioned Parquet::

    DIR/attempts/week=2026-10-05/data.parquet
    DIR/attempts/week=__HIVE_DEFAULT_PARTITION__/data.parquet   (the undated bucket)
    DIR/rejected_lines/data.parquet
    DIR/sources/data.parquet
    DIR/_lanelog/lake.json                                       (version and digests)

Each data file is written under a hidden temporary name beside its final one
and then renamed over it (on an object store: one upload of the final key), so
a reader sees the old file or the new one, never half of either.  Names
starting with "." or "_" are skipped by Spark, Hive and DuckDB's ``*.parquet``
globs alike.  Readers open exactly the files the state file lists.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import stat
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from datetime import date
from typing import Any

from lanelog.errors import LakeError, SchemaMismatch

# Bump with any change to the lake's tables, columns, types or their meaning (docs/lake.md).
LAKE_SCHEMA_VERSION = 3
# Hive's own name for a NULL partition value: Hive, Spark and Trino read it as NULL.
UNDATED = "__HIVE_DEFAULT_PARTITION__"
TABLES = ("attempts", "rejected_lines", "sources", "replays", "replay_patches")
DATA_FILE = "data.parquet"
STATE_FILE = "_lanelog/lake.json"
LOCK_FILE = "_lanelog/export.lock"
_TEMP_SUFFIX = ".tmp"
# An object-store upload goes in parts of this size (S3's least is 5 MiB, its most 10,000 parts).
_UPLOAD_PART = 16 * 1024 * 1024
# A state file lists a few hundred weeks; anything far larger is not one.
_STATE_LIMIT = 16 * 1024 * 1024
# Never shown: removed from any error text that passes through a remote call.
# The environment variables whose values are secrets: never shown, whatever an error says
# (the object-store ingest redacts with the same list).
_SECRET_VARIABLES = ("AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_ACCESS_KEY_ID",
                     "AZURE_STORAGE_KEY", "AZURE_STORAGE_CONNECTION_STRING")


class LakeFolder:
    """A lake's root: a local folder, or a folder on an fsspec filesystem (an object store).

    Nothing under the root is trusted to be what export left there: a symbolic link is
    never followed when removing (the link goes, its target stays), a folder export
    writes into that is a link or a file becomes a real folder first, and readers take
    the files the state file lists, not whatever folders are on disk.
    """

    def __init__(self, target: str | os.PathLike[str], endpoint_url: str | None = None) -> None:
        text = os.fspath(target)
        self.name = text
        if "://" in text:
            self.protocol, rest = text.split("://", 1)
            # A bucket's name has neither ':' nor '@': there, they are "KEY:SECRET@bucket".
            if any(mark in rest.split("/", 1)[0] for mark in ":@"):
                raise LakeError(f"{self.protocol}://...: a lake URL carries no credentials; "
                                  "give them in the environment (AWS_ACCESS_KEY_ID, AWS_PROFILE, ...)")
            self.root = rest.rstrip("/")
            if not self.root:
                raise LakeError(f"{text}: a lake URL names a bucket (and a prefix)")
            self.fs: Any = _fsspec_filesystem(text, endpoint_url)
        else:
            self.fs = None
            # Absolute: an engine given the files (Spark's Hadoop paths) needs no working folder.
            self.root = os.path.abspath(text)
            self.protocol = ""

    # paths ---------------------------------------------------------------
    def path(self, *parts: str) -> str:
        """The filesystem path of a file or folder inside the lake."""
        return "/".join([self.root, *parts])

    def url(self, *parts: str) -> str:
        """What a reader (DuckDB, Spark) opens: the path, with its protocol for a remote lake."""
        return f"{self.protocol}://{self.path(*parts)}" if self.protocol else self.path(*parts)

    def check_root(self, create: bool) -> None:
        """Refuse a root that is not a folder (a file, a link loop); make it when create and missing."""
        if self.fs is not None:
            self._check_bucket()
            return
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
        where = self.path(*parts)
        if self.fs:
            return bool(self._remote(self.fs.exists, where))
        return self._real_folders(parts[:-1]) and os.path.lexists(where)

    def makedirs(self, *parts: str) -> None:
        """Make the folders of parts under the root as real folders (a link or file there is replaced)."""
        if self.fs:
            return  # an object store has no folders: a key's prefix is enough
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

    def listdir(self, *parts: str) -> list[str]:
        """Names in a real folder of the lake (none when it is missing, a link or a file)."""
        where = self.path(*parts)
        if self.fs:
            if not self._remote(self.fs.exists, where):
                return []
            entries = self._remote(self.fs.ls, where, detail=False)
            return sorted(entry.rstrip("/").rsplit("/", 1)[-1] for entry in entries)
        if not self._real_folders(parts):
            return []
        try:
            return sorted(os.listdir(where))
        except (FileNotFoundError, NotADirectoryError):
            return []

    def remove(self, *parts: str) -> None:
        """Remove a file or folder of the lake, never following a symbolic link."""
        where = self.path(*parts)
        if self.fs:
            if self._remote(self.fs.exists, where):
                self._remote(self.fs.rm, where, recursive=True)
            return
        if not self._real_folders(parts[:-1]):
            return  # behind a link: nothing export wrote is there
        try:
            mode = os.lstat(where).st_mode
        except FileNotFoundError:
            return
        if stat.S_ISDIR(mode):
            shutil.rmtree(where)  # fd-based: a link inside is unlinked, never descended into
        else:
            os.unlink(where)

    def _real_folders(self, parts: tuple[str, ...]) -> bool:
        """Whether each of parts under the root is a real folder, not a link (local lakes)."""
        for depth in range(1, len(parts) + 1):
            try:
                if not stat.S_ISDIR(os.lstat(self.path(*parts[:depth])).st_mode):
                    return False
            except FileNotFoundError:
                return False
        return True

    # the data files ---------------------------------------------------------
    def partitions(self) -> list[str]:
        """The week partition values present under attempts/ on disk (for export's clean-up only)."""
        return [name.split("=", 1)[1] for name in self.listdir("attempts") if name.startswith("week=")]

    def data_files(self, state: dict[str, Any], table: str) -> list[str]:
        """The URLs of the table's data files the state lists (and that are there), as readers open them."""
        if table != "attempts":
            return [self.url(table, DATA_FILE)] if state.get(table) is not None and self.exists(table, DATA_FILE) \
                else []
        weeks = state.get("attempts")
        if not isinstance(weeks, dict):
            raise LakeError(f"{self.url(STATE_FILE)}: not a lanelog lake state file (attempts is not an object)")
        for value in weeks:
            if not is_partition_value(value):
                raise LakeError(f"{self.url(STATE_FILE)}: not a lanelog lake state file "
                                  f"(week {value!r} is not a Monday or {UNDATED})")
        return [self.url("attempts", f"week={value}", DATA_FILE) for value in sorted(weeks)
                if self.exists("attempts", f"week={value}", DATA_FILE)]

    def write_parquet(self, parts: tuple[str, ...], schema: Any, batches: Iterable[Any]) -> int:
        """Write batches so a reader sees the old file or the whole new one; rows written.

        On a folder: a hidden temporary file renamed over the final one.  On an object
        store: one put of the final key (an upload becomes visible only when complete),
        abandoned, never completed, when the writing fails.
        """
        import pyarrow.parquet as pq

        folder, final = parts[:-1], parts[-1]
        rows = 0
        if self.fs:
            with self._remote_upload(self.path(*parts)) as sink, \
                    pq.ParquetWriter(sink, schema, compression="zstd") as writer:
                for batch in batches:
                    writer.write_batch(batch)
                    rows += batch.num_rows
            return rows
        self.makedirs(*folder)
        temp = self.path(*folder, f".{final}.{secrets.token_hex(6)}{_TEMP_SUFFIX}")
        try:
            with open(temp, "xb") as sink:
                with pq.ParquetWriter(sink, schema, compression="zstd") as writer:
                    for batch in batches:
                        writer.write_batch(batch)
                        rows += batch.num_rows
                sink.flush()
                os.fsync(sink.fileno())
            os.replace(temp, self.path(*parts))
        except BaseException:
            self._discard(temp)
            raise
        return rows

    def remove_temporaries(self) -> int:
        """Delete what an interrupted export left: hidden temporary files. Returns how many."""
        if self.fs:
            return 0  # an object store's unfinished upload is never a visible object
        removed = 0
        folders = [(table,) for table in TABLES] + [("attempts", f"week={value}") for value in self.partitions()]
        folders.append(("_lanelog",))
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
        if self.fs:
            try:
                text = self._remote(self.fs.cat_file, where, missing_ok=True)
            except _Missing:
                return None
            text = text.decode("utf-8", errors="replace")
        else:
            if not self._real_folders(("_lanelog",)):
                return None
            try:
                with open(where, "rb") as source:
                    text = source.read(_STATE_LIMIT + 1).decode("utf-8", errors="replace")
            except FileNotFoundError:
                return None
            except OSError as error:
                raise LakeError(f"cannot read {self.url(STATE_FILE)}: {error.strerror}") from None
        if len(text) > _STATE_LIMIT:
            raise LakeError(f"{self.url(STATE_FILE)}: not a lanelog lake state file (too large)")
        try:
            state = json.loads(text)
        except json.JSONDecodeError as error:
            raise LakeError(f"{self.url(STATE_FILE)}: not a lanelog lake state file ({error})") from None
        if not isinstance(state, dict):
            raise LakeError(f"{self.url(STATE_FILE)}: not a lanelog lake state file (not an object)")
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
        """Replace the state file in one rename (one put on an object store)."""
        data = (json.dumps(state, indent=1, sort_keys=True) + "\n").encode("utf-8")
        if self.fs:
            self._remote(self.fs.pipe_file, self.path(STATE_FILE), data)
            return
        self.makedirs("_lanelog")
        temp = self.path("_lanelog", f".lake.json.{secrets.token_hex(6)}{_TEMP_SUFFIX}")
        try:
            with open(temp, "xb") as sink:
                sink.write(data)
            os.replace(temp, self.path(STATE_FILE))
        except BaseException:
            self._discard(temp)
            raise

    @contextmanager
    def export_lock(self) -> Iterator[None]:
        """Hold the lake for one export; a second export at once is refused, not interleaved."""
        if self.fs is not None:
            # An object store has no lock: one scheduled export per lake is the rule (docs/scale.md).
            yield
            return
        import fcntl

        self.makedirs("_lanelog")
        descriptor = os.open(self.path(LOCK_FILE), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
        with os.fdopen(descriptor, "r+b") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise LakeError(f"another `lanelog export` is writing the lake at {self.name}; "
                                  "run one export at a time") from None
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    # helpers -------------------------------------------------------------------
    def _check_bucket(self) -> None:
        """Fail early, naming the URL, when the bucket is missing or the credentials do not open it."""
        bucket = self.root.split("/", 1)[0]
        try:
            self._remote(self.fs.info, bucket, missing_ok=True)
        except _Missing:
            raise LakeError(f"cannot use the lake at {self.name}: the bucket {bucket} does not exist "
                              "(make it first; lanelog never creates buckets)") from None

    def _remote(self, call: Callable[..., Any], *args: Any, missing_ok: bool = False, **kwargs: Any) -> Any:
        """An fsspec call whose failures become one line naming the lake, never a secret."""
        try:
            return call(*args, **kwargs)
        except FileNotFoundError as error:
            if missing_ok:
                raise _Missing() from None
            raise LakeError(f"cannot use the lake at {self.name}: {redacted(str(error)) or 'not found'}") \
                from None
        except PermissionError as error:
            raise LakeError(f"cannot use the lake at {self.name}: access denied "
                              f"({redacted(str(error)) or 'forbidden'}); check the credentials in the "
                              "environment (AWS_ACCESS_KEY_ID, AWS_PROFILE, ...)") from None
        except Exception as error:  # noqa: BLE001 - an OSError, or the client library's own (botocore's)
            raise LakeError(f"cannot use the lake at {self.name}: {redacted(_first_line(error))}") from None

    @contextmanager
    def _remote_upload(self, where: str) -> Iterator[Any]:
        """A file on the object store that is completed on success and abandoned on failure."""
        sink = self._remote(self.fs.open, where, "wb", block_size=_UPLOAD_PART)
        try:
            yield sink
        except BaseException:
            sink.discard()
            sink.closed = True  # so that garbage collection does not complete the upload
            raise
        self._remote(sink.close)

    def _discard(self, where: str) -> None:
        try:
            os.unlink(where)
        except FileNotFoundError:
            pass


class _Missing(Exception):
    """A remote file that is not there (read_state's "no lake yet")."""


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def redacted(text: str) -> str:
    """text without the values of the credential variables in the environment."""
    for name in _SECRET_VARIABLES:
        value = os.environ.get(name)
        if value and len(value) >= 4:
            text = text.replace(value, "***")
    return text


def is_partition_value(value: object) -> bool:
    """Whether value names a week folder export writes: a Monday as YYYY-MM-DD, or UNDATED."""
    if value == UNDATED:
        return True
    if not isinstance(value, str) or len(value) != 10:
        return False
    try:
        return date.fromisoformat(value).isoformat() == value
    except ValueError:
        return False


def _fsspec_filesystem(url: str, endpoint_url: str | None) -> Any:
    """The fsspec filesystem of url's protocol; credentials come from its usual environment only."""
    try:
        import fsspec
    except ImportError:
        raise LakeError(f"{url}: a lake URL needs fsspec and the package for its protocol "
                          "(pip install 'lanelog[s3]' for s3://); a local folder needs neither") from None
    protocol = url.split("://", 1)[0]
    # A fresh instance with no listing cache: a lake another process just exported is read as it is now.
    options: dict[str, Any] = {"skip_instance_cache": True}
    if protocol in ("s3", "s3a"):
        options["use_listings_cache"] = False
        endpoint = endpoint_url or os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL")
        if endpoint:
            options["endpoint_url"] = endpoint
    try:
        return fsspec.filesystem(protocol, **options)
    except (ImportError, ValueError, TypeError) as error:
        raise LakeError(f"{url}: cannot open this filesystem: {redacted(str(error))}") from None


def partition_value(week: Any) -> str:
    """The partition value of a week: its Monday as YYYY-MM-DD, or UNDATED for NULL."""
    return UNDATED if week is None else week.isoformat()
