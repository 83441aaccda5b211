"""`lanelog check`'s lines: each credit bug with its raw line, then the audit's warnings; as text or JSON."""

from __future__ import annotations

import json
from typing import Any

from lanelog.cli.render.cells import merged_when, plain
from lanelog.events import row_json


def check_json_lines(found: dict[str, Any]) -> list[str]:
    """`check --format json`: one object a line, credit bugs then warnings, each with its kind."""
    lines = [json.dumps({"kind": "credit_bug", **row_json(row)}) for row in found["credit_bugs"]]
    lines += [json.dumps({"kind": "warning", **row_json(row)}) for row in found["warnings"]]
    return lines


def check_lines(found: dict[str, Any]) -> list[str]:
    """`check` for a terminal or a cron mail: each credit bug with its raw line, then warnings."""
    lines: list[str] = []
    for bug in found["credit_bugs"]:
        lines.append(
            f"CREDIT BUG {plain(bug['ts'])} attempt {plain(bug['attempt_id'])} "
            f"repo {plain(bug['repo'])} head {plain(bug['head'])} "
            f"producer {plain(bug['producer'])} quarantine {plain(bug['quarantine'])} "
            f"merge_credit {plain(bug['merge_credit'])} at {plain(bug['source'])}:{bug['line_no']}"
        )
        lines.append(f"  raw: {plain(bug['raw'])}")
    for warning in found["warnings"]:
        lines.append(
            f"warning: {warning['rule']} {plain(warning['ts'])} attempt "
            f"{plain(warning['attempt_id'])} repo {plain(warning['repo'])} at "
            f"{plain(warning['source'])}:{warning['line_no']}: {plain(warning['detail'])}"
        )
    return lines


def _pull_request(merge: dict[str, Any]) -> str:
    return f"{plain(merge['pr_repository'])}#{merge['pr_number']}"


def merge_lines(merges: list[dict[str, Any]], head: str) -> list[str]:
    """Each merge over a live quarantine under its head ("CREDIT BUG (merge)", alerted, or "reviewed exception"),
    who merged it and who said the quarantine may go."""
    lines = []
    for merge in merges:
        who = f"merged by {plain(merge['merged_by'])} ({plain(merge['merged_by_type'])})"
        who += f", auto-merge enabled by {plain(merge['auto_merge_by'])}" if merge["auto_merge"] else ""
        said = f"; said by: {plain(', '.join(merge['said_by']))}" if merge["said_by"] else ""
        lines.append(f"{head} {_pull_request(merge)} {plain(merge['pr_url'])} {who} {merged_when(merge)} "
                     f"over quarantine {plain(merge['quarantine'])}: last attempt {plain(merge['last_attempt'])} "
                     f"at {plain(merge['last_attempt_ts'])}{said}")
    return lines


def merge_json_lines(merges: list[dict[str, Any]], kind: str) -> list[str]:
    """`check --format json`: one object a line per merge over a live quarantine, of the kind given
    (merge_credit_bug or reviewed_exception)."""
    return [json.dumps({"kind": kind, **row_json(merge)}) for merge in merges]
