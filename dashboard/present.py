"""Small presentation helpers shared by the pages: labels, deltas, tables, CSV."""

from __future__ import annotations

import csv
import io
import re
from datetime import date
from pathlib import Path, PurePosixPath
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st
from PIL import Image

from lanelog.dashboard.charts import labelled
from lanelog.ingest.logfile import is_object_url
from lanelog.queries import Comparison, label
from lanelog.reasons import REASONS, kind
from lanelog.spreadsheet import defused

# The overview's metrics, in the order of the report's JSON keys, in the report's words.
# Patch rejects, not all probe rejects, beside armed calls: a setup reject says CI is
# broken, and the overview flags those apart.
METRICS = [(key, label(key, title=True))
           for key in ("attempts", "patch_rejects", "calls_armed", "credit_bugs", "units")]


def favicon() -> Image.Image:
    """A 32x32 icon drawn here, so the browser fetches nothing from outside: three bars of a week."""
    icon = np.full((32, 32, 3), 245, dtype=np.uint8)
    for left, height, colour in ((4, 14, (140, 107, 177)), (13, 22, (31, 119, 180)), (22, 8, (214, 39, 40))):
        icon[30 - height:30, left:left + 6] = colour
    return Image.fromarray(icon)


def alert_text(credit_bugs: int, on_triage: bool = False) -> str:
    """The red banner; on the triage page itself the rows are right below it."""
    noun = "credit bug" if credit_bugs == 1 else "credit bugs"
    where = "The rows are below." if on_triage else "Open Credit-bug triage for the rows."
    return f"{credit_bugs} {noun} in range: merge credit was set on quarantined attempts. {where}"


def setup_text(setup_rejects: int) -> str:
    """The overview's note on setup rejects: a CI problem to fix, not the gate at work."""
    noun = "setup reject" if setup_rejects == 1 else "setup rejects"
    return (
        f"{setup_rejects} {noun} in range: CI could not judge these patches (no checkout, a missing "
        "ref, an unusable policy or flaky list). Fix the CI set-up; they are counted apart from "
        "patch rejects. The Probe page lists them."
    )


def split_reasons(reasons: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The reject-reason rows of setup reasons, and those of patch reasons (a reject with none is a patch one)."""
    is_setup = reasons["reason"].map(lambda reason: isinstance(reason, str) and kind(reason) == "setup")
    return reasons[is_setup].reset_index(drop=True), reasons[~is_setup].reset_index(drop=True)


NO_REASON = "(none recorded)"  # a probe reject whose line lists no reason


def reason_table(reasons: pd.DataFrame) -> pd.DataFrame:
    """One row per reason in range: its kind, its count, and what it means, in the docs' words."""
    totals = reasons.assign(reason=reasons["reason"].fillna(NO_REASON)).groupby(
        "reason", as_index=False).agg(attempts=("attempts", "sum"))
    totals["kind"] = [kind(reason) if reason in REASONS else "patch" for reason in totals["reason"]]
    totals["meaning"] = [REASONS.get(reason, "the line records no reason") for reason in totals["reason"]]
    ordered = totals.sort_values(["kind", "attempts", "reason"], ascending=[False, False, True])
    return ordered.rename(columns={"attempts": "probe rejects"})[["kind", "reason", "probe rejects", "meaning"]]


def freeze_hygiene(owners: pd.DataFrame, today: date) -> pd.DataFrame:
    """Who to ask about each freeze and what is about to lapse: owner, expiry, days left."""
    rows = []
    for freeze, owner, expires in owners[["quarantine_id", "owner", "expires"]].itertuples(index=False):
        day = pd.Timestamp(expires).date() if pd.notna(expires) else None
        if day is None:
            left = "not recorded"
        elif day < today:
            left = f"lapsed {plural((today - day).days, 'day')} ago"
        elif day == today:
            left = "lapses today"
        else:
            left = f"{plural((day - today).days, 'day')} left"
        rows.append({"freeze": freeze, "owner": owner if isinstance(owner, str) else "not recorded",
                     "expires": day.isoformat() if day else "not recorded", "days left": left})
    return pd.DataFrame(rows, columns=["freeze", "owner", "expires", "days left"])


FREEZE_WIDTHS = {"freeze": 120, "held": 50, "first held": 110, "last held": 110, "reported expired": 100}


def freeze_table(summary: pd.DataFrame) -> pd.DataFrame:
    """The freezes summary in words: "never" for an id no attempt was held by, times to the minute."""
    def when(value: Any) -> str:
        return "never" if value is None or pd.isna(value) else pd.Timestamp(value).strftime("%Y-%m-%d %H:%M")

    return pd.DataFrame({
        "freeze": summary["quarantine_id"],
        "held": summary["attempts"],
        "first held": [when(value) for value in summary["first_seen"]],
        "last held": [when(value) for value in summary["last_seen"]],
        "reported expired": summary["expired_reports"],
    })


# Data health's files table fits the main column of a 1000 px window: each file by its
# name (an object by its key: its run folder and name, at least, which tell it apart),
# whether it is still there, and what its lines became. Where it was read from (the whole
# path, fingerprint, how far it was read, and when) is a second table under an expander.
SOURCE_COUNTS = {"file": 235, "still there": 110, "attempts": 60, "rejected": 60, "duplicates": 65}
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
        "attempts": sources["attempts"], "rejected": sources["rejected"], "duplicates": sources["duplicates"],
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
UNDATED_WIDTHS = {"file": 125, "line": 45, "attempt": 85, "repository": 75, "why": 90, "raw line": 70}


def plural(count: int | float | str, noun: str, nouns: str | None = None) -> str:
    """"1 attempt", "2 attempts": a count with its noun in the number it takes."""
    return f"{count} {noun if count == 1 else nouns or noun + 's'}"


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


def undated_table(undated: pd.DataFrame) -> pd.DataFrame:
    """Undated attempts: the log's name, line number, attempt id, repository, why, and the raw line."""
    return pd.DataFrame({"file": [fit_path(log_name(path), UNDATED_WIDTHS["file"]) for path in undated["source"]],
                         "line": undated["line_no"], "attempt": undated["attempt_id"],
                         "repository": undated["repo"], "why": undated["why"], "raw line": undated["raw"]})


# Lane outcomes as the pages say them: the stored value is the log's word.
LANE_WORDS = {"not_started": "not started", "no_call_armed": "no call armed"}
NO_LANE = "no lane recorded"


def lane_words(lanes: pd.DataFrame) -> pd.DataFrame:
    """Lane outcome rows with each lane in words ("not started"; "no lane recorded" for a line without one)."""
    out = lanes.copy()
    out["lane"] = [NO_LANE if not isinstance(lane, str) else LANE_WORDS.get(lane, lane) for lane in lanes["lane"]]
    return out


def worded(frame: pd.DataFrame, shares: tuple[str, ...] = ()) -> pd.DataFrame:
    """A query's rows for a table: weeks as labels, lists as text, shares as percentages, and
    every column headed in words ("calls_armed" -> "armed calls"), never a stored name."""
    out = flat(frame)
    for column in shares:
        out[column] = [f"{value:.0%}" if isinstance(value, float) and not np.isnan(value) else "n/a"
                       for value in out[column]]
    return out.rename(columns={column: label(column) for column in out.columns})


def fixed_columns(widths: dict[str, int]) -> dict[str, Any]:
    """Column settings of fixed pixel widths: a table that never runs past the main column."""
    return {name: st.column_config.Column(width=width) for name, width in widths.items()}


def producers_table(producers: pd.DataFrame) -> pd.DataFrame:
    """Every attempt accounted for by producer: probe rejects, armed calls and neither (words as headers)."""
    return producers.rename(columns={"probe_rejects": "probe rejects", "armed": "armed calls"})


def number(value: Any) -> int | float | str:
    if value is None:
        return "n/a"
    return int(value) if float(value).is_integer() else round(float(value), 2)


def delta(comparison: Comparison, key: str) -> int | float | None:
    """The change against the week compared with, rounded for a metric; None when there is none."""
    change = comparison.change(key)
    return round(change, 2) if isinstance(change, float) else change


def range_caption(report: dict[str, Any]) -> str:
    totals = report["totals"]
    dated = [row["week"] for row in report["weeks"] if row["week"]]
    span = f"{dated[0]} to {dated[-1]}" if dated else "no dated weeks"
    undated = " plus undated attempts" if any(row["week"] is None for row in report["weeks"]) else ""
    return (
        f"In range (weeks {span}{undated}): {plural(totals['attempts'], 'attempt')}, "
        f"{plural(totals['probe_rejects'], 'probe reject')} ({totals['patch_rejects']} patch, "
        f"{totals['setup_rejects']} setup), {plural(totals['calls_armed'], 'armed call')}, "
        f"{plural(totals['credit_bugs'], 'credit bug')}, {plural(number(totals['units']), 'unit')}."
    )


def weeks_frame(report: dict[str, Any]) -> pd.DataFrame:
    """The report's weekly rows as a frame (week: YYYY-MM-DD, or None for the undated bucket)."""
    columns = ["week", "attempts", "probe_rejects", "setup_rejects", "patch_rejects", "calls_armed", "credit_bugs",
               "quarantined", "units", "armed_per_reject"]
    return pd.DataFrame(report["weeks"], columns=columns)


# The overview's weekly figures, as two tables: the rejects, then the calls, spend and credit.
WEEKLY_TABLES = (
    ("attempts", "probe_rejects", "setup_rejects", "patch_rejects", "quarantined"),
    ("calls_armed", "armed_per_reject", "units", "credit_bugs"),
)


def weekly_table(weekly: pd.DataFrame, keys: tuple[str, ...]) -> pd.DataFrame:
    """Some of the weekly figures as the overview's table shows them: a row a week, words as
    headers, the ratio to two places ("-" where it is undefined)."""
    out = worded(weekly[["week", *keys]])
    if "armed_per_reject" in keys:
        out[label("armed_per_reject")] = ["-" if value is None or pd.isna(value) else f"{value:.2f}"
                                          for value in weekly["armed_per_reject"]]
    if "units" in keys:
        out[label("units")] = [str(number(value)) for value in weekly["units"]]
    return out.set_index(label("week"))


def _texty(column: pd.Series) -> bool:
    return pd.api.types.is_object_dtype(column) or pd.api.types.is_string_dtype(column)


def flat(frame: pd.DataFrame) -> pd.DataFrame:
    """Lists as "a; b" text and weeks as labels, for tables and CSV."""
    out = labelled(frame) if "week" in frame else frame.copy()
    for column in out.columns:
        if _texty(out[column]):
            out[column] = [
                "; ".join(str(item) for item in value) if isinstance(value, (list, tuple, np.ndarray)) else value
                for value in out[column]
            ]
    return out


def csv_bytes(frame: pd.DataFrame) -> bytes:
    """CSV of a table of log content, with text cells defused for spreadsheets.

    Rows end in CRLF (RFC 4180), so the csv writer quotes every field holding a
    carriage return or a line feed: no field can start a row of its own.
    """
    out = flat(frame)
    for column in out.columns:
        if _texty(out[column]):
            out[column] = [defused(value) if isinstance(value, str) else value for value in out[column]]
    buffer = io.StringIO(newline="")
    out.to_csv(buffer, index=False, lineterminator="\r\n", quoting=csv.QUOTE_MINIMAL)
    return buffer.getvalue().encode("utf-8")


TRIAGE_COLUMNS = ["ts", "attempt_id", "repo", "head", "producer", "quarantine", "merge_credit", "line"]
# The table on the page fits the main column of a 1000 px window (about 500 px): words as
# headers, the day, the attempt id cut, and fixed widths that cut a long cell with an
# ellipsis. The selected attempt's detail and the CSV carry every value whole (time, full
# ids, head, merge credit, source file and line).
TRIAGE_SHOWN = {"ts": "day (UTC)", "attempt_id": "attempt", "repo": "repository",
                "producer": "producer", "quarantine": "quarantine"}
TRIAGE_WIDTHS = {"day (UTC)": 85, "attempt": 95, "repository": 105, "producer": 110, "quarantine": 135}
HIGHLIGHT = "background-color: rgba(214, 39, 40, 0.16)"
SHORT_ID, SHORT_HASH = 10, 12
# A table draws text in Source Sans at 14 px, where an identifier's characters take about
# 6 px and no more than 6.5 on average (measured in Chromium: "orders-service" 83 px,
# "test_export_race;" 102 px, "ci-run-4-xxxx…" 88 px), inside 8 px of padding; a cell cut
# to the characters that fit says so with "…" (fit_cell, fit_path).
CHAR_PX, CELL_PADDING_PX = 6.5, 8


def short(value: Any, keep: int) -> Any:
    """A long id or hash cut to `keep` characters and an ellipsis; other values as they are."""
    return value[:keep] + "…" if isinstance(value, str) and len(value) > keep + 1 else value


def fit_cell(value: Any, width: int, sep: str = "; ") -> Any:
    """Text cut to what a column `width` px wide shows: a list ("a; b; c", items joined by `sep`)
    at an item's end with "; …" for the rest, a sentence at a word's end with "…", one long word with "…"; never cut
    without saying so."""
    chars = int((width - CELL_PADDING_PX) / CHAR_PX)
    if not isinstance(value, str) or len(value) <= chars:
        return value
    kept = ""
    for item in value.split(sep):
        longer = f"{kept}{sep}{item}" if kept else item
        if len(longer) + len(sep) + 1 > chars:
            break
        kept = longer
    if kept:
        return f"{kept}{sep}…"
    cut = value[:chars - 1]
    words = cut.rsplit(" ", 1)[0]  # a sentence (a commit subject) ends at a whole word
    return (words if " " in cut and len(words) >= chars // 2 else cut) + "…"


def path_lines(path: str, width: int = 30) -> str:
    """A path broken into lines only after a "/", each line at most `width` characters where the parts allow.

    The sidebar would otherwise break a long path anywhere, in the middle of a name.
    """
    lines, current = [], ""
    for part in re.split(r"(?<=/)", path):
        if current and len(current) + len(part) > width:
            lines.append(current)
            current = ""
        current += part
    return "\n".join([*lines, current])


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


def triage_table(rows: pd.DataFrame) -> pd.DataFrame:
    """The credit-bug rows whole, as the CSV carries them: source file and line as one column, lists as text."""
    out = rows.copy()
    out["line"] = [f"{source}:{line_no}" for source, line_no in zip(rows["source"], rows["line_no"])]
    return flat(out[TRIAGE_COLUMNS])


def triage_shown(rows: pd.DataFrame) -> pd.DataFrame:
    """The credit-bug rows as the page's table shows them: the day and short ids (TRIAGE_WIDTHS fits them)."""
    out = triage_table(rows)
    out["attempt_id"] = [short(value, SHORT_ID) for value in out["attempt_id"]]
    out["ts"] = [pd.Timestamp(value).strftime("%Y-%m-%d") if pd.notna(value) else "undated" for value in rows["ts"]]
    shown = out[list(TRIAGE_SHOWN)].rename(columns=TRIAGE_SHOWN)
    for column in ("repository", "producer", "quarantine"):
        shown[column] = [fit_cell(value, TRIAGE_WIDTHS[column]) for value in shown[column]]
    return shown


def triage_detail(row: pd.Series) -> pd.DataFrame:
    """Every value of one credit-bug row, whole, as a two-column table of field and value."""
    fields = {
        "attempt": row["attempt_id"], "time (UTC)": row["ts"], "repository": row["repo"], "head": row["head"],
        "producer": row["producer"], "quarantine": row["quarantine"], "merge credit": row["merge_credit"],
        "source file": fit_path(row["source"], DETAIL_WIDTHS["value"]) if isinstance(row["source"], str)
        else row["source"], "line": row["line_no"],
    }
    values = ["; ".join(map(str, value)) if isinstance(value, (list, tuple, np.ndarray))
              else "not recorded" if value is None or (not isinstance(value, str) and pd.isna(value))
              else str(value)
              for value in fields.values()]
    return pd.DataFrame({"field": list(fields), "value": values})


def fit_path(name: str, width: int) -> str:
    """A log's name cut from the front to what a column `width` px wide shows, so that an object's
    run folder, which tells it apart (the key layout gives every object the same file name), stays:
    "…/" and the last parts that fit, else "…/FOLDER/…", else the last characters after "…"."""
    chars = int((width - CELL_PADDING_PX) / CHAR_PX)
    if len(name) <= chars:
        return name
    parts = name.split("/")
    for start in range(1, len(parts) - 1):
        tail = "…/" + "/".join(parts[start:])
        if len(tail) <= chars:
            return tail
    if len(parts) > 2 and len(f"…/{parts[-2]}/…") <= chars:
        return f"…/{parts[-2]}/…"
    return "…" + name[-(chars - 1):]


def highlighted(table: pd.DataFrame) -> Any:
    """Every row tinted with the alert colour (cell values stay plain text)."""
    return table.style.map(lambda _: HIGHLIGHT)


def row_label(row: pd.Series) -> str:
    """A choice in the attempt picker: short id, repository, and the log's name (an object's key) and line."""
    name = fit_path(log_name(row["source"]), PICKED_NAME_PX)
    return f"{short(row['attempt_id'], SHORT_ID)} · {row['repo']} · {name}:{row['line_no']}"


# The What-if page: a stored replay in words.
REPLAY_MEASURES = {"rejects": "Probe rejects", "armed": "Armed calls", "units": "Units"}
REPLAY_ABOUT_WIDTHS = {"what": 110, "value": 380}
FLIP_WIDTHS = {"commit": 70, "subject": 170, "probe": 110, "reasons": 140}
# A table shows this many rows before it scrolls inside itself.
TABLE_ROWS_SHOWN = 20
SHORT_COMMIT = 7  # git's own short form


def replay_about(about: dict[str, Any]) -> pd.DataFrame:
    """What was replayed, against what: checkout, candidate, baseline, and the commits or logs."""
    return pd.DataFrame({"what": ["checkout", "candidate", "baseline", "replayed"],
                         "value": [about["checkout"], about["candidate"], about["baseline"],
                                   short_commits(about["source"])]})


def replay_label(about: dict[str, Any]) -> str:
    """One stored replay in the page's choice: id, when, the candidate file's name and the range.

    A select box shows its options as plain text, so the names stay as they are.
    """
    candidate = str(about["candidate"]).replace("\\", "/").rsplit("/", 1)[-1]
    return f"#{about['replay_id']} · {str(about['made'])[:16].replace('T', ' ')} · {candidate} · " \
        f"{short_commits(about['source'])}"


def short_commits(text: Any) -> str:
    """Full commit ids in a range to git's short form, so the range fits a 1000 px window."""
    return re.sub(r"\b([0-9a-f]{7})[0-9a-f]{33}\b", r"\1", str(text))


def replay_weeks_frame(weeks: list[dict[str, Any]]) -> pd.DataFrame:
    """The stored replay's weekly rows as a frame (week as YYYY-MM-DD)."""
    columns = ["week", "patches", *(f"{side}_{measure}" for side in ("baseline", "candidate")
                                    for measure in REPLAY_MEASURES)]
    return pd.DataFrame(weeks, columns=columns)


def _side(probe: str, reasons: Any) -> str:
    listed = list(reasons) if isinstance(reasons, (list, tuple, np.ndarray)) else []
    return f"{probe} ({', '.join(map(str, listed))})" if listed else probe


def table_height(rows: int) -> int:
    """Pixels for a table that shows up to TABLE_ROWS_SHOWN rows with no inner scroll."""
    return 35 * (min(rows, TABLE_ROWS_SHOWN) + 1) + 3


def _reasons(probe: str, reasons: Any) -> list[str]:
    listed = list(reasons) if isinstance(reasons, (list, tuple, np.ndarray)) else []
    return [str(reason) for reason in listed] if probe == "reject" else []


def flips_shown(flips: pd.DataFrame) -> pd.DataFrame:
    """The flips as the page's table shows them, narrow enough for a 1000 px window: short commit,
    subject, the probe's flip ("reject → pass") and the reasons of the side that rejects."""
    return pd.DataFrame({
        "commit": [value[:SHORT_COMMIT] for value in flips["head"]],
        "subject": [fit_cell(subject, FLIP_WIDTHS["subject"]) for subject in flips["subject"].fillna("")],
        "probe": [f"{before} → {after}" for before, after in zip(flips["baseline_probe"], flips["candidate_probe"])],
        "reasons": [fit_cell("; ".join(_reasons(bp, br) + _reasons(cp, cr)), FLIP_WIDTHS["reasons"])
                    for bp, br, cp, cr in zip(flips["baseline_probe"], flips["baseline_reasons"],
                                              flips["candidate_probe"], flips["candidate_reasons"])],
    })


def flip_detail(flip: pd.Series) -> pd.DataFrame:
    """One flip whole, as field and value: day, full commit id, subject, and each side."""
    return pd.DataFrame({"field": list(flip.index), "value": [str(value) for value in flip]})


def flips_table(flips: pd.DataFrame, whole: bool = False) -> pd.DataFrame:
    """The flips as a reviewer reads them: day, commit, subject, and each side's probe with its reasons."""
    return pd.DataFrame({
        "day": flips["day"],
        "commit": flips["head"] if whole else [value[:SHORT_COMMIT] for value in flips["head"]],
        "subject": flips["subject"].fillna(""),
        "baseline": [_side(p, r) for p, r in zip(flips["baseline_probe"], flips["baseline_reasons"])],
        "candidate": [_side(p, r) for p, r in zip(flips["candidate_probe"], flips["candidate_reasons"])],
    })
