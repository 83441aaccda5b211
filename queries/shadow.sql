-- The live shadow (`route --shadow`): the same patches decided under a candidate policy.

-- name: shadow_figures
-- Over the attempts whose line has a shadow object (shadow_armed is set exactly then), one
-- row per week, the undated bucket (week NULL) after the dated weeks, then the total row
-- (is_total).  Each figure beside its live counterpart on the same attempts:
-- probe_rejects / shadow_probe_rejects (probe == "reject"), calls_armed /
-- shadow_calls_armed (truthy model_call_allowed), and flips: attempts one policy rejects
-- and the other does not.  No row at all when no line in scope has a shadow.
-- params: since, until, repo
SELECT week, attempts, probe_rejects, shadow_probe_rejects, calls_armed, shadow_calls_armed, flips, is_total
FROM (
    SELECT
        week,
        count(*) AS attempts,
        sum(is_reject::INTEGER)::BIGINT AS probe_rejects,
        sum(coalesce(shadow_probe = 'reject', false)::INTEGER)::BIGINT AS shadow_probe_rejects,
        sum(armed::INTEGER)::BIGINT AS calls_armed,
        sum(shadow_armed::INTEGER)::BIGINT AS shadow_calls_armed,
        sum((is_reject <> coalesce(shadow_probe = 'reject', false))::INTEGER)::BIGINT AS flips,
        grouping(week) = 1 AS is_total
    FROM in_scope($since, $until, $repo)
    WHERE shadow_armed IS NOT NULL
    GROUP BY GROUPING SETS ((week), ())
    HAVING count(*) > 0
)
ORDER BY is_total, week NULLS LAST

-- name: shadow_flips
-- The attempts whose probe the shadow policy would flip (reject against not), newest first,
-- at most $limit: when, which patch, and both decisions.
-- params: since, until, repo, limit
SELECT week, ts, attempt_id, repo, head, probe, reasons, shadow_probe, shadow_reasons, shadow_policy
FROM in_scope($since, $until, $repo)
WHERE shadow_armed IS NOT NULL AND is_reject <> coalesce(shadow_probe = 'reject', false)
ORDER BY ts DESC NULLS LAST, source_id, line_no
LIMIT $limit
