"""Stored replays: `lanelog replay --db FILE` keeps each replay, the What-if page reads the newest.

A replay is one row in `replays` and one row per patch in `replay_patches`, both
written in one transaction, so a replay is stored whole or not at all. The
tables are part of the schema (store/schema.sql, since version 3; each side's evidence
since version 4; docs/replay.md).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, date, datetime
from typing import Any

import duckdb

from lanelog.store.db import transaction
from lanelog.store.sqlfile import load_resources

QUERIES = load_resources("lanelog.store", "replays.sql")


def store(con: duckdb.DuckDBPyConnection, about: dict[str, Any], patches: Iterable[dict[str, Any]]) -> int:
    """Store one replay; returns its id.

    `about` gives checkout, candidate, baseline and source (text), patches and skipped
    (counts); each patch gives base, head, day, subject and both sides' probe, reasons,
    units and armed, and may give both sides' evidence (JSON text; missing: NULL, none kept).
    """
    rows = list(patches)
    with transaction(con):
        replay_id = QUERIES["next_id"].records(con)[0]["replay_id"]
        QUERIES["add_replay"].run(con, replay_id=replay_id, made=datetime.now(UTC).replace(tzinfo=None),
             checkout=about["checkout"], candidate=about["candidate"], baseline=about["baseline"],
             source=about["source"], patches=about["patches"], skipped=about["skipped"])
        QUERIES["add_patch"].run_many(con, [{"replay_id": replay_id, "seq": seq, "baseline_evidence": None,
                                             "candidate_evidence": None, **row}
                                            for seq, row in enumerate(rows, start=1)])
    return int(replay_id)


def latest(con: duckdb.DuckDBPyConnection) -> dict[str, Any] | None:
    """The newest stored replay: its row, its weeks and its flips (JSON-ready); None when none is stored."""
    found = QUERIES["latest"].records(con)
    return _whole(con, found[0]) if found else None


def listing(con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """Every stored replay's row (JSON-ready), newest first."""
    return [_plain(row) for row in QUERIES["replay_list"].records(con)]


def by_id(con: duckdb.DuckDBPyConnection, replay_id: int) -> dict[str, Any] | None:
    """One stored replay as ``latest`` gives it; None when no replay has that id."""
    found = QUERIES["replay_row"].records(con, replay_id=replay_id)
    return _whole(con, found[0]) if found else None


def _whole(con: duckdb.DuckDBPyConnection, about: dict[str, Any]) -> dict[str, Any]:
    weeks = QUERIES["replay_weeks"].records(con, replay_id=about["replay_id"])
    flips = QUERIES["replay_flips"].records(con, replay_id=about["replay_id"])
    return {"replay": _plain(about), "weeks": [_plain(row) for row in weeks], "flips": [_plain(row) for row in flips]}


def _plain(row: dict[str, Any]) -> dict[str, Any]:
    return {key: value.isoformat() if isinstance(value, (date, datetime)) else value for key, value in row.items()}
