-- Stored replays (`lanelog replay --db`): one row per replay, one row per replayed patch.
-- The tables are in store/schema.sql (since schema version 3; each side's evidence since 4);
-- the lake export copies them (store/export.sql), and these queries run on a lake's views
-- of them unchanged.

-- name: next_id
-- The id the next stored replay gets.
-- params:
SELECT coalesce(max(replay_id), 0) + 1 AS replay_id FROM replays

-- name: add_replay
-- One replay's row.
-- params: replay_id, made, checkout, candidate, baseline, source, patches, skipped
INSERT INTO replays VALUES ($replay_id, $made, $checkout, $candidate, $baseline, $source, $patches, $skipped)

-- name: add_patch
-- One replayed patch and its two decisions.
-- params: replay_id, seq, base, head, day, subject, baseline_probe, baseline_reasons, baseline_units, baseline_armed, candidate_probe, candidate_reasons, candidate_units, candidate_armed, baseline_evidence, candidate_evidence
INSERT INTO replay_patches VALUES (
    $replay_id, $seq, $base, $head, $day, date_trunc('week', $day)::DATE, $subject,
    $baseline_probe, $baseline_reasons, $baseline_units, $baseline_armed,
    $candidate_probe, $candidate_reasons, $candidate_units, $candidate_armed,
    CAST($baseline_evidence AS JSON), CAST($candidate_evidence AS JSON)
)

-- name: latest
-- The newest stored replay's row.
-- params:
SELECT * FROM replays ORDER BY replay_id DESC LIMIT 1

-- name: replay_list
-- Every stored replay's row, newest first (for choosing one).
-- params:
SELECT * FROM replays ORDER BY replay_id DESC

-- name: replay_row
-- One stored replay's row.
-- params: replay_id
SELECT * FROM replays WHERE replay_id = $replay_id

-- name: replay_weeks
-- Per week of one replay: rejects, armed calls and units on each side (units count on armed calls).
-- params: replay_id
SELECT
    week,
    count(*) AS patches,
    count(*) FILTER (WHERE baseline_probe = 'reject') AS baseline_rejects,
    count(*) FILTER (WHERE candidate_probe = 'reject') AS candidate_rejects,
    count(*) FILTER (WHERE baseline_armed) AS baseline_armed,
    count(*) FILTER (WHERE candidate_armed) AS candidate_armed,
    coalesce(sum(baseline_units) FILTER (WHERE baseline_armed), 0) AS baseline_units,
    coalesce(sum(candidate_units) FILTER (WHERE candidate_armed), 0) AS candidate_units
FROM replay_patches
WHERE replay_id = $replay_id
GROUP BY week
ORDER BY week

-- name: replay_flips
-- The patches of one replay whose probe differs between the two sides, in replay order, with
-- each side's evidence as JSON text (NULL: the replay was stored before version 4 kept it).
-- params: replay_id
SELECT seq, day, base, head, subject, baseline_probe, baseline_reasons, baseline_units,
       candidate_probe, candidate_reasons, candidate_units,
       CAST(baseline_evidence AS VARCHAR) AS baseline_evidence,
       CAST(candidate_evidence AS VARCHAR) AS candidate_evidence
FROM replay_patches
WHERE replay_id = $replay_id AND baseline_probe <> candidate_probe
ORDER BY seq
