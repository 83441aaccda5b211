"""The named statements ingest runs (load.sql, identity.sql, objects.sql), and the table macro it keeps.

Every statement ingest runs is a block of one of those files, run through the
store's runner (lanelog.store.Query).  lane_attempt_rows, the table macro of
load.sql that every statement storing lines reads, is kept in the database.
"""

from __future__ import annotations

import hashlib
from functools import cache

import duckdb

from lanelog.store import Query, load_resources, put_meta, read_meta


@cache
def statements() -> dict[str, Query]:
    """The named statements of load.sql, identity.sql and objects.sql."""
    return load_resources("lanelog.ingest", "load.sql", "identity.sql", "objects.sql")


def statement(name: str) -> Query:
    """One named statement of load.sql, identity.sql or objects.sql; it runs itself (sqlfile.Query)."""
    return statements()[name]


# The lanelog_meta key naming the lane_attempt_rows macro the database holds (a digest of its text).
MACRO_KEY = "attempt_rows_macro"


@cache
def macro_digest() -> str:
    """A digest of load.sql's lane_attempt_rows text: the version lanelog_meta records."""
    return "sha256:" + hashlib.sha256(statement("attempt_rows").sql.encode()).hexdigest()


def attempt_rows(con: duckdb.DuckDBPyConnection) -> None:
    """Make sure the database holds load.sql's lane_attempt_rows macro as this lanelog writes it.

    The macro is kept with the schema: made on the first ingest, and made again only
    when its text differs from the one recorded (another lanelog's), inside the caller's
    transaction, so a run cut short leaves the old macro and its digest, or both new.
    """
    if read_meta(con).get(MACRO_KEY) == macro_digest():
        return
    statement("attempt_rows").run(con)
    put_meta(con, MACRO_KEY, macro_digest())
