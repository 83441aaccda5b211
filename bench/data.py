"""The benchmark's inputs, made once per run in bench/out/ (reused while unchanged).

Logs are cached by their manifest (generator version, seed, size), so a second
`make bench` does not regenerate 1M lines; the 10M-attempt database and the
git repository are cheap enough to rebuild every run.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from bench.generate import GENERATOR_VERSION, Manifest, write_log
from lanelog.files import append


@dataclass
class Log:
    """A generated log, its copy without broken lines, and the 1,000 lines appended later."""

    path: Path
    clean: Path
    append: Path
    manifest: Manifest
    append_manifest: Manifest


def _cached_manifest(path: Path, seed: int, lines: int, start: int) -> Manifest | None:
    meta = path.with_suffix(".manifest.json")
    if not (path.exists() and meta.exists()):
        return None
    data = json.loads(meta.read_text())
    manifest = Manifest(**data)
    wanted = (GENERATOR_VERSION, seed, lines, start, path.stat().st_size)
    if (manifest.version, manifest.seed, manifest.lines, manifest.start, manifest.bytes) != wanted:
        return None
    return manifest


def _generate(path: Path, seed: int, lines: int, *, start: int = 0, total: int | None = None,
              clean: Path | None = None, workers: int = 1) -> Manifest:
    manifest = _cached_manifest(path, seed, lines, start)
    if manifest is not None and (clean is None or clean.exists()):
        return manifest
    manifest = write_log(path, seed, lines, start=start, total=total, clean=clean, workers=workers)
    path.with_suffix(".manifest.json").write_text(json.dumps(manifest.__dict__))
    return manifest


def make_log(out: Path, seed: int, lines: int, append_lines: int, workers: int) -> Log:
    """Generate (or reuse) the base log, its clean copy and the appended lines."""
    path = out / f"lane-log-{lines}.jsonl"
    clean = out / f"lane-log-{lines}-clean.jsonl"
    append = out / f"lane-log-{lines}-append-{append_lines}.jsonl"
    manifest = _generate(path, seed, lines, clean=clean, workers=workers)
    # The appended lines continue the same log: later indexes, later timestamps.
    append_manifest = _generate(append, seed, append_lines, start=lines, total=lines)
    return Log(path, clean, append, manifest, append_manifest)


def read_through(path: Path) -> None:
    """Read a file once, so the page cache holds it before a case is timed."""
    with path.open("rb") as source:
        while source.read(1 << 24):
            pass


def remove_db(path: Path) -> None:
    """Delete a DuckDB file and its write-ahead log, if present."""
    for candidate in (path, path.with_name(path.name + ".wal")):
        candidate.unlink(missing_ok=True)


def copy_db(source: Path, target: Path) -> None:
    """Copy a closed DuckDB file (and its write-ahead log, if one was left), flushed to disk.

    A fresh copy sits in the page cache as dirty pages.  Unflushed, the timed
    run's first fsync (DuckDB's checkpoint when it closes the file) would
    write the whole copy out, about 100 ms for the 1M database: the harness's
    own work, which no long-lived database file makes a user pay.
    """
    remove_db(target)
    _copy_flushed(source, target)
    wal = source.with_name(source.name + ".wal")
    if wal.exists():
        _copy_flushed(wal, target.with_name(target.name + ".wal"))


def _copy_flushed(source: Path, target: Path) -> None:
    shutil.copyfile(source, target)
    with target.open("rb+") as copy:
        os.fsync(copy.fileno())


def restore_log(path: Path, size: int) -> None:
    """Cut the log back to its generated size (undoing an append)."""
    os.truncate(path, size)


def append_lines(path: Path, size: int, extra: Path) -> None:
    """Cut the log back to ``size`` and append ``extra``'s bytes, as a writer would."""
    os.truncate(path, size)
    append(path, extra.read_bytes())


# Every copy gets fresh attempt ids (in the raw line too) and line numbers past the
# original's, so the copies are distinct attempts to every query.  The partial copy
# takes the first $rest original lines, so the result is the same on every run.
_COPY = """
INSERT INTO attempts
SELECT a.* REPLACE (
    a.line_no + c.k * $span AS line_no,
    a.attempt_id || '-' || c.k AS attempt_id,
    CASE WHEN a.attempt_id IS NULL THEN a.raw
         ELSE replace(a.raw, '"' || a.attempt_id || '"', '"' || a.attempt_id || '-' || c.k || '"') END AS raw
)
"""
FULL_COPIES_SQL = _COPY + "FROM attempts AS a, (SELECT unnest($copies::BIGINT[]) AS k) AS c"
PARTIAL_COPY_SQL = _COPY + """FROM (SELECT * FROM attempts WHERE line_no <= $span ORDER BY line_no LIMIT $rest) AS a,
     (SELECT $k::BIGINT AS k) AS c"""


def multiply_db(source: Path, target: Path, attempts: int) -> dict[str, object]:
    """Make ``target``: ``source``'s attempts copied with fresh ids until it holds ``attempts``.

    Much faster than ingesting 10M lines of JSON, and the rows are the same
    shape ingest writes, because they are ingest's own rows.
    """
    import duckdb

    started = time.perf_counter()
    copy_db(source, target)
    con = duckdb.connect(str(target), config={"memory_limit": "3GB", "threads": 2,
                                              "preserve_insertion_order": False})
    con.execute("SET enable_progress_bar = false")
    try:
        base, span = con.execute("SELECT count(*), max(line_no) FROM attempts").fetchone()
        if not 0 < base <= attempts:
            raise ValueError(f"{source} holds {base:,} attempts; it can only be multiplied up to {attempts:,}")
        full, rest = divmod(attempts, base)
        con.execute("BEGIN")
        if full > 1:
            con.execute(FULL_COPIES_SQL, {"span": span, "copies": list(range(1, full))})
        if rest:
            con.execute(PARTIAL_COPY_SQL, {"span": span, "rest": rest, "k": full})
        con.execute("COMMIT")
        con.execute("CHECKPOINT")
        total = con.execute("SELECT count(*) FROM attempts").fetchone()[0]
    finally:
        con.close()
    return {"attempts": total, "from_attempts": base, "seconds": round(time.perf_counter() - started, 1),
            "how": (f"ingest of the {base:,}-attempt log, then INSERT ... SELECT copies of its attempts "
                    "with fresh attempt_ids (raw lines rewritten to match) up to the target")}
