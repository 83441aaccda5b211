"""The one door to storage: the database file, the schema, the lake, and the SQL files' runner.

    from lanelog.store import open_db, default_db_path
    con = open_db(default_db_path(), read_only=True)

db.py opens the database (waiting out another process's lock, upgrading an older
schema with upgrade.sql), and sniff.py tells by its first bytes a file that is no
database; schema.sql is the table contract the queries read.  sqlfile.py loads and runs every ``.sql`` file,
the store's, ingest's and queries', and names the file and block of a query the
database refuses.  export_lake writes the tables as a Parquet lake (docs/lake.md),
laid out by lakefs.py in a local folder (folder.py) or a bucket (bucket.py), and
open_lake reads one back as DuckDB views (LakeReader, look after look).  replays.py keeps
`lanelog replay --db`'s replays and alerts.py what `lanelog check --notify` sent.  Ingest, queries, the
dashboard and the commands open DuckDB only through here.
"""

from typing import TYPE_CHECKING

from lanelog.lazy import lazy_attributes

# Each name is imported from its module when first used: a command that only opens
# the database (`lanelog report`) does not import pyarrow, the lake writer's.
_HOMES = {
    "SCHEMA_VERSION": "db", "default_db_path": "db", "open_db": "db", "open_memory": "db",
    "peek_db": "db", "put_meta": "db", "read_meta": "db", "stored_logs": "db",
    "ExportSummary": "export", "export_lake": "export", "lake_schemas": "export",
    "LakeReader": "lake", "lake_files": "lake", "lake_stamp": "lake", "open_lake": "lake",
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
    from lanelog.store.lake import LakeReader, lake_files, lake_stamp, open_lake
    from lanelog.store.lakefs import LAKE_SCHEMA_VERSION, UNDATED


__getattr__ = lazy_attributes(__name__, _HOMES)

__all__ = [
    "LAKE_SCHEMA_VERSION",
    "SCHEMA_VERSION",
    "UNDATED",
    "ExportSummary",
    "LakeReader",
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
