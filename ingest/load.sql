-- Statements that store one run of lines.  Each runs inside the caller's
-- transaction, over two registered Arrow tables:
--   lane_chunk(line_no, byte_offset, line)  lines that are valid UTF-8, terminator kept
--   lane_skip(line_no)                      lines of lane_chunk that are not attempts

-- name: classify
-- The lines of lane_chunk that are not JSON objects (RFC 8259), and why, for
-- a run that cannot hold a NaN/Infinity literal or a trailing comma (see
-- lines.may_hold_lenient_json), where DuckDB's json_valid is RFC 8259's.
-- A valid line starting with "{" is an object: json_type is only asked
-- about the other valid lines.
SELECT line_no,
       CASE WHEN json_valid_rfc(line) THEN 'not_an_object'
            WHEN regexp_full_match(line, '[ \t\r\n]*') THEN 'blank'
            ELSE 'invalid_json' END AS verdict
FROM lane_chunk
WHERE CASE WHEN NOT json_valid(line) THEN true
           WHEN starts_with(line, '{') THEN false
           ELSE json_type(line) <> 'OBJECT' END
ORDER BY line_no;

-- name: classify_strict
-- The same, for a run that may hold a NaN/Infinity literal or a trailing comma.
SELECT line_no,
       CASE WHEN json_valid_rfc(line) THEN 'not_an_object'
            WHEN regexp_full_match(line, '[ \t\r\n]*') THEN 'blank'
            ELSE 'invalid_json' END AS verdict
FROM lane_chunk
WHERE CASE WHEN NOT json_valid_rfc(line) THEN true
           WHEN starts_with(line, '{') THEN false
           ELSE json_type(line) <> 'OBJECT' END
ORDER BY line_no;

-- name: insert_attempts
-- Every JSON object line becomes an attempt, unless its non-empty string
-- attempt_id is already stored or appears on an earlier line of this run
-- (a duplicate).  The duplicate check runs on narrow rows (line_no,
-- attempt_id) before the wide ones are built; then one json_transform per
-- line reads every field at once (each `->` would parse the line again).
-- Fields are read as JSON text: the macros of schema.sql type them.
INSERT INTO attempts BY NAME
WITH candidates AS (
    SELECT c.line_no,
           nullif(json_str(json_extract(c.line, '$.attempt_id')), '') AS attempt_id
    FROM lane_chunk AS c
    ANTI JOIN lane_skip AS s ON s.line_no = c.line_no
), firsts AS (
    -- An id already stored never matches its own line again: the anti join
    -- drops it.  A NULL id matches nothing and stays, one group per line.
    SELECT min(c.line_no) AS line_no, any_value(c.attempt_id) AS attempt_id
    FROM candidates AS c
    ANTI JOIN attempts AS a ON a.attempt_id = c.attempt_id
    GROUP BY c.attempt_id, CASE WHEN c.attempt_id IS NULL THEN c.line_no END
), parsed AS (
    SELECT c.line_no, c.byte_offset, c.line, f.attempt_id,
           json_transform(c.line, '{
               "ts": "JSON", "repo": "JSON", "head": "JSON", "producer": "JSON",
               "probe": "JSON", "lane": "JSON", "model_call_allowed": "JSON",
               "quarantine": "JSON", "merge_credit": "JSON", "units": "JSON",
               "budget_cap": "JSON", "properties": "JSON", "reasons": "JSON",
               "expired_freezes": "JSON", "results": "JSON", "attempt_id": "JSON"
           }') AS v
    FROM lane_chunk AS c
    JOIN firsts AS f ON f.line_no = c.line_no
), typed AS (
    SELECT *,
           lane_ts(json_str(v.ts), json_num(v.ts)) AS ts,
           json_str(v.probe) AS probe,
           py_truthy(v.quarantine) AS quarantined,
           py_truthy(v.merge_credit) AS has_credit
    FROM parsed
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
    attempt_id,
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
    CASE WHEN json_kind(v.results) = 'object' THEN v.results END AS results,
    -- Expected kinds (JSON null is never an anomaly); the list is built only
    -- for the rare line that has one.
    CASE WHEN json_kind(v.attempt_id) NOT IN ('string', 'null')
           OR json_kind(v.ts) NOT IN ('string', 'number', 'null')
           OR json_kind(v.repo) NOT IN ('string', 'null')
           OR json_kind(v.head) NOT IN ('string', 'null')
           OR json_kind(v.producer) NOT IN ('string', 'null')
           OR json_kind(v.probe) NOT IN ('string', 'null')
           OR json_kind(v.lane) NOT IN ('string', 'null')
           OR json_kind(v.model_call_allowed) NOT IN ('boolean', 'null')
           OR json_kind(v.quarantine) NOT IN ('list', 'null')
           OR json_kind(v.merge_credit) NOT IN ('number', 'null')
           OR json_kind(v.units) NOT IN ('number', 'null')
           OR json_kind(v.budget_cap) NOT IN ('number', 'null')
           OR json_kind(v.properties) NOT IN ('list', 'null')
           OR json_kind(v.reasons) NOT IN ('list', 'null')
           OR json_kind(v.expired_freezes) NOT IN ('list', 'null')
           OR json_kind(v.results) NOT IN ('object', 'null')
    THEN list_filter([
        CASE WHEN json_kind(v.attempt_id) NOT IN ('string', 'null') THEN 'attempt_id' END,
        CASE WHEN json_kind(v.ts) NOT IN ('string', 'number', 'null') THEN 'ts' END,
        CASE WHEN json_kind(v.repo) NOT IN ('string', 'null') THEN 'repo' END,
        CASE WHEN json_kind(v.head) NOT IN ('string', 'null') THEN 'head' END,
        CASE WHEN json_kind(v.producer) NOT IN ('string', 'null') THEN 'producer' END,
        CASE WHEN json_kind(v.probe) NOT IN ('string', 'null') THEN 'probe' END,
        CASE WHEN json_kind(v.lane) NOT IN ('string', 'null') THEN 'lane' END,
        CASE WHEN json_kind(v.model_call_allowed) NOT IN ('boolean', 'null') THEN 'model_call_allowed' END,
        CASE WHEN json_kind(v.quarantine) NOT IN ('list', 'null') THEN 'quarantine' END,
        CASE WHEN json_kind(v.merge_credit) NOT IN ('number', 'null') THEN 'merge_credit' END,
        CASE WHEN json_kind(v.units) NOT IN ('number', 'null') THEN 'units' END,
        CASE WHEN json_kind(v.budget_cap) NOT IN ('number', 'null') THEN 'budget_cap' END,
        CASE WHEN json_kind(v.properties) NOT IN ('list', 'null') THEN 'properties' END,
        CASE WHEN json_kind(v.reasons) NOT IN ('list', 'null') THEN 'reasons' END,
        CASE WHEN json_kind(v.expired_freezes) NOT IN ('list', 'null') THEN 'expired_freezes' END,
        CASE WHEN json_kind(v.results) NOT IN ('object', 'null') THEN 'results' END
    ], lambda name: name IS NOT NULL)
    ELSE [] END AS type_anomalies
FROM typed;

-- name: insert_rejected
INSERT INTO rejected_lines BY NAME SELECT * FROM lane_rejected;

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
