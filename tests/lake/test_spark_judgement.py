"""The judgement of every merge on Apache Spark equals DuckDB's, over the generated histories of
tests/queries/test_outcomes.py: approvals of the merged head or an older one, before and after
the merge, labels set through an app, removed or set late, the author's word, route jobs re-run
after the merge."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lanelog import ingest, queries, store
from lanelog.queries.spark_lake import SparkLake
from tests.queries.test_outcomes import history, read

JUDGED = ("pr_repository", "pr_number", "last_attempt", "last_attempt_ts", "last_quarantine", "verdict",
          "person_merged", "said_by")


def test_every_merges_verdict_and_who_said_so_are_the_same_on_spark(spark: Any, tmp_path: Path) -> None:
    lines = []
    for seed in range(6):  # each seed's pull requests in repositories of their own
        for line in history(seed):
            line["pull_request"] = {**line["pull_request"],
                                    "repository": f"{line['pull_request']['repository']}-{seed}"}
            lines.append(line)
    verdicts = {change.verdict() for change in read(lines, None).values()}
    assert {"credit_bug", "reviewed_exception", None} <= verdicts
    log, db, lake = tmp_path / "lane-log.jsonl", tmp_path / "db.duckdb", tmp_path / "lake"
    log.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    con = store.open_db(db)
    try:
        ingest.ingest_paths(con, [log])
        store.export_lake(con, lake)
        expected = [{key: row[key] for key in JUDGED} for row in queries.records(con, queries.SQL.pull_request_rows)]
        credit = queries.credit_bugs(con)
    finally:
        con.close()
    engine = SparkLake(spark, store.lake_files(lake), store.lake_schemas())
    found = [{key: row[key] for key in JUDGED} for row in queries.records(engine, queries.SQL.pull_request_rows)]
    assert found == expected
    assert queries.credit_bugs(engine) == credit
    assert credit.merges and credit.exceptions
