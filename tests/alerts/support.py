"""What the alert tests share: the command line, a database from lane-log lines, and runs started together."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.alerts.receiver import Answer, Receiver, receiver


def lanelog(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "lanelog", *args], capture_output=True, text=True, check=False,
                          timeout=120, env={**os.environ, **(env or {})})


def digest(url: str) -> str:
    """How alerts_sent names a receiver: the hash of its URL, never the URL."""
    return hashlib.sha256(url.encode()).hexdigest()


def ingest_lines(tmp_path: Path, lines: list[dict[str, Any]]) -> Path:
    """The lines written as tmp_path/lane-log.jsonl and ingested into tmp_path/lanelog.duckdb.

    Ingested in this process (the alert tests run the commands they test as the user does; a
    process of `lanelog ingest` to set up each of them cost some 0.7 s more)."""
    from lanelog import ingest, store

    log = tmp_path / "lane-log.jsonl"
    log.write_text("".join(json.dumps(item) + "\n" for item in lines))
    db = tmp_path / "lanelog.duckdb"
    con = store.open_db(db)
    try:
        summary = ingest.ingest_paths(con, [log])
    finally:
        con.close()
    assert not summary.errors and summary.attempts_added + summary.outcomes_added == len(lines), summary
    return db


def runs_at_once(command: list[str], delay: float,
                 count: int = 2) -> tuple[Receiver, list[subprocess.Popen[str]], list[tuple[str, str]]]:
    """`count` runs of `command` started together, each told by LANELOG_NOTIFY to post to one receiver
    that takes `delay` seconds over every post, so their sending overlaps. The receiver, the finished
    runs and each run's (stdout, stderr)."""
    with receiver() as hook:
        hook.answers = [Answer(200, delay=delay)]
        env = {**os.environ, "LANELOG_NOTIFY": hook.url}
        runs = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
                for _ in range(count)]
        try:
            outputs = [run.communicate(timeout=120) for run in runs]
        finally:
            for run in runs:
                run.kill()
                run.wait()
    return hook, runs, outputs


# Slack's Block Kit limits (api.slack.com/reference/block-kit/blocks): what a message must keep to be taken.
SLACK_LIMITS = {"blocks": 50, "header": 150, "section_text": 3000, "fields": 10, "field": 2000, "context": 10}


def slack_problems(body: dict[str, Any]) -> list[str]:
    """Why Slack would refuse or mangle a message of blocks: [] when it keeps to Block Kit's rules."""
    problems = [] if isinstance(body.get("text"), str) and body["text"] else ["no fallback text"]
    blocks = body.get("blocks", [])
    if not 0 < len(blocks) <= SLACK_LIMITS["blocks"]:
        problems.append(f"{len(blocks)} blocks")
    for n, block in enumerate(blocks):
        kind = block.get("type")
        if kind == "header":
            text = block["text"]
            if text.get("type") != "plain_text" or not 0 < len(text["text"]) <= SLACK_LIMITS["header"]:
                problems.append(f"block {n}: a header of plain text up to 150 characters")
        elif kind == "section":
            text, fields = block.get("text"), block.get("fields")
            if (text is None) == (fields is None):
                problems.append(f"block {n}: a section has a text or fields")
            if text is not None and not 0 < len(text["text"]) <= SLACK_LIMITS["section_text"]:
                problems.append(f"block {n}: a section's text of {len(text['text'])} characters")
            if fields is not None and (not 0 < len(fields) <= SLACK_LIMITS["fields"]
                                       or any(not 0 < len(field["text"]) <= SLACK_LIMITS["field"] for field in fields)):
                problems.append(f"block {n}: at most ten fields of up to 2000 characters")
            for item in [text, *(fields or [])]:
                if item is not None and item.get("type") not in ("mrkdwn", "plain_text"):
                    problems.append(f"block {n}: text of type {item.get('type')}")
        elif kind == "context":
            if not 0 < len(block.get("elements", [])) <= SLACK_LIMITS["context"]:
                problems.append(f"block {n}: a context of 1 to 10 elements")
        else:
            problems.append(f"block {n}: unknown type {kind!r}")
    return problems


def slack_text(body: dict[str, Any]) -> str:
    """Every text of a message's blocks, one after the other (headers, sections, fields, contexts)."""
    parts: list[str] = []
    for block in body.get("blocks", []):
        if "text" in block:
            parts.append(block["text"]["text"])
        parts += [field["text"] for field in block.get("fields", [])]
        parts += [element["text"] for element in block.get("elements", [])]
    return "\n".join(parts)
