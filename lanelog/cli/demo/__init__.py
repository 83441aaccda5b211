"""`lanelog demo`: honest demo data from the real router, ingested into a database.

It builds throwaway git repositories, lets the scripted agent (`agent`) make
patches of every kind the decision table knows, runs the real `lanelog route`
as a subprocess on each with `--today` stepping through the weeks and `--run`
calling the demo's property runner, adds a few lines from the clearly labelled
faulty `legacy-promoter`, lets the reviewers merge or close the pull requests
(`people`, recorded by the real `lanelog outcome`), and ingests the three logs.
"""

from __future__ import annotations

import itertools
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from lanelog.cli.demo.agent import Patch
from lanelog.cli.demo.people import ORG, Closing, Tried, closings, write_inputs
from lanelog.cli.demo.promoter import promotion_lines
from lanelog.cli.demo.scenario import START, build_repos, human_changes, week_patches
from lanelog.errors import DemoError, LanelogError

__all__ = ["MADE_BY", "DemoSummary", "run_demo"]

ROUTER_LOG = "lane-log.jsonl"
PROMOTER_LOG = "legacy-promoter.jsonl"
OUTCOME_LOG = "outcomes.jsonl"  # what the outcome jobs wrote when the pull requests closed
MADE_BY = "lanelog demo"  # recorded in lanelog_meta, so a rerun may rebuild its own database
# -P: run from a folder holding a clone at ./lanelog, `python -m` would import the clone's
# folder in place of the installed package.
RUNNER = f"{shlex.quote(sys.executable)} -P -m lanelog.cli.demo.runner"
ROUTE_TIMEOUT = 300  # seconds for one patch: the router's own limits stop it long before
ROUTE_WORKERS = min(4, os.cpu_count() or 1)


@dataclass
class DemoSummary:
    """What the demo made: counts a user (and the tests) can check."""

    db: Path
    weeks: int
    attempts: int = 0
    # The one credit-bug count, as report and check give it, read from the database the demo made (`lanelog demo`
    # counts it): the seed's line credit bugs (the legacy-promoter's) and the pull requests merged over a live
    # quarantine nobody said may go.
    credit_bugs: int = 0
    merge_credit_bugs: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    reasons: Counter[str] = field(default_factory=Counter)
    lanes: Counter[str] = field(default_factory=Counter)
    producers: Counter[str] = field(default_factory=Counter)
    outcomes: Counter[str] = field(default_factory=Counter)
    pull_requests: Counter[str] = field(default_factory=Counter)  # what became of them (people.py's stories)
    seconds: float = 0.0
    ingest: dict[str, Any] = field(default_factory=dict)

    def count(self, lines: list[dict[str, Any]]) -> None:
        """Account for every line by producer, by outcome and by lane, so the counts add up."""
        for line in lines:
            self.attempts += 1
            self.producers[line.get("producer") or "(none)"] += 1
            self.outcomes["probe_reject" if line.get("probe") == "reject"
                          else "armed" if line.get("model_call_allowed") else "neither"] += 1
            self.lanes[line.get("lane") or "not_started"] += 1

    def as_dict(self) -> dict[str, Any]:
        return {
            "db": str(self.db),
            "weeks": self.weeks,
            "attempts": self.attempts,
            "credit_bugs": self.credit_bugs,
            "merge_credit_bugs": self.merge_credit_bugs,
            "credit_bugs_total": self.credit_bugs + self.merge_credit_bugs,
            "kinds": dict(sorted(self.kinds.items())),
            "reasons": dict(sorted(self.reasons.items())),
            "lanes": dict(sorted(self.lanes.items())),
            "producers": dict(sorted(self.producers.items())),
            "outcomes": dict(sorted(self.outcomes.items())),
            "pull_requests": dict(sorted(self.pull_requests.items())),
            "seconds": round(self.seconds, 1),
            "ingest": self.ingest,
        }


def route(patch: Patch, day: date, log: Path) -> dict[str, Any]:
    """Run the real `lanelog route` on one patch; return the plan it printed."""
    from lanelog.router import outside_ci

    argv = [
        sys.executable, "-P", "-m", "lanelog", "route",
        "--repo", str(patch.checkout or patch.repo.root),
        "--base", patch.base,
        "--head", patch.head,
        "--today", day.isoformat(),
        "--out", str(log),
        "--repo-name", patch.repo.name,
        "--run", RUNNER,
        "--property-timeout", "30",
        "--pull-request", str(patch.pull_request),
        "--repository", f"{ORG}/{patch.repo.name}",
        "--agent", patch.agent,
        *patch.extra_args,
    ]
    try:
        # The demo's attempts are no CI run's: in a forge's CI job, route would name this run and its
        # event's pull request on every line.
        done = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=ROUTE_TIMEOUT,
                              env=outside_ci(os.environ))
    except subprocess.TimeoutExpired:
        raise DemoError(f"lanelog route did not finish in {ROUTE_TIMEOUT} s on a {patch.kind} patch") from None
    try:
        plan = json.loads(done.stdout) if done.returncode in (0, 1) else None
    except json.JSONDecodeError:
        plan = None
    if not isinstance(plan, dict):
        raise DemoError(f"lanelog route exited {done.returncode} without its plan on a {patch.kind} patch: "
                        f"{done.stderr.strip() or done.stdout.strip()}")
    return plan


def make_logs(workdir: Path, log_dir: Path, weeks: int) -> tuple[list[Path], DemoSummary]:
    """Route every patch of every week, then close the pull requests; write the router's log, the faulty
    producer's log and the outcome log."""
    repos = build_repos(workdir / "repos")
    log_dir.mkdir(parents=True, exist_ok=True)
    log, promoter_log = log_dir / ROUTER_LOG, log_dir / PROMOTER_LOG
    for old in (log, promoter_log):
        old.unlink(missing_ok=True)
    summary = DemoSummary(db=Path(), weeks=weeks)
    numbers = itertools.count(1)
    promotions: list[str] = []
    pull_requests: dict[tuple[str, int], Tried] = {}
    for week in range(weeks):
        monday = START + timedelta(weeks=week)
        human_changes(repos, week, monday)
        patches = week_patches(repos, week, monday, numbers)
        # The branches exist now; the router only reads git objects, and appends whole
        # lines atomically, so a week's attempts can be routed side by side.
        with ThreadPoolExecutor(max_workers=ROUTE_WORKERS) as pool:
            plans = list(pool.map(lambda job: route(job[1], job[0], log), patches))
        for (day, patch), plan in zip(patches, plans):
            pull_requests.setdefault((patch.repo.name, patch.pull_request),
                                     Tried(patch.pull_request)).attempts.append((patch, day, plan))
            summary.kinds[patch.kind] += 1
            summary.reasons.update(plan.get("reasons") or [])
        if week % 3 == 2:  # the legacy script ran in these weeks
            promotions += promotion_lines(plans)
        summary.count(plans)
    promoter_log.write_text("".join(line + "\n" for line in promotions), encoding="utf-8")
    summary.count([json.loads(line) for line in promotions])
    outcome_log = close_pull_requests(list(pull_requests.values()), workdir, log_dir, weeks, summary)
    return [log, promoter_log, outcome_log], summary


def close_pull_requests(pull_requests: list[Tried], workdir: Path, log_dir: Path, weeks: int,
                        summary: DemoSummary) -> Path:
    """The reviewers merge or close the pull requests; each outcome job's line goes to the outcome log."""
    outcome_log = log_dir / OUTCOME_LOG
    outcome_log.unlink(missing_ok=True)
    outcome_log.touch()
    found = closings(pull_requests, START + timedelta(weeks=weeks))
    with ThreadPoolExecutor(max_workers=ROUTE_WORKERS) as pool:
        list(pool.map(lambda closed: record_outcome(closed, workdir / "outcomes", outcome_log), found))
    summary.pull_requests.update(closed.story for closed in found)
    summary.pull_requests["open"] = len(pull_requests) - len(found)
    return outcome_log


def record_outcome(found: Closing, folder: Path, log: Path) -> None:
    """What `lanelog outcome --event --reviews --label-events` does in the pull request's closing job: read
    the three files GitHub's records make, append the outcome line (in this process: it runs no program)."""
    from lanelog.router import OutcomeFlags, OutcomeRequest, append_line, outcome_line

    tried = found.tried
    event, reviews, label_events = write_inputs(found, folder / str(tried.number))
    request = OutcomeRequest(event=event, flags=OutcomeFlags(), reviews=reviews, label_events=label_events,
                             repo_name=tried.last[0].repo.name, ci_run_url=None)
    try:
        append_line(log, outcome_line(request, environ={}))
    except LanelogError as exc:
        raise DemoError(f"lanelog outcome refused pull request {tried.repository}#{tried.number}: {exc}") from None


def run_demo(db: Path, weeks: int = 8, replace: bool = False, log_dir: Path | None = None) -> DemoSummary:
    """Make the demo data and ingest it into a new database at `db`.

    An existing database is left alone unless `replace` is set, so the demo never mixes
    its weeks into real data. The logs live in a throwaway folder unless `log_dir` is given.
    """
    from lanelog import ingest, store
    if weeks < 1:
        raise DemoError("--weeks must be at least 1")
    if db.exists() and not replace:
        _check_demo_may_rebuild(db)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="lanelog-demo-") as tmp:
        logs, summary = make_logs(Path(tmp), log_dir or Path(tmp), weeks)
        for stale in (db, Path(f"{db}.wal")):
            stale.unlink(missing_ok=True)
        con = store.open_db(db)
        try:
            result = ingest.ingest_paths(con, logs)
            store.put_meta(con, "made_by", MADE_BY)
            fingerprints = sorted(fingerprint for fingerprint, _ in store.stored_logs(con))
            store.put_meta(con, "demo_logs", json.dumps(fingerprints))
        finally:
            con.close()
    summary.db = db
    summary.ingest = result.as_dict()
    summary.seconds = time.monotonic() - started
    return summary


def _check_demo_may_rebuild(db: Path) -> None:
    """Refuse, before any work, to rebuild a database that holds anything the demo did not write.

    The demo rebuilds its own database, so its set-up command can run twice; but a
    database the demo made and a user then ingested into holds their lines too.
    """
    from lanelog import store
    how = (f"keep it and make the demo elsewhere with `lanelog demo --db OTHER.duckdb`, look at it "
           f"with `lanelog dashboard --db {shlex.quote(str(db))}`, or discard it with "
           f"`lanelog demo --db {shlex.quote(str(db))} --replace`")
    try:
        # Read as it is: a demo database an earlier lanelog made (an older schema) is still ours.
        found = store.peek_db(db, wait=5.0)
    except LanelogError:
        raise DemoError(f"{db} already exists and is not a database the demo made; {how}") from None
    if found.meta.get("made_by") != MADE_BY:
        raise DemoError(f"{db} already exists and was not made by the demo; {how}")
    ours = set(json.loads(found.meta.get("demo_logs") or "[]"))
    theirs = [path for fingerprint, path in found.logs if fingerprint not in ours]
    if theirs:
        more = f" and {len(theirs) - 1} more" if len(theirs) > 1 else ""
        raise DemoError(
            f"{db} was made by the demo, but holds {len(theirs)} log(s) the demo did not write "
            f"({theirs[0]}{more}), so it is not rebuilt; {how}"
        )
    kept = [f"{rows} row(s) of {table}" for table, rows in sorted(found.kept_rows.items()) if rows]
    if kept:
        raise DemoError(f"{db} was made by the demo, but holds what the demo did not make ({', '.join(kept)}: "
                        f"a stored replay, or alerts sent), so it is not rebuilt; {how}")
