-- The hook's figures: patches judged and stopped in the agent's own loop (`lanelog hook`).

-- name: hook_figures
-- The lines `lanelog hook` wrote, in scope (hook_scope): one row per week with any (the
-- undated bucket after the dated weeks), then one row per agent (by_agent; agent NULL when the
-- line names none); no rows when there are none.  The total is the weeks' sum (queries/hooks.py):
-- no empty grouping set, which an empty aggregate would answer with a row on DuckDB and none
-- on Spark.  hook_checks: the calls judged (a commit,
-- push or pull request the agent was about to make); hook_rejects: those the probe rejected,
-- blocked before anything was published.  None of them is among the seed's figures
-- (weekly.sql's figures read in_scope, which holds CI's attempts only).
-- params: since, until, repo
WITH scoped AS (
    SELECT week, hook_agent, is_reject FROM hook_scope($since, $until, $repo)
), groups AS (
    SELECT
        week,
        hook_agent AS agent,
        grouping(hook_agent) = 0 AS by_agent,
        count(*) AS hook_checks,
        coalesce(sum(is_reject::INTEGER), 0)::BIGINT AS hook_rejects
    FROM scoped
    GROUP BY GROUPING SETS ((week), (hook_agent))
)
SELECT week, agent, by_agent, hook_checks, hook_rejects
FROM groups
ORDER BY by_agent, week NULLS LAST, agent NULLS LAST

-- name: hook_sessions
-- Per agent, whether a refused patch came back narrower in the same session: sessions_refused,
-- the agent's sessions (hook.session) with a hook reject; sessions_narrowed, those of them
-- with a passing hook check later than their first reject (a patch narrowed until the probe
-- passed it).  Lines without a session are left out; agent NULL when the line names none.
-- params: since, until, repo
WITH sessions AS (
    SELECT hook_agent, hook_session,
           min(CASE WHEN is_reject THEN ts END) AS first_reject,
           max(CASE WHEN NOT is_reject THEN ts END) AS last_pass
    FROM hook_scope($since, $until, $repo)
    WHERE hook_session IS NOT NULL
    GROUP BY hook_agent, hook_session
)
SELECT
    hook_agent AS agent,
    coalesce(sum(CASE WHEN first_reject IS NOT NULL THEN 1 ELSE 0 END), 0)::BIGINT AS sessions_refused,
    coalesce(sum(CASE WHEN last_pass > first_reject THEN 1 ELSE 0 END), 0)::BIGINT AS sessions_narrowed
FROM sessions
GROUP BY hook_agent
ORDER BY agent NULLS LAST
