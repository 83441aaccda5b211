"""Arrow data handed to DuckDB as a view for one block: the one way ingest gives DuckDB its rows.

Ingest turns lane-log bytes into Arrow tables and record batches (lanelog.ingest); the
store names them as a view the `.sql` blocks read (``lane_lines``, ``lane_sources``, ...)
for the block's statements, and drops the name after, whatever the block did.  A
refusal of DuckDB's becomes a StoreError naming the view.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import duckdb

from lanelog.errors import StoreError


@contextmanager
def arrow_view(con: duckdb.DuckDBPyConnection, name: str, data: Any) -> Iterator[None]:
    """`data` (an Arrow table, or a record batch reader read while a statement runs) as the view
    `name` on `con` for the block; gone after it."""
    try:
        con.register(name, data)
    except duckdb.Error as exc:
        raise StoreError(f"DuckDB could not take the rows of {name}: {exc}") from exc
    try:
        yield
    finally:
        con.unregister(name)
