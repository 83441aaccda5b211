"""Data health's tables: each log by its name or key, whether it is still there, what its lines became."""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Any

import pandas as pd

from lanelog.dashboard.cells import SHORT_HASH, fit_path, pull_request_cell, short
from lanelog.dashboard.present import plural
from lanelog.ingest import is_object_url

# Data health's files table fits the main column of a 1000 px window: each file by its
# name (an object by its key: its run folder and name, at least, which tell it apart),
# whether it is still there, and what its lines became: attempts, outcome lines (`lanelog outcome`'s, stored
# apart: they are no attempts), rejected, duplicates. Where it was read from (the whole path, fingerprint,
# how far it was read, and when) is a second table under an expander.
SOURCE_COUNTS = {"file": 163, "still there": 110, "attempts": 62, "outcomes": 68, "rejected": 57,
                 "duplicates": 70}


# A two-column table of one row's fields and values, whole, inside the main column of a 1000 px window
# (a path too long for it is cut from the front, and the page shows it whole below the table).
DETAIL_WIDTHS = {"field": 110, "value": 380}


# A log's name in a picker's choice, beside the other parts of the choice, in a 1000 px window.
PICKED_NAME_PX = 220


SOURCE_WORDS = {"source_id": "id", "path": "path", "fingerprint": "fingerprint", "bytes_read": "bytes read",
                "lines_read": "lines read", "first_ingested": "first read (UTC)", "last_ingested": "last read (UTC)"}


# Whether a log is still where it was read from, in words. A file is looked for on this
# machine's disk; an object by the listing the last ingest of its prefix made (the store's
# objects_read, which a lake does not carry), never on the disk.
IN_BUCKET, NOT_IN_BUCKET, NOT_CHECKED = "in the bucket", "not in the bucket", "not checked"


FILE_THERE, FILE_GONE, DEMO_GONE = "yes", "no", "no (demo)"


def log_name(path: Any) -> str:
    """How a row names its log: a file by its name, an object by its key (the documented key
    layout names every object lane-log.jsonl, so the last part tells them apart no more)."""
    text = str(path)
    if is_object_url(text):
        return text.split("://", 1)[1].partition("/")[2] or text
    return PurePosixPath(text).name


def still_there(path: Any, in_last_listing: Any, listing_known: bool = True) -> str:
    """Whether a log is still where it was read from: a file on this disk, an object in the last listing."""
    if is_object_url(path):
        if not listing_known:
            return NOT_CHECKED
        return IN_BUCKET if bool(in_last_listing) else NOT_IN_BUCKET
    if not file_gone(path):
        return FILE_THERE
    return DEMO_GONE if demo_temp(path) else FILE_GONE


def source_states(sources: pd.DataFrame, listing_known: bool = True) -> list[str]:
    """still_there for each row of the sources query, in its order."""
    return [still_there(path, listed, listing_known)
            for path, listed in zip(sources["path"], sources["in_last_listing"])]


def sources_table(sources: pd.DataFrame, listing_known: bool = True) -> pd.DataFrame:
    """The logs read: each log's name (an object's key), whether it is still there, what its lines became."""
    return pd.DataFrame({
        "file": [fit_path(log_name(path), SOURCE_COUNTS["file"]) for path in sources["path"]],
        "still there": source_states(sources, listing_known),
        "attempts": sources["attempts"], "outcomes": sources["outcomes"], "rejected": sources["rejected"],
        "duplicates": sources["duplicates"],
    })


def source_place(source: pd.Series) -> pd.DataFrame:
    """Where one log was read from: id, whole path, cut fingerprint, bytes and lines read, first and last read,
    as a two-column table of field and value, which fits the main column at any width."""
    def shown(key: str) -> str:
        if key in ("first_ingested", "last_ingested"):
            return pd.Timestamp(source[key]).strftime("%Y-%m-%d %H:%M:%S")
        if key == "path":
            return fit_path(str(source[key]), DETAIL_WIDTHS["value"])
        return str(short(source[key], SHORT_HASH) if key == "fingerprint" else source[key])

    values = [shown(key) for key in SOURCE_WORDS]
    return pd.DataFrame({"field": list(SOURCE_WORDS.values()), "value": values})


def source_label(source: pd.Series) -> str:
    """A choice in the file picker: the log's name (an object's key) and its id."""
    return f"{fit_path(log_name(source['path']), PICKED_NAME_PX)} (id {source['source_id']})"


def cut_path(path: Any) -> str | None:
    """The whole path when a detail table shows it cut (to show it whole below), else None."""
    return path if isinstance(path, str) and fit_path(path, DETAIL_WIDTHS["value"]) != path else None


# Data health's line tables: each file by its name, words as headers, fixed widths that
# cut a long cell (the row's text shows whole in the cell's tooltip and in the CSV download).
REJECTED_WIDTHS = {"file": 205, "line": 55, "reason": 95, "text": 135}


UNDATED_WIDTHS = {"file": 135, "line": 45, "attempt": 85, "repository": 75, "why": 90, "raw line": 70}


def out_of_range_text(count: int) -> str:
    """Data health's note on attempts whose ts lies outside the supported range."""
    verb = "is" if count == 1 else "are"
    return (f"{plural(count, 'attempt')} {verb} dated outside the supported range (1970-01-01 to 2199-12-31, "
            "UTC): kept and counted as undated. A year typed by hand or an epoch in milliseconds "
            "is the usual cause; fix the producer that wrote them.")


# Why a line was rejected, in words (the stored reason is ingest's code, see docs/ingest.md).
REJECTED_WORDS = {"invalid_utf8": "not UTF-8", "invalid_json": "not JSON", "not_an_object": "not an object",
                  "too_long": "too long"}


def rejected_table(rejected: pd.DataFrame) -> pd.DataFrame:
    """Rejected lines: the log's name, line number, why (in words), and the readable text."""
    return pd.DataFrame({"file": [fit_path(log_name(path), REJECTED_WIDTHS["file"]) for path in rejected["source"]],
                         "line": rejected["line_no"],
                         "reason": [REJECTED_WORDS.get(reason, reason) for reason in rejected["reason"]],
                         "text": rejected["text"]})


# Undated outcome lines: each file by its name, the pull request (its number always whole), the state.
UNDATED_OUTCOME_WIDTHS = {"file": 150, "line": 45, "pull request": 135, "state": 70, "why": 90}


def undated_outcomes_table(undated: pd.DataFrame) -> pd.DataFrame:
    """Undated outcome lines: the log's name, line number, the pull request, its state and why."""
    return pd.DataFrame({
        "file": [fit_path(log_name(path), UNDATED_OUTCOME_WIDTHS["file"]) for path in undated["source"]],
        "line": undated["line_no"],
        "pull request": [pull_request_cell(repo, number, UNDATED_OUTCOME_WIDTHS["pull request"])
                         if isinstance(repo, str) and pd.notna(number) else "(not named)"
                         for repo, number in zip(undated["pr_repository"], undated["pr_number"])],
        "state": [state if isinstance(state, str) else "(none)" for state in undated["state"]],
        "why": undated["why"]}, columns=list(UNDATED_OUTCOME_WIDTHS))


def undated_table(undated: pd.DataFrame) -> pd.DataFrame:
    """Undated attempts: the log's name, line number, attempt id, repository, why, and the raw line."""
    return pd.DataFrame({"file": [fit_path(log_name(path), UNDATED_WIDTHS["file"]) for path in undated["source"]],
                         "line": undated["line_no"], "attempt": undated["attempt_id"],
                         "repository": undated["repo"], "why": undated["why"], "raw line": undated["raw"]})


# `lanelog demo` writes its logs into a temporary folder of this prefix and removes it when done.
DEMO_FOLDER_PREFIX = "lanelog-demo-"


def demo_temp(path: Any) -> bool:
    """True for a log the demo wrote into its temporary folder (gone once the demo finished, by design)."""
    return isinstance(path, str) and PurePosixPath(path).parent.name.startswith(DEMO_FOLDER_PREFIX)


def file_gone(path: Any) -> bool:
    """True when a recorded source path no longer names a file here (moved, deleted, another machine)."""
    if not isinstance(path, str) or not path:
        return False
    try:
        return not Path(path).is_file()
    except (OSError, ValueError):
        return True
