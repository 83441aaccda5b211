"""The upgrade to version 3 reads the usage of lines stored before, as ingest reads it now."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb

from lanelog import queries, store
from lanelog.ingest import ingest_paths

NEW_COLUMNS = ("usage", "input_tokens", "output_tokens", "cost", "currency")
LINES = [
    {"attempt_id": "u1", "ts": "2026-10-05T12:00:00Z", "repo": "svc", "probe": "pass", "model_call_allowed": True,
     "properties": ["p1", "p2"], "units": 2,
     "usage": {"p1": {"input_tokens": 100, "output_tokens": 2, "cost": 0.5, "currency": "USD", "model": "m"},
               "p2": {"input_tokens": 50, "cost": 0.25, "currency": "USD"}}},
    {"attempt_id": "u2", "ts": "2026-10-06T12:00:00Z", "repo": "svc", "probe": "pass", "model_call_allowed": True,
     "properties": ["p1"], "usage": {"p1": {"cost": 1, "currency": "USD"}, "p2": {"cost": 2, "currency": "EUR"}}},
    {"attempt_id": "u3", "ts": "2026-10-06T12:00:00Z", "repo": "svc", "probe": "pass", "model_call_allowed": True,
     "properties": ["p1"], "usage": [1]},
    {"attempt_id": "u4", "ts": "2026-10-07T12:00:00Z", "repo": "svc", "probe": "reject", "model_call_allowed": False,
     "usage": None},
    {"attempt_id": "u5", "ts": "2026-10-07T12:00:00Z", "repo": "svc", "probe": "pass", "model_call_allowed": True,
     "shadow": 7, "usage": {"p1": {"cost": 1e308, "currency": "USD"}, "p2": {"cost": 0.5, "currency": "usd"},
                            "p3": {"cost": 0.25, "currency": "USD"}}},
]
COLUMNS = "attempt_id, usage, input_tokens, output_tokens, cost, currency, type_anomalies"


def test_usage_stored_in_raw_by_version_2_is_read_by_the_upgrade(tmp_path: Path) -> None:
    old = tmp_path / "old.duckdb"
    store.open_db(old).close()
    # Made into a version-2 file: attempts without the usage columns, and version 2 recorded.
    con = duckdb.connect(str(old))
    for column in NEW_COLUMNS:
        con.execute(f"ALTER TABLE attempts DROP COLUMN {column}")  # (fixed names)
    con.execute("UPDATE lanelog_meta SET value = '2' WHERE key = 'schema_version'")
    # Its attempts hold each line's text; these rows stand for lines a version-2 ingest
    # stored (it typed no usage: the text alone keeps it).
    for number, line in enumerate(LINES, start=1):
        con.execute("INSERT INTO attempts (source_id, line_no, byte_offset, raw, provisional, attempt_id, is_reject, "
                    "armed, quarantined, has_credit, credit_bug, type_anomalies) "
                    "VALUES (99, $n, 0, $raw, false, $id, false, true, false, false, false, [])",
                    {"n": number, "raw": json.dumps(line), "id": line["attempt_id"]})
    con.close()
    store.open_db(old).close()

    log = tmp_path / "lane-log.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in LINES))
    fresh = store.open_memory()
    ingest_paths(fresh, [log])
    upgraded = duckdb.connect(str(old), read_only=True)
    try:
        query = f"SELECT {COLUMNS} FROM attempts WHERE attempt_id LIKE 'u%' ORDER BY attempt_id"  # (fixed text)
        rows = upgraded.execute(query).fetchall()
        assert rows == fresh.execute(query).fetchall()
    finally:
        upgraded.close()
        fresh.close()
    assert rows[0][2:6] == (150.0, 2.0, 0.75, "USD")
    assert rows[1][4:6] == (None, None)  # two currencies are not summed
    assert rows[2][1] is None and rows[2][6] == ["usage"]
    assert rows[3][1] is None and rows[3][6] == []
    # A cost past 1e9 and a currency that is no code are dropped, and named, by both.
    assert rows[4][4:7] == (0.25, "USD", ["shadow", "usage.cost", "usage.currency"])
    con = store.open_db(old, read_only=True)
    try:
        assert queries.money(con)["totals"]["calls_with_usage"] == 3
    finally:
        con.close()
