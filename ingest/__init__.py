"""Lossless, incremental lane-log ingest into DuckDB.

    from lanelog.ingest import ingest_paths
    from lanelog.store import default_db_path, open_db
    con = open_db(default_db_path())
    summary = ingest_paths(con, ["lane-log.jsonl"])

The rows land in the tables of store/schema.sql, through lanelog.store.  Other layers
import these names, never the modules.
"""

from typing import TYPE_CHECKING

from lanelog.lazy import lazy_attributes

# Each name is imported from its module when first used: a command that only opens
# the database (`lanelog report`) does not import pyarrow and numpy, the reading side's.
_HOMES = {
    "IngestSummary": "summary",
    **dict.fromkeys(("ingest_bytes", "ingest_paths"), "run"),
    **dict.fromkeys(("expand_paths", "is_object_url", "logs_below", "no_logs_in"), "logfile"),
    "list_objects": "object_logs",
    "StoreTimeouts": "objects",
}

if TYPE_CHECKING:
    from lanelog.ingest.logfile import expand_paths, is_object_url, logs_below, no_logs_in
    from lanelog.ingest.object_logs import list_objects
    from lanelog.ingest.objects import StoreTimeouts
    from lanelog.ingest.run import ingest_bytes, ingest_paths
    from lanelog.ingest.summary import IngestSummary


__getattr__ = lazy_attributes(__name__, _HOMES)

__all__ = [
    "IngestSummary", "StoreTimeouts", "expand_paths", "ingest_bytes", "ingest_paths", "is_object_url", "list_objects",
    "logs_below", "no_logs_in",
]
