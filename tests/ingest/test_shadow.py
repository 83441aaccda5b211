"""`lanelog ingest` keeps a line's `shadow` object (`route --shadow`) in typed columns."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from lanelog import store
from lanelog.cli import cli

SHADOW = {"policy": "/ci/lanes-net.yaml", "policy_sha256": "ab" * 32, "probe": "pass", "reasons": [],
          "units": 2, "model_call_allowed": True, "lines_changed": 3, "message": None}
LIVE = {"schema": 1, "ts": "2026-10-05T10:00:00Z", "repo": "svc", "probe": "reject",
        "reasons": ["assertion_removed"], "model_call_allowed": False, "units": 0}


def _ingest(tmp_path: Path, lines: list[dict]) -> list[tuple]:
    log = tmp_path / "lane.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    db = tmp_path / "lanelog.duckdb"
    result = CliRunner().invoke(cli, ["ingest", str(log), "--db", str(db)])
    assert result.exit_code == 0, result.output
    con = store.open_db(db, read_only=True)
    try:
        return con.execute(
            "SELECT attempt_id, shadow_probe, shadow_reasons, shadow_units, shadow_armed, shadow_policy, "
            "type_anomalies FROM attempts ORDER BY line_no").fetchall()
    finally:
        con.close()


def test_a_shadow_object_is_stored_typed_and_a_line_without_one_has_nulls(tmp_path: Path) -> None:
    rows = _ingest(tmp_path, [
        {**LIVE, "attempt_id": "with", "shadow": SHADOW},
        {**LIVE, "attempt_id": "without"},
        {**LIVE, "attempt_id": "rejecting", "shadow": {**SHADOW, "probe": "reject", "reasons": ["line_cap"],
                                                      "model_call_allowed": False, "policy_sha256": None}},
    ])
    assert rows == [
        ("with", "pass", [], 2.0, True, "ab" * 32, []),
        ("without", None, None, None, None, None, []),
        ("rejecting", "reject", ["line_cap"], 2.0, False, None, []),
    ]


def test_a_shadow_of_the_wrong_type_is_an_anomaly_and_loses_the_line_nothing(tmp_path: Path) -> None:
    rows = _ingest(tmp_path, [
        {**LIVE, "attempt_id": "text", "shadow": "net.yaml"},
        {**LIVE, "attempt_id": "typed", "shadow": {"probe": 7, "reasons": "line_cap", "units": "2",
                                                   "model_call_allowed": 1}},
        {**LIVE, "attempt_id": "null", "shadow": None},
    ])
    # The seed's rules, as for the live fields: a string field only from a string, a list only
    # from a list, a number only from a number; model_call_allowed by Python truthiness.
    assert rows == [
        ("text", None, None, None, None, None, ["shadow"]),
        ("typed", None, None, None, True, None, ["shadow"]),
        ("null", None, None, None, None, None, []),
    ]
