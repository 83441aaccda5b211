"""`lanelog export --lake DIR`: layout, columns, version, incremental and idempotent runs."""

from __future__ import annotations

import json
import os
from datetime import date
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
from click.testing import CliRunner, Result

from lanelog import ingest, store
from lanelog.cli import cli
from lanelog.store.lakefs import LAKE_SCHEMA_VERSION, UNDATED
from tests.lake.conftest import make_db
from tests.lake.support import append


def run(*args: str | Path) -> Result:
    return CliRunner().invoke(cli, [str(arg) for arg in args], catch_exceptions=False)


def export(db: Path, lake: Path) -> dict:
    result = run("export", "--db", db, "--lake", lake, "--format", "json", "--quiet")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def week_counts(db: Path) -> dict[str, int]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute("SELECT week, count(*) FROM attempts GROUP BY week").fetchall()
    finally:
        con.close()
    return {UNDATED if week is None else week.isoformat(): count for week, count in rows}


def files_state(lake: Path) -> dict[str, tuple[int, bytes]]:
    """Every file in the lake with its modification time and bytes."""
    return {str(path.relative_to(lake)): (path.stat().st_mtime_ns, path.read_bytes())
            for path in sorted(lake.rglob("*")) if path.is_file() and path.name != "export.lock"}


def test_the_lake_is_hive_partitioned_by_week_with_the_undated_bucket(generated: tuple[Path, Path]) -> None:
    db, lake = generated
    counts = week_counts(db)
    assert UNDATED in counts and len(counts) >= 6
    assert sorted(p.name for p in (lake / "attempts").iterdir()) == sorted(f"week={w}" for w in counts)
    for week, count in counts.items():
        table = pq.read_table(lake / "attempts" / f"week={week}" / "data.parquet")
        assert table.num_rows == count
        weeks = set(table.column("week").to_pylist())
        assert weeks == ({None} if week == UNDATED else {date.fromisoformat(week)})
    assert (lake / "rejected_lines" / "data.parquet").exists()
    assert (lake / "sources" / "data.parquet").exists()
    assert (lake / "outcomes" / "data.parquet").exists()


def test_the_attempts_columns_are_the_tables_own(generated: tuple[Path, Path]) -> None:
    db, lake = generated
    con = duckdb.connect(str(db), read_only=True)
    try:
        table = con.execute("SELECT column_name, data_type FROM information_schema.columns "
                            "WHERE table_name = 'attempts' ORDER BY ordinal_position").fetchall()
        rows = con.execute("SELECT * EXCLUDE (results), CAST(results AS VARCHAR) FROM attempts "
                           "ORDER BY source_id, line_no").fetchall()
    finally:
        con.close()
    lake_con = duckdb.connect()
    files = sorted(str(p) for p in (lake / "attempts").glob("week=*/data.parquet"))
    described = lake_con.execute("DESCRIBE SELECT * FROM read_parquet($f, hive_partitioning = false)",
                                 {"f": files}).fetchall()
    # results is JSON in the database and its text in the lake; every other type is the same.
    assert [(name, kind) for name, kind, *_ in described] == [
        (name, "VARCHAR" if name == "results" else kind) for name, kind in table]
    stored = lake_con.execute("SELECT * EXCLUDE (results), results FROM read_parquet($f, hive_partitioning = false) "
                              "ORDER BY source_id, line_no", {"f": files}).fetchall()
    assert stored == rows


def test_the_outcomes_columns_and_rows_are_the_tables_own(generated: tuple[Path, Path]) -> None:
    db, lake = generated
    con = duckdb.connect(str(db), read_only=True)
    try:
        table = con.execute("SELECT column_name, data_type FROM information_schema.columns "
                            "WHERE table_name = 'outcomes' ORDER BY ordinal_position").fetchall()
        rows = con.execute("SELECT * FROM outcomes ORDER BY source_id, line_no").fetchall()
    finally:
        con.close()
    assert len(rows) > 10 and any(row[-1] == [] for row in rows)
    lake_con = duckdb.connect()
    found = str(lake / "outcomes" / "data.parquet")
    described = lake_con.execute("DESCRIBE SELECT * FROM read_parquet($f)", {"f": found}).fetchall()
    assert [(name, kind) for name, kind, *_ in described] == table
    assert lake_con.execute("SELECT * FROM read_parquet($f)", {"f": found}).fetchall() == rows


def test_the_schemas_engines_read_the_lake_with_are_its_files(generated: tuple[Path, Path]) -> None:
    """Spark reads each table with store.lake_schemas() (queries/spark_lake.py), not the files' own."""
    _, lake = generated
    schemas = store.lake_schemas()
    assert sorted(schemas) == sorted(store.lake_files(lake))
    for table, files in store.lake_files(lake).items():
        assert files, table
        assert all(pq.read_schema(file).remove_metadata() == schemas[table] for file in files), table
    assert {"pr_repository", "pr_number", "agent", "ci_run_url"} <= set(schemas["attempts"].names)


def test_an_outcome_line_added_rewrites_the_outcomes_file_and_no_week(tmp_path: Path) -> None:
    db = make_db(tmp_path, seed=13, lines=200)
    lake = tmp_path / "lake"
    export(db, lake)
    log = tmp_path / "a.jsonl"
    with log.open("ab") as sink:
        sink.write(json.dumps({"kind": "outcome", "outcome_id": "outcome-new", "ts": "2026-03-18T10:00:00Z",
                               "state": "closed"}).encode() + b"\n")
    con = store.open_db(db)
    try:
        assert ingest.ingest_paths(con, [log]).outcomes_added == 1
    finally:
        con.close()
    summary = export(db, lake)
    assert (summary["weeks_written"], summary["tables_written"]) == ([], ["sources", "outcomes"])
    lake_con = store.open_lake(lake)
    try:
        assert lake_con.execute("SELECT state FROM outcomes WHERE outcome_id = 'outcome-new'").fetchall() == \
            [("closed",)]
    finally:
        lake_con.close()


def test_the_state_file_records_the_lake_schema_version(generated: tuple[Path, Path]) -> None:
    _, lake = generated
    state = json.loads((lake / "_lanelog" / "lake.json").read_text())
    # 2: usage; 3: shadow columns, replay tables; 4: each side's evidence on replay_patches;
    # 5: outcomes, and the change each attempt belongs to; 6: where a line was written (source, hook)
    assert state["lake_schema_version"] == LAKE_SCHEMA_VERSION == 7
    assert state["database_schema_version"] == store.SCHEMA_VERSION


def test_exporting_twice_changes_nothing(tmp_path: Path) -> None:
    db = make_db(tmp_path, seed=5, lines=300)
    lake = tmp_path / "lake"
    first = export(db, lake)
    assert first["weeks_written"]
    assert first["tables_written"] == ["sources", "outcomes", "rejected_lines", "replays", "replay_patches"]
    before = files_state(lake)
    second = export(db, lake)
    assert second["weeks_written"] == [] and second["tables_written"] == [] and second["weeks_removed"] == []
    assert second["weeks_unchanged"] == len(first["weeks_written"])
    assert files_state(lake) == before


def test_an_append_rewrites_only_the_weeks_it_touched(tmp_path: Path) -> None:
    db = make_db(tmp_path, seed=6, lines=400, weeks=8)
    lake = tmp_path / "lake"
    export(db, lake)
    before = files_state(lake)
    counts_before = week_counts(db)
    # A later run appends lines dated in one week only.
    log = tmp_path / "a.jsonl"
    with log.open("ab") as sink:
        for n in range(5):
            sink.write(json.dumps({"attempt_id": f"late{n}", "ts": "2026-03-18T10:00:00Z",
                                   "probe": "pass", "model_call_allowed": True}).encode() + b"\n")
    con = store.open_db(db)
    try:
        ingest.ingest_paths(con, [log])
    finally:
        con.close()
    summary = export(db, lake)
    assert summary["weeks_written"] == ["2026-03-16"]
    assert summary["attempts_written"] == counts_before["2026-03-16"] + 5
    assert summary["tables_written"] == ["sources"]  # the log's read position moved
    after = files_state(lake)
    changed = sorted(name for name in after if after[name] != before.get(name))
    assert changed == ["_lanelog/lake.json", "attempts/week=2026-03-16/data.parquet", "sources/data.parquet"]


def test_a_week_the_database_no_longer_has_is_removed(tmp_path: Path) -> None:
    db = make_db(tmp_path, seed=7, lines=300)
    lake = tmp_path / "lake"
    export(db, lake)
    con = duckdb.connect(str(db))
    con.execute("DELETE FROM attempts WHERE week = DATE '2026-03-02'")
    con.close()
    summary = export(db, lake)
    assert summary["weeks_removed"] == ["2026-03-02"] and summary["weeks_written"] == []
    assert not (lake / "attempts" / "week=2026-03-02").exists()


def test_a_further_append_of_generated_lines_keeps_lake_and_database_equal(tmp_path: Path) -> None:
    db = make_db(tmp_path, seed=8, lines=300)
    lake = tmp_path / "lake"
    export(db, lake)
    append(tmp_path / "b.jsonl", 9, 200)
    con = store.open_db(db)
    try:
        ingest.ingest_paths(con, [tmp_path / "a.jsonl", tmp_path / "b.jsonl"])
    finally:
        con.close()
    export(db, lake)
    assert run("report", "--lake", lake, "--format", "json").stdout == \
        run("report", "--db", db, "--format", "json").stdout


def test_a_lake_of_another_version_is_refused_by_name(tmp_path: Path) -> None:
    db = make_db(tmp_path, seed=10, lines=100)
    lake = tmp_path / "lake"
    export(db, lake)
    state = json.loads((lake / "_lanelog" / "lake.json").read_text())
    (lake / "_lanelog" / "lake.json").write_text(json.dumps({**state, "lake_schema_version": 99}))
    expected = (f"Error: the lake at {lake} has lake schema version 99, and this lanelog reads and "
                "writes version 7: export into a new folder (the lake is made from the database, "
                "so nothing is lost)\n")
    for args in (("export", "--db", db, "--lake", lake), ("report", "--lake", lake)):
        result = CliRunner().invoke(cli, [str(a) for a in args])
        assert result.exit_code == 2
        assert result.stderr == expected


def test_a_folder_without_a_lake_is_named(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["report", "--lake", str(tmp_path)])
    assert result.exit_code == 2
    assert result.stderr == (f"Error: no lanelog lake at {tmp_path}: run `lanelog export --lake {tmp_path}` "
                             "first\n")


def test_lake_and_db_together_are_refused(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["report", "--lake", str(tmp_path), "--db", str(tmp_path / "x.duckdb")])
    assert result.exit_code == 2
    assert "Error: give one of --db FILE, --lake DIR or LOG files" in result.stderr
    result = CliRunner().invoke(cli, ["check", "--engine", "spark"])
    assert result.exit_code == 2
    assert "Error: --engine spark reads a lake: give --lake DIR (make one with `lanelog export`)" in result.stderr


def test_an_empty_database_gives_a_readable_empty_lake(tmp_path: Path) -> None:
    db = tmp_path / "empty.duckdb"
    store.open_db(db).close()
    lake = tmp_path / "lake"
    export(db, lake)
    assert list(lake.glob("attempts/week=*")) == []
    assert (lake / "sources" / "data.parquet").exists()
    assert run("report", "--lake", lake, "--format", "json").stdout == \
        run("report", "--db", db, "--format", "json").stdout


def test_a_second_export_at_once_is_refused(tmp_path: Path) -> None:
    import fcntl

    db = make_db(tmp_path, seed=11, lines=100)
    lake = tmp_path / "lake"
    (lake / "_lanelog").mkdir(parents=True)
    with open(lake / "_lanelog" / "export.lock", "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        result = CliRunner().invoke(cli, ["export", "--db", str(db), "--lake", str(lake)])
    assert result.exit_code == 2
    assert result.stderr == (f"Error: another `lanelog export` is writing the lake at {lake}; "
                             "run one export at a time\n")
    assert not (lake / "attempts").exists()
    assert os.listdir(lake) == ["_lanelog"]


def test_a_provisional_last_line_read_again_rewrites_its_week(tmp_path: Path) -> None:
    log = tmp_path / "lane-log.jsonl"
    first = json.dumps({"attempt_id": "p1", "ts": "2026-03-04T10:00:00Z", "probe": "pass"}).encode()
    last = json.dumps({"attempt_id": "p2", "ts": "2026-03-05T10:00:00Z", "model_call_allowed": True}).encode()
    # The writer has not ended the last line yet: no newline, so ingest stores it as provisional.
    log.write_bytes(first + b"\n" + last)
    db = tmp_path / "lanes.duckdb"
    con = store.open_db(db)
    ingest.ingest_paths(con, [log])
    con.close()
    lake = tmp_path / "lake"
    export(db, lake)
    week_file = lake / "attempts" / "week=2026-03-02" / "data.parquet"
    assert pq.read_table(week_file).column("provisional").to_pylist() == [False, True]
    # Same line, same place, same week, same count: only its end arrives.
    with log.open("ab") as sink:
        sink.write(b"\n")
    con = store.open_db(db)
    ingest.ingest_paths(con, [log])
    con.close()
    summary = export(db, lake)
    assert summary["weeks_written"] == ["2026-03-02"]
    assert pq.read_table(week_file).column("provisional").to_pylist() == [False, False]
    assert run("report", "--lake", lake, "--format", "json").stdout == \
        run("report", "--db", db, "--format", "json").stdout


def test_a_lake_from_another_database_schema_is_rewritten_whole(tmp_path: Path) -> None:
    db = make_db(tmp_path, seed=12, lines=200)
    lake = tmp_path / "lake"
    first = export(db, lake)
    state_file = lake / "_lanelog" / "lake.json"
    state = json.loads(state_file.read_text())
    state_file.write_text(json.dumps({**state, "database_schema_version": store.SCHEMA_VERSION - 1}))
    again = export(db, lake)
    assert again["weeks_written"] == first["weeks_written"]
    assert json.loads(state_file.read_text())["database_schema_version"] == store.SCHEMA_VERSION


def test_stored_replays_and_shadow_figures_read_the_same_on_the_lake(tmp_path: Path) -> None:
    from lanelog.store import replays

    log = tmp_path / "shadow.jsonl"
    shadow = {"policy": "/ci/net.yaml", "policy_sha256": "ef", "probe": "pass", "reasons": [], "units": 1,
              "model_call_allowed": True}
    log.write_text("".join(json.dumps(line) + "\n" for line in [
        {"attempt_id": "s1", "ts": "2026-10-05T09:00:00Z", "probe": "reject", "reasons": ["line_cap"],
         "model_call_allowed": False, "shadow": shadow},
        {"attempt_id": "s2", "ts": "2026-10-13T09:00:00Z", "probe": "pass", "model_call_allowed": True,
         "shadow": {**shadow, "probe": "reject", "model_call_allowed": False}},
    ]))
    db = tmp_path / "lanelog.duckdb"
    assert run("ingest", log, "--db", db).exit_code == 0
    con = store.open_db(db)
    patch = {"base": "b" * 40, "head": "c" * 40, "day": date(2026, 10, 6), "subject": "api: <b>bold</b>",
             "baseline_probe": "reject", "baseline_reasons": ["line_cap"], "baseline_units": 0.0,
             "baseline_armed": False, "candidate_probe": "pass", "candidate_reasons": [],
             "candidate_units": 1.0, "candidate_armed": True}
    # The first replay keeps no evidence (as one stored before version 4); the second keeps each side's.
    evidence = {"line_cap": {"counted": 900, "line_cap": 400, "files": [{"file": "</details>`x`", "lines": 900}],
                             "files_total": 1, "excluded": [], "excluded_total": 0, "excluded_lines": 0}}
    kept = {**patch, "baseline_evidence": json.dumps(evidence), "candidate_evidence": "{}"}
    for candidate, row in (("/ci/a.yaml", patch), ("/ci/b.yaml", kept)):
        replays.store(con, {"checkout": "/src/svc", "candidate": candidate, "baseline": "/ci/live.yaml",
                            "source": "v1..main", "patches": 1, "skipped": 0}, [row])
    on_db = (replays.listing(con), replays.latest(con), replays.by_id(con, 1))
    assert on_db[2] is not None and on_db[1] is not None
    assert (on_db[2]["flips"][0]["baseline_evidence"], on_db[2]["flips"][0]["candidate_evidence"]) == (None, None)
    assert json.loads(on_db[1]["flips"][0]["baseline_evidence"]) == evidence
    assert on_db[1]["flips"][0]["candidate_evidence"] == "{}"
    con.close()
    summary = export(db, tmp_path / "lake")
    assert {"replays", "replay_patches"} <= set(summary["tables_written"])
    lake = store.open_lake(tmp_path / "lake")
    try:
        assert (replays.listing(lake), replays.latest(lake), replays.by_id(lake, 1)) == on_db
    finally:
        lake.close()
    assert [row["candidate"] for row in on_db[0]] == ["/ci/b.yaml", "/ci/a.yaml"]  # newest first
    on_lake = json.loads(run("report", "--lake", tmp_path / "lake", "--format", "json").stdout)
    assert on_lake == json.loads(run("report", "--db", db, "--format", "json").stdout)
    assert [entry["policy_sha256"] for entry in on_lake["shadow"]["policies"]] == ["ef"]
    assert on_lake["shadow"]["policies"][0]["totals"] == {
        "attempts": 2, "probe_rejects": 1, "shadow_probe_rejects": 1, "calls_armed": 1, "shadow_calls_armed": 1,
        "flips": 2}
