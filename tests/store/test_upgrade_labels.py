"""A version-6 database upgrades to version 7 with every outcome row as it was, and each label's
via_app and removed_at typed from the line's raw JSON as ingest types them now.

Version 7 changed one column, outcomes.labels (two new fields); the version-6 database here is
one this lanelog made and ingested into, that column then put back to version 6's type (its
two new fields dropped) and version 6 recorded: what a version-6 lanelog left of the same log.
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from lanelog import store
from lanelog.ingest import ingest_paths
from tests.ingest.support import outcome

V6_LABELS = "STRUCT(name VARCHAR, set_by VARCHAR, set_by_type VARCHAR, set_at TIMESTAMP)[]"
CAROL = {"login": "carol", "type": "User"}
LOG = b"".join([
    outcome(outcome_id="outcome-1", ts="2026-10-08T14:03:00Z", state="merged", merged_at="2026-10-08T14:03:00Z",
            pull_request={"repository": "o/orders", "number": 1},
            labels=[{"name": "lanelog:accept-quarantine", "set_by": CAROL, "set_at": "2026-10-08T13:00:00Z"},
                    {"name": "agent-pr"}, "not a label"]),
    outcome(outcome_id="outcome-2", ts="2026-10-08T15:00:00Z", state="merged", merged_at="2026-10-08T15:00:00Z",
            pull_request={"repository": "o/orders", "number": 2},
            labels=[{"name": "lanelog:accept-quarantine", "set_by": CAROL, "set_at": "2026-10-08T13:00:00Z",
                     "via_app": "mergify", "removed_at": "2026-10-08T13:30:00Z"}]),
    outcome(outcome_id="outcome-3", ts="2026-10-08T16:00:00Z", state="closed",
            pull_request={"repository": "o/orders", "number": 3},
            labels=[{"name": "x", "via_app": 5, "removed_at": "not a time"}]),
    outcome(outcome_id="outcome-4", ts="2026-10-08T17:00:00Z", state="closed",
            pull_request={"repository": "o/orders", "number": 4}),
])
EVERY_ROW = "SELECT * EXCLUDE (source_id) FROM outcomes ORDER BY line_no"


def ingested(path: Path, log: Path) -> None:
    con = store.open_db(path)
    try:
        ingest_paths(con, [log])
    finally:
        con.close()


def test_a_version_6_database_upgrades_keeping_every_outcome_and_typing_each_labels_new_fields(
        tmp_path: Path) -> None:
    log = tmp_path / "lane-log.jsonl"
    log.write_bytes(LOG)
    new, old = tmp_path / "new.duckdb", tmp_path / "old.duckdb"
    ingested(new, log)
    ingested(old, log)
    con = duckdb.connect(str(old))
    con.execute(f"ALTER TABLE outcomes ALTER labels SET DATA TYPE {V6_LABELS} USING list_transform(labels, "
                "lambda l: CASE WHEN l IS NOT NULL THEN {'name': l.name, 'set_by': l.set_by, "
                "'set_by_type': l.set_by_type, 'set_at': l.set_at} END)")
    con.execute("UPDATE lanelog_meta SET value = '6' WHERE key = 'schema_version'")
    con.close()

    store.open_db(old).close()
    found, made = duckdb.connect(str(old), read_only=True), duckdb.connect(str(new), read_only=True)
    try:
        assert found.execute("SELECT value FROM lanelog_meta WHERE key = 'schema_version'").fetchall() == [("7",)]
        assert found.execute(EVERY_ROW).fetchall() == made.execute(EVERY_ROW).fetchall()
        labels = dict(found.execute("SELECT outcome_id, labels FROM outcomes").fetchall())
        anomalies = dict(found.execute("SELECT outcome_id, type_anomalies FROM outcomes").fetchall())
    finally:
        found.close()
        made.close()
    assert (labels["outcome-2"][0]["via_app"], str(labels["outcome-2"][0]["removed_at"])) == (
        "mergify", "2026-10-08 13:30:00")
    assert labels["outcome-1"][0]["via_app"] is None and labels["outcome-1"][2]["name"] is None
    assert labels["outcome-3"][0]["via_app"] is None and anomalies["outcome-3"] == ["labels"]
    assert labels["outcome-4"] is None
