"""Lossless, incremental lane-log ingest into DuckDB.

    from lanelog.ingest import ingest_paths
    from lanelog.store import default_db_path, open_db
    con = open_db(default_db_path())
    summary = ingest_paths(con, ["lane-log.jsonl"])

The rows land in the tables of store/schema.sql, through lanelog.store.
"""

import importlib
from typing import TYPE_CHECKING, Any

# Each name is imported from its module when first used: a command that only opens
# the database (`lanelog report`) does not import pyarrow and numpy, the reading side's.
_HOMES = {
    "IngestSummary": "run", "ingest_bytes": "run", "ingest_paths": "run",
}

if TYPE_CHECKING:
    from lanelog.ingest.run import IngestSummary, ingest_bytes, ingest_paths


def __getattr__(name: str) -> Any:
    """A public name from its module, or a submodule (lanelog.ingest.chunks) by its name."""
    home = _HOMES.get(name)
    if home is not None:
        value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
        globals()[name] = value
        return value
    try:
        return importlib.import_module(f"{__name__}.{name}")
    except ModuleNotFoundError as exc:
        if exc.name != f"{__name__}.{name}":
            raise
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None


__all__ = [
    "IngestSummary",
    "ingest_bytes",
    "ingest_paths",
]
