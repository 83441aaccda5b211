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


def test_report_shows_the_shadow_in_every_format_only_when_a_line_has_one(tmp_path: Path) -> None:
    log = tmp_path / "lane.jsonl"
    plain_log = tmp_path / "plain.jsonl"
    lines = [{**LIVE, "attempt_id": "a", "shadow": SHADOW}, {**LIVE, "attempt_id": "b", "probe": "pass",
                                                          "reasons": [], "model_call_allowed": True}]
    log.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    plain_log.write_text(json.dumps(lines[1]) + "\n", encoding="utf-8")

    def report(path: Path, fmt: str) -> str:
        result = CliRunner().invoke(cli, ["report", str(path), "--format", fmt])
        assert result.exit_code == 0, result.output
        return result.stdout

    table = report(log, "text").splitlines()
    at = table.index("Shadow policy (route --shadow), over the 1 attempts decided under it:")
    assert table[at + 2].split() == ["week", "attempts", "probe", "rejects", "shadow", "probe", "rejects", "armed",
                                     "calls", "shadow", "armed", "calls", "would", "flip"]
    assert table[at + 4].split() == ["2026-10-05", "1", "1", "0", "0", "1", "1"]
    assert table[at + 5].split() == ["total", "1", "1", "0", "0", "1", "1"]
    markdown = report(log, "markdown")
    assert "## Shadow policy" in markdown
    assert "| **total** | 1 | 1 | 0 | 0 | 1 | 1 |" in markdown
    assert json.loads(report(log, "json"))["shadow"]["totals"]["flips"] == 1
    for fmt in ("text", "markdown", "json", "csv"):
        assert "shadow" not in report(plain_log, fmt).lower(), fmt
