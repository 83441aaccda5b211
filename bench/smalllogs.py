"""The shapes CI really produces: a folder of one-line logs (a log per job), and a lean producer's short lines.

Each case stands beside its floor, DuckDB's own lossy load of the same bytes in the
same run: `read_json_auto` over the folder's glob, or over the short-line log.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
from pathlib import Path

from bench import components
from bench.cases import size_label
from bench.data import copy_db, remove_db
from bench.generate import line
from bench.harness import Case, Run, worker_argv

SHORT_REPOS = ["billing", "orders", "ledger", "search"]


def make_small_logs(folder: Path, count: int, seed: int) -> dict[str, object]:
    """`count` one-line logs, each one router-shaped line (the generator's mix), named as CI jobs."""
    marker = folder / ".made"
    made = json.loads(marker.read_text()) if marker.exists() else {}
    if (made.get("count"), made.get("seed")) == (count, seed):
        return {"folder": str(folder), "logs": count, "attempts": made["attempts"]}
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    attempts = 0
    for index in range(count):
        data, row = line(seed, index, count)
        attempts += row is not None
        (folder / f"job-{index:06d}.jsonl").write_bytes(data + b"\n")
    marker.write_text(json.dumps({"count": count, "seed": seed, "attempts": attempts}))
    return {"folder": str(folder), "logs": count, "attempts": attempts}


# The short shapes: "lean" is a producer writing the fields the figures read, in the
# router's key order; "sparse" another producer's, its keys in another order, with a
# producer and a lane, and the optional fields often absent (no units on a reject, no
# quarantine most of the time, model_call_allowed left out when false).
SHORT_SHAPES = ("lean", "sparse")


def _short_row(rng: random.Random, index: int, lines: int, shape: str) -> dict[str, object]:
    reject = rng.random() < 0.45
    ts = f"2026-{4 + index * 6 // lines:02d}-{1 + index % 28:02d}T{index % 24:02d}:00:00Z"
    if shape == "lean":
        return {"attempt_id": f"s{index:09d}", "ts": ts, "repo": rng.choice(SHORT_REPOS),
                "probe": "reject" if reject else "pass", "model_call_allowed": not reject,
                "units": 0 if reject else rng.randint(1, 3), "quarantine": [], "merge_credit": 0}
    row: dict[str, object] = {"probe": "reject" if reject else "pass", "ts": ts, "repo": rng.choice(SHORT_REPOS),
                              "producer": "lean-bot", "lane": "fast" if index % 3 else "slow"}
    if not reject:
        row["model_call_allowed"] = True
        row["units"] = rng.randint(1, 3)
    if rng.random() < 0.1:
        row["quarantine"] = [f"tests/test_{rng.randint(1, 40)}.py::flaky"]
    row["attempt_id"] = f"p{index:09d}"
    if not reject and rng.random() < 0.5:
        row["merge_credit"] = 1
    return row


def make_short_log(path: Path, lines: int, seed: int, shape: str = "lean") -> dict[str, object]:
    """A lean producer's log of short lines (about 160 bytes) with the fields the figures
    read, in one of SHORT_SHAPES."""
    marker = path.with_suffix(".made")
    wanted = {"lines": lines, "seed": seed, "shape": shape}
    made = json.loads(marker.read_text()) if marker.exists() else {}
    if {"shape": "lean", **made} == wanted and path.exists():
        return {"path": str(path), "lines": lines, "bytes": path.stat().st_size, "shape": shape}
    rng = random.Random(seed)
    with path.open("wb") as out:
        for index in range(lines):
            row = _short_row(rng, index, lines, shape)
            out.write(json.dumps(row, separators=(",", ":")).encode() + b"\n")
    marker.write_text(json.dumps(wanted))
    return {"path": str(path), "lines": lines, "bytes": path.stat().st_size, "shape": shape}


def _expect(attempts: int) -> object:
    def check(run: Run) -> list[str]:
        summary = run.info.get("summary", {})
        if summary.get("attempts_added") != attempts or run.info.get("errors"):
            return [f"added {summary.get('attempts_added')} attempts, expected {attempts}; "
                    f"errors: {run.info.get('errors')}"]
        return [f"added {attempts:,} attempts, as expected"]
    return check


def small_log_cases(folder: Path, count: int, attempts: int, out: Path) -> list[Case]:
    """A folder of `count` one-line logs: lanelog into a new database, the glob floor, and the unchanged re-run."""
    tag = f"small.{count}"
    db, floor_db, base_db = out / f"{tag}.duckdb", out / f"{tag}-floor.duckdb", out / f"{tag}-base.duckdb"
    label = f"{count:,} one-line logs"

    def make_base() -> None:
        remove_db(base_db)
        subprocess.run([sys.executable, "-m", "lanelog", "ingest", "--db", str(base_db), str(folder)],
                       check=True, capture_output=True, timeout=1800)

    not_run = components.ingest_api()
    return [
        Case(f"{tag}.lanelog", "small logs", f"{label}: lanelog into a new database",
             worker_argv("lanelog_ingest", log=str(folder), db=str(db)), "in-process",
             before_each=lambda: remove_db(db), check=_expect(attempts), not_run=not_run),
        Case(f"{tag}.floor", "small logs", f"{label}: floor, DuckDB CTAS read_json_auto over the glob (JSON lines)",
             worker_argv("duckdb_floor", log=str(folder / "*.jsonl"), db=str(floor_db), lines="yes"), "in-process",
             before_each=lambda: remove_db(floor_db)),
        Case(f"{tag}.unchanged", "small logs", f"{label}: lanelog again, nothing new",
             worker_argv("lanelog_ingest", log=str(folder), db=str(db)), "in-process",
             before_all=make_base, before_each=lambda: copy_db(base_db, db), check=_expect(0), not_run=not_run),
    ]


def short_line_cases(log: Path, lines: int, out: Path, shape: str = "lean") -> list[Case]:
    """A log of short lines of one of SHORT_SHAPES: lanelog against the floor."""
    tag = "short" if shape == "lean" else f"short.{shape}"
    db, floor_db = out / f"{tag}.duckdb", out / f"{tag}-floor.duckdb"
    label = f"{size_label(lines)} short lines"
    if shape != "lean":
        label += f" ({shape}: keys reordered, optional ones absent)"
    return [
        Case(f"{tag}.lanelog", "short lines", f"{label}: lanelog (open_db + ingest_paths)",
             worker_argv("lanelog_ingest", log=str(log), db=str(db)), "in-process",
             before_each=lambda: remove_db(db), check=_expect(lines), not_run=components.ingest_api()),
        Case(f"{tag}.floor", "short lines", f"{label}: floor, DuckDB CTAS read_json_auto",
             worker_argv("duckdb_floor", log=str(log), db=str(floor_db)), "in-process",
             before_each=lambda: remove_db(floor_db)),
    ]
