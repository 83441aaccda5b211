"""Stored replays: `lanelog replay --db FILE` keeps each replay, the What-if page reads the newest.

A replay is one row in `replays` and one row per patch in `replay_patches`, both
written in one transaction, so a replay is stored whole or not at all. The
tables are made on first use beside the lane-log tables (docs/replay.md).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, date, datetime
from typing import Any

import duckdb

from lanelog.store.db import has_tables, transaction
from lanelog.store.sqlfile import load_resources

QUERIES = load_resources("lanelog.store", "replays.sql")


def _run(con: duckdb.DuckDBPyConnection, name: str, **values: Any) -> list[dict[str, Any]]:
    query = QUERIES[name]
    cursor = con.execute(query.sql, query.bind(values))
    if cursor.description is None:
        return []
    names = [column[0] for column in cursor.description]
    return [dict(zip(names, row)) for row in cursor.fetchall()]


def store(con: duckdb.DuckDBPyConnection, about: dict[str, Any], patches: Iterable[dict[str, Any]]) -> int:
    """Store one replay; returns its id.

    `about` gives checkout, candidate, baseline and source (text), patches and skipped
    (counts); each patch gives base, head, day, subject and both sides' probe, reasons,
    units and armed.
    """
    rows = list(patches)
    with transaction(con):
        con.execute(QUERIES["create_tables"].sql)
        replay_id = int(_run(con, "next_id")[0]["replay_id"])
        _run(con, "add_replay", replay_id=replay_id, made=datetime.now(UTC).replace(tzinfo=None),
             checkout=about["checkout"], candidate=about["candidate"], baseline=about["baseline"],
             source=about["source"], patches=about["patches"], skipped=about["skipped"])
        query = QUERIES["add_patch"]
        con.executemany(query.sql, [query.bind({"replay_id": replay_id, "seq": seq, **row})
                                    for seq, row in enumerate(rows, start=1)])
    return replay_id


def latest(con: duckdb.DuckDBPyConnection) -> dict[str, Any] | None:
    """The newest stored replay: its row, its weeks and its flips (JSON-ready); None when none is stored."""
    if not has_tables(con, "replays"):
        return None
    found = _run(con, "latest")
    if not found:
        return None
    about = found[0]
    weeks = _run(con, "replay_weeks", replay_id=about["replay_id"])
    flips = _run(con, "replay_flips", replay_id=about["replay_id"])
    return {"replay": _plain(about), "weeks": [_plain(row) for row in weeks], "flips": [_plain(row) for row in flips]}


def _plain(row: dict[str, Any]) -> dict[str, Any]:
    return {key: value.isoformat() if isinstance(value, (date, datetime)) else value for key, value in row.items()}
