-- Where armed spend went: by property and by repo.

-- name: spend_by_property
-- Armed calls and spent units per week and property id.  An attempt's units are shared
-- evenly among its listed properties, so a week's rows add up to its units (an id listed
-- twice on one line counts twice, as the units rule counts it); an armed attempt with no
-- properties is listed under property NULL.
-- params: since, until, repo
SELECT week, property, count(*) AS calls_armed, sum(share) AS units
FROM (
    SELECT
        week,
        unnest(CASE WHEN len(properties) > 0 THEN properties
                    ELSE [NULL]::VARCHAR[] END) AS property,
        spent_units / greatest(len(properties), 1) AS share
    FROM in_scope($since, $until, $repo)
    WHERE armed
)
GROUP BY week, property
ORDER BY week NULLS LAST, property NULLS LAST

-- name: spend_by_repo
-- Armed calls and spent units per week and repo (NULL when the line names none).
-- params: since, until, repo
SELECT week, repo, count(*) AS calls_armed, sum(spent_units) AS units
FROM in_scope($since, $until, $repo)
WHERE armed
GROUP BY week, repo
ORDER BY week NULLS LAST, repo NULLS LAST

-- name: repo_names
-- Every repo named by some attempt, for the repo filter's choices.  A name only ever
-- logged with not_a_repo is a folder that was no checkout (CI run in the wrong place),
-- not a repository, so it is left out.
-- params:
SELECT repo
FROM attempts
WHERE repo IS NOT NULL
GROUP BY repo
HAVING bool_or(NOT list_contains(coalesce(reasons, []::VARCHAR[]), 'not_a_repo'))
ORDER BY repo
