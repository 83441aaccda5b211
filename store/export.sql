-- The Parquet lake's contents, read from the lanelog database (store/schema.sql).
-- The column lists here are the lake's schema contract (docs/lake.md): a change to
-- them, to their types or to their meaning bumps LAKE_SCHEMA_VERSION in store/lakefs.py.
-- Rows are written in file order (source_id, line_no), so the same database always
-- gives the same files.

-- name: lake_week_digests
-- One row per week with attempts (week NULL: the undated bucket): its attempts and a
-- digest of its rows.  Every typed column is computed from the line, and a settled row
-- (not provisional) is never changed in place: ingest only appends rows, and deletes a
-- provisional last line to read it again.  So a settled row is known by its place in its
-- log (the log's fingerprint, source_id, line_no, byte_offset), which is cheap to read; a
-- provisional row's line may still grow, so its digest takes the line itself too.  Reading
-- every raw line would cost seconds at 10M attempts; this reads it only for the rare
-- provisional rows (their row groups alone, by the provisional column's statistics).
-- params:
SELECT week, sum(attempts)::BIGINT AS attempts, bit_xor(digest)::VARCHAR AS digest
FROM (
    SELECT a.week, count(*) AS attempts,
           bit_xor(hash(a.source_id, a.line_no, a.byte_offset, s.fingerprint)) AS digest
    FROM attempts AS a LEFT JOIN sources AS s USING (source_id)
    WHERE NOT a.provisional
    GROUP BY a.week
    UNION ALL
    SELECT a.week, count(*) AS attempts,
           bit_xor(hash(a.source_id, a.line_no, a.byte_offset, s.fingerprint, a.raw)) AS digest
    FROM attempts AS a LEFT JOIN sources AS s USING (source_id)
    WHERE a.provisional
    GROUP BY a.week
)
GROUP BY week

-- name: lake_sources_digest
-- The sources table's rows and a digest of all of it (small: one row per log).
-- params:
SELECT
    count(*) AS rows,
    coalesce(bit_xor(hash(source_id, path, fingerprint, fingerprint_bytes, bytes_read,
                          tail_fingerprint, bytes_seen, seen_fingerprint, lines_read,
                          duplicates, first_ingested, last_ingested)), 0)::VARCHAR AS digest
FROM sources

-- name: lake_rejected_digest
-- The rejected lines' rows and a digest of them (lines are only ever added or re-read).
-- params:
SELECT
    count(*) AS rows,
    coalesce(bit_xor(hash(source_id, line_no, byte_offset, raw, reason)), 0)::VARCHAR AS digest
FROM rejected_lines

-- name: lake_attempts_of_week
-- The attempts of one week ($week NULL: the undated bucket), every column of the table.
-- params: week
SELECT
    source_id, line_no, byte_offset, raw, provisional, attempt_id, ts, week,
    repo, head, producer, probe, lane,
    is_reject, armed, quarantined, has_credit, credit_bug, merge_credit,
    units, budget_cap, properties, quarantine, reasons, expired_freezes,
    CAST(results AS VARCHAR) AS results,
    type_anomalies,
    usage, input_tokens, output_tokens, cost, currency,
    shadow_probe, shadow_reasons, shadow_units, shadow_armed, shadow_policy, shadow_error,
    pr_repository, pr_number, pr_url, agent, ci_run_id, ci_run_attempt, ci_run_url,
    source, hook_agent, hook_session
FROM attempts
WHERE week IS NOT DISTINCT FROM $week
ORDER BY source_id, line_no

-- name: lake_outcomes_digest
-- The outcome lines' rows and a digest of them: few (one per closed pull request), so each
-- row's line is read, a provisional one read again included.
-- params:
SELECT count(*) AS rows,
       coalesce(bit_xor(hash(source_id, line_no, byte_offset, provisional, raw)), 0)::VARCHAR AS digest
FROM outcomes

-- name: lake_outcomes
-- Every outcome line, every column of the table, in file order.
-- params:
SELECT
    source_id, line_no, byte_offset, raw, provisional, outcome_id, ts, week, repo, producer,
    pr_repository, pr_number, pr_url, head, state, merged_at, closed_at,
    merged_by, merged_by_type, auto_merge, auto_merge_by, auto_merge_by_type, auto_merge_method,
    author, author_type, approvals, labels, merge_commit, ci_run_id, ci_run_attempt, ci_run_url,
    type_anomalies
FROM outcomes
ORDER BY source_id, line_no

-- name: lake_sources
-- Every log read, as the sources table holds it.
-- params:
SELECT
    source_id, path, fingerprint, fingerprint_bytes, bytes_read, tail_fingerprint,
    bytes_seen, seen_fingerprint, lines_read, duplicates, first_ingested, last_ingested
FROM sources
ORDER BY source_id

-- name: lake_rejected_lines
-- Every line that was not a JSON object: its exact bytes, readable text and reason.
-- params:
SELECT source_id, line_no, byte_offset, raw, text, reason
FROM rejected_lines
ORDER BY source_id, line_no

-- name: lake_replays_digest
-- The stored replays' rows and a digest of them (a replay is stored whole, never changed).
-- params:
SELECT count(*) AS rows,
       coalesce(bit_xor(hash(replay_id, made, checkout, candidate, baseline, source, patches, skipped)), 0)::VARCHAR
           AS digest
FROM replays

-- name: lake_replay_patches_digest
-- The stored replays' patches: their rows and a digest of their place (replay, seq).
-- params:
SELECT count(*) AS rows, coalesce(bit_xor(hash(replay_id, seq, head)), 0)::VARCHAR AS digest
FROM replay_patches

-- name: lake_replays
-- Every stored replay (`lanelog replay --db`), as the replays table holds it.
-- params:
SELECT replay_id, made, checkout, candidate, baseline, source, patches, skipped
FROM replays
ORDER BY replay_id

-- name: lake_replay_patches
-- Every replayed patch of the stored replays and its two decisions; each side's evidence as
-- JSON text (lake.sql's view makes it JSON again), NULL for a replay stored before it was kept.
-- params:
SELECT replay_id, seq, base, head, day, week, subject,
       baseline_probe, baseline_reasons, baseline_units, baseline_armed,
       candidate_probe, candidate_reasons, candidate_units, candidate_armed,
       CAST(baseline_evidence AS VARCHAR) AS baseline_evidence,
       CAST(candidate_evidence AS VARCHAR) AS candidate_evidence
FROM replay_patches
ORDER BY replay_id, seq
