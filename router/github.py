"""A reject shown where the pull request is read: GitHub annotations and the job summary.

Under GitHub Actions, ``lanelog route`` writes a reject's reasons as workflow-command
annotations on the lines that caused it (``::error file=...,line=...,title=...::...``)
and appends a job summary in Markdown to the file the job names for it (the GitHub forge,
router/forges/github.py, reads the job's variables).  Both are built from the lane-log line
alone, so they say what the line says.

``workflow_command`` is the one place a workflow command is built: every property
value and the message are escaped as the runner reads them, so no file name or line of
a patch can end the command early, add a property, or start a command of its own.
GitHub shows 10 error annotations per step: at most MAX_ANNOTATIONS are written, the
last saying how many were left out (the removed lines the line does not carry counted
too) and which of them the summary lists.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lanelog.evidence_text import evidence_lines, fenced, markdown_text, reason_messages, reason_words
from lanelog.files import NotRegular, append
from lanelog.reasons import NEXT_STEPS, REASONS, evidence_of, kind
from lanelog.router.forges import forge

# GitHub shows at most 10 error annotations of a step (and 50 of a job).
MAX_ANNOTATIONS = 10
# The runner reads these as escapes in a property value; the message escapes the first three.
DATA_ESCAPES = (("%", "%25"), ("\r", "%0D"), ("\n", "%0A"))
PROPERTY_ESCAPES = (*DATA_ESCAPES, (":", "%3A"), (",", "%2C"))
EXCEPTION = ("a person reviews the patch and merges it by hand, and `lanelog outcome` records that merge and "
             "who made it; the router never promotes a patch, and this attempt's merge credit stays 0.")


def _escaped(text: str, escapes: Sequence[tuple[str, str]]) -> str:
    for raw, escape in escapes:
        text = text.replace(raw, escape)
    return text


def workflow_command(command: str, message: str, **properties: str | int | None) -> str:
    """``::command key=value,...::message``, every value and the message escaped; None values left out."""
    shown = ",".join(f"{key}={_escaped(str(value), PROPERTY_ESCAPES)}"
                     for key, value in properties.items() if value is not None)
    return f"::{command}{' ' + shown if shown else ''}::{_escaped(message, DATA_ESCAPES)}"


def error_annotations(line: Mapping[str, Any]) -> list[str]:
    """The reject's error annotations: one for each reason, the removed assertion lines each on
    their own line; at most MAX_ANNOTATIONS, the last then saying how many more."""
    wanted: list[dict[str, Any]] = []
    evidence = _mapping(line.get("evidence"))
    messages = _messages(line)
    uncarried = 0  # removed lines past those the line carries: each would be an annotation, none can be
    for reason in line.get("reasons") or []:
        part = _mapping(evidence.get(reason))
        title = f"lanelog: {reason.replace('_', ' ')}"
        if evidence_of(reason) == "assertion_lines" and part.get("lines"):
            wanted += [{**spot, "title": title} for spot in _assertion_spots(part)]
            uncarried += max(_count(part.get("lines_total")) - len(part["lines"]), 0)
        else:
            wanted.append({"file": _first_file(reason, part), "title": title,
                           "message": messages.get(reason) or reason_words(reason)})
    if len(wanted) + uncarried > MAX_ANNOTATIONS:
        more = len(wanted) + uncarried - (MAX_ANNOTATIONS - 1)
        wanted = wanted[:MAX_ANNOTATIONS - 1] + [{"title": "lanelog: more", "message": (
            f"{more} more annotation(s) left out (GitHub shows {MAX_ANNOTATIONS} a step): the job summary lists "
            f"every reason and {_summary_lines(_mapping(evidence.get('assertion_removed')))}")}]
    return [workflow_command("error", spot["message"], file=spot.get("file"), line=spot.get("line"),
                             title=spot["title"]) for spot in wanted]


def _summary_lines(part: Mapping[str, Any]) -> str:
    """Which removed assertion lines the job summary lists: those the line carries, all or the first few."""
    carried, total = len(part.get("lines") or []), _count(part.get("lines_total"))
    if total > carried:
        return (f"the first {carried} of the {total} removed assertion lines, with the diff around them (the "
                f"lane-log line keeps those {carried})")
    return "every removed assertion line" if carried else "no removed line"


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _messages(line: Mapping[str, Any]) -> dict[str, str]:
    recorded = line.get("message")
    return reason_messages(line.get("reasons"), recorded if isinstance(recorded, str) else "")


def _assertion_spots(part: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The removed assertion lines that caused the reject, each at the line of the new file that stands
    for it: the line that replaced it, else where it was removed (no line in a deleted file)."""
    lines = [row for row in part.get("lines") or [] if isinstance(row, dict)]
    rule = part.get("rule")
    if rule == "moved_ok":
        lines = [row for row in lines if not row.get("back_verbatim")] or lines
    elif rule == "net":
        lines = [row for row in lines if not row.get("replaced_by")] or lines
    spots = []
    for row in lines:
        replaced = row.get("replaced_by") if isinstance(row.get("replaced_by"), dict) else None
        message = f"removed (old line {row.get('old_line')}): {str(row.get('text', '')).strip()}"
        if replaced is not None:
            message += f"\nreplaced by: {str(replaced.get('text', '')).strip()}"
        message += f"\nassertion_rule {rule}: a removed assertion line rejects the patch"
        spots.append({"file": row.get("file"), "line": replaced.get("line") if replaced else row.get("at"),
                      "message": message})
    return spots


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else {}


def _first_file(reason: str, part: Mapping[str, Any]) -> str | None:
    """The file a file-wide reason points at: the heaviest file against the line cap, the first fixture."""
    side = {"line_counts": "files", "paths": "fixtures"}.get(evidence_of(reason))
    rows = part.get(side) if side else None
    if not isinstance(rows, list) or not rows:
        return None
    first = rows[0]["file"] if isinstance(rows[0], dict) else rows[0]
    return first if isinstance(first, str) else None


def job_summary(line: Mapping[str, Any]) -> str:
    """The reject in Markdown: the decision, the reasons in words, the lines in a fenced block, what to do next."""
    reasons = [reason for reason in line.get("reasons") or [] if isinstance(reason, str)]
    messages = _messages(line)
    head = str(line.get("head") or "?")[:12]
    out = ["## lanelog route: probe reject", "",
           f"The probe rejected patch `{markdown_text(head)}` of {markdown_text(str(line.get('repo')))}: "
           "no model call was made, and merge credit stays 0.", "", "### Why", ""]
    for reason in reasons:
        out.append(f"- **{markdown_text(reason.replace('_', ' '))}**: {markdown_text(REASONS.get(reason, reason))}")
        if reason in messages:
            out.append(f"  {markdown_text(messages[reason])}")
    shown = evidence_lines(line.get("evidence"))
    if shown:
        out += ["", "### The lines", "",
                "Removed lines show their old line number (`-`), added lines their new one (`+`); an "
                "unmarked line is unchanged, shown for context.", "", *fenced(shown)]
    out += ["", "### What to do next", ""]
    # The set-up's step first: until CI works, nothing else is worth doing.
    ordered = sorted(reasons, key=lambda reason: kind(reason) != "setup")
    steps = [NEXT_STEPS[reason] for reason in ordered if reason in NEXT_STEPS]
    if any(kind(reason) == "patch" for reason in reasons):
        # An exception is for a judged patch, never for a broken set-up; asked once: the removed
        # assertion's step asks for it and points here.
        asked = "assertion_removed" in reasons
        steps.append(("A reviewed exception: " if asked else "Or ask for a reviewed exception: ") + EXCEPTION)
    out += [f"- {step}" for step in dict.fromkeys(steps)]
    return "\n".join(out) + "\n"


def on_actions(choice: str, environ: Mapping[str, str] | None = None) -> bool:
    """Whether ``--annotations`` (never, auto, always) asks for them here: auto only under GitHub Actions."""
    env = os.environ if environ is None else environ
    return choice == "always" or (choice == "auto" and forge("github").runs_here(env))


def summary_file(environ: Mapping[str, str] | None = None) -> str | None:
    """The file the job summary is appended to, as the job names it (``$GITHUB_STEP_SUMMARY``); None when none."""
    return forge("github").summary_path(os.environ if environ is None else environ)


def append_summary(text: str, environ: Mapping[str, str] | None = None) -> Path | None:
    """Append ``text`` to the job summary's file (``summary_file``); None when the job names none.

    Only a regular file (or a new one) is written: a FIFO, a device, a socket or a folder is
    refused before it is opened for writing (a FIFO with no reader held route for ever), and the
    open descriptor is checked again.  OSError says why nothing was written.
    """
    target = summary_file(environ)
    if target is None:
        return None
    path = Path(target)
    try:
        append(path, text.encode("utf-8"), regular_only=True, permissions=0o666)
    except NotRegular as error:
        raise OSError(errno.EINVAL, f"{error.strerror}; nothing written") from None
    return path
