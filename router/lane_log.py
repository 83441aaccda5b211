"""The lane-log line (schema 1) and its append-only writer.

One JSON object per attempt, one line per object.  Concurrent CI jobs may
append to one file, so a line is written with a single ``os.write`` on a
descriptor opened with ``O_APPEND`` (lanelog.files.append, the one appender):
the kernel places each write at the end of the file as one piece, and no reader
ever sees half a line between two whole ones.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from lanelog.files import append
from lanelog.framing import framed
from lanelog.router.decide import Plan
from lanelog.router.flaky import FreezeRow
from lanelog.router.paths import printable
from lanelog.router.policy import Policy
from lanelog.times import rfc3339

SCHEMA = 1
PRODUCER = "lanelog-route"
# The lane log also holds one outcome line per closed pull request (router/outcome.py): its
# `kind` tells it from an attempt, which has none.
OUTCOME_KIND = "outcome"
OUTCOME_PRODUCER = "lanelog-outcome"
MAX_FILES = 200
MAX_MESSAGE = 2000
# Which change the attempt belongs to (router/change.py), in the line's order.
CHANGE_FIELDS = ("pull_request", "agent", "ci_run")


def build_line(*, ts: datetime, attempt_id: str, repo: str, base: str | None,
               head: str | None, plan: Plan, files: list[str], policy: Policy | None,
               lane: str, results: Mapping[str, str],
               freezes: Mapping[str, FreezeRow] | None = None,
               usage: Mapping[str, Mapping[str, Any]] | None = None,
               setup_error: str | None = None,
               change: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The attempt's line; the seed's five fields keep their names and meaning.

    `freezes` (optional, schema 1 all the same) gives the owner and expiry of every
    id the line lists in `quarantine` or `expired_freezes`: who to ask about it.
    `usage` (optional, schema 1 all the same) gives what each property's run
    reported it used (router/usage.py), by property id; absent when none did.
    `evidence` (optional) is what a reviewer decides on, by reason code (router/evidence.py):
    the removed assertion lines, the files that weigh most against the cap, the fixtures and
    tests; absent when the decision read none.
    `cost_estimate` (optional) is what the selected properties' calls were estimated to cost
    before arming, with its inputs (router/cost.py); present when the policy sets cost_cap.
    `setup_error` (optional) says why the property lane could not run, or a run could
    not start (a runner not installed): CI's set-up, not the patch; absent when all ran.
    `change` (optional, router/change.py) gives the attempt's `pull_request`, `agent` and
    `ci_run`, each already checked, each present only when known.
    """
    line = {
        "schema": SCHEMA,
        "producer": PRODUCER,
        "ts": rfc3339(ts),
        "attempt_id": attempt_id,
        "repo": repo,
        "base": base,
        "head": head,
        "probe": plan.probe,
        "reasons": list(plan.reasons),
        "message": _message(plan),
        "lines_changed": plan.lines_changed,
        "files": [printable(path) for path in files[:MAX_FILES]],
        "files_count": len(files),
        "properties": list(plan.properties),
        "units": plan.units,
        "budget_cap": policy.budget_cap if policy is not None else None,
        "line_cap": policy.line_cap if policy is not None else None,
        "quarantine": list(plan.quarantine),
        "expired_freezes": list(plan.expired_freezes),
        "merge_credit": plan.merge_credit,
        "model_call_allowed": plan.model_call_allowed,
        "review": plan.review,
        "lane": lane,
        "results": dict(results),
    }
    return line | _optional(plan, freezes, usage, setup_error, change or {})


def _message(plan: Plan) -> str | None:
    """The decision's message as one printable line, cut at MAX_MESSAGE characters."""
    message = printable(plan.message) if plan.message is not None else None
    if message is not None and len(message) > MAX_MESSAGE:
        message = message[:MAX_MESSAGE - 1] + "…"
    return message


def _optional(plan: Plan, freezes: Mapping[str, FreezeRow] | None, usage: Mapping[str, Mapping[str, Any]] | None,
              setup_error: str | None, change: Mapping[str, Any]) -> dict[str, Any]:
    """The line's optional fields, each present only when it says something (build_line's docstring)."""
    listed = [*plan.quarantine, *plan.expired_freezes]
    known = {test_id: {"owner": freezes[test_id].owner, "expires": freezes[test_id].expires.isoformat()}
             for test_id in listed if freezes and test_id in freezes}
    out: dict[str, Any] = {}
    if plan.evidence:
        out["evidence"] = plan.evidence
    if plan.cost_estimate is not None:
        out["cost_estimate"] = plan.cost_estimate
    if known:
        out["freezes"] = known
    if usage:
        out["usage"] = {prop: dict(used) for prop, used in usage.items()}
    if setup_error:
        out["setup_error"] = printable(setup_error)[:MAX_MESSAGE]
    out |= {name: change[name] for name in CHANGE_FIELDS if change.get(name) is not None}
    return out


def dumps(line: Mapping[str, Any]) -> str:
    """The line's JSON text, without the newline (UTF-8 kept readable).

    A control character, a line separator (U+2028, NEL) or a bidi mark in a file
    name is written as a JSON escape, so no reader that splits lines on more than
    ``\\n`` (str.splitlines, the design note's Step 6) cuts the line there.
    """
    return framed(json.dumps(line, ensure_ascii=False, separators=(", ", ": ")), json=True)


def append_line(path: Path, line: Mapping[str, Any]) -> None:
    """Append one whole line to ``path``, creating the file (and its folder) if needed."""
    data = (dumps(line) + "\n").encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    append(path, data)
