-- The statements store/db.py runs on every connection: settings, transactions,
-- the schema's version and what a database file holds.

-- name: prepare
-- Every timestamp lanelog shows or compares is UTC, whatever the machine's zone.
-- No vacuum at checkpoints: ingest stores a transaction's rows on both cores,
-- and each core's share ends in a part-filled row group; a vacuum would merge
-- those by rewriting the whole table (as long as the ingest took) at some later
-- checkpoint.  lanelog deletes rows only when a provisional last line is read
-- again, so there is nothing else to reclaim.
-- params:
SET TimeZone = 'UTC';
SET max_vacuum_tasks = 0;

-- name: this_database
-- The open database's name, its file (NULL for an in-memory one) and whether it is read-only.
-- params:
SELECT database_name, path, readonly FROM duckdb_databases() WHERE database_name = current_database()

-- name: has_table
-- Whether the open database holds any table, or the table $name.
-- params: name
SELECT count(*) > 0 FROM duckdb_tables()
WHERE database_name = current_database() AND ($name IS NULL OR table_name = $name)

-- name: table_rows
-- How many rows the table named $name holds (the caller asks only of a table that exists).
-- params: name
SELECT count(*) FROM query_table($name)

-- name: objects
-- What the open database holds besides DuckDB's own objects, by kind: a file that
-- is no lanelog database is written to only when this is empty.
-- params:
SELECT kind, count(*) AS objects, min(name) AS example FROM (
    SELECT 'table' AS kind, table_name AS name FROM duckdb_tables() WHERE database_name = current_database()
    UNION ALL
    SELECT 'view', view_name FROM duckdb_views() WHERE database_name = current_database() AND NOT internal
    UNION ALL
    SELECT 'macro', function_name FROM duckdb_functions()
    WHERE database_name = current_database() AND NOT internal AND function_type IN ('macro', 'table_macro')
    UNION ALL
    SELECT 'sequence', sequence_name FROM duckdb_sequences() WHERE database_name = current_database()
    UNION ALL
    SELECT 'type', type_name FROM duckdb_types() WHERE database_name = current_database() AND NOT internal
    UNION ALL
    SELECT 'schema', schema_name FROM duckdb_schemas()
    WHERE database_name = current_database() AND NOT internal AND schema_name <> 'main'
) GROUP BY kind ORDER BY kind

-- name: schema_version
-- The schema version the database records (no row: not a lanelog database).
-- params:
SELECT value FROM lanelog_meta WHERE key = 'schema_version'

-- name: record_schema
-- A new database's version, maker and schema digest (db.py's schema_digest), right after
-- schema.sql made it.
-- params: by, digest, version
INSERT INTO lanelog_meta VALUES ('schema_version', $version), ('created_by', $by), ('schema_digest', $digest)

-- name: record_upgrade
-- The version an upgrade step brought the database up to, by which lanelog, and the digest of
-- the schema text whose macros it now holds.
-- params: by, digest, version
INSERT OR REPLACE INTO lanelog_meta VALUES ('schema_version', $version), ('upgraded_by', $by),
    ('schema_digest', $digest)

-- name: schema_digest
-- The digest of the schema text (create_schema) whose macros the database holds: none when it
-- was made before lanelog recorded one.
-- params:
SELECT value FROM lanelog_meta WHERE key = 'schema_digest'

-- name: begin
-- Open a transaction.
-- params:
BEGIN TRANSACTION

-- name: commit
-- Commit the open transaction.
-- params:
COMMIT

-- name: rollback
-- Roll the open transaction back.
-- params:
ROLLBACK

-- name: current_setting
-- A DuckDB setting's current value, by its name.
-- params: name
SELECT current_setting($name)

-- name: set_memory_limit
-- DuckDB's memory limit.  (A setting's name cannot be bound: one block per setting lanelog changes.)
-- params: value
SET memory_limit = $value

-- name: set_disabled_optimizers
-- The optimizers DuckDB leaves out (see ingest/load.py's PARSE_ONCE and STREAM).
-- params: value
SET disabled_optimizers = $value

-- name: set_preserve_insertion_order
-- Whether DuckDB keeps rows in insertion order (see ingest/load.py's STREAM).
-- params: value
SET preserve_insertion_order = $value

-- name: put_meta
-- Record one lanelog_meta value (the demo marks the database it made).
-- params: key, value
INSERT OR REPLACE INTO lanelog_meta VALUES ($key, $value)

-- name: read_meta
-- Every lanelog_meta value by key.
-- params:
SELECT key, value FROM lanelog_meta ORDER BY key

-- name: stored_logs
-- Each stored log's fingerprint and the path it was last read from, in the order they were stored.
-- params:
SELECT fingerprint, path FROM sources ORDER BY source_id
