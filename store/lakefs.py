"""A Parquet lake's layout: its tables' files, its week partitions, its state file and version.

A lake is a folder (store/folder.py) or an fsspec URL such as ``s3://bucket/lanelog``
where the matching fsspec package is installed (store/bucket.py), laid out as
Hive-partitioned Parquet::

    DIR/attempts/week=2026-10-05/data.parquet
    DIR/attempts/week=__HIVE_DEFAULT_PARTITION__/data.parquet   (the undated bucket)
    DIR/outcomes/data.parquet
    DIR/rejected_lines/data.parquet
    DIR/sources/data.parquet
    DIR/_lanelog/lake.json                                       (version and digests)

Each data file replaces the old one whole (a rename on a folder, one upload on an
object store), so a reader sees the old file or the new one, never half of either.
Names starting with "_" are skipped by Spark, Hive and DuckDB's ``*.parquet`` globs
alike.  Readers open exactly the files the state file lists.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import date
from typing import Any

from lanelog.errors import LakeError, SchemaMismatch
from lanelog.store.bucket import Bucket
from lanelog.store.folder import LocalFolder

# Bump with any change to the lake's tables, columns, types or their meaning (docs/lake.md).
LAKE_SCHEMA_VERSION = 7
# Hive's own name for a NULL partition value: Hive, Spark and Trino read it as NULL.
UNDATED = "__HIVE_DEFAULT_PARTITION__"
TABLES = ("attempts", "outcomes", "rejected_lines", "sources", "replays", "replay_patches")
DATA_FILE = "data.parquet"
STATE_FILE = "_lanelog/lake.json"
_STATE = ("_lanelog", "lake.json")
_LOCK = ("_lanelog", "export.lock")
# A state file lists a few hundred weeks; anything far larger is not one.
_STATE_LIMIT = 16 * 1024 * 1024


class LakeFolder:
    """A lake's root, a local folder or a prefix in an object store, and the files export keeps there."""

    def __init__(self, target: str | os.PathLike[str], endpoint_url: str | None = None) -> None:
        text = os.fspath(target)
        self.files: LocalFolder | Bucket = Bucket(text, endpoint_url) if "://" in text else LocalFolder(text)
        self.name = self.files.name  # a bucket's without a query string or user info

    @property
    def fs(self) -> Any:
        """The fsspec filesystem a reader registers to open the lake's URLs; None for a local folder."""
        return self.files.fs

    def url(self, *parts: str) -> str:
        """What a reader (DuckDB, Spark) opens: the path, with its protocol for a remote lake."""
        return self.files.url(*parts)

    def check_root(self, create: bool) -> None:
        """Refuse a root that cannot hold a lake (a file, a missing bucket); make a missing folder when create."""
        self.files.check_root(create)

    def exists(self, *parts: str) -> bool:
        return self.files.exists(*parts)

    def remove(self, *parts: str) -> None:
        """Remove a file or folder of the lake (never what a link points to)."""
        self.files.remove(*parts)

    # the data files ---------------------------------------------------------
    def partitions(self) -> list[str]:
        """The week partition values present under attempts/ on disk (for export's clean-up only)."""
        return [name.split("=", 1)[1] for name in self.files.listdir("attempts") if name.startswith("week=")]

    def listing(self) -> dict[str, dict[str, Any]] | None:
        """Every file of a lake in an object store, by key, with its size and time, from one listing;
        None for a local folder (asking about a local file costs no request)."""
        return self.files.listing() if isinstance(self.files, Bucket) else None

    def data_files(self, state: dict[str, Any],
                   listing: dict[str, dict[str, Any]] | None = None) -> dict[str, list[str]]:
        """Each table's data files the state lists, as URLs readers open.

        A file the state lists must be there: one deleted since the export wrote it is a
        LakeError naming it, and how many more are gone (read without it, report and check
        counted fewer attempts and said nothing).  Whether a file is there is read from
        `listing` when one is given (self.listing()), else asked of the store for each file.
        """
        def there(*parts: str) -> bool:
            return self.files.path(*parts) in listing if listing is not None else self.exists(*parts)

        listed = {table: self._listed(state, table) for table in TABLES}
        missing = [parts for table in TABLES for parts in listed[table] if not there(*parts)]
        if missing:
            more = f" (and {len(missing) - 1} more of its files)" if len(missing) > 1 else ""
            raise LakeError(f"the lake at {self.name} lists {self.url(*missing[0])}, which is not there{more}: "
                            f"its figures cannot be read whole; write it again with `lanelog export --lake "
                            f"{self.name}` from the database")
        return {table: [self.url(*parts) for parts in listed[table]] for table in TABLES}

    def _listed(self, state: dict[str, Any], table: str) -> list[tuple[str, ...]]:
        """The parts of each data file of a table the state lists (a week's file, or the table's one)."""
        if table != "attempts":
            return [(table, DATA_FILE)] if state.get(table) is not None else []
        weeks = state.get("attempts")
        if not isinstance(weeks, dict):
            raise LakeError(f"{self.url(STATE_FILE)}: not a lanelog lake state file (attempts is not an object)")
        for value in weeks:
            if not is_partition_value(value):
                raise LakeError(f"{self.url(STATE_FILE)}: not a lanelog lake state file "
                                f"(week {value!r} is not a Monday or {UNDATED})")
        return [("attempts", f"week={value}", DATA_FILE) for value in sorted(weeks)]

    def write_parquet(self, parts: tuple[str, ...], schema: Any, batches: Iterable[Any]) -> int:
        """Write batches so a reader sees the old file or the whole new one; rows written."""
        import pyarrow.parquet as pq

        rows = 0
        with self.files.replacing(parts) as sink, pq.ParquetWriter(sink, schema, compression="zstd") as writer:
            for batch in batches:
                writer.write_batch(batch)
                rows += batch.num_rows
        return rows

    def remove_temporaries(self) -> int:
        """Delete what an interrupted export left: hidden temporary files. Returns how many."""
        folders: list[tuple[str, ...]] = [(table,) for table in TABLES]
        folders += [("attempts", f"week={value}") for value in self.partitions()]
        folders.append(("_lanelog",))
        return self.files.remove_temporaries(folders)

    # the state file ----------------------------------------------------------
    def read_state(self) -> dict[str, Any] | None:
        """The lake's state file, or None when there is none (not a lake yet)."""
        data = self.files.read_bytes(_STATE, _STATE_LIMIT)
        if data is None:
            return None
        if len(data) > _STATE_LIMIT:
            raise LakeError(f"{self.url(STATE_FILE)}: not a lanelog lake state file (too large)")
        try:
            state = json.loads(data.decode("utf-8", errors="replace"))
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
        """Replace the state file whole (one rename on a folder, one put on an object store)."""
        self.files.write_bytes(_STATE, (json.dumps(state, indent=1, sort_keys=True) + "\n").encode("utf-8"))

    @contextmanager
    def export_lock(self) -> Iterator[None]:
        """Hold the lake for one export; a second export at once is refused, not interleaved."""
        with self.files.exclusive(_LOCK) as held:
            if not held:
                raise LakeError(f"another `lanelog export` is writing the lake at {self.name}; "
                                "run one export at a time")
            yield


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


def partition_value(week: Any) -> str:
    """The partition value of a week: its Monday as YYYY-MM-DD, or UNDATED for NULL."""
    return UNDATED if week is None else week.isoformat()
