"""Each schema version means one schema: a change to a table, a column, its type, a key or a
stored macro without a new version fails here.

Version 4 changed three times after it shipped (alerts_claimed, attempts.shadow_error, and
lane_usage's token bound), and a database made in between failed with a binder error, or
kept a macro a new database refuses.  The digest below is of the catalog a new database
holds once it has ingested a line (schema.sql's create_schema, and the table macro ingest
keeps, ingest/load.sql's attempt_rows).  Changing the schema: bump SCHEMA_VERSION in
store/db.py, add its upgrade_to_N block to store/upgrade.sql, and pin the new version's
digest below, beside the older ones.
"""

from __future__ import annotations

import duckdb
import pytest

from lanelog import store
from lanelog.ingest.statements import attempt_rows, statement
from lanelog.store.db import statements
from tests.store.catalog import digest, pinned_form

# One line per version, added with the version; never edited once it ships.
SCHEMA_DIGESTS = {
    5: "sha256:c837c674bc0ee7d61267afdf186a55f363fbf70d87395cef3b5cc663697adeab",
    6: "sha256:1cdb0b25749ae239fe486c8133112a60a4e80ce46e775ef80fd54ed7cf541ad8",
    7: "sha256:329b1003fc1aef0b476b2728951d705fb57285793e995b7678dea48345fac8c8",
}


def schema_sql() -> str:
    return statements()["create_schema"].sql


def ingest_sql() -> str:
    return statement("attempt_rows").sql


def made(schema: str, ingest: str) -> duckdb.DuckDBPyConnection:
    """A database made by these texts of create_schema and of the ingest macro."""
    con = duckdb.connect(":memory:")
    statements()["prepare"].run(con)
    con.execute(schema)
    con.execute(ingest)
    return con


def test_the_schema_this_lanelog_makes_is_the_one_pinned_for_its_version() -> None:
    con = store.open_memory()
    attempt_rows(con)
    found = digest(pinned_form(con, schema_sql(), ingest_sql()))
    con.close()
    assert max(SCHEMA_DIGESTS) == store.SCHEMA_VERSION, "pin the new version's digest in SCHEMA_DIGESTS"
    assert found == SCHEMA_DIGESTS[store.SCHEMA_VERSION], (
        f"the schema changed without a new version: bump SCHEMA_VERSION (store/db.py), add upgrade_to_"
        f"{store.SCHEMA_VERSION + 1} to store/upgrade.sql, and pin {store.SCHEMA_VERSION + 1}: {found!r}")


def test_the_digest_is_the_made_databases() -> None:
    """(What the pin reads: making the schema from its texts gives the database open_memory makes.)"""
    con = store.open_memory()
    attempt_rows(con)
    try:
        assert pinned_form(made(schema_sql(), ingest_sql()), schema_sql(), ingest_sql()) == \
            pinned_form(con, schema_sql(), ingest_sql())
    finally:
        con.close()


@pytest.mark.parametrize("change", [
    "ALTER TABLE attempts ADD COLUMN reviewer VARCHAR",
    "ALTER TABLE outcomes ALTER COLUMN pr_number TYPE INTEGER",
    "ALTER TABLE ingest_runs ALTER COLUMN outcomes_added DROP NOT NULL",
    "CREATE TABLE IF NOT EXISTS reviews (pr_number BIGINT)",
    "CREATE SEQUENCE IF NOT EXISTS review_ids START 1",
])
def test_a_table_or_column_changed_without_a_new_version_fails_the_pin(change: str) -> None:
    con = made(schema_sql() + ";\n" + change, ingest_sql())
    try:
        assert digest(pinned_form(con, schema_sql(), ingest_sql())) != SCHEMA_DIGESTS[store.SCHEMA_VERSION]
    finally:
        con.close()


@pytest.mark.parametrize(("text", "old", "new"), [
    ("schema", "BETWEEN 0 AND 1e12", "BETWEEN 0 AND 1e13"),  # lane_usage's bound, as version 4 changed it
    ("schema", "'-?[0-9]+'", "'-?[0-9]+(\\.0+)?'"),  # json_int
    ("ingest", "'agent': json_str(j_agent)", "'agent': json_str(j_repo)"),  # the kept ingest macro
])
def test_a_macro_changed_without_a_new_version_fails_the_pin(text: str, old: str, new: str) -> None:
    schema, ingest = schema_sql(), ingest_sql()
    assert old in (schema if text == "schema" else ingest)
    if text == "schema":
        schema = schema.replace(old, new)
    else:
        ingest = ingest.replace(old, new)
    con = made(schema, ingest)
    try:
        assert digest(pinned_form(con, schema, ingest)) != SCHEMA_DIGESTS[store.SCHEMA_VERSION]
    finally:
        con.close()


def test_a_comment_or_white_space_in_a_macro_changes_nothing() -> None:
    schema = schema_sql().replace("CREATE OR REPLACE MACRO json_int(j) AS\n",
                                  "CREATE OR REPLACE MACRO json_int(j) AS  -- (a reworded comment)\n\n   ")
    assert schema != schema_sql()
    con = made(schema, ingest_sql())
    try:
        assert digest(pinned_form(con, schema, ingest_sql())) == SCHEMA_DIGESTS[store.SCHEMA_VERSION]
    finally:
        con.close()
