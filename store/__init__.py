"""The one door to storage: the database file, the schema, the lake, and the SQL files' runner.

    from lanelog.store import open_db, default_db_path
    con = open_db(default_db_path(), read_only=True)

Other layers import these names, never the modules.  db.py opens the database (waiting
out another process's lock, upgrading an older schema with upgrade.sql) and holds the
connection rules (transactions, settings, the memory cap); arrow.py hands ingest's Arrow
rows to DuckDB; sniff.py tells by its first bytes a file that is no database; schema.sql
is the table contract the queries read.  sqlfile.py loads and runs every ``.sql`` file,
the store's and those beside the layers that own their meaning (queries/, ingest/), and
names the file and block of a query the database refuses.  export_lake writes the
tables as a Parquet lake (docs/lake.md), laid out by lakefs.py in a local folder
(folder.py) or a bucket (bucket.py), and open_lake reads one back as DuckDB views
(LakeReader, look after look).  replays.py keeps `lanelog replay --db`'s replays and
alerts.py what `lanelog check --notify` sent.
"""

from typing import TYPE_CHECKING

from lanelog.lazy import lazy_attributes

# Each name is imported from its module when first used: a command that only opens
# the database (`lanelog report`) does not import pyarrow, the lake writer's.
_HOMES = {
    **dict.fromkeys(("SCHEMA_VERSION", "capped_memory", "default_db_path", "open_db", "open_memory", "peek_db",
                     "put_meta", "read_meta", "read_only_name", "settings", "stored_logs", "transaction"), "db"),
    "arrow_view": "arrow",
    **dict.fromkeys(("Query", "load_folder", "load_resources"), "sqlfile"),
    **dict.fromkeys(("ExportSummary", "export_lake", "lake_schemas"), "export"),
    **dict.fromkeys(("LakeReader", "lake_files", "lake_stamp", "open_lake"), "lake"),
    **dict.fromkeys(("LAKE_SCHEMA_VERSION", "UNDATED"), "lakefs"),
    **dict.fromkeys(("LISTING_TIMEOUT_S", "REQUEST_TIMEOUT_S", "RequestTimeout", "bounded", "redacted",
                     "s3_filesystem"), "bucket"),
    "ALERT_CLAIM_EXPIRY_S": "alerts:CLAIM_EXPIRY_S", "alerts_sent_to": "alerts:sent_to",
    "claim_alert": "alerts:claim", "mark_alert_sent": "alerts:mark_sent", "release_alert": "alerts:release",
    "store_replay": "replays:store", "latest_replay": "replays:latest", "replay_listing": "replays:listing",
    "replay_by_id": "replays:by_id",
}

if TYPE_CHECKING:
    from lanelog.store.alerts import CLAIM_EXPIRY_S as ALERT_CLAIM_EXPIRY_S
    from lanelog.store.alerts import claim as claim_alert
    from lanelog.store.alerts import mark_sent as mark_alert_sent
    from lanelog.store.alerts import release as release_alert
    from lanelog.store.alerts import sent_to as alerts_sent_to
    from lanelog.store.arrow import arrow_view
    from lanelog.store.bucket import (
        LISTING_TIMEOUT_S,
        REQUEST_TIMEOUT_S,
        RequestTimeout,
        bounded,
        redacted,
        s3_filesystem,
    )
    from lanelog.store.db import (
        SCHEMA_VERSION,
        capped_memory,
        default_db_path,
        open_db,
        open_memory,
        peek_db,
        put_meta,
        read_meta,
        read_only_name,
        settings,
        stored_logs,
        transaction,
    )
    from lanelog.store.export import ExportSummary, export_lake, lake_schemas
    from lanelog.store.lake import LakeReader, lake_files, lake_stamp, open_lake
    from lanelog.store.lakefs import LAKE_SCHEMA_VERSION, UNDATED
    from lanelog.store.replays import by_id as replay_by_id
    from lanelog.store.replays import latest as latest_replay
    from lanelog.store.replays import listing as replay_listing
    from lanelog.store.replays import store as store_replay
    from lanelog.store.sqlfile import Query, load_folder, load_resources


__getattr__ = lazy_attributes(__name__, _HOMES)

__all__ = [
    "ALERT_CLAIM_EXPIRY_S", "LAKE_SCHEMA_VERSION", "LISTING_TIMEOUT_S", "REQUEST_TIMEOUT_S", "SCHEMA_VERSION",
    "UNDATED", "ExportSummary", "LakeReader", "Query", "RequestTimeout", "alerts_sent_to", "arrow_view", "bounded",
    "capped_memory", "claim_alert", "default_db_path", "export_lake", "lake_files", "lake_schemas", "lake_stamp",
    "latest_replay", "load_folder", "load_resources", "mark_alert_sent", "open_db", "open_lake", "open_memory",
    "peek_db", "put_meta", "read_meta", "read_only_name", "redacted", "release_alert", "replay_by_id",
    "replay_listing", "s3_filesystem", "settings", "store_replay", "stored_logs", "transaction",
]
