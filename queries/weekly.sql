-- The seed's Step 6 figures, per week and in total.

-- name: figures
-- One row per week with attempts (weeks without any are omitted), the undated bucket
-- (week NULL) after the dated weeks, then the total row (is_total) over all of them.
-- The definitions are the seed reader's, computed at ingest with Python truthiness:
-- probe_rejects (probe == "reject"), calls_armed (truthy model_call_allowed),
-- credit_bugs (truthy merge_credit and truthy quarantine), quarantined (truthy quarantine).
-- units: the sum of spent_units (see in_scope).  armed_per_reject: calls_armed divided by
-- patch_rejects (armed calls per patch reject: setup rejects say CI is broken, not that
-- the gate worked, so they are left out), NULL when there is no patch reject (the ratio
-- is undefined, not zero).
-- setup_rejects: probe rejects that list a setup reason ($setup_reasons, bound from
-- lanelog/reasons.py: CI could not judge the patch); patch_rejects: the other probe
-- rejects (the gate at work).  The two add up to probe_rejects.
-- params: since, until, repo, setup_reasons
-- (Summing the flags as integers is about a quarter faster than count(*) FILTER here.
-- A setup reject is looked for only among probe rejects, by keeping the reasons found in
-- the short list of setup reasons: twice as fast on 10M attempts as list_has_any over
-- every row, the same counts; a NULL reason matches nothing.  Spark runs it as
-- size(filter(...)) > 0, see spark.py.)
SELECT
    week,
    attempts, probe_rejects, setup_rejects, probe_rejects - setup_rejects AS patch_rejects,
    calls_armed, credit_bugs, quarantined, units,
    calls_armed / nullif(probe_rejects - setup_rejects, 0) AS armed_per_reject,
    is_total
FROM (
    SELECT
        week,
        count(*) AS attempts,
        coalesce(sum(is_reject::INTEGER), 0)::BIGINT AS probe_rejects,
        coalesce(sum(CASE WHEN is_reject THEN
                coalesce(len(list_filter(reasons, lambda r: list_contains($setup_reasons, r))) > 0, false)::INTEGER
            ELSE 0 END), 0)::BIGINT AS setup_rejects,
        coalesce(sum(armed::INTEGER), 0)::BIGINT AS calls_armed,
        coalesce(sum(credit_bug::INTEGER), 0)::BIGINT AS credit_bugs,
        coalesce(sum(quarantined::INTEGER), 0)::BIGINT AS quarantined,
        coalesce(sum(spent_units), 0) AS units,
        grouping(week) = 1 AS is_total
    FROM in_scope($since, $until, $repo)
    GROUP BY GROUPING SETS ((week), ())
)
ORDER BY is_total, week NULLS LAST

-- name: reject_reasons
-- Probe rejects per week and reason code, once per reason listed; a reject that records
-- no reasons counts under reason NULL, so each week's rows cover every reject.
-- params: since, until, repo
SELECT week, reason, count(*) AS attempts
FROM (
    SELECT
        week,
        unnest(CASE WHEN len(reasons) > 0 THEN reasons
                    ELSE [NULL]::VARCHAR[] END) AS reason
    FROM in_scope($since, $until, $repo)
    WHERE is_reject
)
GROUP BY week, reason
ORDER BY week NULLS LAST, attempts DESC, reason NULLS LAST

-- name: rejected_line_count
-- Lines that were not JSON objects.  They have no week and no repo, so no filter applies:
-- this is the count over the whole database.
-- params:
SELECT count(*) AS rejected_lines FROM rejected_lines

-- name: producers
-- Every attempt in scope accounted for by producer and outcome: probe rejects, armed
-- calls, and neither (passed the probe without an armed call).  An armed reject, a
-- breach the audit names, counts as a probe reject here, so the three add up.
-- params: since, until, repo
SELECT coalesce(producer, '(none)') AS producer,
       count(*) AS attempts,
       coalesce(sum(is_reject::INTEGER), 0)::BIGINT AS probe_rejects,
       coalesce(sum((armed AND NOT is_reject)::INTEGER), 0)::BIGINT AS armed,
       coalesce(sum((NOT armed AND NOT is_reject)::INTEGER), 0)::BIGINT AS neither
FROM in_scope($since, $until, $repo)
GROUP BY producer
ORDER BY attempts DESC, producer
