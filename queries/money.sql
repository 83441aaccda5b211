-- What the armed calls cost: tokens and money, from the lines' optional `usage` objects.
-- Only armed attempts count (a model call was allowed, so the lane could spend).  A figure
-- nobody recorded is NULL, never 0: a week without usage has no cost, not a free week.
-- Costs are summed exactly, as decimals of ten places (a cost is stored as a double: it is
-- rounded to ten places first), so 0.1 three times is 0.3; summed only within one currency; a group whose costs come in more than one
-- currency has cost NULL (and currency NULL), as a sum across currencies means nothing,
-- and money_currencies gives each currency's total for it instead.  The money per week, in
-- total and per week and repo comes with the figures (weekly.sql's `figures`), in their one
-- pass over the attempts.

-- name: money_by_property
-- Tokens and cost per week and property id, from the armed attempts' usage entries (one
-- per property run that reported a usage).  calls: entries; calls_priced: entries with a
-- cost; cost and currency as in `figures`, per week and property.
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
       CASE WHEN min(currency) = max(currency) THEN sum(CAST(cost AS DECIMAL(38, 10))) END AS cost
FROM entries
GROUP BY week, property
ORDER BY week NULLS LAST, property NULLS LAST

-- name: money_currencies
-- Each currency's total cost, from the armed attempts' usage entries with a cost, for
-- every group of the money's figures: per week (scope 'week'), over every week
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
           currency, sum(CAST(cost AS DECIMAL(38, 10))) AS cost
    FROM priced GROUP BY week, currency
    UNION ALL
    SELECT 'total', CAST(NULL AS DATE), CAST(NULL AS VARCHAR), CAST(NULL AS VARCHAR), currency, sum(CAST(cost AS DECIMAL(38, 10)))
    FROM priced GROUP BY currency
    UNION ALL
    SELECT 'repo', week, repo, CAST(NULL AS VARCHAR), currency, sum(CAST(cost AS DECIMAL(38, 10)))
    FROM priced GROUP BY week, repo, currency
    UNION ALL
    SELECT 'property', week, CAST(NULL AS VARCHAR), property, currency, sum(CAST(cost AS DECIMAL(38, 10)))
    FROM priced GROUP BY week, property, currency
) AS groups
ORDER BY scope, week NULLS LAST, repo NULLS LAST, property NULLS LAST, currency
