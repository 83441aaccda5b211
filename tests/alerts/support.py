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
    """The lines written as tmp_path/lane-log.jsonl and ingested into tmp_path/lanelog.duckdb."""
    log = tmp_path / "lane-log.jsonl"
    log.write_text("".join(json.dumps(item) + "\n" for item in lines))
    db = tmp_path / "lanelog.duckdb"
    done = lanelog("ingest", str(log), "--db", str(db))
    assert done.returncode == 0, done.stderr
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
