-- What became of each agent pull request: its attempts (the router's lines that name it) and its
-- outcome (the line `lanelog outcome` wrote when it closed).  A pull request is
-- (pr_repository, pr_number); an agent pull request is one some routed attempt names.  The
-- figures per week, agent and repository are grouped from these rows by outcome_money and in
-- queries/outcomes.py.

-- name: agent_pull_requests
-- Installs the table macro agent_pull_requests(repo_name, accept_label): one row per agent
-- pull request of repo_name (NULL: every repository), every week of its attempts counted (a pull request merged in
-- a week spent what all its attempts cost, whenever they ran): its repository (the last
-- attempt's repo) and agent (the last attempt that names one), when its first and last routed
-- attempts ran, how many attempts, probe rejects (and whether the first attempt was one), armed
-- calls and held lanes; the last attempt's id, time and quarantine (the last up to the merge:
-- see verdict); what its armed calls cost (the
-- sum, summed exactly, when every armed call recorded a cost in one currency: cost_known; an
-- armed call without a cost, or costs in two currencies, leave it unknown, never 0); and its
-- latest outcome (NULL columns while it is open): state, when it closed and merged, who merged
-- it and of what type, auto-merge and who enabled it, the approvals and labels the outcome line recorded, its url.
-- Only the router's own lines count (producer lanelog-route): a line another program copied
-- from one (the demo's legacy-promoter) is no attempt of the pull request.
-- verdict: the one judgement of a merge, every surface's (report, check, alerts, pages), taken at
-- the merge: the attempts up to it (ts <= merged_at, else the close's time) decide which one is
-- last (last_attempt, its time and quarantine); an attempt routed after it changes nothing.  A
-- merge gives that attempt merge credit; over a live quarantine (its quarantine not empty) it
-- is 'credit_bug' unless a person said the quarantine may go, 'reviewed_exception' then; NULL
-- for a pull request not merged over one.  A person (is_person) who is not the pull request's
-- author says so by an approving review submitted by the merge, of the commit that merged
-- (its commit_id the outcome's head, the pull request's head when it merged; a review with no
-- commit, or an outcome of no known head, only when submitted after the last attempt; the
-- attempts' own heads are not read: the cached read of a lake leaves that wide column out), or by
-- the label accept_label set by the merge, by no app acting for them (via_app), and not removed
-- by the merge.  An
-- auto-merge, a merge by an account that is no person, or by the author, is always a credit bug:
-- person_merged is false then, and no approval or label would have changed the verdict.
-- said_by: who said so, in words ("approved by ...", "labelled ... by ...").
-- params:
CREATE OR REPLACE TEMP MACRO agent_pull_requests(repo_name, accept_label) AS TABLE
WITH tried AS (
    SELECT pr_repository, pr_number, ts, repo, agent, is_reject, armed, lane, attempt_id, quarantine,
           CASE WHEN armed THEN cost END AS cost,
           CASE WHEN armed AND cost IS NOT NULL THEN currency END AS currency,
           row_number() OVER (PARTITION BY pr_repository, pr_number ORDER BY ts DESC, attempt_id DESC) AS newest,
           row_number() OVER (PARTITION BY pr_repository, pr_number ORDER BY ts, attempt_id) AS oldest
    FROM in_scope(NULL, NULL, repo_name)
    WHERE pr_repository IS NOT NULL AND pr_number IS NOT NULL AND ts IS NOT NULL AND producer = 'lanelog-route'
), per_pr AS (
    SELECT pr_repository, pr_number,
           count(*) AS attempts,
           min(ts) AS first_ts,
           max(ts) AS last_ts,
           coalesce(sum(is_reject::INTEGER), 0) AS probe_rejects,
           coalesce(sum(CASE WHEN oldest = 1 AND is_reject THEN 1 ELSE 0 END), 0) > 0 AS first_rejected,
           coalesce(sum(armed::INTEGER), 0) AS calls_armed,
           coalesce(sum(CASE WHEN lane = 'hold' THEN 1 ELSE 0 END), 0) AS lanes_held,
           coalesce(sum(CASE WHEN armed AND cost IS NULL THEN 1 ELSE 0 END), 0) AS unpriced_calls,
           min(currency) AS first_currency,
           max(currency) AS last_currency,
           sum(CAST(cost AS DECIMAL(38, 10))) AS cost_sum
    FROM tried
    GROUP BY pr_repository, pr_number
), agents AS (
    -- The agent the latest attempt that names one names.
    SELECT pr_repository, pr_number, agent,
           row_number() OVER (PARTITION BY pr_repository, pr_number ORDER BY ts DESC, attempt_id DESC) AS n
    FROM tried
    WHERE agent IS NOT NULL
), closed AS (
    -- The outcome line that decides each pull request: a merge line if it has one (a forge never
    -- reopens a merged pull request), else its latest (one closed, reopened and merged says merged).
    -- A line ingest could not date (ts NULL) still closes it, its time unknown (closed_ts NULL):
    -- it never reads as open, and its merge is judged; a dated line of the same state goes first.
    SELECT pr_repository, pr_number, state, ts AS closed_ts, merged_at, merged_by, merged_by_type, auto_merge,
           auto_merge_by, auto_merge_by_type, author, outcomes.head AS merged_head,
           approvals, labels, pr_url AS outcome_url, outcome_id,
           row_number() OVER (PARTITION BY pr_repository, pr_number
                              ORDER BY state = 'merged' DESC NULLS LAST, ts DESC NULLS LAST, source_id DESC,
                                       line_no DESC) AS n
    FROM outcomes
    WHERE NOT provisional AND pr_repository IS NOT NULL AND pr_number IS NOT NULL
), at_merge AS (
    -- The attempt the verdict is taken on: the newest up to the merge (or the close), else, with none
    -- by then, the newest (an open pull request's, or one closed before its first attempt).
    SELECT tried.pr_repository, tried.pr_number, tried.ts, tried.attempt_id, tried.quarantine,
           row_number() OVER (PARTITION BY tried.pr_repository, tried.pr_number
                              ORDER BY tried.ts <= coalesce(closed.merged_at, closed.closed_ts) DESC NULLS LAST,
                                       tried.ts DESC, tried.attempt_id DESC) AS n
    FROM tried
    LEFT JOIN closed
        ON closed.pr_repository = tried.pr_repository AND closed.pr_number = tried.pr_number AND closed.n = 1
), judged AS (
    SELECT per_pr.pr_repository, per_pr.pr_number, last.repo, agents.agent, attempts, first_ts, last_ts,
           probe_rejects, first_rejected, calls_armed, lanes_held, judged.attempt_id AS last_attempt,
           judged.ts AS last_attempt_ts, judged.quarantine AS last_quarantine,
           unpriced_calls = 0 AND (first_currency IS NULL OR first_currency = last_currency) AS cost_known,
           CASE WHEN first_currency = last_currency THEN first_currency END AS currency,
           CASE WHEN unpriced_calls = 0 AND (first_currency IS NULL OR first_currency = last_currency)
                THEN coalesce(cost_sum, 0) END AS cost,
           state, closed_ts, merged_at, merged_by, merged_by_type, auto_merge, auto_merge_by, auto_merge_by_type,
           approvals, labels, outcome_url, outcome_id,
           coalesce(state = 'merged', false) AND coalesce(len(judged.quarantine), 0) > 0 AS over_quarantine,
           NOT coalesce(auto_merge, false) AND is_person(merged_by, merged_by_type)
               AND lower(merged_by) IS DISTINCT FROM lower(author) AS person_merged,
           coalesce(list_transform(
               list_filter(approvals, lambda review: is_person(review.login, review.type)
                   AND lower(review.login) IS DISTINCT FROM lower(author)
                   AND review.submitted_at <= coalesce(merged_at, closed_ts)
                   AND CASE WHEN review.commit_id IS NOT NULL AND merged_head IS NOT NULL
                            THEN lower(review.commit_id) = lower(merged_head)
                            ELSE review.submitted_at > judged.ts END),
               lambda review: 'approved by ' || review.login), CAST([] AS VARCHAR[])) AS approved_by,
           coalesce(list_transform(
               list_filter(labels, lambda label: label.name = accept_label
                   AND is_person(label.set_by, label.set_by_type) AND label.via_app IS NULL
                   AND lower(label.set_by) IS DISTINCT FROM lower(author)
                   AND label.set_at <= coalesce(merged_at, closed_ts)
                   AND (label.removed_at IS NULL OR label.removed_at > coalesce(merged_at, closed_ts))),
               lambda label: 'labelled ' || label.name || ' by ' || label.set_by), CAST([] AS VARCHAR[])) AS labelled_by
    FROM per_pr
JOIN tried AS last
    ON last.pr_repository = per_pr.pr_repository AND last.pr_number = per_pr.pr_number AND last.newest = 1
JOIN at_merge AS judged
    ON judged.pr_repository = per_pr.pr_repository AND judged.pr_number = per_pr.pr_number AND judged.n = 1
LEFT JOIN agents
    ON agents.pr_repository = per_pr.pr_repository AND agents.pr_number = per_pr.pr_number AND agents.n = 1
LEFT JOIN closed
    ON closed.pr_repository = per_pr.pr_repository AND closed.pr_number = per_pr.pr_number AND closed.n = 1
)
SELECT pr_repository, pr_number, repo, agent, attempts, first_ts, last_ts, probe_rejects, first_rejected,
       calls_armed, lanes_held, last_attempt, last_attempt_ts, last_quarantine, cost_known, currency, cost, state,
       closed_ts, merged_at, merged_by, merged_by_type, auto_merge, auto_merge_by, auto_merge_by_type, approvals,
       labels, outcome_url, outcome_id,
       CASE WHEN NOT over_quarantine THEN NULL
            WHEN NOT person_merged THEN 'credit_bug'
            WHEN len(approved_by) + len(labelled_by) > 0 THEN 'reviewed_exception'
            ELSE 'credit_bug' END AS verdict,
       CASE WHEN state = 'merged' THEN person_merged END AS person_merged,
       list_concat(approved_by, labelled_by) AS said_by
FROM judged

-- name: pull_request_rows
-- One row per agent pull request (agent_pull_requests), in the order of their first attempts.
-- params: repo, accept_label
SELECT pr_repository, pr_number, repo, agent, attempts, first_ts, last_ts, probe_rejects, first_rejected,
       calls_armed, lanes_held, last_attempt, last_attempt_ts, last_quarantine, cost_known, currency, cost, state,
       closed_ts, merged_at, merged_by, merged_by_type, auto_merge, auto_merge_by, auto_merge_by_type, approvals,
       labels, outcome_url, outcome_id, verdict, person_merged, said_by
FROM agent_pull_requests($repo, $accept_label)
ORDER BY first_ts, pr_repository, pr_number

-- name: outcome_money
-- What the agent pull requests closed in scope cost: one row per week they closed in
-- (closed_week, by_week), the total row (every flag false), one per agent (by_agent) and one
-- per repository (by_repo).  A pull request is counted where it closed, the week in scope by
-- week_in_scope (scope.sql).  Only pull requests whose cost is known are summed (exactly, as
-- DECIMAL): cost_per_merged_pr is the merged ones' cost over how many they are,
-- spend_closed_without_merge the others' sum; merged_cost_unknown and closed_cost_unknown
-- count those whose armed calls did not all record a cost in one currency, never as costing
-- nothing.  Costs in two currencies are not summed: both money figures NULL, and
-- costs_in_several_currencies says so; currency is the one currency, else NULL.  With no
-- pull request closed in scope there is no row at all, the total's neither: the total is grouped by
-- a constant (in_range), not the empty set, whose row over no rows Spark would ask again for.
-- params: since, until, repo, accept_label
WITH decided AS (
    SELECT week_of(closed_ts) AS closed_week, agent, repo, true AS in_range, state = 'merged' AS merged, cost_known,
           CASE WHEN cost_known THEN currency END AS currency,
           CASE WHEN cost_known THEN CAST(cost AS DECIMAL(38, 10)) END AS cost
    FROM agent_pull_requests($repo, $accept_label)
    WHERE state IN ('merged', 'closed') AND week_in_scope(week_of(closed_ts), $since, $until)
), groups AS (
    SELECT closed_week, agent, repo,
           grouping(closed_week) = 0 AS by_week,
           grouping(agent) = 0 AS by_agent,
           grouping(repo) = 0 AS by_repo,
           coalesce(sum(CASE WHEN merged AND cost_known THEN 1 ELSE 0 END), 0) AS merged_known,
           coalesce(sum(CASE WHEN merged AND NOT cost_known THEN 1 ELSE 0 END), 0) AS merged_cost_unknown,
           coalesce(sum(CASE WHEN NOT merged AND cost_known THEN 1 ELSE 0 END), 0) AS closed_known,
           coalesce(sum(CASE WHEN NOT merged AND NOT cost_known THEN 1 ELSE 0 END), 0) AS closed_cost_unknown,
           sum(CASE WHEN merged THEN cost END) AS merged_cost,
           sum(CASE WHEN NOT merged THEN cost END) AS closed_cost,
           min(currency) AS first_currency,
           max(currency) AS last_currency
    FROM decided
    GROUP BY GROUPING SETS ((closed_week), (in_range), (agent), (repo))
)
SELECT closed_week, agent, repo, by_week, by_agent, by_repo, merged_cost_unknown, closed_cost_unknown,
       coalesce(first_currency <> last_currency, false) AS costs_in_several_currencies,
       CASE WHEN first_currency = last_currency THEN first_currency END AS currency,
       CASE WHEN coalesce(first_currency = last_currency, true) AND merged_known > 0
            THEN merged_cost / merged_known END AS cost_per_merged_pr,
       CASE WHEN coalesce(first_currency = last_currency, true) AND closed_known > 0
            THEN closed_cost END AS spend_closed_without_merge
FROM groups
ORDER BY by_week, by_agent, by_repo, closed_week, agent, repo

-- name: pull_request_weeks
-- The routed attempts on agent pull requests, per week in scope: attempts, probe rejects, armed
-- calls and held lanes (the funnel's first steps; the merges are counted by their own week).
-- params: since, until, repo
SELECT week,
       count(*) AS attempts,
       coalesce(sum(is_reject::INTEGER), 0) AS probe_rejects,
       coalesce(sum(armed::INTEGER), 0) AS calls_armed,
       coalesce(sum(CASE WHEN lane = 'hold' THEN 1 ELSE 0 END), 0) AS lanes_held
FROM in_scope($since, $until, $repo)
WHERE pr_repository IS NOT NULL AND pr_number IS NOT NULL AND producer = 'lanelog-route' AND week IS NOT NULL
GROUP BY week
ORDER BY week
