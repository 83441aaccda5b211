"""`python -m bench [--quick]`: measure lanelog against its baselines, side by side, in one run.

The full run (`make bench`) uses a 1,000,000-line log, a 10,000,000-attempt
database and a 5,000-file patch, and writes bench/results.json; `--quick`
(`make bench-quick`, the CI smoke test) runs every case at small sizes and
writes bench/out/results-quick.json.  Generated data lives in bench/out/.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import duckdb

from bench import cases, lake, machine, objects, table
from bench.data import copy_db, make_log, multiply_db, restore_log
from bench.generate import manifest_dict
from bench.harness import REPO_ROOT, Case, Outcome, run_case
from bench.history import history_cases, make_history
from bench.hook import hook_cases
from bench.install import install_cases
from bench.repo import make_repo
from bench.smalllogs import make_short_log, make_small_logs, short_line_cases, small_log_cases


@dataclass(frozen=True)
class Sizes:
    """How big each input is and how often each case runs."""

    lines: int
    append: int
    report_attempts: int
    files: int
    commits: int
    warmup: int
    reps: int
    timeout: float
    small_logs: tuple[int, ...]  # folders of one-line logs
    short_lines: int  # lines of the short-line log


FULL = Sizes(lines=1_000_000, append=1_000, report_attempts=10_000_000, files=5_000, commits=300,
             warmup=1, reps=3, timeout=600, small_logs=(5_000, 50_000), short_lines=1_000_000)
QUICK = Sizes(lines=20_000, append=1_000, report_attempts=200_000, files=200, commits=10,
              warmup=1, reps=2, timeout=300, small_logs=(200,), short_lines=20_000)
# Groups `--only` can run on their own (they need nothing the others make).  The install
# group reaches the package index, so the quick run (CI) leaves it out.
ALONE = ("small", "short", "history", "install", "s3", "incremental", "report")
# Of those, the groups that need the generated log and its ingest (run as the ingest row).
INGESTED = ("incremental", "report")


def _arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes: the CI smoke test")
    parser.add_argument("--seed", type=int, default=7, help="generator seed (default 7)")
    parser.add_argument("--lines", type=int, help="lines in the ingest log")
    parser.add_argument("--append", type=int, help="lines appended for the incremental case")
    parser.add_argument("--report-attempts", type=int, help="attempts in the report database")
    parser.add_argument("--files", type=int, help="files the router's patch touches")
    parser.add_argument("--reps", type=int, help="measured runs per case (after the warm-up)")
    parser.add_argument("--warmup", type=int, help="warm-up runs per case")
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "bench" / "out", help="scratch folder")
    parser.add_argument("--results", type=Path, help="where to write the results JSON")
    parser.add_argument("--only", choices=ALONE, action="append",
                        help="run only this group (repeatable); writes bench/out/results-only.json, not the doc")
    parser.add_argument("--show", type=Path, metavar="RESULTS_JSON",
                        help="print an earlier run's table as Markdown and exit (runs nothing)")
    return parser.parse_args(argv)


def _sizes(args: argparse.Namespace) -> Sizes:
    base = QUICK if args.quick else FULL
    chosen = {name: getattr(args, name) for name in ("lines", "append", "report_attempts", "files",
                                                     "reps", "warmup")}
    return Sizes(**{**base.__dict__, **{k: v for k, v in chosen.items() if v is not None}})


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def main(argv: list[str]) -> int:
    """Run every case and write the results; the exit code says whether the harness worked."""
    args = _arguments(argv)
    if args.show is not None:
        print(table.report_markdown(json.loads(args.show.read_text())), end="")
        return 0
    sizes = _sizes(args)
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    results_path = args.results or (out / "results-quick.json" if args.quick
                                    else out / "results-only.json" if args.only
                                    else REPO_ROOT / "bench" / "results.json")
    started = time.perf_counter()
    source = machine.source_state(str(REPO_ROOT))
    outcomes: list[Outcome] = []
    data: dict[str, object] = {}

    def run(group: list[Case]) -> list[Outcome]:
        done = [run_case(case, warmup=sizes.warmup, reps=sizes.reps, timeout=sizes.timeout, log=_log)
                for case in group]
        outcomes.extend(done)
        return done

    def shapes() -> None:
        if not args.only or "small" in args.only:
            _log("small logs")
            for count in sizes.small_logs:
                made = make_small_logs(out / f"small-logs-{count}", count, args.seed)
                data[f"small_logs_{count}"] = made
                run(small_log_cases(out / f"small-logs-{count}", count, made["attempts"], out))
        if not args.only or "s3" in args.only:
            _log("logs in a bucket")
            count = sizes.small_logs[0]
            made = make_small_logs(out / f"small-logs-{count}", count, args.seed)
            if objects.missing() is not None:
                run(objects.bucket_cases(out / f"small-logs-{count}", count, made["attempts"], "", out))
            else:
                with objects.s3_server() as endpoint:
                    objects.upload_folder(endpoint, out / f"small-logs-{count}", f"s3.{count}")
                    run(objects.bucket_cases(out / f"small-logs-{count}", count, made["attempts"], endpoint, out))
        if not args.only or "short" in args.only:
            _log("short lines")
            data["short_log"] = make_short_log(out / "short.jsonl", sizes.short_lines, args.seed)
            run(short_line_cases(out / "short.jsonl", sizes.short_lines, out))
            data["short_log_sparse"] = make_short_log(out / "short-sparse.jsonl", sizes.short_lines, args.seed,
                                                      shape="sparse")
            run(short_line_cases(out / "short-sparse.jsonl", sizes.short_lines, out, shape="sparse"))

    if args.only:
        shapes()
        if any(group in args.only for group in INGESTED):
            ingested(args, sizes, out, data, run)
        if "history" in args.only:
            _log("router start-up and replay")
            history = make_history(out / "history-repo", sizes.commits)
            data["history"] = history
            run(history_cases(history, out))
            run(hook_cases(history, out))
        if "install" in args.only:
            _log("install")
            run(install_cases(out))
        return _finish(args, sizes, source, data, outcomes, started, results_path)

    _log(f"generating a {sizes.lines:,}-line lane log in {out} (seed {args.seed}; reused when unchanged)")
    step = time.perf_counter()
    log = make_log(out, args.seed, sizes.lines, sizes.append, workers=min(2, os.cpu_count() or 1))
    data["log"] = {**manifest_dict(log.manifest), "path": str(log.path),
                   "prepared_s": round(time.perf_counter() - step, 1)}
    data["appended"] = manifest_dict(log.append_manifest)

    _log("ingest")
    ingest = run(cases.ingest_cases(log, out))
    base_db, why_not = _keep_ingested(ingest[0], out)

    shapes()

    _log("incremental")
    try:
        run(cases.incremental_cases(log, out, base_db, why_not))
    finally:
        restore_log(log.path, log.manifest.bytes)

    _log("report")
    report_db = out / "report.duckdb"
    report_why_not = why_not
    if base_db is not None:
        _log(f"  building the {sizes.report_attempts:,}-attempt database")
        try:
            data["report_db"] = multiply_db(base_db, report_db, sizes.report_attempts)
            _log(f"  built in {data['report_db']['seconds']} s")
        except (duckdb.Error, ValueError) as error:
            report_why_not = f"could not build its database from the ingested one: {error}"
    run(cases.report_cases(report_db, sizes.report_attempts, report_why_not))

    _log("dashboard")
    run(cases.dashboard_cases(base_db, log.manifest.attempts, why_not))

    _log("router")
    repo = make_repo(out / "wide-patch-repo", sizes.files)
    data["repo"] = repo
    run(cases.router_cases(repo, out))
    history = make_history(out / "history-repo", sizes.commits)
    data["history"] = history
    run(history_cases(history, out))
    run(hook_cases(history, out))

    _log("lake")
    run(lake.lake_cases(report_db, sizes.report_attempts, log.append, out, report_why_not))

    if not args.quick:
        _log("install")
        run(install_cases(out))

    return _finish(args, sizes, source, data, outcomes, started, results_path)


def ingested(args: argparse.Namespace, sizes: Sizes, out: Path, data: dict[str, object],
             run: Callable[[list[Case]], list[Outcome]]) -> None:
    """`--only incremental` / `--only report`: the log and lanelog's ingest of it, then those rows."""
    log = make_log(out, args.seed, sizes.lines, sizes.append, workers=min(2, os.cpu_count() or 1))
    data["log"] = {**manifest_dict(log.manifest), "path": str(log.path)}
    data["appended"] = manifest_dict(log.append_manifest)
    _log("ingest (the base of the rows asked for)")
    base_db, why_not = _keep_ingested(run(cases.ingest_cases(log, out)[:1])[0], out)
    if "incremental" in args.only:
        _log("incremental")
        try:
            run(cases.incremental_cases(log, out, base_db, why_not))
        finally:
            restore_log(log.path, log.manifest.bytes)
    if "report" in args.only:
        _log("report")
        report_db, report_why_not = out / "report.duckdb", why_not
        if base_db is not None:
            data["report_db"] = multiply_db(base_db, report_db, sizes.report_attempts)
        run(cases.report_cases(report_db, sizes.report_attempts, report_why_not))


def _finish(args: argparse.Namespace, sizes: Sizes, source: object, data: dict[str, object],
            outcomes: list[Outcome], started: float, results_path: Path) -> int:
    """Write the results and the table; the exit code says whether every case ran."""
    rows = table.rows(outcomes)
    results = {
        "mode": "quick" if args.quick else "only " + ", ".join(args.only) if args.only else "full",
        "sizes": sizes.__dict__,
        "seed": args.seed,
        "machine": machine.facts(),
        "source": source,
        "data": data,
        "duration_s": round(time.perf_counter() - started, 1),
        "rows": rows,
    }
    results_path.parent.mkdir(parents=True, exist_ok=True)
    results_path.write_text(json.dumps(results, indent=2) + "\n")
    (args.out.resolve() / "results.md").write_text(table.report_markdown(results))
    if not args.quick and not args.only:
        table.write_into_doc(DOC, results)
        _log(f"the table in {DOC} now shows this run")
    if args.quick:
        print("quick mode: small sizes check the harness; met/short here says nothing about the targets\n")
    print(table.text(rows))
    _log(f"\n{results['mode']} run took {results['duration_s']} s; results in {results_path}")
    return 1 if any(row["status"] == "failed" for row in rows) else 0


DOC = Path(__file__).resolve().parents[1] / "docs" / "performance.md"


def _keep_ingested(outcome: Outcome, out: Path) -> tuple[Path | None, str | None]:
    """Keep the last full ingest's database: the base of the incremental, report and dashboard cases."""
    if outcome.case.not_run:
        return None, f"needs lanelog's ingest to build its database ({outcome.case.not_run})"
    if outcome.error:
        return None, "needs lanelog's ingest to build its database, and the ingest case failed"
    base = out / "base.duckdb"
    copy_db(out / "ingest.duckdb", base)
    return base, None


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
