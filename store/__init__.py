"""The one door to storage: connections and their rules, the schema, the lake, the SQL files.

    from lanelog.store import open_db, default_db_path
    con = open_db(default_db_path(), read_only=True)

store/schema.sql is the table contract the queries read; export_lake writes it
as a Parquet lake (docs/lake.md) and open_lake reads one back as DuckDB views.
Ingest, queries, the dashboard, replay and the demo reach DuckDB only through here.
"""

from typing import TYPE_CHECKING

from lanelog.lazy import lazy_attributes

# Each name is imported from its module when first used: a command that only opens
# the database (`lanelog report`) does not import pyarrow, the lake writer's.
_HOMES = {
    "SCHEMA_VERSION": "db", "default_db_path": "db", "open_db": "db", "open_memory": "db",
    "peek_db": "db", "put_meta": "db", "read_meta": "db", "stored_logs": "db",
    "ExportSummary": "export", "export_lake": "export", "lake_schemas": "export",
    "lake_files": "lake", "lake_stamp": "lake", "open_lake": "lake",
    "LAKE_SCHEMA_VERSION": "lakefs", "UNDATED": "lakefs",
}

if TYPE_CHECKING:
    from lanelog.store.db import (
        SCHEMA_VERSION,
        default_db_path,
        open_db,
        open_memory,
        peek_db,
        put_meta,
        read_meta,
        stored_logs,
    )
    from lanelog.store.export import ExportSummary, export_lake, lake_schemas
    from lanelog.store.lake import lake_files, lake_stamp, open_lake
    from lanelog.store.lakefs import LAKE_SCHEMA_VERSION, UNDATED


__getattr__ = lazy_attributes(__name__, _HOMES)

__all__ = [
    "LAKE_SCHEMA_VERSION",
    "SCHEMA_VERSION",
    "UNDATED",
    "ExportSummary",
    "default_db_path",
    "export_lake",
    "lake_files",
    "lake_schemas",
    "lake_stamp",
    "open_db",
    "open_lake",
    "open_memory",
    "peek_db",
    "put_meta",
    "read_meta",
    "stored_logs",
]
