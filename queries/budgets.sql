-- What the budgets (`--budgets FILE`, queries/budget_file.py) and the spend spike are judged on.
-- The budgets' scopes (a repository pattern, a property id) are matched in Python over these
-- rows, so no pattern a file holds ever becomes SQL.

-- name: budget_spend
-- Cost per UTC day, repository, property id and currency, from the usage entries that
-- record a cost on armed attempts dated from $first_day to $last_day (both included).
-- Only armed attempts count, as in money.sql: a call that was never allowed spent nothing.
-- cost: summed exactly, as a decimal of ten places (money.sql's rule).  calls: the usage entries summed.  Undated attempts have no day and never count.
-- params: first_day, last_day
SELECT day, repo, property, currency, sum(CAST(cost AS DECIMAL(38, 10))) AS cost, count(*) AS calls
FROM (
    SELECT CAST(ts AS DATE) AS day, repo, entry.property AS property, entry.currency AS currency,
           entry.cost AS cost
    FROM (
        SELECT ts, repo, unnest(usage) AS entry
        FROM in_scope($first_day, $last_day, NULL)
        WHERE armed AND usage IS NOT NULL AND ts IS NOT NULL
    ) AS unnested
    WHERE entry.cost IS NOT NULL
) AS entries
WHERE day BETWEEN $first_day AND $last_day
GROUP BY day, repo, property, currency
ORDER BY day, repo NULLS LAST, property NULLS LAST, currency

-- name: property_names
-- Every property id named by some attempt, in its `properties` list or its usage, for
-- telling a budget whose property scope matches nothing.
-- params:
SELECT property
FROM (
    SELECT unnest(properties) AS property FROM attempts
    UNION
    SELECT unnest(usage).property AS property FROM attempts
) AS named
WHERE property IS NOT NULL
ORDER BY property
