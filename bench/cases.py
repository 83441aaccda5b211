"""The benchmark's cases, group by group, each beside the baseline it is judged against."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

from bench import components
from bench.data import Log, append_lines, copy_db, read_through, remove_db, restore_log
from bench.generate import line
from bench.harness import Case, Run, worker_argv

TODAY = "2026-10-08"
SERIES_RUNS = 20  # appends in a row: enough to pass the write-ahead log's checkpoint threshold


def size_label(count: int) -> str:
    """1,000,000 -> "1M", 20,000 -> "20k": the size a row's label names."""
    for scale, suffix in ((1e6, "M"), (1e3, "k")):
        if count >= scale * 0.995:
            return f"{count / scale:.3g}{suffix}"
    return str(count)


def lanelog_argv(*args: str) -> list[str]:
    """The `lanelog` command as a user runs it (the console script beside this interpreter)."""
    script = Path(sys.executable).with_name("lanelog")
    if script.exists():
        return [str(script), *args]
    return [sys.executable, "-m", "lanelog", *args]


def _counts_check(expected: dict[str, int], source: str) -> Callable[[Run], list[str]]:
    def check(run: Run) -> list[str]:
        counts = run.info.get("counts")
        if counts != expected:
            return [f"four counts {counts} differ from the generator's {expected}"]
        return [f"four counts match the generator's ({source})"]
    return check


# A run of a Python baseline over 1M lines takes most of a minute; a whole extra run
# to warm up would only warm the page cache, which reading the file does as well.
SLOW_WARMUP = "warm-up: the input is read into the page cache instead of a whole extra run"


def ingest_cases(log: Log, out: Path) -> list[Case]:
    """Full ingest of the log into a new database, against the seed reader, pandas and the floor."""
    manifest = log.manifest
    db = out / "ingest.duckdb"
    floor_db = out / "floor.duckdb"
    broken = manifest.broken
    first = manifest.broken_line_numbers[0] if broken else None
    clean_note = (f"reads the copy without the {broken} broken lines: it raises on them (the first is line {first})"
                  if broken else "the log has no broken lines")

    def check_ingest(run: Run) -> list[str]:
        summary = run.info.get("summary", {})
        got = (summary.get("attempts_added"), summary.get("rejected"))
        if got != (manifest.attempts, manifest.broken):
            return [f"stored {got[0]} attempts and {got[1]} rejected lines; "
                    f"the log holds {manifest.attempts} and {manifest.broken}"]
        return [f"stored all {manifest.attempts:,} attempts and {broken} rejected lines"]

    def check_floor(run: Run) -> list[str]:
        return [f"lossy: {run.info.get('rows'):,} rows of inferred columns, no raw line; with ignore_errors "
                "a broken line becomes a row of NULLs (the bare call stops at the first)"]

    ingest_missing = components.ingest_api()
    size = size_label(manifest.lines)
    return [
        Case("ingest.lanelog", "ingest", f"ingest {size}: lanelog (open_db + ingest_paths)",
             worker_argv("lanelog_ingest", log=str(log.path), db=str(db)), "in-process",
             before_each=lambda: remove_db(db), check=check_ingest, not_run=ingest_missing),
        Case("ingest.floor", "ingest", f"ingest {size}: floor, DuckDB CTAS read_json_auto",
             worker_argv("duckdb_floor", log=str(log.path), db=str(floor_db)), "in-process",
             before_each=lambda: remove_db(floor_db), check=check_floor),
        Case("ingest.seed", "ingest", f"ingest {size}: seed Step 6 reader",
             worker_argv("seed_reader", log=str(log.clean)), "in-process",
             check=_counts_check(manifest.counts(), "clean copy"), notes=[clean_note, SLOW_WARMUP],
             warmup=0, before_all=lambda: read_through(log.clean)),
        Case("ingest.pandas", "ingest", f"ingest {size}: pandas.read_json(lines=True) + 4 counts",
             worker_argv("pandas_reader", log=str(log.clean)), "in-process",
             check=_counts_check(manifest.counts(), "clean copy"), notes=[clean_note, SLOW_WARMUP],
             warmup=0, before_all=lambda: read_through(log.clean)),
    ]


def incremental_cases(log: Log, out: Path, base_db: Path | None, why_not: str | None) -> list[Case]:
    """Re-ingest of the unchanged log, and of the log with lines appended (in place)."""
    unchanged_db = out / "incremental-unchanged.duckdb"
    append_db = out / "incremental-append.duckdb"
    manifest = log.manifest
    size = manifest.bytes
    appended = log.append_manifest

    def prepare_unchanged() -> None:
        # Each run starts from the freshly ingested log, as the append runs do.
        restore_log(log.path, size)
        copy_db(base_db, unchanged_db)

    def prepare_append() -> None:
        # Each run starts from the ingested log and appends the same lines to it.
        copy_db(base_db, append_db)
        append_lines(log.path, size, log.append)

    def prepare_series() -> None:
        restore_log(log.path, size)
        copy_db(base_db, append_db)

    def check_series(run: Run) -> list[str]:
        first = manifest.lines + appended.lines
        total = SERIES_RUNS * appended.lines
        expected = sum(1 for index in range(first, first + total) if line(manifest.seed, index, manifest.lines)[1])
        if run.info.get("attempts_added") != expected:
            return [f"added {run.info.get('attempts_added')} attempts over the series, expected {expected}"]
        return [f"added {expected:,} attempts over {SERIES_RUNS} runs; each run (s): {run.info.get('each')}"]

    def expect_added(count: int) -> Callable[[Run], list[str]]:
        def check(run: Run) -> list[str]:
            summary = run.info.get("summary") or _cli_summary(run)
            if summary.get("attempts_added") != count:
                return [f"added {summary.get('attempts_added')} attempts, expected {count}"]
            return [f"added {count:,} attempts, as expected"]
        return check

    resent_log = out / "resent.jsonl"
    resent_db = out / "incremental-resent.duckdb"

    def prepare_resent_log() -> None:
        # The whole log again behind a new first line: a new log whose lines are all stored.
        restore_log(log.path, size)
        with resent_log.open("wb") as target, log.path.open("rb") as source:
            target.write(b'{"attempt_id": "resent-head", "probe": "pass"}\n')
            while chunk := source.read(1 << 24):
                target.write(chunk)

    def prepare_resent() -> None:
        restore_log(log.path, size)
        copy_db(base_db, resent_db)

    def check_resent(run: Run) -> list[str]:
        summary = run.info.get("summary", {})
        got = (summary.get("attempts_added"), summary.get("duplicates"))
        if got != (1, manifest.attempts):
            return [f"added {got[0]} and counted {got[1]} duplicates; expected 1 and {manifest.attempts}"]
        return [f"counted all {manifest.attempts:,} re-sent attempts as duplicates, added only the new one"]

    not_run = why_not or components.ingest_api()
    cli_not_run = why_not or components.ingest_cli()
    n = f"{appended.lines:,}"
    return [
        Case("incremental.unchanged", "incremental", "re-ingest unchanged (in process)",
             worker_argv("lanelog_ingest", log=str(log.path), db=str(unchanged_db)), "in-process",
             before_each=prepare_unchanged, check=expect_added(0), not_run=not_run),
        Case("incremental.append", "incremental", f"ingest {n} appended lines (in process)",
             worker_argv("lanelog_ingest", log=str(log.path), db=str(append_db)), "in-process",
             before_each=prepare_append, check=expect_added(appended.attempts), not_run=not_run),
        Case("incremental.append_series", "incremental",
             f"ingest {n} appended lines, {SERIES_RUNS} runs in a row (in process, mean)",
             worker_argv("lanelog_append_series", log=str(log.path), db=str(append_db), runs=str(SERIES_RUNS),
                         lines=str(appended.lines), seed=str(manifest.seed),
                         start=str(manifest.lines + appended.lines), total=str(manifest.lines)),
             "in-process", figures={"total": "", "max": "slowest run"},
             before_each=prepare_series, check=check_series, not_run=not_run,
             notes=["each run appends fresh lines; its close checkpoints them into the file"]),
        Case("incremental.unchanged_cli", "incremental", "re-ingest unchanged: `lanelog ingest` command",
             lanelog_argv("ingest", "--db", str(unchanged_db), "--format", "json", str(log.path)), "process",
             before_each=prepare_unchanged, check=expect_added(0), not_run=cli_not_run),
        Case("incremental.append_cli", "incremental", f"ingest {n} appended lines: `lanelog ingest` command",
             lanelog_argv("ingest", "--db", str(append_db), "--format", "json", str(log.path)), "process",
             before_each=prepare_append, check=expect_added(appended.attempts), not_run=cli_not_run),
        Case("incremental.resent", "incremental",
             f"ingest {size_label(manifest.lines)} re-sent lines (a new log of stored attempts, in process)",
             worker_argv("lanelog_ingest", log=str(resent_log), db=str(resent_db)), "in-process",
             before_all=prepare_resent_log, before_each=prepare_resent, check=check_resent, not_run=not_run,
             notes=["the same lines as `ingest`, every attempt already stored: the duplicate path"]),
    ]


def _cli_summary(run: Run) -> dict[str, int]:
    try:
        return json.loads(run.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        return {}


# The report's floor: a process that opens the database and computes the weekly figures
# and the weekly money in one GROUP BY, printing the rows (no scope, no checks, no JSON).
REPORT_FLOOR = """
import sys, duckdb
con = duckdb.connect(sys.argv[1], read_only=True)
print(con.execute('''
    SELECT week, count(*), sum(is_reject::INT), sum(armed::INT), sum(credit_bug::INT), sum(quarantined::INT),
           sum(CASE WHEN armed THEN coalesce(units, len(properties), 0) ELSE 0 END),
           sum(CASE WHEN armed THEN input_tokens END), sum(CASE WHEN armed THEN output_tokens END),
           sum(CASE WHEN armed THEN cost END), min(currency), max(currency)
    FROM attempts GROUP BY GROUPING SETS ((week), ()) ORDER BY week''').fetchall())
"""


def report_cases(db: Path | None, attempts: int, why_not: str | None) -> list[Case]:
    """`lanelog report --format json` and the per-week query alone, over the multiplied database."""
    label = size_label(attempts)

    def check_report(run: Run) -> list[str]:
        try:
            totals = json.loads(run.stdout)["totals"]
        except (json.JSONDecodeError, KeyError) as error:
            return [f"report printed no JSON totals ({error})"]
        if totals.get("attempts") != attempts:
            return [f"report totals {totals.get('attempts')} attempts, expected {attempts}"]
        return [f"totals: {attempts:,} attempts"]

    def check_weekly(run: Run) -> list[str]:
        if run.info.get("attempts") != attempts:
            return [f"weekly sums to {run.info.get('attempts')} attempts, expected {attempts}"]
        return [f"{run.info.get('weeks')} weekly rows, {attempts:,} attempts"]

    return [
        Case("report.floor", "report", f"report {label}: floor, one process, one GROUP BY (figures and money)",
             [sys.executable, "-c", REPORT_FLOOR, str(db)], "process", not_run=why_not),
        Case("report.cli", "report", f"report {label}: `lanelog report --format json`",
             lanelog_argv("report", "--db", str(db), "--format", "json"), "process",
             check=check_report, not_run=why_not or components.report_cli()),
        Case("report.weekly", "report", f"report {label}: queries.weekly alone (in process)",
             worker_argv("weekly_query", db=str(db)), "in-process",
             check=check_weekly, not_run=why_not or components.weekly_query()),
    ]


def dashboard_cases(db: Path | None, attempts: int, why_not: str | None) -> list[Case]:
    """The overview page through AppTest: cold, then a cached rerun in the same process."""
    label = size_label(attempts)

    def check(run: Run) -> list[str]:
        metrics = run.info.get("metrics") or {}
        if not metrics:
            return ["the overview page showed no metrics"]
        return [f"{len(metrics)} metrics shown"]

    return [
        Case("dashboard.overview", "dashboard", f"dashboard {label}: overview page (AppTest)",
             worker_argv("dashboard_overview", app=str(components.DASHBOARD_APP), db=str(db)), "in-process",
             figures={"cold": "cold", "cached": "cached rerun"}, check=check,
             not_run=why_not or components.dashboard_app()),
    ]


def router_cases(repo: dict[str, object], out: Path) -> list[Case]:
    """`lanelog route` on the wide patch, against the bare `git diff --numstat` of the same diff."""
    path, files = str(repo["path"]), int(repo["files_touched"])
    route_log = out / "route-lane-log.jsonl"

    def check(run: Run) -> list[str]:
        try:
            plan = json.loads(run.stdout)
        except json.JSONDecodeError:
            return ["route printed no JSON plan"]
        if plan.get("files_count") != files or "line_cap" not in (plan.get("reasons") or []):
            return [f"plan: files_count {plan.get('files_count')}, reasons {plan.get('reasons')}"]
        return [f"rejected on line_cap, files_count {files:,}, as expected"]

    return [
        Case("router.route", "router", f"router {files:,} files: `lanelog route`",
             lanelog_argv("route", "--repo", path, "--base", str(repo["base"]), "--head", str(repo["head"]),
                          "--today", TODAY, "--out", str(route_log)),
             "process", expect_exit=(0, 1), check=check, not_run=components.route_cli()),
        Case("router.git", "router", f"router {files:,} files: floor, `git diff --numstat`",
             ["git", "-C", path, "diff", "--numstat", f"{repo['base']}...{repo['head']}"], "process"),
    ]
