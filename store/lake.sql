-- The lake's tables as DuckDB views, so queries/*.sql run on a lake unchanged.
-- Each view reads the data files listed in a session variable (set with a bound
-- value, never formatted into the SQL; a connection sets its own).

-- name: lake_attempts_view
-- Replaces the empty attempts table with a view over attempts/week=*/data.parquet; results is JSON again.
-- The week comes from each file's folder name (hive_partitioning; __HIVE_DEFAULT_PARTITION__
-- is NULL), which lake_attempts_weeks has found the files' own week column to say too: a
-- query whose filter on the week can be told from it alone, as queries/scope.sql's
-- in_scope, opens only the weeks it can hold.  Only the schema's columns are kept
-- ($lake_attempts_columns): a folder name "key=value" above the lake's own folder would be
-- read as a column too.  A query that needs neither results nor raw reads neither (DuckDB
-- pushes the projection through both SELECTs).
-- params:
DROP TABLE attempts;
CREATE VIEW attempts AS
SELECT * REPLACE (CAST(results AS JSON) AS results)
FROM (
    SELECT COLUMNS(lambda c: list_contains(getvariable('lake_attempts_columns'), c))
    FROM read_parquet(getvariable('lake_attempts'), hive_partitioning = true, hive_types = {'week': DATE})
)

-- name: lake_attempts_view_by_column
-- The attempts view of a lake whose files do not all hold the week their folder names (one
-- written by another tool): the week is each row's own, and every file is opened.
-- params:
DROP TABLE attempts;
CREATE VIEW attempts AS
SELECT * REPLACE (CAST(results AS JSON) AS results)
FROM read_parquet(getvariable('lake_attempts'), hive_partitioning = false)

-- name: lake_attempts_weeks
-- Each attempts file's week column as its footer's statistics give it: the least and the
-- greatest week over its row groups, whether every row group has both, and its rows and
-- NULL weeks (read once, when the lake is opened).
-- params:
SELECT file_name,
       min(stats_min_value) AS least,
       max(stats_max_value) AS greatest,
       bool_and(stats_min_value IS NOT NULL AND stats_max_value IS NOT NULL) AS bounded,
       sum(row_group_num_rows)::BIGINT AS rows,
       sum(stats_null_count)::BIGINT AS undated
FROM parquet_metadata(getvariable('lake_attempts'))
WHERE path_in_schema = 'week'
GROUP BY file_name

-- name: lake_attempts_schema_columns
-- The schema's attempts columns, the lake's attempts files' (read before the view replaces the table).
-- params:
SELECT column_name
FROM duckdb_columns()
WHERE schema_name = 'main' AND table_name = 'attempts'
ORDER BY column_index

-- name: lake_attempts_columns
-- The columns the attempts view keeps.
-- params: columns
SET VARIABLE lake_attempts_columns = $columns

-- name: lake_outcomes_view
-- Replaces the empty outcomes table with a view over outcomes/data.parquet.
-- params:
DROP TABLE outcomes;
CREATE VIEW outcomes AS
SELECT * FROM read_parquet(getvariable('lake_outcomes'), hive_partitioning = false)

-- name: lake_outcomes_files
-- The outcomes view's data files.
-- params: files
SET VARIABLE lake_outcomes = $files

-- name: lake_rejected_lines_view
-- Replaces the empty rejected_lines table with a view over rejected_lines/data.parquet.
-- params:
DROP TABLE rejected_lines;
CREATE VIEW rejected_lines AS
SELECT * FROM read_parquet(getvariable('lake_rejected_lines'), hive_partitioning = false)

-- name: lake_sources_view
-- Replaces the empty sources table with a view over sources/data.parquet.
-- params:
DROP TABLE sources;
CREATE VIEW sources AS
SELECT * FROM read_parquet(getvariable('lake_sources'), hive_partitioning = false)

-- name: lake_attempts_files
-- The attempts view's data files.
-- params: files
SET VARIABLE lake_attempts = $files

-- name: lake_rejected_lines_files
-- The rejected_lines view's data files.
-- params: files
SET VARIABLE lake_rejected_lines = $files

-- name: lake_sources_files
-- The sources view's data files.
-- params: files
SET VARIABLE lake_sources = $files

-- name: lake_replays_view
-- Replaces the empty replays table with a view over replays/data.parquet.
-- params:
DROP TABLE replays;
CREATE VIEW replays AS
SELECT * FROM read_parquet(getvariable('lake_replays'), hive_partitioning = false)

-- name: lake_replay_patches_view
-- Replaces the empty replay_patches table with a view over replay_patches/data.parquet; the evidence is JSON again.
-- params:
DROP TABLE replay_patches;
CREATE VIEW replay_patches AS
SELECT * REPLACE (CAST(baseline_evidence AS JSON) AS baseline_evidence,
                  CAST(candidate_evidence AS JSON) AS candidate_evidence)
FROM read_parquet(getvariable('lake_replay_patches'), hive_partitioning = false)

-- name: lake_replays_files
-- The replays view's data files.
-- params: files
SET VARIABLE lake_replays = $files

-- name: lake_replay_patches_files
-- The replay_patches view's data files.
-- params: files
SET VARIABLE lake_replay_patches = $files
