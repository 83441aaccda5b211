"""The measured side of the in-process cases: `python -m bench.worker NAME ARGS_JSON`.

The harness starts a fresh interpreter for every measurement, so each run pays
its own imports (kept outside the timed span) and its peak resident set is its
own.  A worker prints one JSON object on its last stdout line:
``{"seconds": {figure: s}, "info": {...}}``.  Workers use lanelog's public
Python API only (``store.open_db``/``ingest_paths``, ``queries``, the
dashboard's app script through Streamlit's AppTest).
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

Result = dict[str, Any]


def seed_reader(log: str) -> Result:
    """The seed's Step 6 reader, line for line, over ``log``."""
    start = time.perf_counter()
    rows = [json.loads(line) for line in Path(log).read_text().splitlines() if line.strip()]
    summary = {
        "attempts": len(rows),
        "probe_rejects": sum(r.get("probe") == "reject" for r in rows),
        "calls_armed": sum(bool(r.get("model_call_allowed")) for r in rows),
        "credit_bugs": sum(bool(r.get("merge_credit")) and bool(r.get("quarantine")) for r in rows),
    }
    return {"seconds": {"total": time.perf_counter() - start}, "info": {"counts": summary}}


def pandas_reader(log: str) -> Result:
    """`pandas.read_json(lines=True)` plus the seed's four counts."""
    import pandas as pd

    start = time.perf_counter()
    frame = pd.read_json(log, lines=True)
    quarantine = frame["quarantine"].map(lambda value: isinstance(value, list) and len(value) > 0)
    summary = {
        "attempts": len(frame),
        "probe_rejects": int((frame["probe"] == "reject").sum()),
        "calls_armed": int(frame["model_call_allowed"].fillna(False).astype(bool).sum()),
        "credit_bugs": int((frame["merge_credit"].fillna(0).astype(bool) & quarantine).sum()),
    }
    return {"seconds": {"total": time.perf_counter() - start}, "info": {"counts": summary}}


def duckdb_floor(log: str, db: str, lines: str = "") -> Result:
    """The lossy floor: one CREATE TABLE AS SELECT * FROM read_json_auto into a database file.

    ``ignore_errors`` is the one addition to the bare call, which stops with an
    error at the log's first broken line.
    """
    import duckdb

    start = time.perf_counter()
    con = duckdb.connect(db)
    if lines:  # a glob of one-line files: told it is JSON lines, as it cannot guess from one line
        con.execute("CREATE TABLE t AS SELECT * FROM read_json_auto($path, ignore_errors = true, "
                    "format = 'newline_delimited')", {"path": log})
    else:
        con.execute("CREATE TABLE t AS SELECT * FROM read_json_auto($path, ignore_errors = true)", {"path": log})
    con.close()
    elapsed = time.perf_counter() - start
    with duckdb.connect(db, read_only=True) as check:
        rows = check.execute("SELECT count(*) FROM t").fetchone()[0]
    return {"seconds": {"total": elapsed}, "info": {"rows": rows}}


def lanelog_ingest(log: str, db: str) -> Result:
    """lanelog's ingest through its Python API: open (creating if needed), ingest, close."""
    from lanelog.ingest import ingest_paths
    from lanelog.store import open_db

    start = time.perf_counter()
    con = open_db(Path(db))
    summary = ingest_paths(con, [Path(log)])
    con.close()
    elapsed = time.perf_counter() - start
    return {"seconds": {"total": elapsed}, "info": {"summary": summary.as_dict(), "errors": summary.errors}}


def lanelog_ingest_url(url: str, db: str, endpoint: str) -> Result:
    """lanelog's ingest of an object-store URL through its Python API: open, ingest, close."""
    from lanelog.ingest import ingest_paths
    from lanelog.store import open_db

    start = time.perf_counter()
    con = open_db(Path(db))
    summary = ingest_paths(con, [url], endpoint_url=endpoint)
    con.close()
    elapsed = time.perf_counter() - start
    return {"seconds": {"total": elapsed}, "info": {"summary": summary.as_dict(), "errors": summary.errors}}


def _s3_keys(url: str, endpoint: str) -> tuple[Any, str, list[str]]:
    """A boto3 client, the bucket, and every key below the URL's prefix, page by page."""
    import boto3

    bucket, _, prefix = url.removeprefix("s3://").partition("/")
    client = boto3.client("s3", endpoint_url=endpoint)
    pages = client.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix)
    return client, bucket, [item["Key"] for page in pages for item in page.get("Contents", [])]


def s3_get_floor(url: str, endpoint: str) -> Result:
    """The server's own floor: boto3 lists the prefix and GETs every object, 16 threads at a time."""
    from concurrent.futures import ThreadPoolExecutor

    import boto3  # noqa: F401 - imported before the timer, as the listing floor does

    start = time.perf_counter()
    client, bucket, keys = _s3_keys(url, endpoint)
    with ThreadPoolExecutor(16) as pool:
        size = sum(pool.map(lambda key: len(client.get_object(Bucket=bucket, Key=key)["Body"].read()), keys))
    elapsed = time.perf_counter() - start
    return {"seconds": {"total": elapsed}, "info": {"objects": len(keys), "bytes": size}}


def s3_list_floor(url: str, endpoint: str) -> Result:
    """The server's floor for an unchanged re-run: boto3 pages through the prefix's listing, nothing else."""
    import boto3  # noqa: F401 - imported before the timer

    start = time.perf_counter()
    _, _, keys = _s3_keys(url, endpoint)
    elapsed = time.perf_counter() - start
    return {"seconds": {"total": elapsed}, "info": {"objects": len(keys)}}


def lanelog_append_series(log: str, db: str, runs: str, lines: str, seed: str, start: str, total: str) -> Result:
    """`runs` appends of `lines` fresh generated lines in a row, each an open, ingest and close.

    Where one append always starts from the same copy of the database, a
    series shows what a log appended to run after run costs as the table
    grows, each close's checkpoint included.
    """
    from bench.generate import line
    from lanelog.files import append
    from lanelog.ingest import ingest_paths
    from lanelog.store import open_db

    each: list[float] = []
    added = 0
    for run in range(int(runs)):
        first = int(start) + run * int(lines)
        data = b"".join(line(int(seed), index, int(total))[0] + b"\n" for index in range(first, first + int(lines)))
        append(Path(log), data)
        began = time.perf_counter()
        con = open_db(Path(db))
        summary = ingest_paths(con, [Path(log)])
        con.close()
        each.append(time.perf_counter() - began)
        added += summary.attempts_added
    return {
        "seconds": {"total": sum(each) / len(each), "max": max(each)},
        "info": {"runs": len(each), "attempts_added": added, "each": [round(x, 4) for x in each]},
    }


def weekly_query(db: str) -> Result:
    """`queries.weekly` over the whole database: its first call in a fresh process."""
    import pandas  # noqa: F401  (the frame's library: an import, kept outside the timed span)

    from lanelog.queries import Filters, weekly
    from lanelog.store import open_db

    con = open_db(Path(db), read_only=True)
    start = time.perf_counter()
    frame = weekly(con, Filters())
    elapsed = time.perf_counter() - start
    con.close()
    return {"seconds": {"total": elapsed}, "info": {"weeks": len(frame), "attempts": int(frame["attempts"].sum())}}


def dashboard_overview(app: str, db: str) -> Result:
    """The overview page through Streamlit's AppTest: a cold run, then a cached rerun."""
    from streamlit.testing.v1 import AppTest

    os.environ["LANELOG_DB"] = db
    page = AppTest.from_file(app, default_timeout=300)
    start = time.perf_counter()
    page.run()
    cold = time.perf_counter() - start
    _raise_on_exception(page, "cold run")
    start = time.perf_counter()
    page.run()
    cached = time.perf_counter() - start
    _raise_on_exception(page, "cached rerun")
    metrics = {metric.label: metric.value for metric in page.metric}
    return {"seconds": {"cold": cold, "cached": cached}, "info": {"metrics": metrics}}


def _raise_on_exception(page: Any, when: str) -> None:
    if page.exception:
        messages = "; ".join(str(error.value) for error in page.exception)
        raise RuntimeError(f"the overview page raised on its {when}: {messages}")


WORKERS: dict[str, Callable[..., Result]] = {
    "seed_reader": seed_reader,
    "pandas_reader": pandas_reader,
    "duckdb_floor": duckdb_floor,
    "lanelog_ingest": lanelog_ingest,
    "lanelog_ingest_url": lanelog_ingest_url,
    "s3_get_floor": s3_get_floor,
    "s3_list_floor": s3_list_floor,
    "lanelog_append_series": lanelog_append_series,
    "weekly_query": weekly_query,
    "dashboard_overview": dashboard_overview,
}


def main(argv: list[str]) -> None:
    """Run one worker and print its result as the last stdout line."""
    name, arguments = argv[0], json.loads(argv[1])
    result = WORKERS[name](**arguments)
    sys.stdout.write("\n" + json.dumps(result) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
