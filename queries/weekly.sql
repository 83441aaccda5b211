-- The seed's Step 6 figures, per week and in total.

-- name: figures
-- The report's figures and its money, from one pass over the attempts in scope: one row per
-- week with attempts (weeks without any are omitted), the undated bucket (week NULL) after
-- the dated weeks, then the total row (is_total) over all of them, then one row per week and
-- repo with armed calls (by_repo; repo NULL when the line names none).
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
-- Money (money.sql's rules; only armed attempts spend, a figure nobody recorded is NULL):
-- calls_with_usage: armed attempts whose line records a usage; calls_priced: those with a
-- cost; input_tokens and output_tokens: sums over the armed attempts; cost and currency:
-- the priced calls' costs, summed exactly (money.sql's rule), when they share one currency (else both NULL, and
-- money_currencies gives each currency's total); cost_per_armed_call: cost / calls_priced;
-- cost_per_unit: cost / the spent units of the priced calls.  spend_avoided_estimate: an
-- estimate, a week's patch_rejects (the probe's saving: a setup reject judged no patch and
-- saved nothing) times its cost_per_armed_call; the total row adds up the weeks'
-- estimates, NULL when any week with patch rejects has none to give; NULL by repo.  (It is
-- worked out in doubles, cost * patch_rejects / calls_priced: Spark keeps six decimals of a
-- count times a DECIMAL(38, 10), and a cost per call rounded first is off in the tenth.)
-- params: since, until, repo, setup_reasons
-- (Summing the flags as integers is about a quarter faster than count(*) FILTER here.
-- A setup reject is looked for only among probe rejects, by keeping the reasons found in
-- the short list of setup reasons: twice as fast on 10M attempts as list_has_any over
-- every row, the same counts; a NULL reason matches nothing.  Spark runs it as
-- size(filter(...)) > 0, see spark.py.  One currency exactly when the least and the
-- greatest are the same: a count of distinct values would hash every row for it.)
WITH scoped AS (
    SELECT week, repo, is_reject, reasons, armed, credit_bug, quarantined, spent_units,
           armed AND usage IS NOT NULL AS has_usage,
           CASE WHEN armed THEN input_tokens END AS input_tokens,
           CASE WHEN armed THEN output_tokens END AS output_tokens,
           CASE WHEN armed THEN cost END AS cost,
           CASE WHEN armed AND cost IS NOT NULL THEN currency END AS currency
    FROM in_scope($since, $until, $repo)
), groups AS (
    -- grouping(week) tells the total row from the undated week, whose week is NULL too.
    SELECT
        week,
        repo,
        grouping(week) = 1 AS is_total,
        grouping(repo) = 0 AS by_repo,
        count(*) AS attempts,
        coalesce(sum(is_reject::INTEGER), 0)::BIGINT AS probe_rejects,
        coalesce(sum(CASE WHEN is_reject THEN
                coalesce(len(list_filter(reasons, lambda r: list_contains($setup_reasons, r))) > 0, false)::INTEGER
            ELSE 0 END), 0)::BIGINT AS setup_rejects,
        coalesce(sum(armed::INTEGER), 0)::BIGINT AS calls_armed,
        coalesce(sum(credit_bug::INTEGER), 0)::BIGINT AS credit_bugs,
        coalesce(sum(quarantined::INTEGER), 0)::BIGINT AS quarantined,
        coalesce(sum(spent_units), 0) AS units,
        coalesce(sum(has_usage::INTEGER), 0)::BIGINT AS calls_with_usage,
        coalesce(sum((cost IS NOT NULL)::INTEGER), 0)::BIGINT AS calls_priced,
        sum(input_tokens) AS input_tokens,
        sum(output_tokens) AS output_tokens,
        min(currency) AS first_currency,
        max(currency) AS last_currency,
        sum(CAST(cost AS DECIMAL(38, 10))) AS cost_sum,
        sum(CASE WHEN cost IS NOT NULL THEN spent_units ELSE 0 END) AS units_priced
    FROM scoped
    GROUP BY GROUPING SETS ((week), (), (week, repo))
), priced AS (
    SELECT week, repo, is_total, by_repo, attempts, probe_rejects, setup_rejects, calls_armed, credit_bugs,
           quarantined, units, calls_with_usage, calls_priced, input_tokens, output_tokens, units_priced,
           CASE WHEN first_currency = last_currency THEN first_currency END AS currency,
           CASE WHEN first_currency = last_currency THEN cost_sum END AS cost,
           CASE WHEN first_currency = last_currency THEN cost_sum / nullif(calls_priced, 0) END
               AS cost_per_armed_call
    FROM groups
), avoided AS (
    -- A week with patch rejects and no cost per armed call leaves the total unknown.
    SELECT CASE WHEN sum(CASE WHEN probe_rejects - setup_rejects > 0 AND cost_per_armed_call IS NULL
                              THEN 1 ELSE 0 END) = 0
                     AND count(DISTINCT currency) = 1
                THEN sum(CAST(cost AS DOUBLE) * (probe_rejects - setup_rejects) / nullif(calls_priced, 0)) END
                     AS estimate
    FROM priced
    WHERE NOT is_total AND NOT by_repo AND (probe_rejects - setup_rejects > 0 OR cost_per_armed_call IS NOT NULL)
)
SELECT
    week, repo,
    attempts, probe_rejects, setup_rejects, probe_rejects - setup_rejects AS patch_rejects,
    calls_armed, credit_bugs, quarantined, units,
    calls_armed / nullif(probe_rejects - setup_rejects, 0) AS armed_per_reject,
    calls_with_usage, calls_priced, input_tokens, output_tokens, currency, cost, cost_per_armed_call,
    cost / nullif(units_priced, 0) AS cost_per_unit,
    CASE WHEN by_repo THEN NULL
         WHEN NOT is_total THEN CAST(cost AS DOUBLE) * (probe_rejects - setup_rejects) / nullif(calls_priced, 0)
         WHEN currency IS NOT NULL THEN (SELECT estimate FROM avoided) END AS spend_avoided_estimate,
    is_total, by_repo
FROM priced
WHERE NOT by_repo OR calls_armed > 0
ORDER BY by_repo, is_total, week NULLS LAST, repo NULLS LAST

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
