-- Statements that store one run of lines, inside the caller's transaction.
-- lane_chunk(line_no, byte_offset, line) is a registered Arrow table: the
-- run's lines that are valid UTF-8, each with its terminator (JSON ignores it).

-- name: insert_attempts
-- Every line that is a JSON object (RFC 8259) becomes an attempt, parsed once:
-- one json_transform reads every field as JSON text (null as NULL), and the
-- macros of schema.sql type them.  A line not starting with "{" (after JSON
-- whitespace) is no object, and try() turns a malformed one into NULL.  The
-- $suspects (lines.lenient_suspects) are checked by RFC 8259 first: DuckDB
-- alone would take NaN, Infinity and trailing commas (see json_valid_rfc).
-- Duplicates are stored here too, and removed by delete_duplicates.
INSERT INTO attempts BY NAME
WITH parsed AS MATERIALIZED (
    SELECT line_no, byte_offset, line,
           CASE WHEN NOT (starts_with(line, '{') OR regexp_matches(line, '^[ \t\r]+\{')) THEN NULL
                WHEN list_contains(CAST($suspects AS BIGINT[]), line_no) AND NOT json_valid_rfc(line)
                    THEN NULL
                ELSE try(json_transform(line, '{
                    "attempt_id": "JSON", "ts": "JSON", "repo": "JSON", "head": "JSON",
                    "producer": "JSON", "probe": "JSON", "lane": "JSON",
                    "model_call_allowed": "JSON", "quarantine": "JSON", "merge_credit": "JSON",
                    "units": "JSON", "budget_cap": "JSON", "properties": "JSON",
                    "reasons": "JSON", "expired_freezes": "JSON", "results": "JSON"
                }')) END AS v
    FROM lane_chunk
), typed AS (
    SELECT *,
           lane_ts(json_str(v.ts), json_num(v.ts)) AS ts,
           json_str(v.probe) AS probe,
           py_truthy(v.quarantine) AS quarantined,
           py_truthy(v.merge_credit) AS has_credit,
           -- The kind of each field from its first byte, as json_kind reads it:
           -- 34 ", 91 [, 123 {, 116 t, 102 f; JSON null is SQL NULL here and
           -- never an anomaly.
           [
               CASE WHEN ord(CAST(v.attempt_id AS VARCHAR)) <> 34 THEN 'attempt_id' END,
               CASE WHEN ord(CAST(v.ts AS VARCHAR)) IN (91, 123, 116, 102) THEN 'ts' END,
               CASE WHEN ord(CAST(v.repo AS VARCHAR)) <> 34 THEN 'repo' END,
               CASE WHEN ord(CAST(v.head AS VARCHAR)) <> 34 THEN 'head' END,
               CASE WHEN ord(CAST(v.producer AS VARCHAR)) <> 34 THEN 'producer' END,
               CASE WHEN ord(CAST(v.probe AS VARCHAR)) <> 34 THEN 'probe' END,
               CASE WHEN ord(CAST(v.lane AS VARCHAR)) <> 34 THEN 'lane' END,
               CASE WHEN ord(CAST(v.model_call_allowed AS VARCHAR)) NOT IN (116, 102)
                   THEN 'model_call_allowed' END,
               CASE WHEN ord(CAST(v.quarantine AS VARCHAR)) <> 91 THEN 'quarantine' END,
               CASE WHEN ord(CAST(v.merge_credit AS VARCHAR)) IN (34, 91, 123, 116, 102)
                   THEN 'merge_credit' END,
               CASE WHEN ord(CAST(v.units AS VARCHAR)) IN (34, 91, 123, 116, 102) THEN 'units' END,
               CASE WHEN ord(CAST(v.budget_cap AS VARCHAR)) IN (34, 91, 123, 116, 102)
                   THEN 'budget_cap' END,
               CASE WHEN ord(CAST(v.properties AS VARCHAR)) <> 91 THEN 'properties' END,
               CASE WHEN ord(CAST(v.reasons AS VARCHAR)) <> 91 THEN 'reasons' END,
               CASE WHEN ord(CAST(v.expired_freezes AS VARCHAR)) <> 91 THEN 'expired_freezes' END,
               CASE WHEN ord(CAST(v.results AS VARCHAR)) <> 123 THEN 'results' END
           ] AS kinds_off
    FROM parsed
    WHERE v IS NOT NULL
)
SELECT
    CAST($source_id AS INTEGER) AS source_id,
    line_no,
    byte_offset,
    CASE WHEN suffix(line, E'\r\n') THEN replace(line, E'\r\n', '')
         WHEN suffix(line, E'\n') THEN replace(line, E'\n', '')
         WHEN suffix(line, E'\r') THEN left(line, -1)
         ELSE line END AS raw,
    CAST($provisional AS BOOLEAN) AS provisional,
    nullif(json_str(v.attempt_id), '') AS attempt_id,
    ts,
    lane_week(ts) AS week,
    json_str(v.repo) AS repo,
    json_str(v.head) AS head,
    json_str(v.producer) AS producer,
    probe,
    json_str(v.lane) AS lane,
    coalesce(probe = 'reject', false) AS is_reject,
    py_truthy(v.model_call_allowed) AS armed,
    quarantined,
    has_credit,
    has_credit AND quarantined AS credit_bug,
    CAST(v.merge_credit AS VARCHAR) AS merge_credit,
    json_num(v.units) AS units,
    json_num(v.budget_cap) AS budget_cap,
    json_str_list(v.properties) AS properties,
    json_str_list(v.quarantine) AS quarantine,
    json_str_list(v.reasons) AS reasons,
    json_str_list(v.expired_freezes) AS expired_freezes,
    CASE WHEN ord(CAST(v.results AS VARCHAR)) = 123 THEN v.results END AS results,
    list_filter(kinds_off, lambda name: name IS NOT NULL) AS type_anomalies
FROM typed;

-- name: verdicts
-- Why each line of lane_chunk that insert_attempts did not store is no JSON object.
SELECT c.line_no,
       CASE WHEN json_valid_rfc(c.line) THEN 'not_an_object'
            WHEN regexp_full_match(c.line, '[ \t\r\n]*') THEN 'blank'
            ELSE 'invalid_json' END AS verdict
FROM lane_chunk AS c
ANTI JOIN (
    SELECT line_no FROM attempts WHERE source_id = $source_id AND line_no >= $first_line
) AS stored ON stored.line_no = c.line_no
ORDER BY c.line_no;

-- name: delete_duplicates
-- A duplicate is an attempt of this run whose non-empty string attempt_id an
-- earlier attempt has: one stored before this run (of any log), or one of
-- this run on an earlier line.  Removed in the transaction that stored it,
-- so it is never seen; a NULL attempt_id matches nothing.
DELETE FROM attempts WHERE rowid IN (
    WITH run AS (
        SELECT rowid AS row_id, line_no, attempt_id FROM attempts
        WHERE source_id = $source_id AND line_no >= $first_line AND attempt_id IS NOT NULL
    ), stored_before AS (
        SELECT DISTINCT attempt_id FROM attempts
        WHERE attempt_id IN (SELECT attempt_id FROM run)
          AND NOT (source_id = $source_id AND line_no >= $first_line)
    ), firsts AS (
        SELECT attempt_id, min(line_no) AS first_line FROM run GROUP BY attempt_id
    )
    SELECT r.row_id FROM run AS r JOIN firsts AS f ON f.attempt_id = r.attempt_id
    WHERE r.line_no > f.first_line
       OR r.attempt_id IN (SELECT attempt_id FROM stored_before)
);

-- name: insert_rejected
INSERT INTO rejected_lines BY NAME
SELECT CAST($source_id AS INTEGER) AS source_id, * FROM lane_rejected;

-- name: delete_provisional
-- The attempt an earlier run stored from a provisional last line: that line is being read again.
DELETE FROM attempts WHERE source_id = $source_id AND provisional;

-- name: new_source
INSERT INTO sources (source_id, path, fingerprint, fingerprint_bytes, bytes_read, tail_fingerprint,
                     bytes_seen, seen_fingerprint, lines_read, duplicates, first_ingested, last_ingested)
VALUES (nextval('source_ids'), $path, '', 0, 0, '', 0, '', 0, 0, $now, $now)
RETURNING source_id;

-- name: update_source
UPDATE sources SET
    path = $path,
    fingerprint = $fingerprint,
    fingerprint_bytes = $fingerprint_bytes,
    bytes_read = $bytes_read,
    tail_fingerprint = $tail_fingerprint,
    bytes_seen = $bytes_seen,
    seen_fingerprint = $seen_fingerprint,
    lines_read = $lines_read,
    duplicates = $duplicates,
    last_ingested = $now
WHERE source_id = $source_id;

-- name: record_run
INSERT INTO ingest_runs (run_id, started_at, finished_at, files, lines_read, attempts_added,
                         duplicates, rejected, pending)
VALUES (nextval('run_ids'), $started_at, $finished_at, $files, $lines_read, $attempts_added,
        $duplicates, $rejected, $pending);
