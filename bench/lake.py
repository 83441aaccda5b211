"""The lake's cases (issue 16): export of the report database, and the report read back from the lake.

`lanelog export` of the multiplied database into a new lake (full), and into a
copy of that lake after the 1,000 appended lines were ingested (incremental);
`lanelog report --lake` on DuckDB beside `report --db`; and the same report on
Spark in local mode, whose target is equality with DuckDB's JSON, not speed.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from bench.cases import lanelog_argv, size_label
from bench.data import copy_db
from bench.harness import Case, Run

SPARK_MASTER = "local[2]"


def _export_summary(run: Run) -> dict[str, object]:
    try:
        return json.loads(run.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        return {}


def _report_json(*args: str) -> str:
    done = subprocess.run(lanelog_argv("report", *args, "--format", "json"), capture_output=True,
                          text=True, timeout=1800, check=True)
    return done.stdout


def lake_cases(db: Path | None, attempts: int, append: Path, out: Path, why_not: str | None) -> list[Case]:
    """Export full and incremental, then the report on the lake with DuckDB and with Spark."""
    label = size_label(attempts)
    full_lake, base_lake, inc_lake = out / "lake-full", out / "lake-base", out / "lake-incremental"
    append_db = out / "lake-append.duckdb"
    expected: dict[str, object] = {}

    def clear_full() -> None:
        shutil.rmtree(full_lake, ignore_errors=True)

    def check_full(run: Run) -> list[str]:
        summary = _export_summary(run)
        if summary.get("attempts_written") != attempts:
            return [f"export wrote {summary.get('attempts_written')} attempts, expected {attempts}"]
        return [f"wrote {attempts:,} attempts in {len(summary['weeks_written'])} week files"]

    def prepare_incremental() -> None:
        # The lake as the database was, and the database with the appended lines ingested.
        shutil.rmtree(base_lake, ignore_errors=True)
        subprocess.run(lanelog_argv("export", "--db", str(db), "--lake", str(base_lake), "--quiet"),
                       check=True, timeout=3600, capture_output=True)
        copy_db(db, append_db)
        done = subprocess.run(lanelog_argv("ingest", "--db", str(append_db), "--format", "json", str(append)),
                              check=True, timeout=600, capture_output=True, text=True)
        expected["appended"] = json.loads(done.stdout.strip().splitlines()[-1])["attempts_added"]

    def restore_base() -> None:
        shutil.rmtree(inc_lake, ignore_errors=True)
        shutil.copytree(base_lake, inc_lake)

    def check_incremental(run: Run) -> list[str]:
        summary = _export_summary(run)
        weeks = summary.get("weeks_written") or []
        unchanged = summary.get("weeks_unchanged")
        if not weeks or not unchanged:
            return [f"incremental export wrote weeks {weeks}, left {unchanged} unchanged"]
        return [f"{expected['appended']:,} appended attempts: rewrote {len(weeks)} week(s) "
                f"({summary['attempts_written']:,} attempts), left {unchanged} unchanged"]

    def report_from_db() -> None:
        if "db_json" not in expected:
            expected["db_json"] = _report_json("--db", str(db))

    def equal_to_db(what: str) -> object:
        def check(run: Run) -> list[str]:
            if run.stdout != expected["db_json"]:
                return [f"{what} JSON differs from `report --db`"]
            return [f"{what} JSON equal to `report --db` ({attempts:,} attempts)"]
        return check

    not_run = why_not
    return [
        Case("lake.export.full", "lake", f"export {label}: `lanelog export --lake` into a new lake",
             lanelog_argv("export", "--db", str(db), "--lake", str(full_lake), "--format", "json", "--quiet"),
             "process",
             before_each=clear_full, check=check_full, not_run=not_run),
        Case("lake.export.incremental", "lake",
             f"export {label} after a {append.stem.rsplit('-', 1)[-1]}-line append: incremental",
             lanelog_argv("export", "--db", str(append_db), "--lake", str(inc_lake), "--format", "json", "--quiet"),
             "process", before_all=prepare_incremental, before_each=restore_base, check=check_incremental,
             not_run=not_run),
        Case("lake.report.duckdb", "lake", f"report {label}: `lanelog report --lake` (DuckDB on Parquet)",
             lanelog_argv("report", "--lake", str(full_lake), "--format", "json"), "process",
             before_all=report_from_db, check=equal_to_db("lake"), not_run=not_run),
        Case("lake.report.spark", "lake",
             f"report {label}: `lanelog report --lake --engine spark` ({SPARK_MASTER})",
             lanelog_argv("report", "--lake", str(full_lake), "--engine", "spark", "--spark-master", SPARK_MASTER,
                          "--format", "json"), "process",
             before_all=report_from_db, check=equal_to_db("Spark"), not_run=not_run, warmup=0,
             notes=["the target is equality with DuckDB's JSON; each run starts its own JVM (about 10 s)"]),
    ]

