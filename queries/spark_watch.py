"""A watch over lanelog's Spark jobs: a job that makes no progress is cancelled, and says so.

On a standalone cluster whose workers die in the middle of a job, Spark waits for
new executors without end and prints nothing: `report --engine spark` then ran until
someone killed it.  Every job lanelog starts carries the lake's job group; while
one of them runs, a thread beside it watches the group's stages, and when no task
has finished (and none started) for the stall timeout, it cancels the group.  The
query then fails with a QueryError naming what stalled, and the CLI exits 2.

The timeout is ``spark.lanelog.stallTimeout`` (seconds, 600 by default: a task of
lanelog's queries reads one week's file, in seconds), given with ``--spark-conf``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from lanelog.errors import QueryError

STALL_TIMEOUT = 600.0
STALL_TIMEOUT_KEY = "spark.lanelog.stallTimeout"
_POLL_S = 0.25


def seconds_setting(text: str | None, key: str, default: float) -> float:
    """A setting in seconds ("90" or "90s"), else the default; anything else is a QueryError naming the key."""
    if text is None:
        return default
    try:
        value = float(text.strip().removesuffix("s"))
    except ValueError:
        value = -1.0
    if not 0 <= value < float("inf"):
        raise QueryError(f"{key}={text}: give the seconds to wait, e.g. 120")
    return value


def stall_timeout(settings: Mapping[str, str] | None, spark: Any = None) -> float:
    """The stall timeout from lanelog's settings (``--spark-conf``), else the session's, else STALL_TIMEOUT."""
    text = (settings or {}).get(STALL_TIMEOUT_KEY)
    if text is None and spark is not None:
        text = spark.conf.get(STALL_TIMEOUT_KEY, None)
    return seconds_setting(text, STALL_TIMEOUT_KEY, STALL_TIMEOUT)


def _progress(tracker: Any, group: str) -> tuple[bool, tuple[Any, ...]]:
    """Whether a job of the group is running, and what its tasks have done so far (started or finished)."""
    running = []
    for job in sorted(tracker.getJobIdsForGroup(group)):
        info = tracker.getJobInfo(job)
        if info is None or info.status != "RUNNING":
            continue
        for stage in sorted(info.stageIds):
            found = tracker.getStageInfo(stage)
            if found is not None:
                running.append((job, stage, found.numCompletedTasks, found.numActiveTasks, found.numTasks))
    return bool(running), tuple(running)


@contextmanager
def watched(spark: Any, group: str, doing: str, seconds: float) -> Iterator[None]:
    """Run the block's Spark jobs (of job group `group`) under the watch; a stall is a QueryError.

    The timer starts again whenever a task of a running job of the group starts or
    finishes, and while no job of the group runs (the driver planning, between jobs).
    """
    context = spark.sparkContext
    done = threading.Event()
    stalled = threading.Event()

    def watch() -> None:
        tracker = context.statusTracker()
        last: tuple[Any, ...] = ()
        since = time.monotonic()
        while not done.wait(_POLL_S):
            try:
                running, progress = _progress(tracker, group)
            except Exception:  # noqa: BLE001 - the context is gone: nothing left to watch
                return
            if not running or progress != last:
                last, since = progress, time.monotonic()
            elif time.monotonic() - since >= seconds:
                stalled.set()
                context.cancelJobGroup(group)
                return

    watcher = threading.Thread(target=watch, name="lanelog-spark-watch", daemon=True)
    watcher.start()
    try:
        yield
    except Exception:
        if stalled.is_set():
            raise QueryError(
                f"Spark made no progress on {doing} for {seconds:g} s on {context.master}: no task started or "
                "finished, so lanelog cancelled its jobs (the workers are gone or busy, or a task does not end); "
                f"set {STALL_TIMEOUT_KEY}=SECONDS to wait longer") from None
        raise
    finally:
        done.set()
        watcher.join(timeout=10)
