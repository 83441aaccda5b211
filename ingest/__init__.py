"""Lossless, incremental lane-log ingest into DuckDB.

    from lanelog.ingest import open_db, default_db_path, ingest_paths
    con = open_db(default_db_path())
    summary = ingest_paths(con, ["lane-log.jsonl"])

ingest/schema.sql is the table contract the queries read.
"""

from lanelog.ingest.db import SCHEMA_VERSION, default_db_path, open_db, open_memory
from lanelog.ingest.run import IngestSummary, ingest_bytes, ingest_paths

__all__ = [
    "SCHEMA_VERSION",
    "IngestSummary",
    "default_db_path",
    "ingest_bytes",
    "ingest_paths",
    "open_db",
    "open_memory",
]
