-- Statements that store runs of lines, inside the caller's transaction.

-- name: attempt_rows
-- Installs the table macro lane_attempt_rows(lines, fail_broken): the attempts rows of
-- the table named `lines` (always 'lane_lines', registered by the caller:
-- line_no, byte_offset, line, suspect, unsure, is_text), each
-- statement below selecting its source_id and provisional around them; a
-- batch's lane_lines (ingest/batch.py) has a source_id column first, and it
-- is passed through.  line is the text of a line that is valid UTF-8, without
-- its terminator (see lines.py); is_text is false for a line with no text.
-- Every line that is a JSON object (RFC 8259) becomes an attempt, parsed once, but an
-- outcome line (schema.sql's lane_is_outcome), which lane_outcome_rows takes instead:
-- one json_transform reads every field as minified JSON text (NULL when
-- absent or null, which the macros of schema.sql type alike), and those
-- macros type them.  (It looks each key up once: 7% faster than json_extract
-- of the 16 paths on short lines, the same rows.)  A line not starting with
-- "{" (after JSON whitespace) is no object, and try() turns a malformed one
-- into NULL.  A suspect line (lines.lenient_suspects) is checked by RFC
-- 8259 first: DuckDB alone would take NaN, Infinity and trailing commas (see
-- json_valid_rfc).  With fail_broken, a line that is no attempt though it was
-- not unsure (lines.Lines.unsure, .outcomes), a line broken in its middle or an
-- outcome line the reader did not see as one, fails the statement with
-- BROKEN_LINE's text (ingest/load.py); without it, the line is left out.
-- Duplicates are among these rows: the callers deal with them.
-- Run it with the filter_pushdown optimizer off: pushed below the parse,
-- `v IS NOT NULL` would make DuckDB parse every line twice.  (DuckDB expands a
-- table macro into the statement that calls it: the plans are those of the
-- statement written out whole.)
-- The macro is kept in the database, made once and not on every run (ingest/load.py
-- makes it again when this text changes): the table is named by a parameter, read by
-- query_table, because DuckDB checks the tables a macro names when it is made, and
-- lane_lines exists only while a run stores lines.
-- params:
CREATE OR REPLACE MACRO lane_attempt_rows(lines, fail_broken) AS TABLE
WITH parsed AS (
    SELECT * EXCLUDE (suspect, is_text),
           CASE WHEN NOT (starts_with(line, '{') OR regexp_matches(line, '^[ \t\r]+\{')) THEN NULL
                WHEN suspect AND NOT json_valid_rfc(line) THEN NULL
                ELSE try(json_transform(line, '{' ||
                    '"attempt_id": "JSON", "ts": "JSON", "repo": "JSON", "head": "JSON", ' ||
                    '"producer": "JSON", "probe": "JSON", "lane": "JSON", ' ||
                    '"model_call_allowed": "JSON", "quarantine": "JSON", "merge_credit": "JSON", ' ||
                    '"units": "JSON", "budget_cap": "JSON", "properties": "JSON", "reasons": "JSON", ' ||
                    '"expired_freezes": "JSON", "results": "JSON", "usage": "JSON", "shadow": "JSON", ' ||
                    '"kind": "JSON", "pull_request": "JSON", "agent": "JSON", "ci_run": "JSON", ' ||
                    '"source": "JSON", "hook": "JSON"' ||
                    '}')) END AS v
    FROM query_table(lines)
    WHERE is_text
), fields AS (
    SELECT * EXCLUDE (v, unsure),
           v.attempt_id AS j_attempt_id, v.ts AS j_ts, v.repo AS j_repo, v.head AS j_head, v.producer AS j_producer,
           v.probe AS j_probe, v.lane AS j_lane, v.model_call_allowed AS j_model_call_allowed, v.quarantine AS j_quarantine,
           v.merge_credit AS j_merge_credit, v.units AS j_units, v.budget_cap AS j_budget_cap, v.properties AS j_properties,
           v.reasons AS j_reasons, v.expired_freezes AS j_expired_freezes, v.results AS j_results,
           -- A usage object of more than 256 KiB of text (some 3,000 entries; a policy has tens
           -- of properties) is dropped, named usage.size: typing one of 100,000 entries ran out
           -- of the memory ingest holds DuckDB to, and failed the whole log.
           CASE WHEN strlen(CAST(v.usage AS VARCHAR)) <= 262144 THEN v.usage END AS j_usage,
           strlen(CAST(v.usage AS VARCHAR)) > 262144 AS usage_too_big, v.shadow AS j_shadow,
           lane_usage_parsed(CASE WHEN strlen(CAST(v.usage AS VARCHAR)) <= 262144 THEN v.usage END) AS usage_parsed,
           v.kind AS j_kind, v.pull_request AS j_pull_request, v.agent AS j_agent, v.ci_run AS j_ci_run,
           v.source AS j_source, v.hook AS j_hook,
           -- ts's text and number as columns: lane_ts names its text nine times, and a
           -- column there binds in half the time of the expression (each run plans this).
           json_str(v.ts) AS ts_text, json_num(v.ts) AS ts_num
    FROM parsed
    WHERE (v IS NOT NULL AND NOT lane_is_outcome(v.kind))
       OR (fail_broken AND CASE WHEN unsure THEN false ELSE error('lanelog: a line broken in its middle') END)
), typed AS (
    SELECT *,
           lane_ts(ts_text, ts_num) AS ts,
           json_str(j_probe) AS probe,
           py_truthy(j_quarantine) AS quarantined,
           py_truthy(j_merge_credit) AS has_credit,
           -- usage: the line's `usage` typed by schema.sql's lane_usage, its entries parsed
           -- once (fields) for it and for what it dropped (type_anomalies).
           lane_usage_typed(usage_parsed) AS usage,
           -- The shadow's fields, parsed only on a line whose shadow is an object (rare):
           -- the other lines pay one ord() for it.
           CASE WHEN ord(j_shadow) = 123 THEN json_transform(j_shadow,
               '{"probe": "JSON", "reasons": "JSON", "units": "JSON", "model_call_allowed": "JSON", "policy_sha256": "JSON", ' ||
               '"error": "JSON"}')
           END AS s,
           -- The change's objects, parsed only on a line that has them (schema.sql).
           lane_pull_request(j_pull_request) AS pr,
           lane_ci_run(j_ci_run) AS ci
    FROM fields
), priced AS (
    SELECT *,
           list_distinct(list_filter(list_transform(usage, lambda u: CASE WHEN u.cost IS NOT NULL THEN u.currency END),
                                     lambda c: c IS NOT NULL)) AS currencies,
           -- A shadow that is an error (`route --shadow` could not decide under its policy):
           -- its `error`, or, on a line written before shadows had errors, the first of its
           -- reasons that is one of lanelog/reasons.py's SHADOW_ERRORS.  It has no decision.
           CASE WHEN s IS NOT NULL THEN
               CASE WHEN s.error IS NOT NULL THEN coalesce(json_str(s.error), CAST(s.error AS VARCHAR))
                    ELSE list_filter(json_str_list(s.reasons),
                                     lambda r: r IN ('policy_missing', 'policy_invalid', 'internal_error'))[1] END
           END AS shadow_error,
           -- The change (schema 5), typed only on a line that names one: every other line
           -- pays one test for it.  An attempt has no kind (an outcome line is none), and its
           -- pull request and CI run are objects (schema.sql's lane_pull_request_wrong and
           -- lane_ci_run_wrong say which are not); what is not is named, after the fields.
           CASE WHEN j_kind IS NOT NULL OR j_pull_request IS NOT NULL OR j_agent IS NOT NULL OR j_ci_run IS NOT NULL
           THEN {'pr_repository': json_str(pr.repository), 'pr_number': json_int(pr.number), 'pr_url': json_str(pr.url),
                 'agent': json_str(j_agent), 'ci_run_id': json_str(ci.id), 'ci_run_attempt': json_int(ci.attempt),
                 'ci_run_url': json_str(ci.url),
                 'notes': list_filter([
                     CASE WHEN j_kind IS NOT NULL THEN 'kind' END,
                     CASE WHEN lane_pull_request_wrong(j_pull_request, pr) THEN 'pull_request' END,
                     CASE WHEN ord(j_agent) <> 34 THEN 'agent' END,
                     CASE WHEN lane_ci_run_wrong(j_ci_run, ci) THEN 'ci_run' END
                 ], lambda name: name IS NOT NULL)}
           END AS change
    FROM typed
)
SELECT
    -- line_no and byte_offset (and a batch's source_id): what lane_lines passes through,
    -- and usage as typed above.
    * EXCLUDE (line, ts, probe, quarantined, has_credit,
               j_attempt_id, j_ts, j_repo, j_head, j_producer, j_probe, j_lane, j_model_call_allowed,
               j_quarantine, j_merge_credit, j_units, j_budget_cap, j_properties, j_reasons,
               j_expired_freezes, j_results, j_usage, usage_too_big, usage_parsed, currencies, j_shadow, s, ts_text, ts_num,
               j_kind, j_pull_request, j_agent, j_ci_run, pr, ci, change, j_source, j_hook),
    line AS raw,
    nullif(json_str(j_attempt_id), '') AS attempt_id,
    ts,
    lane_week(ts) AS week,
    json_str(j_repo) AS repo,
    json_str(j_head) AS head,
    json_str(j_producer) AS producer,
    probe,
    json_str(j_lane) AS lane,
    coalesce(probe = 'reject', false) AS is_reject,
    py_truthy(j_model_call_allowed) AS armed,
    quarantined,
    has_credit,
    has_credit AND quarantined AS credit_bug,
    nullif(CAST(j_merge_credit AS VARCHAR), 'null') AS merge_credit,
    json_num(j_units) AS units,
    json_num(j_budget_cap) AS budget_cap,
    json_str_list(j_properties) AS properties,
    json_str_list(j_quarantine) AS quarantine,
    json_str_list(j_reasons) AS reasons,
    json_str_list(j_expired_freezes) AS expired_freezes,
    CASE WHEN starts_with(CAST(j_results AS VARCHAR), '{') THEN j_results END AS results,
    -- Fields whose JSON type is not the expected one, told by the value's first
    -- character (its code, as schema.sql's json_kind reads it; a macro here
    -- would be missing from databases made before): 34 " a string, 45 - or
    -- 48-57 a digit a number, 116 t or 102 f a boolean, 91 [ a list, 123 { an
    -- object.  An absent field and a null are NULL, and so is ord of them: no
    -- anomaly.  (Comparing codes costs a tenth of the row's compute less than
    -- looking the first character up in a string of the expected ones.)  Then the change's
    -- (above), then what lane_usage dropped from the usage object (usage.cost,
    -- usage.currency): the order the upgrade to version 5 keeps.
    list_concat(list_filter([
        CASE WHEN ord(j_attempt_id) <> 34 THEN 'attempt_id' END,
        CASE WHEN NOT (ord(j_ts) = 34 OR ord(j_ts) = 45 OR ord(j_ts) BETWEEN 48 AND 57) THEN 'ts' END,
        CASE WHEN ord(j_repo) <> 34 THEN 'repo' END,
        CASE WHEN ord(j_head) <> 34 THEN 'head' END,
        CASE WHEN ord(j_producer) <> 34 THEN 'producer' END,
        CASE WHEN ord(j_probe) <> 34 THEN 'probe' END,
        CASE WHEN ord(j_lane) <> 34 THEN 'lane' END,
        CASE WHEN NOT (ord(j_model_call_allowed) = 116 OR ord(j_model_call_allowed) = 102) THEN 'model_call_allowed' END,
        CASE WHEN ord(j_quarantine) <> 91 THEN 'quarantine' END,
        CASE WHEN NOT (ord(j_merge_credit) = 45 OR ord(j_merge_credit) BETWEEN 48 AND 57) THEN 'merge_credit' END,
        CASE WHEN NOT (ord(j_units) = 45 OR ord(j_units) BETWEEN 48 AND 57) THEN 'units' END,
        CASE WHEN NOT (ord(j_budget_cap) = 45 OR ord(j_budget_cap) BETWEEN 48 AND 57) THEN 'budget_cap' END,
        CASE WHEN ord(j_properties) <> 91 THEN 'properties' END,
        CASE WHEN ord(j_reasons) <> 91 THEN 'reasons' END,
        CASE WHEN ord(j_expired_freezes) <> 91 THEN 'expired_freezes' END,
        CASE WHEN ord(j_results) <> 123 THEN 'results' END,
        CASE WHEN ord(j_usage) <> 123 THEN 'usage' END,
        -- shadow: not an object, or an object with a field of the unexpected type (an
        -- error's `error` a string; a decision's fields as the live ones).
        CASE WHEN ord(j_shadow) <> 123
                  OR (s IS NOT NULL AND CASE WHEN s.error IS NOT NULL THEN ord(s.error) <> 34
                      ELSE (ord(s.probe) <> 34 OR ord(s.reasons) <> 91
                      OR NOT (ord(s.units) = 45 OR ord(s.units) BETWEEN 48 AND 57)
                      OR NOT (ord(s.model_call_allowed) = 116 OR ord(s.model_call_allowed) = 102)
                      OR ord(s.policy_sha256) <> 34) END)
             THEN 'shadow' END
    ], lambda name: name IS NOT NULL), change.notes,
       CASE WHEN usage_too_big THEN ['usage.size'] END, lane_usage_dropped_from(j_usage, usage_parsed),
       -- source and hook (schema 6), last: the order the upgrade to version 6 keeps.  A line
       -- without either (every line route writes in CI) pays one test.
       CASE WHEN j_source IS NOT NULL OR j_hook IS NOT NULL THEN lane_hook_wrong(j_source, j_hook) END
    ) AS type_anomalies,
    list_sum(list_transform(usage, lambda u: u.input_tokens)) AS input_tokens,
    list_sum(list_transform(usage, lambda u: u.output_tokens)) AS output_tokens,
    CASE WHEN len(currencies) = 1 THEN list_sum(list_transform(usage, lambda u: u.cost)) END AS cost,
    CASE WHEN len(currencies) = 1 THEN currencies[1] END AS currency,
    CASE WHEN shadow_error IS NULL THEN json_str(s.probe) END AS shadow_probe,
    CASE WHEN shadow_error IS NULL THEN json_str_list(s.reasons) END AS shadow_reasons,
    CASE WHEN shadow_error IS NULL THEN json_num(s.units) END AS shadow_units,
    CASE WHEN s IS NOT NULL AND shadow_error IS NULL THEN py_truthy(s.model_call_allowed) END AS shadow_armed,
    json_str(s.policy_sha256) AS shadow_policy,
    change.pr_repository, change.pr_number, change.pr_url, change.agent,
    change.ci_run_id, change.ci_run_attempt, change.ci_run_url,
    json_str(j_source) AS source,
    CASE WHEN j_hook IS NOT NULL THEN json_str(lane_hook(j_hook).agent) END AS hook_agent,
    CASE WHEN j_hook IS NOT NULL THEN json_str(lane_hook(j_hook).session) END AS hook_session
FROM priced;

-- name: insert_attempts
-- Store every attempt of one log's lane_lines (attempt_rows), duplicates included.
-- params: provisional, source_id
INSERT INTO attempts BY NAME
SELECT CAST($source_id AS INTEGER) AS source_id, CAST($provisional AS BOOLEAN) AS provisional, *
FROM lane_attempt_rows('lane_lines', false);

-- name: stage_attempts
-- Stage the attempts of one log's lane_lines (attempt_rows) in lane_staged, for insert_staged.
-- params: provisional, source_id
CREATE OR REPLACE TEMP TABLE lane_staged AS
SELECT CAST($source_id AS INTEGER) AS source_id, CAST($provisional AS BOOLEAN) AS provisional, *
FROM lane_attempt_rows('lane_lines', false);

-- name: insert_attempts_batch
-- Store every attempt of a batch of small logs (ingest/batch.py): lane_lines
-- carries each line's source_id.
-- params: provisional
INSERT INTO attempts BY NAME
SELECT CAST($provisional AS BOOLEAN) AS provisional, *
FROM lane_attempt_rows('lane_lines', false);

-- name: insert_new_attempts
-- Store the attempts of one log's lane_lines but those whose attempt_id a
-- stored complete line has (a log of re-sent lines), failing on a line broken
-- in its middle (attempt_rows' fail_broken): that failure is how store_stream
-- knows every other line left out is a duplicate.  DuckDB builds the
-- anti-join's hash table of stored ids (the build side STREAM keeps) before
-- the first row is inserted, so the rows of this statement are never among
-- them; a NULL attempt_id matches nothing.
-- params: provisional, source_id
INSERT INTO attempts BY NAME
SELECT CAST($source_id AS INTEGER) AS source_id, CAST($provisional AS BOOLEAN) AS provisional, rows.*
FROM lane_attempt_rows('lane_lines', true) AS rows
ANTI JOIN (SELECT attempt_id FROM attempts WHERE NOT provisional AND attempt_id IS NOT NULL) AS known
    ON rows.attempt_id = known.attempt_id;

-- name: insert_new_attempts_batch
-- insert_new_attempts for a batch of small logs: lane_lines carries each line's source_id.
-- params: provisional
INSERT INTO attempts BY NAME
SELECT CAST($provisional AS BOOLEAN) AS provisional, rows.*
FROM lane_attempt_rows('lane_lines', true) AS rows
ANTI JOIN (SELECT attempt_id FROM attempts WHERE NOT provisional AND attempt_id IS NOT NULL) AS known
    ON rows.attempt_id = known.attempt_id;

-- name: stored_among
-- Which of the lines $line_nos of this source are stored as attempts.
-- params: line_nos, source_id
SELECT line_no FROM attempts
WHERE source_id = $source_id AND line_no IN (SELECT unnest(CAST($line_nos AS BIGINT[])));

-- name: sample_stored
-- Whether a line of lane_sample(line, ...) has an attempt_id stored from a complete line.
-- params:
SELECT count(*) > 0 FROM attempts
WHERE NOT provisional AND attempt_id IN (
    SELECT try(json_extract_string(line, '$.attempt_id')) FROM lane_sample WHERE is_text AND json_valid(line)
);

-- name: has_duplicates
-- Whether an attempt of this run shares its attempt_id with another stored
-- attempt: of this run or any other.  The run is the rows of sources
-- $first_source to $last_source from line $first_line on: one log's group, or
-- a batch of new logs from line 1.  Two checks, the run's ids among themselves
-- and against every other row: two to three times faster than counting the
-- rows that carry the run's ids.
-- params: first_line, first_source, last_source
WITH own AS (
    SELECT attempt_id FROM attempts
    WHERE source_id BETWEEN $first_source AND $last_source AND line_no >= $first_line
      AND attempt_id IS NOT NULL
)
SELECT (SELECT count(*) > count(DISTINCT attempt_id) FROM own)
    OR EXISTS (SELECT 1 FROM attempts
               WHERE NOT (source_id BETWEEN $first_source AND $last_source AND line_no >= $first_line)
                 AND attempt_id IN (SELECT attempt_id FROM own));

-- name: repeats_own
-- Whether the attempts of this run (as has_duplicates) repeat an attempt_id
-- among themselves that no complete line stored before has, or share one with
-- a provisional line of another log: leaving stored ids out would not settle
-- them.
-- params: first_line, first_source, last_source
WITH own AS (
    SELECT attempt_id FROM attempts
    WHERE source_id BETWEEN $first_source AND $last_source AND line_no >= $first_line
      AND attempt_id IS NOT NULL
), known AS (
    SELECT attempt_id FROM attempts
    WHERE NOT provisional
      AND NOT (source_id BETWEEN $first_source AND $last_source AND line_no >= $first_line)
)
SELECT EXISTS (SELECT 1 FROM own ANTI JOIN known USING (attempt_id) GROUP BY attempt_id HAVING count(*) > 1)
    OR EXISTS (SELECT 1 FROM attempts
               WHERE provisional AND NOT (source_id BETWEEN $first_source AND $last_source)
                 AND attempt_id IN (SELECT attempt_id FROM own));

-- name: displace_provisional
-- Attempts of other logs stored from a provisional last line whose attempt_id a
-- complete line of lane_staged has: the complete line is the attempt.  A
-- provisional line is read again by its log's next run (and is then a
-- duplicate, or something else), so no verdict may rest on it: a complete
-- line counted as its duplicate would be lost if the provisional one changed.
-- params: source_id
DELETE FROM attempts
WHERE provisional AND source_id <> $source_id
  AND attempt_id IN (SELECT attempt_id FROM lane_staged WHERE attempt_id IS NOT NULL);

-- name: insert_staged
-- The attempts of lane_staged (attempt_rows of a run) that are no duplicates:
-- a duplicate is an attempt whose non-empty string attempt_id an earlier
-- attempt has, one already stored (of any log, or of this transaction) or
-- one on an earlier line here; a NULL attempt_id matches nothing.  Leaving
-- them out, rather than deleting them afterwards, keeps the transaction free
-- of deleted rows, which DuckDB needs in order to write its row groups
-- straight to the file.
-- params: 
INSERT INTO attempts BY NAME
SELECT * FROM lane_staged
WHERE attempt_id IS NULL OR line_no IN (
    SELECT f.line_no
    FROM (SELECT attempt_id, min(line_no) AS line_no FROM lane_staged
          WHERE attempt_id IS NOT NULL GROUP BY attempt_id) AS f
    ANTI JOIN (SELECT attempt_id FROM attempts WHERE attempt_id IS NOT NULL) AS a
        ON a.attempt_id = f.attempt_id
);

-- name: drop_staged
-- Drop a run's lane_staged (stage_attempts) once its attempts are stored.
-- params:
DROP TABLE IF EXISTS lane_staged;

-- name: unstaged
-- The lines of lane_lines that attempt_rows did not make an attempt of.
-- params: 
SELECT line_no FROM (SELECT line_no FROM lane_lines WHERE is_text) ANTI JOIN lane_staged USING (line_no)
ORDER BY line_no;

-- name: verdicts
-- What each line of lane_missing(line_no, line), lines that are no attempt, is:
-- no JSON object, blank, or a JSON object all the same (a duplicate).
-- params: 
SELECT line_no,
       CASE WHEN json_valid_rfc(line) THEN
                CASE WHEN regexp_matches(line, '^[ \t\r]*\{') THEN 'duplicate' ELSE 'not_an_object' END
            WHEN regexp_full_match(line, '[ \t\r\n]*') THEN 'blank'
            ELSE 'invalid_json' END AS verdict
FROM lane_missing
ORDER BY line_no;

-- name: insert_rejected
-- Store the rejected lines of lane_rejected under their source.
-- params: source_id
INSERT INTO rejected_lines BY NAME
SELECT CAST($source_id AS INTEGER) AS source_id, * FROM lane_rejected;

-- name: delete_provisional
-- The attempt an earlier run stored from a provisional last line: that line is being read again.
-- params: source_id
DELETE FROM attempts WHERE source_id = $source_id AND provisional;

-- name: new_source
-- A new source row for a log not seen before; its positions are set by update_source.
-- params: now, path
INSERT INTO sources (source_id, path, fingerprint, fingerprint_bytes, bytes_read, tail_fingerprint,
                     bytes_seen, seen_fingerprint, lines_read, duplicates, first_ingested, last_ingested)
VALUES (nextval('source_ids'), $path, '', 0, 0, '', 0, '', 0, 0, $now, $now)
RETURNING source_id;

-- name: update_source
-- A log's identity and read position, committed with the rows read up to it.
-- params: bytes_read, bytes_seen, duplicates, fingerprint, fingerprint_bytes, lines_read, now, path, seen_fingerprint, source_id, tail_fingerprint
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
-- One row per ingest run: what it read and what the lines became.
-- params: attempts_added, duplicates, files, finished_at, lines_read, outcomes_added, pending, rejected, started_at
INSERT INTO ingest_runs (run_id, started_at, finished_at, files, lines_read, attempts_added,
                         duplicates, rejected, pending, outcomes_added)
VALUES (nextval('run_ids'), $started_at, $finished_at, $files, $lines_read, $attempts_added,
        $duplicates, $rejected, $pending, $outcomes_added);

-- name: all_sources
-- Every stored log's identity, for settling a batch of small logs in memory
-- (the rules of fingerprint_lengths and fingerprint_candidates).
-- params:
SELECT fingerprint, fingerprint_bytes, source_id, bytes_read, tail_fingerprint, bytes_seen, seen_fingerprint, path
FROM sources;

-- name: new_source_ids
-- $n new source ids, in order.
-- params: n
SELECT nextval('source_ids') AS source_id FROM range($n) ORDER BY 1;

-- name: batch_stored
-- The attempts stored for each log from source $first_source on.
-- params: first_source
SELECT source_id, count(*) FROM attempts WHERE source_id >= $first_source GROUP BY source_id;

-- name: insert_sources
-- The source rows of a batch of small logs (lane_sources), each read whole.
-- params:
INSERT INTO sources (source_id, path, fingerprint, fingerprint_bytes, bytes_read, tail_fingerprint,
                     bytes_seen, seen_fingerprint, lines_read, duplicates, first_ingested, last_ingested)
SELECT source_id, path, fingerprint, fingerprint_bytes, bytes_read, tail_fingerprint,
       bytes_seen, seen_fingerprint, lines_read, duplicates, now, now
FROM lane_sources;

-- name: stage_outcomes
-- Stage the outcome lines among lane_outcome_lines (source_id, line_no, byte_offset,
-- line: lines that may be outcome lines) in lane_outcomes_staged, typed by schema.sql's
-- lane_outcome_rows; the other lines make no row.
-- params: provisional
CREATE OR REPLACE TEMP TABLE lane_outcomes_staged AS
SELECT *, CAST($provisional AS BOOLEAN) AS provisional FROM lane_outcome_rows('lane_outcome_lines');

-- name: displace_provisional_outcomes
-- Outcomes of other logs stored from a provisional last line whose outcome_id a complete
-- line of lane_outcomes_staged has: the complete line is the outcome (as displace_provisional
-- for attempts).
-- params:
DELETE FROM outcomes
WHERE provisional AND source_id NOT IN (SELECT source_id FROM lane_outcomes_staged)
  AND outcome_id IN (SELECT outcome_id FROM lane_outcomes_staged WHERE NOT provisional AND outcome_id IS NOT NULL);

-- name: insert_staged_outcomes
-- The outcomes of lane_outcomes_staged that are no duplicates, and which they were: a
-- duplicate is an outcome whose non-empty string outcome_id a stored outcome has (of any
-- log, complete or provisional) or one on an earlier line here (by log, then line); a NULL
-- outcome_id matches nothing.
-- params:
INSERT INTO outcomes BY NAME
SELECT * EXCLUDE (first) FROM (
    SELECT *, row_number() OVER (PARTITION BY outcome_id ORDER BY source_id, line_no) = 1 AS first
    FROM lane_outcomes_staged
) AS staged
WHERE outcome_id IS NULL
   OR (first AND NOT EXISTS (SELECT 1 FROM outcomes AS o WHERE o.outcome_id = staged.outcome_id))
RETURNING source_id, line_no;

-- name: staged_outcomes
-- The outcome lines of lane_outcomes_staged, stored or duplicates.
-- params:
SELECT source_id, line_no FROM lane_outcomes_staged;

-- name: drop_staged_outcomes
-- Drop lane_outcomes_staged once its outcomes are stored.
-- params:
DROP TABLE IF EXISTS lane_outcomes_staged;

-- name: delete_provisional_outcome
-- The outcome an earlier run stored from a provisional last line: that line is being read again.
-- params: source_id
DELETE FROM outcomes WHERE source_id = $source_id AND provisional;

-- name: undated_outcomes
-- The outcome lines stored without a usable ts (lane_ts: no time, or one outside the
-- supported range), at most $limit in file order, with how many there are in all.  Such a
-- close falls in no week, so its pull request would read as open: ingest names each one.
-- params: limit
SELECT s.path AS source, o.line_no, o.pr_repository, o.pr_number, o.state, count(*) OVER () AS total
FROM outcomes AS o
LEFT JOIN sources AS s USING (source_id)
WHERE o.ts IS NULL
ORDER BY s.path, o.line_no
LIMIT $limit;
