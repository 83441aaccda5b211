"""`python -m bench.scale`: the figures docs/scale.md quotes, at 1M, 10M (and optionally 100M) attempts.

For each size: the database's size on disk, `lanelog report --db` (warm, best of
three), a full `lanelog export` and the lake's size, `lanelog report --lake` on
DuckDB (best of three) and on Spark in local mode (one run, its JSON compared
with DuckDB's).  The 1M database is ingested from the generated 1M-line log
(that ingest is timed), then an incremental export after the 1,000
appended lines are ingested into a copy; larger ones are multiplied from it as `make bench` does
(bench.data.multiply_db), so their ingest time is not measured here: ingest
streams the log in chunks and scales with its bytes, and docs/scale.md says how
it is extrapolated.  Writes bench/out/scale.json.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from bench.cases import lanelog_argv, size_label
from bench.data import copy_db, make_log, multiply_db, remove_db
from bench.harness import REPO_ROOT


def _run(*args: str, timeout: float = 7200) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(lanelog_argv(*args), capture_output=True, text=True, timeout=timeout, check=True)
    return time.perf_counter() - start, done.stdout


def _best(*args: str, runs: int = 3) -> tuple[float, str]:
    _run(*args)  # warm-up: the page cache
    timings = [_run(*args) for _ in range(runs)]
    return min(seconds for seconds, _ in timings), timings[0][1]


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(item.stat().st_size for item in path.rglob("*") if item.is_file())


def _incremental(db: Path, lake: Path, append: Path, out: Path) -> dict[str, object]:
    """Export again after ingesting the 1,000 appended lines into a copy of the database."""
    copy, lake_copy = out / "scale-append.duckdb", out / "scale-append-lake"
    copy_db(db, copy)
    shutil.rmtree(lake_copy, ignore_errors=True)
    shutil.copytree(lake, lake_copy)
    try:
        _run("ingest", "--db", str(copy), "--format", "json", str(append))
        seconds, printed = _run("export", "--db", str(copy), "--lake", str(lake_copy), "--format", "json", "--quiet")
        summary = json.loads(printed)
    finally:
        remove_db(copy)
        shutil.rmtree(lake_copy, ignore_errors=True)
    return {"export_incremental_s": round(seconds, 2), "incremental_weeks_written": len(summary["weeks_written"]),
            "incremental_weeks_unchanged": summary["weeks_unchanged"]}


def measure(out: Path, sizes: list[int], spark_master: str) -> list[dict[str, object]]:
    log = make_log(out, 7, 1_000_000, 1_000, workers=min(2, os.cpu_count() or 1))
    base = out / "scale-1M.duckdb"
    remove_db(base)
    ingest_s, _ = _run("ingest", "--db", str(base), "--format", "json", str(log.path))
    rows = []
    for attempts in sizes:
        label = size_label(attempts)
        db = base if attempts == log.manifest.attempts else out / f"scale-{label}.duckdb"
        if db != base:
            remove_db(db)
            multiply_db(base, db, attempts)
        report_s, from_db = _best("report", "--db", str(db), "--format", "json")
        lake = out / f"scale-{label}-lake"
        shutil.rmtree(lake, ignore_errors=True)
        export_s, _ = _run("export", "--db", str(db), "--lake", str(lake), "--quiet")
        incremental = _incremental(db, lake, log.append, out)
        lake_s, from_lake = _best("report", "--lake", str(lake), "--format", "json")
        spark_s, from_spark = _run("report", "--lake", str(lake), "--engine", "spark",
                                   "--spark-master", spark_master, "--format", "json")
        rows.append({
            "attempts": json.loads(from_db)["totals"]["attempts"],
            "db_bytes": _size(db), "lake_bytes": _size(lake),
            "ingest_s": round(ingest_s, 1) if db == base else None,
            "report_db_s": round(report_s, 3), "export_full_s": round(export_s, 1),
            **incremental,
            "report_lake_s": round(lake_s, 3), "report_spark_s": round(spark_s, 1),
            "lake_equal": from_lake == from_db, "spark_equal": from_spark == from_db,
        })
        print(json.dumps(rows[-1]), flush=True)
        if db != base:
            remove_db(db)
        shutil.rmtree(lake, ignore_errors=True)
    return rows


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.scale", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--attempts", type=int, nargs="+", default=[999_980, 10_000_000],
                        help="database sizes (the first, 999,980, is the ingested 1M-line log)")
    parser.add_argument("--spark-master", default="local[2]")
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "bench" / "out")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    rows = measure(args.out.resolve(), args.attempts, args.spark_master)
    result = {"rows": rows, "load_average_at_end": os.getloadavg(), "nproc": os.cpu_count(),
              "duration_s": round(time.perf_counter() - started, 1)}
    (args.out / "scale.json").write_text(json.dumps(result, indent=2) + "\n")
    return 0 if all(row["lake_equal"] and row["spark_equal"] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
