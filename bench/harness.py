"""Run a case: a warm-up, then several measurements, each in a fresh subprocess.

Each measurement is its own child process, reaped with ``os.wait4`` so its
``ru_maxrss`` (the peak resident set of the child and of the children it
waited for) belongs to that one run (see LAUNCHER for why a launcher starts it).  A "process"
case is timed from spawn to exit, interpreter start included, as a user at a terminal would see it; an
"in-process" case is timed by the worker around the work itself (imports
excluded) and reports its figures on its last stdout line.
"""

from __future__ import annotations

import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Run:
    """One measurement: named timings in seconds, the child's peak RSS, what it reported."""

    seconds: dict[str, float]
    peak_rss_mb: float
    info: dict[str, Any]
    stdout: str


@dataclass
class Case:
    """A measured thing; ``figures`` names the timings it yields (one table row each)."""

    id: str
    group: str
    label: str
    argv: list[str]
    timing: str  # "in-process" or "process"
    figures: dict[str, str] = field(default_factory=lambda: {"total": ""})
    before_each: Callable[[], None] | None = None
    # A case may stand in a cheaper warm-up (e.g. reading its input into the page
    # cache) for whole warm-up runs; it says so in its notes.
    warmup: int | None = None
    before_all: Callable[[], None] | None = None
    check: Callable[[Run], list[str]] | None = None
    expect_exit: tuple[int, ...] = (0,)
    env: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    not_run: str | None = None
    stdin: Path | None = None  # a file the command reads on stdin (else nothing)


class CaseFailed(RuntimeError):
    """A measurement that did not complete: the message carries the child's own words."""


def worker_argv(name: str, **arguments: str) -> list[str]:
    """The command line that runs ``bench.worker`` ``name`` with ``arguments``."""
    return [sys.executable, "-m", "bench.worker", name, json.dumps(arguments)]


# Linux counts the parent's resident set into a child's ru_maxrss when the child is
# forked (exec records the old image's high-water mark).  So every child is
# started by this small launcher (no site, no imports beyond builtins), which
# forks, execs the command, reaps it with wait4 and writes its peak RSS (kB),
# exit status and wall time to the file named by its first argument.  The
# harness's own memory (DuckDB, pandas, the generator's buffers) never leaks in.
LAUNCHER = """
import os, sys, time
result, argv = sys.argv[1], sys.argv[2:]
start = time.perf_counter()
pid = os.fork()
if pid == 0:
    try:
        os.execvp(argv[0], argv)
    finally:
        os._exit(127)
_, status, usage = os.wait4(pid, 0)
wall = time.perf_counter() - start
with open(result, "w") as out:
    out.write(f"{os.waitstatus_to_exitcode(status)} {usage.ru_maxrss} {wall!r}")
"""


def measure(case: Case, timeout: float) -> Run:
    """Run the case once in a fresh child process and return what it measured."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    # A shell that sets PYTHONDONTWRITEBYTECODE would make every run compile lanelog's sources
    # again (about 40 ms of a 130 ms route); an installed lanelog has its bytecode, so the
    # warm-up run writes it here as a first run would.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(case.env)
    with tempfile.TemporaryDirectory(prefix="lanelog-bench-") as scratch:
        result = Path(scratch) / "result"
        with open(Path(scratch) / "stdout", "w+b") as out, open(Path(scratch) / "stderr", "w+b") as err, \
                open(case.stdin or os.devnull, "rb") as given:
            launcher = subprocess.Popen([sys.executable, "-S", "-c", LAUNCHER, str(result), *case.argv],
                                        stdout=out, stderr=err, stdin=given, cwd=REPO_ROOT,
                                        env=env, start_new_session=True)
            try:
                launcher.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(launcher.pid, signal.SIGKILL)
                launcher.wait()
                raise CaseFailed(f"timed out after {timeout:.0f} s") from None
            out.seek(0)
            err.seek(0)
            stdout = out.read().decode(errors="replace")
            stderr = err.read().decode(errors="replace")
        if launcher.returncode != 0 or not result.exists():
            raise CaseFailed(f"launcher failed (exit {launcher.returncode}): {stderr[-300:]}")
        code, maxrss_kb, wall = result.read_text().split()
    if int(code) not in case.expect_exit:
        tail = stderr.strip().splitlines()[-5:] or stdout.strip().splitlines()[-5:]
        raise CaseFailed(f"exit {code}: " + " | ".join(tail))
    peak_mb = int(maxrss_kb) / 1024  # Linux reports kilobytes
    if case.timing == "process":
        return Run({"total": float(wall)}, peak_mb, {}, stdout)
    lines = stdout.strip().splitlines()
    try:
        reported = json.loads(lines[-1])
    except (IndexError, json.JSONDecodeError) as error:
        raise CaseFailed(f"worker printed no result: {stdout[-300:]!r}") from error
    return Run(reported["seconds"], peak_mb, reported.get("info", {}), stdout)


@dataclass
class Outcome:
    """Every measured run of a case (the warm-up is not kept) and what went wrong, if anything."""

    case: Case
    runs: list[Run] = field(default_factory=list)
    error: str | None = None
    notes: list[str] = field(default_factory=list)


def run_case(case: Case, *, warmup: int, reps: int, timeout: float,
             log: Callable[[str], None]) -> Outcome:
    """Warm up, then measure ``reps`` times; a failure is recorded, never papered over."""
    outcome = Outcome(case, notes=list(case.notes))
    if case.not_run is not None:
        log(f"  {case.label}: not run ({case.not_run})")
        return outcome
    warmup = case.warmup if case.warmup is not None else warmup
    try:
        if case.before_all is not None:
            case.before_all()
        for attempt in range(warmup + reps):
            if case.before_each is not None:
                case.before_each()
            run = measure(case, timeout)
            if case.check is not None:
                outcome.notes.extend(note for note in case.check(run) if note not in outcome.notes)
            if attempt >= warmup:
                outcome.runs.append(run)
        figures = ", ".join(f"{_median(outcome, key):.3f} s" for key in case.figures)
        log(f"  {case.label}: {figures}")
    except (CaseFailed, OSError, ValueError, KeyError) as error:
        outcome.error = str(error)
        log(f"  {case.label}: FAILED: {error}")
    return outcome


def _median(outcome: Outcome, key: str) -> float:
    return statistics.median(run.seconds[key] for run in outcome.runs)


def summarize(outcome: Outcome, key: str) -> dict[str, Any]:
    """One table row's measured part: median, min, max (s) and peak memory (MB)."""
    if not outcome.runs:
        return {"median_s": None, "min_s": None, "max_s": None, "peak_rss_mb": None, "runs_s": []}
    values = [run.seconds[key] for run in outcome.runs]
    return {
        "median_s": statistics.median(values),
        "min_s": min(values),
        "max_s": max(values),
        "peak_rss_mb": round(max(run.peak_rss_mb for run in outcome.runs), 1),
        "runs_s": [round(value, 4) for value in values],
    }
