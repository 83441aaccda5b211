"""kill -9 at any moment, then another run: every line is stored exactly once."""

from __future__ import annotations

from pathlib import Path

import pytest

from lanelog import ingest, store
from tests.ingest.support import counts, kill_after, line, outcome, stored

CHILD = """
import sys
from lanelog import ingest, store
import lanelog.ingest.chunks
ingest.chunks.CHUNK_BYTES = 2048  # many small transactions, so the kill lands inside the run
ingest.chunks.ROW_GROUP_LINES = 16
ingest.chunks.GROUP_ROW_GROUPS = 4  # groups of 64 lines
con = store.open_db(sys.argv[1])
print("opened", flush=True)
ingest.ingest_paths(con, [sys.argv[2]], progress=lambda n, _: print("chunk", flush=True) if n else None)
print("done", flush=True)
"""


def mixed_log(lines: int) -> bytes:
    """Attempts with ids, repeats, attempts without ids, outcome lines (some repeated: a re-run
    job's), rejected and blank lines."""
    out = []
    for n in range(lines):
        if n % 7 == 3:
            out.append(b"not json\n")
        elif n % 11 == 5:
            out.append(b"\n")
        elif n % 13 == 6:
            out.append(outcome(outcome_id=f"outcome-{n % 150}", ts="2026-10-08T14:00:00Z", state="merged",
                               pull_request={"repository": "o/r", "number": n % 150}))
        elif n % 5 == 0:
            out.append(line(note=f"no id {n}"))
        else:
            out.append(line(attempt_id=f"a{n % 900}", ts="2026-10-08T12:00:00Z", probe="pass"))
    return b"".join(out)


@pytest.mark.parametrize("commits_before_kill", [0, 3, 25])
def test_kill_9_mid_run_then_rerun_stores_every_line_once(tmp_path: Path, commits_before_kill: int) -> None:
    data = mixed_log(3000)
    log = tmp_path / "lane.jsonl"
    log.write_bytes(data)
    db = tmp_path / "lanelog.duckdb"
    kill_after(CHILD, db, log, "chunk", commits_before_kill)

    reference = store.open_memory()
    whole = ingest.ingest_bytes(reference, "lane.jsonl", data)
    con = store.open_db(db)
    partial = con.execute("SELECT count(*) FROM attempts").fetchall()[0][0]
    assert partial < whole.attempts_added  # the kill cut the run short
    assert whole.outcomes_added == 133 and whole.duplicates > 0  # 180 outcome lines of 133 outcome ids
    ingest.ingest_paths(con, [log])
    assert stored(con) == stored(reference)
    assert con.execute("SELECT bytes_read, lines_read, duplicates FROM sources").fetchall() == [
        (len(data), 3000, whole.duplicates)
    ]
    assert counts(ingest.ingest_paths(con, [log])) == (0, 0, 0, 0, 0)
    con.close()
