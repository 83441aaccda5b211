-- What became of each agent pull request: its attempts (the router's lines that name it) and its
-- outcome (the line `lanelog outcome` wrote when it closed).  A pull request is
-- (pr_repository, pr_number); an agent pull request is one some routed attempt names.  The
-- figures are counted from these rows here: per week closed, agent, repository and in total by
-- outcome_groups, per week something happened and per opening week by outcome_weeks.
-- The scope of a pull request, defined once: it is in scope when the week of its first attempt
-- (it opened then) or the week it closed is in scope (week_in_scope, scope.sql); it counts as
-- merged or closed without merge where it closed, and as open (no outcome line yet) where it opened.
-- It is stale when it is still open and its first attempt ran before $stale_before (the
-- report's last day less --stale-days).

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
-- One row per agent pull request (agent_pull_requests), in the order of their first attempts, with
-- whether it opened in scope (opened_in_scope: the week of its first attempt) and closed in scope
-- (closed_in_scope: the week of its latest outcome line), and whether its times contradict each
-- other (contradicts: it closed, or merged, before its first attempt).
-- params: since, until, repo, accept_label
SELECT pr_repository, pr_number, repo, agent, attempts, first_ts, last_ts, probe_rejects, first_rejected,
       calls_armed, lanes_held, last_attempt, last_attempt_ts, last_quarantine, cost_known, currency, cost, state,
       closed_ts, merged_at, merged_by, merged_by_type, auto_merge, auto_merge_by, auto_merge_by_type, approvals,
       labels, outcome_url, outcome_id, verdict, person_merged, said_by,
       week_in_scope(week_of(first_ts), $since, $until) AS opened_in_scope,
       closed_ts IS NOT NULL AND week_in_scope(week_of(closed_ts), $since, $until) AS closed_in_scope,
       coalesce(closed_ts < first_ts OR merged_at < first_ts, false) AS contradicts
FROM agent_pull_requests($repo, $accept_label)
ORDER BY first_ts, pr_repository, pr_number

-- name: outcome_groups
-- The outcome figures of the agent pull requests in scope: one row per week they closed in
-- (closed_week, by_week), the total row (every flag false), one per agent (by_agent) and one per
-- repository (by_repo).  pull_requests counts those in scope; merged and closed_without_merge
-- those closed in scope (decided); open those with no outcome line yet, stale_open those of them
-- whose first attempt ran before $stale_before.  merge_rate is merged over merged and closed
-- without merge (merge_rate_denominator); first_try_merges the merged ones with exactly one routed
-- attempt, first_try_rate their share of merged.  Only pull requests whose cost is known are summed
-- (exactly, as DECIMAL): cost_per_merged_pr is the merged ones' cost over how many they are
-- (merged_cost_known; cost_coverage their share of merged), spend_closed_without_merge the others'
-- sum; merged_cost_unknown and closed_cost_unknown count those whose armed calls did not all record
-- a cost in one currency, never as costing nothing.  Costs in two currencies are not summed: both
-- money figures NULL, and costs_in_several_currencies says so; currency is the one currency, else
-- NULL.  median_hours_to_merge: from the first attempt to the merge, a merge whose times contradict
-- each other left out (pull_request_rows names it).  rejected_then_merged: merged after a first
-- attempt the probe rejected; merge_credit_bugs and reviewed_exceptions: the merges' verdicts.
-- A week row is a week some pull request closed in.  With no pull request in scope there is no
-- row at all, the total's neither: the total is grouped by a constant (in_range), not the empty
-- set, whose row over no rows Spark would ask again for.
-- params: since, until, repo, accept_label, stale_before
WITH placed AS (
    SELECT agent, repo, state, attempts, first_rejected, verdict, cost_known, currency, cost, first_ts,
           closed_ts IS NOT NULL AND week_in_scope(week_of(closed_ts), $since, $until) AS closed_in_scope,
           state IN ('merged', 'closed') AND closed_ts IS NOT NULL
               AND week_in_scope(week_of(closed_ts), $since, $until) AS decided,
           week_in_scope(week_of(first_ts), $since, $until) AS opened_in_scope,
           week_of(closed_ts) AS week_closed,
           coalesce(closed_ts < first_ts OR merged_at < first_ts, false) AS contradicts,
           date_diff('microsecond', first_ts, coalesce(merged_at, closed_ts)) / 3600000000.0 AS hours
    FROM agent_pull_requests($repo, $accept_label)
), counted AS (
    SELECT CASE WHEN decided THEN week_closed END AS closed_week, agent, repo, true AS in_range,
           decided AND state = 'merged' AS merged, decided AND state = 'closed' AS unmerged,
           state IS NULL AS still_open, state IS NULL AND first_ts < CAST($stale_before AS TIMESTAMP) AS stale,
           decided AND cost_known AS known, decided AND NOT cost_known AS unknown,
           attempts, first_rejected, verdict, contradicts, hours,
           CASE WHEN decided AND cost_known THEN currency END AS currency,
           CASE WHEN decided AND cost_known THEN CAST(cost AS DECIMAL(38, 10)) END AS cost
    FROM placed
    WHERE opened_in_scope OR closed_in_scope
), groups AS (
    SELECT closed_week, agent, repo,
           grouping(closed_week) = 0 AS by_week,
           grouping(agent) = 0 AS by_agent,
           grouping(repo) = 0 AS by_repo,
           count(*) AS pull_requests,
           coalesce(sum(CASE WHEN merged THEN 1 ELSE 0 END), 0) AS merged,
           coalesce(sum(CASE WHEN unmerged THEN 1 ELSE 0 END), 0) AS closed_without_merge,
           coalesce(sum(CASE WHEN still_open THEN 1 ELSE 0 END), 0) AS open,
           coalesce(sum(CASE WHEN stale THEN 1 ELSE 0 END), 0) AS stale_open,
           coalesce(sum(CASE WHEN merged AND attempts = 1 THEN 1 ELSE 0 END), 0) AS first_try_merges,
           coalesce(sum(CASE WHEN merged AND first_rejected THEN 1 ELSE 0 END), 0) AS rejected_then_merged,
           coalesce(sum(CASE WHEN merged AND verdict = 'credit_bug' THEN 1 ELSE 0 END), 0) AS merge_credit_bugs,
           coalesce(sum(CASE WHEN merged AND verdict = 'reviewed_exception' THEN 1 ELSE 0 END), 0)
               AS reviewed_exceptions,
           median(CASE WHEN merged AND NOT contradicts THEN hours END) AS median_hours_to_merge,
           coalesce(sum(CASE WHEN merged AND known THEN 1 ELSE 0 END), 0) AS merged_known,
           coalesce(sum(CASE WHEN merged AND unknown THEN 1 ELSE 0 END), 0) AS merged_cost_unknown,
           coalesce(sum(CASE WHEN unmerged AND known THEN 1 ELSE 0 END), 0) AS closed_known,
           coalesce(sum(CASE WHEN unmerged AND unknown THEN 1 ELSE 0 END), 0) AS closed_cost_unknown,
           sum(CASE WHEN merged THEN cost END) AS merged_cost,
           sum(CASE WHEN unmerged THEN cost END) AS closed_cost,
           min(currency) AS first_currency,
           max(currency) AS last_currency
    FROM counted
    GROUP BY GROUPING SETS ((closed_week), (in_range), (agent), (repo))
)
SELECT closed_week, agent, repo, by_week, by_agent, by_repo, pull_requests, merged, closed_without_merge, open,
       stale_open, first_try_merges, rejected_then_merged, merge_credit_bugs, reviewed_exceptions,
       median_hours_to_merge, merged_known AS merged_cost_known, merged_cost_unknown, closed_cost_unknown,
       CASE WHEN merged + closed_without_merge > 0
            THEN CAST(merged AS DOUBLE) / (merged + closed_without_merge) END AS merge_rate,
       merged + closed_without_merge AS merge_rate_denominator,
       CASE WHEN merged > 0 THEN CAST(first_try_merges AS DOUBLE) / merged END AS first_try_rate,
       CASE WHEN merged > 0 THEN CAST(merged_known AS DOUBLE) / merged END AS cost_coverage,
       coalesce(first_currency <> last_currency, false) AS costs_in_several_currencies,
       CASE WHEN first_currency = last_currency THEN first_currency END AS currency,
       CASE WHEN coalesce(first_currency = last_currency, true) AND merged_known > 0
            THEN merged_cost / merged_known END AS cost_per_merged_pr,
       CASE WHEN coalesce(first_currency = last_currency, true) AND closed_known > 0
            THEN closed_cost END AS spend_closed_without_merge
FROM groups
WHERE NOT (by_week AND closed_week IS NULL)
ORDER BY by_week, by_agent, by_repo, closed_week, agent, repo

-- name: outcome_weeks
-- The agent pull requests per week in scope that something happened to them in: the routed
-- attempts on them that week (attempts, probe rejects, armed calls, held lanes), how many opened
-- (their first attempt ran that week: pull_requests_opened), how many of all were open at the
-- week's end (open_at_week_end: opened by then, not closed before its Sunday ended), and of those
-- opened that week, the cohort, what became of them as of now: merged (cohort_merged), closed
-- without merge (cohort_closed_without_merge), still open (cohort_open) and still open and stale
-- (stale_open, the first attempt before $stale_before).  A pull request leaves the open ones in the
-- later of the weeks it opened and closed in, so a running sum over the weeks counts them.
-- params: since, until, repo, accept_label, stale_before
WITH prs AS (
    SELECT week_of(first_ts) AS opened_week, week_of(closed_ts) AS closed_week, state,
           state IS NULL AND first_ts < CAST($stale_before AS TIMESTAMP) AS stale
    FROM agent_pull_requests($repo, $accept_label)
), moves AS (
    SELECT opened_week AS week, 1 AS opened, 1 AS change, 0 AS attempts, 0 AS probe_rejects, 0 AS calls_armed,
           0 AS lanes_held,
           CASE WHEN state = 'merged' THEN 1 ELSE 0 END AS merged,
           CASE WHEN state = 'closed' THEN 1 ELSE 0 END AS closed_without_merge,
           CASE WHEN state IS NULL THEN 1 ELSE 0 END AS still_open,
           CASE WHEN stale THEN 1 ELSE 0 END AS stale
    FROM prs
    UNION ALL
    SELECT closed_week, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 FROM prs WHERE closed_week IS NOT NULL
    UNION ALL
    -- A close ingest could not date (closed_week NULL) leaves the open ones in the week it opened: it
    -- never reads as open.
    SELECT CASE WHEN closed_week > opened_week THEN closed_week ELSE opened_week END, 0, -1, 0, 0, 0, 0, 0, 0, 0, 0
    FROM prs WHERE state IS NOT NULL
    UNION ALL
    SELECT week, 0, 0, 1, CASE WHEN is_reject THEN 1 ELSE 0 END, CASE WHEN armed THEN 1 ELSE 0 END,
           CASE WHEN lane = 'hold' THEN 1 ELSE 0 END, 0, 0, 0, 0
    FROM in_scope($since, $until, $repo)
    WHERE pr_repository IS NOT NULL AND pr_number IS NOT NULL AND producer = 'lanelog-route' AND week IS NOT NULL
), weeks AS (
    SELECT week, sum(opened) AS opened, sum(change) AS change, sum(attempts) AS attempts,
           sum(probe_rejects) AS probe_rejects, sum(calls_armed) AS calls_armed, sum(lanes_held) AS lanes_held,
           sum(merged) AS merged, sum(closed_without_merge) AS closed_without_merge,
           sum(still_open) AS still_open, sum(stale) AS stale
    FROM moves
    GROUP BY week
), running AS (
    SELECT week, opened, attempts, probe_rejects, calls_armed, lanes_held, merged, closed_without_merge, still_open,
           stale, sum(change) OVER (ORDER BY week ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS open_at_week_end
    FROM weeks
)
SELECT week, opened AS pull_requests_opened, attempts, probe_rejects, calls_armed, lanes_held, open_at_week_end,
       merged AS cohort_merged, closed_without_merge AS cohort_closed_without_merge, still_open AS cohort_open,
       stale AS stale_open
FROM running
WHERE week_in_scope(week, $since, $until)
ORDER BY week
