"""Credit-bug triage's tables: the rows whole for the CSV, cut to fit for the page, one row's detail."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from lanelog.dashboard.cells import SHORT_ID, fit_cell, fit_ids, fit_path, pull_request_cell, short
from lanelog.dashboard.health_tables import DETAIL_WIDTHS, PICKED_NAME_PX, log_name
from lanelog.dashboard.present import flat

TRIAGE_COLUMNS = ["ts", "attempt_id", "repo", "head", "producer", "quarantine", "merge_credit", "line"]



# The table on the page fits the main column of a 1000 px window (about 500 px): words as
# headers, the day, the attempt id cut, and fixed widths that cut a long cell with an
# ellipsis; a quarantine keeps whole test ids, the rest counted ("+1 more"). The selected attempt's
# detail and the CSV carry every value whole (time, full ids, head, merge credit, source file and line).
TRIAGE_SHOWN = {"ts": "day (UTC)", "attempt_id": "attempt", "repo": "repository",
                "producer": "producer", "quarantine": "quarantine"}


TRIAGE_WIDTHS = {"day (UTC)": 75, "attempt": 95, "repository": 93, "producer": 107, "quarantine": 160}


HIGHLIGHT = "background-color: rgba(214, 39, 40, 0.16)"


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
    for column in ("repository", "producer"):
        shown[column] = [fit_cell(value, TRIAGE_WIDTHS[column]) for value in shown[column]]
    shown["quarantine"] = [fit_ids(value, TRIAGE_WIDTHS["quarantine"]) for value in rows["quarantine"]]
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


# The cell a credit bug's row is tinted in: the live quarantine its merge credit passed over (a reviewed
# exception's row, which a person let go, is not tinted).
ALERT_COLUMN = "quarantine"


def highlighted(table: pd.DataFrame) -> Any:
    """The credit-bug rows' quarantine cells tinted with the alert colour (cell values stay plain text)."""
    return table.style.map(lambda _: HIGHLIGHT, subset=[ALERT_COLUMN])


def row_label(row: pd.Series) -> str:
    """A choice in the attempt picker: short id, repository, and the log's name (an object's key) and line."""
    name = fit_path(log_name(row["source"]), PICKED_NAME_PX)
    return f"{short(row['attempt_id'], SHORT_ID)} · {row['repo']} · {name}:{row['line_no']}"


# Fits the main column of a 1000 px window (as TRIAGE_WIDTHS does); the chosen merge below shows it all.
MERGE_WIDTHS = {"day (UTC)": 78, "pull request": 118, "merged by": 90, "auto-merge": 80, "quarantine": 164}


def merges_shown(merges: list[dict[str, Any]]) -> pd.DataFrame:
    """Merges over a live quarantine as the table shows them: the day, the pull request, who merged it (the
    account's type is in the chosen merge's detail), whether auto-merge did, the quarantine."""
    return pd.DataFrame([{
        "day (UTC)": merge["merged_at"].strftime("%Y-%m-%d") if merge["merged_at"] is not None else "-",
        "pull request": pull_request_cell(merge["pr_repository"], merge["pr_number"], MERGE_WIDTHS["pull request"]),
        "merged by": fit_cell(merge["merged_by"] or "(unknown)", MERGE_WIDTHS["merged by"]),
        "auto-merge": "yes" if merge["auto_merge"] else "no",
        "quarantine": fit_ids(merge["quarantine"], MERGE_WIDTHS["quarantine"]),
    } for merge in merges], columns=list(MERGE_WIDTHS))


def merge_detail(merge: dict[str, Any]) -> pd.DataFrame:
    """One merge whole, as field and value: the pull request, who merged it and how, and its last attempt."""
    fields = [
        ("pull request", f"{merge['pr_repository']}#{merge['pr_number']}"),
        ("address", merge["pr_url"] or "(not recorded)"),
        ("merged at (UTC)", str(merge["merged_at"])),
        ("merged by", f"{merge['merged_by'] or '(unknown)'} ({merge['merged_by_type'] or 'type not recorded'})"),
        ("auto-merge", f"yes, enabled by {merge['auto_merge_by'] or '(unknown)'}" if merge["auto_merge"] else "no"),
        ("approvals", ", ".join(merge["approvals"]) or "none recorded"),
        ("a person said", "; ".join(merge["said_by"]) or "nobody"),
        ("an exception?", "possible: a person merged it" if merge["person_merged"] else
         "never: auto-merge, a bot or the author"),
        ("agent", merge["agent"] or "(unknown)"),
        ("last attempt", f"{merge['last_attempt'] or '(no id)'} at {merge['last_attempt_ts']}"),
        ("its quarantine", "; ".join(merge["quarantine"])),
        ("repository", merge["repo"] or "(unknown)"),
    ]
    return pd.DataFrame(fields, columns=["field", "value"])
