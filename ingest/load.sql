-- Statements that store one run of lines.  Each runs inside the caller's
-- transaction, over two registered Arrow tables:
--   lane_chunk(line_no, byte_offset, line)  lines that are valid UTF-8, terminator kept
--   lane_skip(line_no)                      lines of lane_chunk that are not attempts

-- name: classify
-- The lines of lane_chunk that are not JSON objects (RFC 8259), and why.
-- A line starting with "{" that is valid JSON is an object: json_type is
-- only asked about the others, and only once they are known to be valid.
SELECT line_no,
       CASE
           WHEN json_valid_rfc(line) THEN 'not_an_object'
           WHEN regexp_full_match(line, '[ \t\r\n]*') THEN 'blank'
           ELSE 'invalid_json'
       END AS verdict
FROM lane_chunk
WHERE NOT json_valid_rfc(line)
   OR CASE WHEN starts_with(line, '{') THEN false
           WHEN json_valid(line) THEN json_type(line) <> 'OBJECT'
           ELSE false END
ORDER BY line_no;

-- name: insert_attempts
-- Every JSON object line becomes an attempt, unless its non-empty string
-- attempt_id is already stored or appears on an earlier line of this run
-- (a duplicate).  One multi-path json_extract per line: each `->` re-parses.
INSERT INTO attempts BY NAME
WITH parsed AS (
    SELECT c.line_no, c.byte_offset, c.line,
           json_extract(c.line, [
               '$.attempt_id', '$.ts', '$.repo', '$.head', '$.producer', '$.probe', '$.lane',
               '$.model_call_allowed', '$.quarantine', '$.merge_credit', '$.units',
               '$.budget_cap', '$.properties', '$.reasons', '$.expired_freezes', '$.results'
           ]) AS j
    FROM lane_chunk AS c
    ANTI JOIN lane_skip AS s ON s.line_no = c.line_no
), keyed AS (
    SELECT *, nullif(json_str(j[1]), '') AS attempt_id FROM parsed
), fresh AS (
    SELECT * FROM keyed AS k
    WHERE k.attempt_id IS NULL
       OR NOT EXISTS (SELECT 1 FROM attempts AS a WHERE a.attempt_id = k.attempt_id)
    QUALIFY k.attempt_id IS NULL
         OR row_number() OVER (PARTITION BY k.attempt_id ORDER BY k.line_no) = 1
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
    lane_ts(j[2]) AS ts,
    lane_week(ts) AS week,
    json_str(j[3]) AS repo,
    json_str(j[4]) AS head,
    json_str(j[5]) AS producer,
    json_str(j[6]) AS probe,
    json_str(j[7]) AS lane,
    coalesce(probe = 'reject', false) AS is_reject,
    py_truthy(j[8]) AS armed,
    py_truthy(j[9]) AS quarantined,
    py_truthy(j[10]) AS has_credit,
    has_credit AND quarantined AS credit_bug,
    CAST(j[10] AS VARCHAR) AS merge_credit,
    json_num(j[11]) AS units,
    json_num(j[12]) AS budget_cap,
    json_str_list(j[13]) AS properties,
    json_str_list(j[9]) AS quarantine,
    json_str_list(j[14]) AS reasons,
    json_str_list(j[15]) AS expired_freezes,
    CASE WHEN json_kind(j[16]) = 'object' THEN j[16] END AS results,
    list_filter([
        CASE WHEN json_kind(j[1]) NOT IN ('string', 'null') THEN 'attempt_id' END,
        CASE WHEN json_kind(j[2]) NOT IN ('string', 'number', 'null') THEN 'ts' END,
        CASE WHEN json_kind(j[3]) NOT IN ('string', 'null') THEN 'repo' END,
        CASE WHEN json_kind(j[4]) NOT IN ('string', 'null') THEN 'head' END,
        CASE WHEN json_kind(j[5]) NOT IN ('string', 'null') THEN 'producer' END,
        CASE WHEN json_kind(j[6]) NOT IN ('string', 'null') THEN 'probe' END,
        CASE WHEN json_kind(j[7]) NOT IN ('string', 'null') THEN 'lane' END,
        CASE WHEN json_kind(j[8]) NOT IN ('boolean', 'null') THEN 'model_call_allowed' END,
        CASE WHEN json_kind(j[9]) NOT IN ('list', 'null') THEN 'quarantine' END,
        CASE WHEN json_kind(j[10]) NOT IN ('number', 'null') THEN 'merge_credit' END,
        CASE WHEN json_kind(j[11]) NOT IN ('number', 'null') THEN 'units' END,
        CASE WHEN json_kind(j[12]) NOT IN ('number', 'null') THEN 'budget_cap' END,
        CASE WHEN json_kind(j[13]) NOT IN ('list', 'null') THEN 'properties' END,
        CASE WHEN json_kind(j[14]) NOT IN ('list', 'null') THEN 'reasons' END,
        CASE WHEN json_kind(j[15]) NOT IN ('list', 'null') THEN 'expired_freezes' END,
        CASE WHEN json_kind(j[16]) NOT IN ('object', 'null') THEN 'results' END
    ], lambda name: name IS NOT NULL) AS type_anomalies
FROM fresh;

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
