"""`lanelog ingest` keeps a line's `shadow` object (`route --shadow`) in typed columns."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
from click.testing import CliRunner

from lanelog import store
from lanelog.cli import cli
from lanelog.ingest import ingest_paths

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
    at = table.index("Shadow policy abababababab (route --shadow), over the 1 attempts decided under it:")
    assert table[at + 2].split() == ["week", "attempts", "probe", "rejects", "shadow", "probe", "rejects", "armed",
                                     "calls", "shadow", "armed", "calls", "would", "flip"]
    assert table[at + 4].split() == ["2026-10-05", "1", "1", "0", "0", "1", "1"]
    assert table[at + 5].split() == ["total", "1", "1", "0", "0", "1", "1"]
    markdown = report(log, "markdown")
    assert "## Shadow policy" in markdown
    assert "| **total** | 1 | 1 | 0 | 0 | 1 | 1 |" in markdown
    assert json.loads(report(log, "json"))["shadow"]["policies"][0]["totals"]["flips"] == 1
    for fmt in ("text", "markdown", "json", "csv"):
        assert "shadow" not in report(plain_log, fmt).lower(), fmt


ERROR = {"policy": "/ci/lanes-new.yaml", "policy_sha256": None, "error": "policy_missing",
         "message": "policy_missing: /ci/lanes-new.yaml: no such file"}


def test_a_shadow_that_is_an_error_is_stored_as_one_with_no_decision(tmp_path: Path) -> None:
    rows = _ingest(tmp_path, [
        {**LIVE, "attempt_id": "error", "shadow": ERROR},
        # As route wrote a shadow it could not decide before errors: a reject for a missing policy.
        {**LIVE, "attempt_id": "old", "shadow": {**SHADOW, "probe": "reject", "reasons": ["policy_missing"],
                                                "model_call_allowed": False, "policy_sha256": None}},
        {**LIVE, "attempt_id": "odd", "shadow": {**ERROR, "error": 3}},
    ])
    con = store.open_db(tmp_path / "lanelog.duckdb", read_only=True)
    try:
        errors = con.execute("SELECT shadow_error FROM attempts ORDER BY line_no").fetchall()
    finally:
        con.close()
    assert rows == [
        ("error", None, None, None, None, None, []),
        ("old", None, None, None, None, None, []),
        ("odd", None, None, None, None, None, ["shadow"]),  # an error names itself in a string
    ]
    assert errors == [("policy_missing",), ("policy_missing",), ("3",)]


def test_report_groups_shadows_by_policy_and_counts_errors_apart(tmp_path: Path) -> None:
    """A candidate that could not be read rejects nothing: its attempts are errors, in no figure,
    and two candidates watched in turn are two groups, never one sum."""
    other = {**SHADOW, "policy": "/ci/lanes-strict.yaml", "policy_sha256": "cd" * 32, "probe": "reject",
             "reasons": ["line_cap"], "model_call_allowed": False}
    lines = [{**LIVE, "attempt_id": "a", "shadow": SHADOW},
             {**LIVE, "attempt_id": "b", "ts": "2026-10-12T10:00:00Z", "shadow": other},
             {**LIVE, "attempt_id": "c", "ts": "2026-10-12T11:00:00Z", "shadow": ERROR}]
    log = tmp_path / "lane.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    result = CliRunner().invoke(cli, ["report", str(log), "--format", "json"])
    assert result.exit_code == 0, result.output
    shadow = json.loads(result.stdout)["shadow"]
    assert [(entry["policy_sha256"], entry["totals"]["attempts"], entry["totals"]["shadow_probe_rejects"],
             entry["totals"]["flips"]) for entry in shadow["policies"]] == [("cd" * 32, 1, 1, 0), ("ab" * 32, 1, 0, 1)]
    assert shadow["errors"] == {"attempts": 1, "reasons": {"policy_missing": 1},
                                "weeks": [{"week": "2026-10-12", "attempts": 1}]}
    text = CliRunner().invoke(cli, ["report", str(log), "--format", "text"]).stdout
    assert ("Shadow errors: 1 attempt has no shadow decision (policy_missing 1): the shadow policy could not "
            "be used, so it counts in no shadow figure.") in text
    markdown = CliRunner().invoke(cli, ["report", str(log), "--format", "markdown"]).stdout
    assert markdown.index("### Policy `cdcdcdcdcdcd`") < markdown.index("### Policy `abababababab`")


def test_the_upgrade_to_version_4_reads_shadow_errors_as_ingest_does(tmp_path: Path) -> None:
    lines = [{**LIVE, "attempt_id": "decided", "shadow": SHADOW}, {**LIVE, "attempt_id": "error", "shadow": ERROR},
             {**LIVE, "attempt_id": "old", "shadow": {**SHADOW, "probe": "reject", "reasons": ["policy_invalid"],
                                                     "model_call_allowed": False}},
             {**LIVE, "attempt_id": "none"}]
    log = tmp_path / "lane.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    old = tmp_path / "v3.duckdb"
    con = store.open_db(old)
    ingest_paths(con, [log])
    con.close()
    # Made into a version-3 file: no shadow_error, and every shadow object typed as a decision.
    con = duckdb.connect(str(old))
    con.execute("ALTER TABLE attempts DROP COLUMN shadow_error")
    con.execute("UPDATE attempts SET shadow_probe = json_extract_string(raw, '$.shadow.probe'), "
                "shadow_armed = coalesce(json_extract(raw, '$.shadow.model_call_allowed') = 'true', false) "
                "WHERE json_extract(raw, '$.shadow') IS NOT NULL")
    con.execute("UPDATE lanelog_meta SET value = '3' WHERE key = 'schema_version'")
    con.close()
    store.open_db(old).close()  # upgrades

    fresh = store.open_memory()
    ingest_paths(fresh, [log])
    query = ("SELECT attempt_id, shadow_probe, shadow_reasons, shadow_units, shadow_armed, shadow_policy, "
             "shadow_error FROM attempts ORDER BY line_no")
    upgraded = duckdb.connect(str(old), read_only=True)
    try:
        rows = upgraded.execute(query).fetchall()
    finally:
        upgraded.close()
    assert rows == fresh.execute(query).fetchall()
    assert [row[-1] for row in rows] == [None, "policy_missing", "policy_invalid", None]


def test_the_sql_that_reads_old_shadow_errors_holds_the_routers_list() -> None:
    """One rule: the reasons that make a shadow an error are lanelog/reasons.py's SHADOW_ERRORS,
    written out in the SQL texts that read lines from before shadows had errors (ingest, and the
    upgrades to versions 4 and 5: a version-4 database made before shadows had errors has none)."""
    import re
    from importlib import resources

    from lanelog.reasons import SHADOW_ERRORS

    for package, name in (("lanelog.ingest", "load.sql"), ("lanelog.store", "upgrade.sql")):
        text = resources.files(package).joinpath(name).read_text(encoding="utf-8")
        found = re.findall(r"lambda r: r IN \(([^)]*)\)", text)
        expected = {"load.sql": 1, "upgrade.sql": 2}[name]
        assert [tuple(re.findall(r"'([a-z_]+)'", group)) for group in found] == [SHADOW_ERRORS] * expected, name
