"""`lanelog replay` as a library call: what to replay (a commit range or lane logs) under which policies.

``ReplayRequest`` holds the command's choices; ``read_files`` checks every policy and
flaky file before anything is replayed, and ``replay_history`` reads the patches from
history (or the lane logs) and routes each one under both policies (lanelog.router.replay).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lanelog.router.gitfacts import Checkout
from lanelog.router.history import commits_in, dedupe
from lanelog.router.paths import printable
from lanelog.router.recorded import attempts_in
from lanelog.router.replay import read_policy_file, replay
from lanelog.router.replay_result import Replay

PolicyFile = tuple[Path, bytes]


@dataclass(frozen=True)
class ReplayRequest:
    """What to replay and against what: `--commits` A..B or lane logs, the candidate and the baseline."""

    repo: Path
    candidate: Path
    baseline: Path | None = None
    alone: bool = False  # --no-baseline: the candidate decides alone
    flaky: Path | None = None
    baseline_flaky: Path | None = None
    span: str | None = None
    logs: tuple[Path, ...] = ()
    first_parent: bool = False
    sync_merges: str | None = None
    include_syncs: bool = False
    dedupe: bool = False


@dataclass(frozen=True)
class PolicyFiles:
    """The request's policy and flaky files, read and checked."""

    candidate: PolicyFile
    baseline: PolicyFile | None
    flaky: PolicyFile | None
    baseline_flaky: PolicyFile | None


@dataclass(frozen=True)
class ReplayRun:
    """A replay done: its result, and the checkout it read."""

    result: Replay
    toplevel: Path


def read_files(request: ReplayRequest) -> PolicyFiles:
    """Every policy and flaky file of the request, read and checked before anything is replayed."""
    return PolicyFiles(
        candidate=read_policy_file(request.candidate),
        baseline=read_policy_file(request.baseline) if request.baseline is not None else None,
        flaky=read_policy_file(request.flaky, "flaky") if request.flaky is not None else None,
        baseline_flaky=(read_policy_file(request.baseline_flaky, "flaky")
                        if request.baseline_flaky is not None else None),
    )


def replay_history(request: ReplayRequest, files: PolicyFiles) -> ReplayRun:
    """The request's patches (the range's commits, or the lane logs' attempts), each routed under both sides."""
    checkout = Checkout.open(request.repo)
    about: dict[str, Any] = {}
    if request.span is not None:
        patches, skipped, about = commits_in(checkout, request.span, request.first_parent,
                                             syncs=request.sync_merges, include_syncs=request.include_syncs)
        if request.dedupe:
            patches, copies = dedupe(checkout, patches)
            skipped += copies
            about["duplicates"] = len(copies)
    else:
        patches, skipped = attempts_in(checkout, list(request.logs))
    result = replay(checkout, patches, skipped, files.candidate, files.baseline, files.flaky, about,
                    baseline_flaky=files.baseline_flaky, alone=request.alone)
    return ReplayRun(result, checkout.toplevel)


def stored_about(request: ReplayRequest, run: ReplayRun) -> dict[str, Any]:
    """What a stored replay says of itself (the What-if page shows it): absolute paths, so it names
    which checkout and files whatever folder replay ran in."""
    if request.baseline is not None:
        baseline = printable(os.path.abspath(request.baseline))
    else:
        baseline = "each base commit's policy" if request.span is not None else "the decisions the lines recorded"
    source = f"commits {request.span}" if request.span is not None else \
        "lane logs " + ", ".join(map(str, request.logs))
    shown = run.result.as_dict()
    return {"checkout": printable(str(run.toplevel)), "candidate": printable(os.path.abspath(request.candidate)),
            "baseline": baseline, "source": source, "patches": shown["patches"], "skipped": len(shown["skipped"])}
