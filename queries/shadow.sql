-- The live shadow (`route --shadow`): the same patches decided under a candidate policy.

-- name: shadow_figures
-- Over the attempts whose line has a shadow decision (shadow_armed is set exactly then; a
-- shadow that is an error has no decision and counts in shadow_errors instead), per shadow
-- policy (policy: its sha256, NULL for a shadow that named none) one row per week, the
-- undated bucket (week NULL) after the dated weeks, then the policy's total row (is_total).
-- Each figure beside its live counterpart on the same attempts: probe_rejects /
-- shadow_probe_rejects (probe == "reject"), calls_armed / shadow_calls_armed (truthy
-- model_call_allowed), and flips: attempts one policy rejects and the other does not.
-- last_ts is the newest attempt of the row (on the total row, the policy's newest).  No
-- row at all when no line in scope has a shadow decision.
-- params: since, until, repo
SELECT policy, week, attempts, probe_rejects, shadow_probe_rejects, calls_armed, shadow_calls_armed, flips,
       last_ts, is_total
FROM (
    SELECT
        shadow_policy AS policy,
        week,
        count(*) AS attempts,
        sum(is_reject::INTEGER)::BIGINT AS probe_rejects,
        sum(coalesce(shadow_probe = 'reject', false)::INTEGER)::BIGINT AS shadow_probe_rejects,
        sum(armed::INTEGER)::BIGINT AS calls_armed,
        sum(shadow_armed::INTEGER)::BIGINT AS shadow_calls_armed,
        sum((is_reject <> coalesce(shadow_probe = 'reject', false))::INTEGER)::BIGINT AS flips,
        max(ts) AS last_ts,
        grouping(week) = 1 AS is_total
    FROM in_scope($since, $until, $repo)
    WHERE shadow_armed IS NOT NULL
    GROUP BY GROUPING SETS ((shadow_policy, week), (shadow_policy))
)
ORDER BY policy NULLS LAST, is_total, week NULLS LAST

-- name: shadow_errors
-- The attempts whose shadow is an error (`route --shadow` could not decide under its
-- policy; shadow_error says why: policy_missing, policy_invalid, internal_error), per week
-- and reason, the undated bucket (week NULL) after the dated weeks.  No row when none is
-- in scope.
-- params: since, until, repo
SELECT week, shadow_error AS reason, count(*) AS attempts
FROM in_scope($since, $until, $repo)
WHERE shadow_error IS NOT NULL
GROUP BY week, shadow_error
ORDER BY week NULLS LAST, reason

-- name: shadow_flips
-- The attempts whose probe the shadow policy would flip (reject against not), newest first,
-- at most $limit: when, which patch, and both decisions (a shadow that is an error decides
-- nothing, so it flips nothing).
-- params: since, until, repo, limit
SELECT week, ts, attempt_id, repo, head, probe, reasons, shadow_probe, shadow_reasons, shadow_policy
FROM in_scope($since, $until, $repo)
WHERE shadow_armed IS NOT NULL AND is_reject <> coalesce(shadow_probe = 'reject', false)
ORDER BY ts DESC NULLS LAST, source_id, line_no
LIMIT $limit
