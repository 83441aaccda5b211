"""`lanelog export --lake DIR`: the database as an open Parquet lake, week by week.

Incremental: the state file records each week's row count and digest (see
export.sql); a run rewrites only the weeks whose digest changed, removes the
weeks the database no longer has, and leaves the rest alone, so a second run
writes nothing.  Atomic per week: each file replaces the old one whole (a rename
in a folder, one upload in a bucket: store/folder.py, store/bucket.py), and the
state file is updated after each, so an interrupted export (even kill -9) leaves
every week whole and the next run finishes the job.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import duckdb

from lanelog import __version__
from lanelog.errors import LakeError, StoreError
from lanelog.store.bucket import redacted
from lanelog.store.db import SCHEMA_VERSION, open_memory
from lanelog.store.lakefs import DATA_FILE, LAKE_SCHEMA_VERSION, LakeFolder, partition_value
from lanelog.store.sqlfile import load_resources

QUERIES = load_resources("lanelog.store", "export.sql")
_BATCH_ROWS = 128 * 1024


@dataclass
class ExportSummary:
    """What one export did: weeks written, removed and left alone, and whole tables written."""

    lake: str
    weeks_written: list[str] = field(default_factory=list)
    weeks_removed: list[str] = field(default_factory=list)
    weeks_unchanged: int = 0
    tables_written: list[str] = field(default_factory=list)
    attempts_written: int = 0
    temporaries_removed: int = 0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def export_lake(con: duckdb.DuckDBPyConnection, target: str | os.PathLike[str],
                progress: Callable[[str], None] | None = None, endpoint_url: str | None = None) -> ExportSummary:
    """Bring the lake at target up to date with the database on con."""
    lake = LakeFolder(target, endpoint_url)
    try:
        return _export(con, lake, progress or (lambda _message: None))
    except OSError as error:
        # A local folder that fails under the run (full disk, permissions): one line, the lake named.
        where = f" ({error.filename})" if error.filename else ""
        raise LakeError(f"cannot export to the lake at {lake.name}: {error.strerror or error}{where}") from None


def _export(con: duckdb.DuckDBPyConnection, lake: LakeFolder, say: Callable[[str], None]) -> ExportSummary:
    summary = ExportSummary(lake=lake.name)
    lake.check_root(create=True)
    with lake.export_lock():
        state = lake.read_state()
        if state is None:
            state = _new_state()
        else:
            lake.check_version(state)
            if state.get("database_schema_version") != SCHEMA_VERSION:
                # Another database schema may type the same lines differently: rewrite every week.
                state.update(_new_state())
        summary.temporaries_removed = lake.remove_temporaries()
        try:
            # sources first: a reader joining attempts to sources then always finds the path.
            _export_table(con, lake, state, "sources", "lake_sources_digest", "lake_sources", summary, say)
            _export_weeks(con, lake, state, summary, say)
            _export_table(con, lake, state, "outcomes", "lake_outcomes_digest", "lake_outcomes", summary, say)
            _export_table(con, lake, state, "rejected_lines", "lake_rejected_digest", "lake_rejected_lines",
                          summary, say)
            # Stored replays, so a dashboard on the lake shows them (What-if) as on the database.
            _export_table(con, lake, state, "replays", "lake_replays_digest", "lake_replays", summary, say)
            _export_table(con, lake, state, "replay_patches", "lake_replay_patches_digest",
                          "lake_replay_patches", summary, say)
        except LakeError:
            raise  # the lake's own failure already names the lake
        except (StoreError, duckdb.Error) as error:  # (a Parquet writer reading DuckDB's stream: untranslated)
            raise LakeError(f"cannot export to the lake at {lake.name}: {redacted(str(error))}") from None
    return summary


def _new_state() -> dict[str, Any]:
    return {
        "lake_schema_version": LAKE_SCHEMA_VERSION,
        "database_schema_version": SCHEMA_VERSION,
        "written_by": f"lanelog {__version__}",
        "attempts": {},
        "outcomes": None,
        "rejected_lines": None,
        "sources": None,
        "replays": None,
        "replay_patches": None,
    }


def _rows(con: duckdb.DuckDBPyConnection, name: str, **values: Any) -> list[dict[str, Any]]:
    return QUERIES[name].records(con, **values)


def _write(con: duckdb.DuckDBPyConnection, lake: LakeFolder, parts: tuple[str, ...], name: str,
           **values: Any) -> int:
    reader = QUERIES[name].arrow(con, _BATCH_ROWS, **values)
    return lake.write_parquet(parts, reader.schema, reader)


def _export_table(con: duckdb.DuckDBPyConnection, lake: LakeFolder, state: dict[str, Any], table: str,
                  digest_query: str, rows_query: str, summary: ExportSummary,
                  say: Callable[[str], None]) -> None:
    """A small table as one file, rewritten when its digest changed."""
    digest = _rows(con, digest_query)[0]
    if state.get(table) == digest and lake.exists(table, DATA_FILE):
        return
    _write(con, lake, (table, DATA_FILE), rows_query)
    state[table] = digest
    lake.write_state(state)
    summary.tables_written.append(table)
    say(f"{table}: {digest['rows']} rows written")


def _export_weeks(con: duckdb.DuckDBPyConnection, lake: LakeFolder, state: dict[str, Any],
                  summary: ExportSummary, say: Callable[[str], None]) -> None:
    """Rewrite each changed week in its own file swap; drop weeks the database no longer has."""
    recorded: dict[str, Any] = state.setdefault("attempts", {})
    wanted = {
        partition_value(row["week"]): (row["week"], {"attempts": row["attempts"], "digest": row["digest"]})
        for row in _rows(con, "lake_week_digests")
    }
    for value in sorted(wanted):
        week, digest = wanted[value]
        folder = ("attempts", f"week={value}")
        if recorded.get(value) == digest and lake.exists(*folder, DATA_FILE):
            summary.weeks_unchanged += 1
            continue
        summary.attempts_written += _write(con, lake, (*folder, DATA_FILE), "lake_attempts_of_week", week=week)
        recorded[value] = digest
        lake.write_state(state)
        summary.weeks_written.append(value)
        say(f"week {value}: {digest['attempts']} attempts written")
    for value in sorted(set(lake.partitions()) | set(recorded)):
        if value in wanted:
            continue
        # The state forgets the week first, so no reader is ever sent to a file being removed.
        if recorded.pop(value, None) is not None:
            lake.write_state(state)
        lake.remove("attempts", f"week={value}")
        summary.weeks_removed.append(value)
        say(f"week {value}: removed (no attempts left in the database)")


def lake_schemas() -> dict[str, Any]:
    """Each lake table's Arrow schema, as export writes it (for an engine reading a table with no file)."""
    con = open_memory()
    try:
        return {
            "attempts": QUERIES["lake_attempts_of_week"].arrow(con, week=None).schema,
            "outcomes": QUERIES["lake_outcomes"].arrow(con).schema,
            "rejected_lines": QUERIES["lake_rejected_lines"].arrow(con).schema,
            "sources": QUERIES["lake_sources"].arrow(con).schema,
            "replays": QUERIES["lake_replays"].arrow(con).schema,
            "replay_patches": QUERIES["lake_replay_patches"].arrow(con).schema,
        }
    finally:
        con.close()
