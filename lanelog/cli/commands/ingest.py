"""`lanelog ingest`: load lane-log files into the DuckDB database."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import click

from lanelog.cli.options import db_option, db_path, endpoint_url_option, format_option, wait_option
from lanelog.cli.output import echo
from lanelog.errors import IngestError
from lanelog.ingest import expand_paths, is_object_url, logs_below, no_logs_in
from lanelog.store import LISTING_TIMEOUT_S, REQUEST_TIMEOUT_S

if TYPE_CHECKING:  # (the db extra's: imported when the command runs, so --help works without it)
    from click._termui_impl import ProgressBar  # the type click.progressbar returns

    from lanelog.ingest import IngestSummary

_BAR_AFTER_S = 2.0


class _LateBar:
    """A progress bar on stderr that appears only once a run has lasted a couple of seconds."""

    def __init__(self, total: int) -> None:
        self._total = total
        self._done = 0
        self._start = time.monotonic()
        self._bar: ProgressBar[str] | None = None

    def __call__(self, advance: int, summary: IngestSummary) -> None:
        self._done += advance
        elapsed = time.monotonic() - self._start
        rates = rate_text(summary.files, summary.lines_read, elapsed)
        if self._bar is not None:
            self._bar.update(advance, rates)
        elif elapsed >= _BAR_AFTER_S:
            self._bar = click.progressbar(
                length=max(self._total, self._done), label="ingesting", file=sys.stderr,
                item_show_func=lambda text: text,
            )
            self._bar.__enter__()
            self._bar.update(self._done, rates)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.__exit__(None, None, None)


def rate_text(files: int, lines: int, seconds: float) -> str:
    """Files and lines so far and per second, for the progress bar of a long run."""
    per = max(seconds, 1e-9)
    return f"{files:,} files ({files / per:,.0f}/s), {lines:,} lines ({lines / per:,.0f}/s)"


def _total_bytes(paths: list[str]) -> int:
    local = [Path(p) for p in paths if not is_object_url(p)]
    return sum(p.stat().st_size for p in expand_paths(local) if isinstance(p, Path))


def _check_some_input_exists(paths: list[str]) -> None:
    """Refuse a run in which no path names a log, before a database is opened or made.

    A mistyped path, or a folder with no lane log in it, must not leave a new, empty
    database behind for `report` and `check` to read as "0 attempts".  With one path
    that names a log, the run goes on and names the others as errors.
    """
    problems = []
    for path in paths:
        if is_object_url(path):
            return  # an object-store URL is checked by its listing
        if not os.path.isdir(path):
            if os.path.lexists(path):
                return
            problems.append(f"{path}: no such file or folder")
        elif next(logs_below(Path(path)), None) is not None:
            return
        else:
            problems.append(no_logs_in(Path(path)).message)
    if len(problems) == 1:
        raise IngestError(problems[0])
    raise IngestError.listing(f"{len(problems)} files could not be read:", problems)


# What a lane log is, for a file that holds none.
LANE_LOG_SHAPE = ('a lane log holds one JSON object per line, as `lanelog route` writes it: '
                  '{"attempt_id": "...", "ts": "2026-10-05T09:00:00Z", "probe": "pass", ...}')


def not_a_lane_log(name: str, rejected: int) -> str:
    """What to say of a file none of whose lines read was a JSON object."""
    lines = "its line" if rejected == 1 else f"its {rejected} lines"
    return (f"{name}: not a lane log: no line read is a JSON object ({LANE_LOG_SHAPE}); "
            f"{lines} are kept as rejected lines, listed on the dashboard's Data health page")


@click.command()
@click.argument("paths", nargs=-1, required=True)
@db_option()
@format_option(["text", "json"], help="Print the summary as a line of text, or as one JSON object.")
@endpoint_url_option()
@click.option("--store-timeout", type=click.FloatRange(min=0, min_open=True), default=REQUEST_TIMEOUT_S,
              show_default=True, metavar="SECONDS", envvar="LANELOG_STORE_TIMEOUT",
              help="Longest wait for one request to an object store, as a whole: connecting (at most 10 s), "
                   "its retries and its whole answer (an object, or 8 MiB of a larger one) "
                   "[env LANELOG_STORE_TIMEOUT].")
@click.option("--list-timeout", type=click.FloatRange(min=0, min_open=True), default=LISTING_TIMEOUT_S,
              show_default=True, metavar="SECONDS",
              help="Longest wait for the whole listing of an object-store URL, every page of it.")
@wait_option()
def ingest(paths: tuple[str, ...], db: Path | None, fmt: str, endpoint_url: str | None, store_timeout: float,
           list_timeout: float, wait: float) -> None:
    """Load lane-log JSONL files into the DuckDB database, losing nothing.

    PATHS are lane-log files, folders searched for *.jsonl and *.jsonl.gz,
    or object-store URLs (s3://bucket/prefix/: every such object below it;
    credentials come from the environment).  Only bytes added since the last
    run are read; a copy of a log already ingested adds nothing.  Every
    non-blank line ends as an attempt, an outcome (an outcome line, written
    by `lanelog outcome` when a pull request closes), a duplicate, a rejected
    line or pending (a last line still being written).

    A file none of whose lines is a JSON object (a README, say) is named on
    stderr as no lane log; its lines are still kept, as rejected lines.

    Exit 0 when every file was read, 2 when one could not be (the others are
    still ingested), or when no file given was a lane log.

    An object-store URL is listed before the database is opened, so a slow store
    holds no lock; a store that does not answer within --store-timeout (one
    request) or --list-timeout (a listing) ends that URL with an error, exit 2,
    keeping what was stored.

    \b
    Example:
        lanelog ingest lane-log.jsonl
        lanelog ingest --format json --db /tmp/lanes.duckdb logs/
        lanelog ingest s3://ci-logs/lane-logs/
    """
    from lanelog.ingest import StoreTimeouts, ingest_paths, list_objects
    from lanelog.store import open_db

    path_list = list(paths)
    _check_some_input_exists(path_list)  # before the database is opened, or made
    timeouts = StoreTimeouts(request=store_timeout, listing=list_timeout)
    # Listed before the database is opened: its lock is not held while a store answers.
    listings = {path: list_objects(path, endpoint_url, timeouts) for path in path_list if is_object_url(path)}
    bar = _LateBar(_total_bytes(path_list)) if sys.stderr.isatty() else None
    con = open_db(db_path(db), wait=wait)
    try:
        summary = ingest_paths(con, path_list, progress=bar, endpoint_url=endpoint_url, timeouts=timeouts,
                               listings=listings)
    finally:
        if bar is not None:
            bar.close()
        con.close()
    echo(json.dumps(summary.as_dict()) if fmt == "json" else summary.line(), json=fmt == "json")
    notes = [not_a_lane_log(name, rejected) for name, rejected in summary.not_lane_logs]
    if notes and len(notes) == summary.files and not summary.errors:
        # Nothing named was a lane log: the user gave the wrong file, and the exit code says so.
        if len(notes) == 1:
            raise IngestError(notes[0])
        raise IngestError.listing(f"{len(notes)} files are not lane logs:", notes)
    for note in [*notes, *summary.undated_outcomes]:
        echo(f"Warning: {note}", err=True)
    if len(summary.errors) == 1:
        raise IngestError(summary.errors[0])
    if summary.errors:
        raise IngestError.listing(f"{len(summary.errors)} files could not be read:", summary.errors)
