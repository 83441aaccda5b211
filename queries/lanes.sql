-- The property lane (issue 6): what armed spend bought.

-- name: lanes_weekly
-- Attempts per week and lane outcome: not_started, hold, fail, unresolved, as the line
-- records it; NULL when the line has no lane (written before the lane existed).  Only an
-- armed call runs the property lane: a line that armed no call yet records hold, fail or
-- unresolved (a producer that copied a routed line's lane fields) is no_call_armed, never
-- counted as a lane that ran.
-- params: since, until, repo
SELECT week, lane, count(*) AS attempts
FROM (
    SELECT week,
           CASE WHEN NOT armed AND lane IN ('hold', 'fail', 'unresolved') THEN 'no_call_armed' ELSE lane END AS lane
    FROM in_scope($since, $until, $repo)
)
GROUP BY week, lane
ORDER BY week NULLS LAST, lane NULLS LAST

-- name: unresolved_units
-- Per week with attempts: lanes_run (armed calls whose lane ended hold, fail or
-- unresolved), unresolved, the unresolved share of the lanes run (NULL when none ran),
-- and the units spent on armed calls whose lane ended unresolved (spend that bought no
-- result).  Only armed calls count, as in lanes_weekly: a line that armed no call ran no
-- lane, even one that copies a routed line's lane fields.
-- params: since, until, repo
SELECT
    week,
    count(*) FILTER (WHERE armed AND lane IN ('hold', 'fail', 'unresolved')) AS lanes_run,
    count(*) FILTER (WHERE armed AND lane = 'unresolved') AS unresolved,
    count(*) FILTER (WHERE armed AND lane = 'unresolved')
        / nullif(count(*) FILTER (WHERE armed AND lane IN ('hold', 'fail', 'unresolved')), 0)
        AS unresolved_share,
    coalesce(sum(spent_units) FILTER (WHERE armed AND lane = 'unresolved'), 0) AS units
FROM in_scope($since, $until, $repo)
GROUP BY week
ORDER BY week NULLS LAST

-- name: property_results
-- Per property id, how many attempts in scope recorded it hold, fail or unresolved in
-- `results`.  As the seed says, any value other than "hold" or "fail" is unresolved.
-- params: since, until, repo
SELECT
    entry.key AS property,
    count(*) FILTER (WHERE entry.value = '"hold"') AS hold,
    count(*) FILTER (WHERE entry.value = '"fail"') AS fail,
    count(*) FILTER (WHERE entry.value IS DISTINCT FROM '"hold"'
                       AND entry.value IS DISTINCT FROM '"fail"') AS unresolved
FROM in_scope($since, $until, $repo) AS a, json_each(a.results) AS entry
WHERE json_type(a.results) = 'OBJECT'
GROUP BY entry.key
ORDER BY entry.key
