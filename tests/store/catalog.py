"""What a lanelog database's schema is, read from its catalog: for comparing two databases and
pinning each schema version (tests/store/test_schema_digest.py)."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

import duckdb

# The catalog a database's own schema makes (not DuckDB's, not a temporary object's).
TABLE_COLUMNS = """
SELECT table_name, column_name, data_type, is_nullable, column_default
FROM duckdb_columns() WHERE database_name = current_database() AND schema_name = 'main'
ORDER BY table_name, column_index
"""
CONSTRAINTS = """
SELECT table_name, constraint_type, constraint_column_names
FROM duckdb_constraints() WHERE database_name = current_database() AND constraint_type <> 'NOT NULL'
ORDER BY ALL
"""
# (A sequence's start is not read: DuckDB keeps a used one's as where it has got to.)
SEQUENCES = """
SELECT sequence_name, increment_by, min_value, max_value, cycle FROM duckdb_sequences()
WHERE database_name = current_database() ORDER BY ALL
"""
MACROS = """
SELECT function_name, function_type, parameters, macro_definition FROM duckdb_functions()
WHERE database_name = current_database() AND NOT internal AND function_type IN ('macro', 'table_macro')
ORDER BY ALL
"""
# The table macro ingest keeps in the database (ingest/load.sql), made on a run that stores lines.
INGEST_MACRO = "lane_attempt_rows"


def catalog(con: duckdb.DuckDBPyConnection) -> dict[str, Any]:
    """Every table's columns (name, type, nullable, default) in order, the keys, the sequences,
    and every stored macro's parameters and body as DuckDB holds it."""
    tables: dict[str, list[list[Any]]] = {}
    for table, *column in con.execute(TABLE_COLUMNS).fetchall():
        tables.setdefault(table, []).append(column)
    return {
        "tables": tables,
        "constraints": [list(row) for row in con.execute(CONSTRAINTS).fetchall()],
        "sequences": [list(row) for row in con.execute(SEQUENCES).fetchall()],
        "macros": {name: [kind, params, _excludes_sorted(body)]
                   for name, kind, params, body in con.execute(MACROS).fetchall()},
    }


def _excludes_sorted(body: str) -> str:
    """A macro's body with the names of each `* EXCLUDE (...)` in order: DuckDB prints them as
    it holds them, a set, in no set order."""
    return re.sub(r"EXCLUDE \(([^()]*)\)",
                  lambda found: "EXCLUDE (" + ", ".join(sorted(found[1].split(", "))) + ")", body)


# A SQL text as tokens: a string literal or quoted name (kept as written), a comment, white
# space, a semicolon, or anything else.
_TOKENS = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|--[^\n]*|\s+|;|[^'\"\s;-]+|-")
_MACRO = re.compile(r"^CREATE OR REPLACE (?:TEMP )?MACRO (\w+)")


def macro_texts(*sql: str) -> dict[str, str]:
    """Each macro's CREATE statement in the SQL texts, by name: comments left out, white space
    one space, literals as written."""
    texts: dict[str, str] = {}
    for text in sql:
        current: list[str] = []
        for token in _TOKENS.findall(text):
            if token.startswith("--"):
                continue
            if token.isspace():
                if current and current[-1] != " ":
                    current.append(" ")
            elif token == ";":
                statement = "".join(current).strip()
                current = []
                found = _MACRO.match(statement)
                if found:
                    texts[found[1]] = statement
            else:
                current.append(token)
    return texts


def pinned_form(con: duckdb.DuckDBPyConnection, *sql: str) -> dict[str, Any]:
    """The catalog, each macro's body taken from the statement in `sql` that made it rather than as
    DuckDB prints it back: so a reworded comment changes nothing, and neither does a DuckDB
    release that prints expressions another way; a change to any table, column, type, key
    or macro does."""
    form = catalog(con)
    texts = macro_texts(*sql)
    form["macros"] = {name: [kind, params, texts.get(name)] for name, (kind, params, _body) in form["macros"].items()}
    return form


def digest(form: dict[str, Any]) -> str:
    return "sha256:" + hashlib.sha256(json.dumps(form, sort_keys=True, default=str).encode()).hexdigest()
