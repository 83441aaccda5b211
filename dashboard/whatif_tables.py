"""The What-if page's tables: a stored replay in words, and its flips narrow enough for a 1000 px window."""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np
import pandas as pd

from lanelog.dashboard.cells import fit_cell, fit_path
from lanelog.evidence_text import decided_lines
from lanelog.framing import framed
from lanelog.reasons import words as reason_words

# The What-if page: a stored replay in words.
REPLAY_MEASURES = {"rejects": "Probe rejects", "armed": "Armed calls", "units": "Units"}



REPLAY_ABOUT_WIDTHS = {"what": 110, "value": 380}


FLIP_WIDTHS = {"commit": 70, "subject": 170, "probe": 110, "reasons": 140}


SHORT_COMMIT = 7  # git's own short form


def replay_about(about: dict[str, Any]) -> pd.DataFrame:
    """What was replayed, against what: checkout, candidate, baseline, and the commits or logs; a path
    too long for its column keeps its end (the file's name), a text its start."""
    width = REPLAY_ABOUT_WIDTHS["value"]
    values = [fit_path(str(about["checkout"]), width), fit_path(str(about["candidate"]), width),
              fit_cell(about["baseline"], width), fit_cell(short_commits(about["source"]), width)]
    return pd.DataFrame({"what": ["checkout", "candidate", "baseline", "replayed"], "value": values})


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


def _reasons(probe: str, reasons: Any) -> list[str]:
    """A rejecting side's reasons in the words the Probe page uses ("line cap"); the CSV keeps the codes."""
    listed = list(reasons) if isinstance(reasons, (list, tuple, np.ndarray)) else []
    return [reason_words(str(reason)) for reason in listed] if probe == "reject" else []


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


def flip_lines(flip: dict[str, Any]) -> list[tuple[str, list[str], bool]] | None:
    """The lines each side of a stored flip decided on, as plain text (lanelog.evidence_text, as
    `replay --format markdown` shows them; each line framed, so no control character or bidi mark
    reaches the page): (side, lines, whole), the rejecting side first and whole, the other side
    keeping only the lines that differ.  None when the replay was stored before the evidence was kept."""
    stored = [(side, flip.get(f"{side}_evidence")) for side in ("baseline", "candidate")]
    if all(text is None for _side, text in stored):
        return None
    sides = decided_lines([(side, str(flip.get(f"{side}_probe")), _parsed(text)) for side, text in stored])
    return [(side, [framed(line) for line in lines], whole) for side, lines, whole in sides]


def _parsed(text: Any) -> Any:
    """Stored evidence as data; a lake is files anyone may have written, so unreadable text is none."""
    try:
        return json.loads(text) if isinstance(text, str) else None
    except ValueError:
        return None
