-- Statements that store one run of lines.  `stage` reads the registered Arrow
-- table lane_chunk(line_no, byte_offset, line) (the lines that are valid
-- UTF-8, terminator kept) and writes nothing: it may run on a second
-- connection while the previous run commits.  Its result, registered as
-- lane_staged, is stored by the other statements inside the caller's
-- transaction.

-- name: stage
-- Each line parsed once: a line that is a JSON object (RFC 8259) gets its
-- fields (v) and every typed column; any other line gets v NULL.  A line not
-- starting with "{" (after JSON whitespace) is no object, and try() turns a
-- malformed one into NULL.  The $suspects (lines.lenient_suspects) need the
-- RFC 8259 check first: DuckDB alone would take NaN, Infinity and trailing
-- commas (see json_valid_rfc).
-- Fields are read as JSON text (null as NULL); the macros of schema.sql type them.
-- verdict says why a line is no object (NULL for objects).
WITH parsed AS (
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
           nullif(json_str(v.attempt_id), '') AS attempt_id,
           lane_ts(json_str(v.ts), json_num(v.ts)) AS ts,
           json_str(v.probe) AS probe,
           py_truthy(v.quarantine) AS quarantined,
           py_truthy(v.merge_credit) AS has_credit
    FROM parsed
)
SELECT
    line_no,
    byte_offset,
    CASE WHEN v IS NULL THEN
        CASE WHEN json_valid_rfc(line) THEN 'not_an_object'
             WHEN regexp_full_match(line, '[ \t\r\n]*') THEN 'blank'
             ELSE 'invalid_json' END
    END AS verdict,
    CASE WHEN suffix(line, E'\r\n') THEN replace(line, E'\r\n', '')
         WHEN suffix(line, E'\n') THEN replace(line, E'\n', '')
         WHEN suffix(line, E'\r') THEN left(line, -1)
         ELSE line END AS raw,
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

-- name: insert_attempts
-- Every JSON object line becomes an attempt, unless its non-empty string
-- attempt_id is already stored or appears on an earlier line of this run
-- (a duplicate).  An id already stored matches in the anti join and is
-- dropped; a NULL id matches nothing and stays, one group per line.
INSERT INTO attempts BY NAME
WITH firsts AS (
    SELECT min(s.line_no) AS line_no
    FROM lane_staged AS s
    ANTI JOIN attempts AS a ON a.attempt_id = s.attempt_id
    WHERE s.verdict IS NULL
    GROUP BY s.attempt_id, CASE WHEN s.attempt_id IS NULL THEN s.line_no END
)
SELECT CAST($source_id AS INTEGER) AS source_id,
       CAST($provisional AS BOOLEAN) AS provisional,
       s.* EXCLUDE (verdict)
FROM lane_staged AS s
SEMI JOIN firsts AS f ON f.line_no = s.line_no;

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
