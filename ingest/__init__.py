"""Lossless, incremental lane-log ingest into DuckDB.

    from lanelog.ingest import open_db, default_db_path, ingest_paths
    con = open_db(default_db_path())
    summary = ingest_paths(con, ["lane-log.jsonl"])

ingest/schema.sql is the table contract the queries read; export_lake writes it
as a Parquet lake (docs/lake.md) and open_lake reads one back as DuckDB views.
"""

from lanelog.ingest.db import SCHEMA_VERSION, default_db_path, open_db, open_memory
from lanelog.ingest.export import ExportSummary, export_lake, lake_schemas
from lanelog.ingest.lake import lake_files, open_lake
from lanelog.ingest.lakefs import LAKE_SCHEMA_VERSION, UNDATED
from lanelog.ingest.run import IngestSummary, ingest_bytes, ingest_paths

__all__ = [
    "LAKE_SCHEMA_VERSION",
    "SCHEMA_VERSION",
    "UNDATED",
    "ExportSummary",
    "IngestSummary",
    "default_db_path",
    "export_lake",
    "ingest_bytes",
    "ingest_paths",
    "lake_files",
    "lake_schemas",
    "open_db",
    "open_lake",
    "open_memory",
]
