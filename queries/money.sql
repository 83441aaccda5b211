-- What the armed calls cost: tokens and money, from the lines' optional `usage` objects.
-- Only armed attempts count (a model call was allowed, so the lane could spend).  A figure
-- nobody recorded is NULL, never 0: a week without usage has no cost, not a free week.
-- Costs are summed only within one currency; a group whose costs come in more than one
-- currency has cost NULL (and currency NULL), as a sum across currencies means nothing,
-- and money_currencies gives each currency's total for it instead.

-- name: money_weekly
-- One row per week with attempts, the undated bucket (week NULL) after the dated weeks,
-- then the total row (is_total).  calls_armed: armed attempts; units: their spent units
-- (as the figures count them, so money sits beside units); calls_with_usage: those
-- whose line records a usage; calls_priced: those with a cost; input_tokens and
-- output_tokens: sums over the armed attempts (NULL when none records them); cost and
-- currency: the priced calls' costs, when they share one currency.
-- cost_per_armed_call: cost / calls_priced (the mean over the calls that recorded a cost);
-- cost_per_unit: cost / the spent units of those calls.  spend_avoided_estimate: an
-- estimate, probe_rejects times that week's cost_per_armed_call (what the rejected
-- attempts would have cost had they been armed like the week's priced calls); the total
-- row adds up the weeks' estimates, NULL when any week with rejects has none to give.
-- params: since, until, repo
WITH scoped AS (
    SELECT week, is_reject, armed, spent_units,
           armed AND usage IS NOT NULL AS has_usage,
           CASE WHEN armed THEN input_tokens END AS input_tokens,
           CASE WHEN armed THEN output_tokens END AS output_tokens,
           CASE WHEN armed THEN cost END AS cost,
           CASE WHEN armed AND cost IS NOT NULL THEN currency END AS currency
    FROM in_scope($since, $until, $repo)
), groups AS (
    -- Each week and the total in one pass: grouping(week) tells the total row from the
    -- undated week, whose week is NULL too.
    SELECT
        week,
        grouping(week) = 1 AS is_total,
        count(*) AS attempts,
        coalesce(sum(CASE WHEN is_reject THEN 1 ELSE 0 END), 0) AS probe_rejects,
        coalesce(sum(CASE WHEN armed THEN 1 ELSE 0 END), 0) AS calls_armed,
        coalesce(sum(CASE WHEN has_usage THEN 1 ELSE 0 END), 0) AS calls_with_usage,
        coalesce(sum(CASE WHEN cost IS NOT NULL THEN 1 ELSE 0 END), 0) AS calls_priced,
        sum(input_tokens) AS input_tokens,
        sum(output_tokens) AS output_tokens,
        -- One currency exactly when the least and the greatest are the same (a count of
        -- distinct values would hash every row for it).
        min(currency) AS first_currency,
        max(currency) AS last_currency,
        sum(cost) AS cost_sum,
        sum(CASE WHEN cost IS NOT NULL THEN spent_units ELSE 0 END) AS units_priced,
        coalesce(sum(spent_units), 0) AS units
    FROM scoped
    GROUP BY GROUPING SETS ((week), ())
), priced AS (
    SELECT week, is_total, attempts, probe_rejects, calls_armed, units, calls_with_usage, calls_priced,
           input_tokens, output_tokens, units_priced,
           CASE WHEN first_currency = last_currency THEN first_currency END AS currency,
           CASE WHEN first_currency = last_currency THEN cost_sum END AS cost,
           CASE WHEN first_currency = last_currency THEN cost_sum / nullif(calls_priced, 0) END
               AS cost_per_armed_call
    FROM groups
), avoided AS (
    -- A week with probe rejects and no cost per armed call leaves the total unknown.
    SELECT CASE WHEN sum(CASE WHEN probe_rejects > 0 AND cost_per_armed_call IS NULL THEN 1 ELSE 0 END) = 0
                     AND count(DISTINCT currency) = 1
                THEN sum(probe_rejects * cost_per_armed_call) END AS estimate
    FROM priced
    WHERE NOT is_total AND (probe_rejects > 0 OR cost_per_armed_call IS NOT NULL)
)
SELECT week, attempts, probe_rejects, calls_armed, units, calls_with_usage, calls_priced,
       input_tokens, output_tokens, currency, cost, cost_per_armed_call,
       cost / nullif(units_priced, 0) AS cost_per_unit,
       CASE WHEN NOT is_total THEN probe_rejects * cost_per_armed_call
            WHEN currency IS NOT NULL THEN (SELECT estimate FROM avoided) END AS spend_avoided_estimate,
       is_total
FROM priced
ORDER BY is_total, week NULLS LAST

-- name: money_by_property
-- Tokens and cost per week and property id, from the armed attempts' usage entries (one
-- per property run that reported a usage).  calls: entries; calls_priced: entries with a
-- cost; cost and currency as in money_weekly, per week and property.
-- params: since, until, repo
WITH entries AS (
    SELECT week, entry.property AS property, entry.input_tokens AS input_tokens,
           entry.output_tokens AS output_tokens, entry.cost AS cost,
           CASE WHEN entry.cost IS NOT NULL THEN entry.currency END AS currency
    FROM (
        SELECT week, unnest(usage) AS entry
        FROM in_scope($since, $until, $repo)
        WHERE armed AND usage IS NOT NULL
    ) AS unnested
)
SELECT week, property,
       count(*) AS calls,
       coalesce(sum(CASE WHEN cost IS NOT NULL THEN 1 ELSE 0 END), 0) AS calls_priced,
       sum(input_tokens) AS input_tokens,
       sum(output_tokens) AS output_tokens,
       CASE WHEN min(currency) = max(currency) THEN min(currency) END AS currency,
       CASE WHEN min(currency) = max(currency) THEN sum(cost) END AS cost
FROM entries
GROUP BY week, property
ORDER BY week NULLS LAST, property NULLS LAST

-- name: money_by_repo
-- Tokens and cost per week and repo (NULL when the line names none), over armed attempts.
-- params: since, until, repo
SELECT week, repo,
       count(*) AS calls_armed,
       coalesce(sum(CASE WHEN usage IS NOT NULL THEN 1 ELSE 0 END), 0) AS calls_with_usage,
       coalesce(sum(CASE WHEN cost IS NOT NULL THEN 1 ELSE 0 END), 0) AS calls_priced,
       sum(input_tokens) AS input_tokens,
       sum(output_tokens) AS output_tokens,
       CASE WHEN min(CASE WHEN cost IS NOT NULL THEN currency END) = max(CASE WHEN cost IS NOT NULL THEN currency END)
            THEN min(CASE WHEN cost IS NOT NULL THEN currency END) END AS currency,
       CASE WHEN min(CASE WHEN cost IS NOT NULL THEN currency END) = max(CASE WHEN cost IS NOT NULL THEN currency END)
            THEN sum(cost) END AS cost
FROM in_scope($since, $until, $repo)
WHERE armed
GROUP BY week, repo
ORDER BY week NULLS LAST, repo NULLS LAST

-- name: money_currencies
-- Each currency's total cost, from the armed attempts' usage entries with a cost, for
-- every group of the three queries above: per week (scope 'week'), over every week
-- ('total'), per week and repo ('repo'), per week and property ('property').  What a
-- group priced in more than one currency shows in place of its one sum (queries/costs.py).
-- (Four plain groupings, not GROUPING SETS: Spark's form of those is the total row's only.)
-- params: since, until, repo
WITH priced AS (
    SELECT week, repo, entry.property AS property, entry.currency AS currency, entry.cost AS cost
    FROM (
        SELECT week, repo, unnest(usage) AS entry
        FROM in_scope($since, $until, $repo)
        WHERE armed AND usage IS NOT NULL
    ) AS unnested
    WHERE entry.cost IS NOT NULL
)
SELECT scope, week, repo, property, currency, cost
FROM (
    SELECT 'week' AS scope, week, CAST(NULL AS VARCHAR) AS repo, CAST(NULL AS VARCHAR) AS property,
           currency, sum(cost) AS cost
    FROM priced GROUP BY week, currency
    UNION ALL
    SELECT 'total', CAST(NULL AS DATE), CAST(NULL AS VARCHAR), CAST(NULL AS VARCHAR), currency, sum(cost)
    FROM priced GROUP BY currency
    UNION ALL
    SELECT 'repo', week, repo, CAST(NULL AS VARCHAR), currency, sum(cost)
    FROM priced GROUP BY week, repo, currency
    UNION ALL
    SELECT 'property', week, CAST(NULL AS VARCHAR), property, currency, sum(cost)
    FROM priced GROUP BY week, property, currency
) AS groups
ORDER BY scope, week NULLS LAST, repo NULLS LAST, property NULLS LAST, currency
