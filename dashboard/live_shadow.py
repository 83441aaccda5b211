"""The What-if page's live view: lane-log lines decided under a shadow policy (`route --shadow`).

Frames from ``queries.shadow_report`` and ``queries.shadow_flips``, shaped for the page:
week by week the live policy against the shadow, in the columns the replay chart draws
(``baseline_*`` is the live policy, ``candidate_*`` the shadow), and the attempts whose
probe would flip.  Text from the log stays text: the page shows it in data frames only.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

import numpy as np
import pandas as pd

from lanelog.dashboard.cells import fit_cell
from lanelog.reasons import RECORDS, SHADOW_ERRORS
from lanelog.reasons import words as reason_words
from lanelog.times import rfc3339

# Widths (px) that fit the main column of a 1000 px window with the sidebar open (about 490 px).
FLIP_WIDTHS = {"day": 85, "attempt": 95, "probe": 100, "reasons": 210}
WEEK_WIDTHS = {"week": 85, "attempts": 70, "probe rejects": 110, "armed calls": 105, "would flip": 80}
DETAIL_WIDTHS = {"field": 110, "value": 380}
MEASURES = {"rejects": "Probe rejects", "armed": "Armed calls"}


def policy_label(entry: dict[str, Any]) -> str:
    """A shadow policy in the page's choice (plain text): its digest's start and its attempts."""
    digest = entry["policy_sha256"]
    name = digest[:12] + ("…" if len(digest) > 12 else "") if digest else "no digest recorded"
    count = entry["totals"]["attempts"]
    return f"policy {name} · {count} attempt{'' if count == 1 else 's'}"


def errors_words(errors: dict[str, Any]) -> str:
    """The attempts whose shadow is an error, in words: they count in no figure of the section.

    Shown as markdown (st.warning), so it holds lanelog's own words only, never a reason's
    text from the log: a reason lanelog does not know is named as such.
    """
    given = errors["reasons"]
    counts = [(RECORDS[reason].shadow_error, given[reason]) for reason in SHADOW_ERRORS if reason in given]
    other = sum(count for reason, count in given.items() if reason not in SHADOW_ERRORS)
    counts += [("another reason, recorded in the lane log", other)] if other else []
    reasons = ", ".join(f"{words} ({count})" for words, count in counts)
    count = errors["attempts"]
    subject = "1 attempt in range has" if count == 1 else f"{count} attempts in range have"
    return (f"{subject} no shadow decision: {reasons}. {'It counts' if count == 1 else 'They count'} in no "
            "figure below: fix the `--shadow` file the CI job names.")


def weeks_frame(shadow: dict[str, Any]) -> pd.DataFrame:
    """One shadow policy's weekly rows as the replay chart reads them: baseline = live, candidate = shadow."""
    rows = [{"week": week["week"], "patches": week["attempts"],
             "baseline_rejects": week["probe_rejects"], "candidate_rejects": week["shadow_probe_rejects"],
             "baseline_armed": week["calls_armed"], "candidate_armed": week["shadow_calls_armed"],
             "flips": week["flips"]}
            for week in shadow["weeks"] if week["week"] is not None]  # the chart draws dated weeks
    return pd.DataFrame(rows, columns=["week", "patches", "baseline_rejects", "candidate_rejects",
                                       "baseline_armed", "candidate_armed", "flips"])


def weeks_table(shadow: dict[str, Any]) -> pd.DataFrame:
    """One shadow policy's every week (the undated bucket as "undated") and its total; each figure "live → shadow"."""
    rows = [*shadow["weeks"], {"week": "total", **shadow["totals"]}]
    return pd.DataFrame({
        "week": [row["week"] or "undated" for row in rows],
        "attempts": [row["attempts"] for row in rows],
        "probe rejects": [f"{row['probe_rejects']} → {row['shadow_probe_rejects']}" for row in rows],
        "armed calls": [f"{row['calls_armed']} → {row['shadow_calls_armed']}" for row in rows],
        "would flip": [row["flips"] for row in rows],
    }, columns=list(WEEK_WIDTHS))


def _listed(value: Any) -> list[str]:
    return [str(item) for item in value] if isinstance(value, (list, tuple, np.ndarray)) else []


def _day(value: Any) -> str:
    if isinstance(value, (datetime, pd.Timestamp)):
        return value.strftime("%Y-%m-%d")
    if isinstance(value, date):
        return value.isoformat()
    return "undated"


def flips_table(flips: list[dict[str, Any]], whole: bool = False) -> pd.DataFrame:
    """The flipping attempts: day, attempt, "live → shadow" probe and the rejecting side's reasons.

    whole: every value as stored (full ids, both sides' reasons, the repo and head), for the CSV.
    """
    def reasons(row: dict[str, Any]) -> str:  # the rejecting side's: the probe column says which
        listed = _listed(row["shadow_reasons"] if row["shadow_probe"] == "reject" else row["reasons"])
        return ", ".join(reason_words(reason) for reason in listed) if listed else "(none recorded)"

    if whole:
        return pd.DataFrame({
            "ts": [rfc3339(row["ts"], fraction=True) if row["ts"] is not None else "" for row in flips],
            "attempt_id": [row["attempt_id"] or "" for row in flips],
            "repo": [row["repo"] or "" for row in flips],
            "head": [row["head"] or "" for row in flips],
            "live_probe": [row["probe"] or "" for row in flips],
            "live_reasons": [", ".join(_listed(row["reasons"])) for row in flips],
            "shadow_probe": [row["shadow_probe"] or "" for row in flips],
            "shadow_reasons": [", ".join(_listed(row["shadow_reasons"])) for row in flips],
            "shadow_policy": [row["shadow_policy"] or "" for row in flips],
        }, columns=["ts", "attempt_id", "repo", "head", "live_probe", "live_reasons", "shadow_probe",
                    "shadow_reasons", "shadow_policy"])
    return pd.DataFrame({
        "day": [_day(row["ts"]) for row in flips],
        "attempt": [fit_cell(row["attempt_id"] or "(no id)", FLIP_WIDTHS["attempt"]) for row in flips],
        "probe": [f"{row['probe'] or '-'} → {row['shadow_probe'] or '-'}" for row in flips],
        "reasons": [fit_cell(reasons(row), FLIP_WIDTHS["reasons"], sep=", ") for row in flips],
    }, columns=list(FLIP_WIDTHS))


def flip_detail(flips: list[dict[str, Any]], index: int) -> pd.DataFrame:
    """One flipping attempt whole, as field and value: nothing cut, both sides' reasons."""
    row = flips_table(flips, whole=True).iloc[index].copy()
    # A sha256 is known by its start (as git's short ids); the CSV holds it whole.
    row["shadow_policy"] = row["shadow_policy"][:16] + ("…" if len(row["shadow_policy"]) > 16 else "")
    return pd.DataFrame({"field": [name.replace("_", " ") for name in row.index],
                         "value": [str(value) for value in row]})


def flip_label(flips: list[dict[str, Any]], index: int) -> str:
    """A flipping attempt in the page's choice (plain text): day, id and the flip."""
    shown = flips_table(flips).iloc[index]
    return f"{shown['day']} · {shown['attempt']} · {shown['probe']}"
