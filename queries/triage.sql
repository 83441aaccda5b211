-- The rows behind an alert, and the decision table's other rules audited line by line.

-- name: credit_bug_rows
-- Every credit bug in scope (truthy merge_credit on an attempt with a truthy quarantine),
-- dated ones by time, undated ones last, with where the line came from and its raw JSON.
-- merge_credit is the field's JSON text.
-- params: since, until, repo
SELECT
    a.week, a.ts, a.attempt_id, a.repo, a.head, a.producer, a.quarantine, a.merge_credit,
    s.path AS source, a.line_no, a.raw
FROM in_scope($since, $until, $repo) AS a
LEFT JOIN sources AS s USING (source_id)
WHERE a.credit_bug
ORDER BY a.week NULLS LAST, a.ts NULLS LAST, s.path, a.line_no

-- name: audit
-- Each breach of the decision table's other rules, one row per attempt and rule:
-- armed_on_reject: a call armed although the probe rejected;
-- merge_credit: merge credit set on an attempt that is no credit bug (truthy, as the seed
--   reads it; the router never sets it, only a human review may).  A credit bug already says
--   its merge credit was set, so it is reported once, as a credit bug;
-- quarantine_in_properties: a quarantine id copied into the properties (a hold field);
-- over_budget: spent units above the budget_cap the line records (a probe reject for
--   over_budget spent nothing, so it does not count here).
-- params: since, until, repo
WITH scoped AS (
    SELECT * FROM in_scope($since, $until, $repo)
),
breaches AS (
    SELECT 'armed_on_reject' AS rule, *, 'probe=reject, model_call_allowed is truthy' AS detail
    FROM scoped WHERE armed AND is_reject
    UNION ALL
    SELECT 'merge_credit', *, 'merge_credit=' || merge_credit
    FROM scoped WHERE has_credit AND NOT credit_bug
    UNION ALL
    SELECT 'quarantine_in_properties', *,
           'in properties and quarantine: ' || array_to_string(list_sort(list_distinct(
               list_intersect(properties, quarantine))), ', ')
    FROM scoped WHERE list_has_any(properties, quarantine)
    UNION ALL
    SELECT 'over_budget', *, 'units ' || spent_units::VARCHAR || ' > budget_cap ' || budget_cap::VARCHAR
    FROM scoped WHERE spent_units > budget_cap
)
SELECT b.rule, b.week, b.ts, b.attempt_id, b.repo, b.producer, s.path AS source, b.line_no, b.detail
FROM breaches AS b
LEFT JOIN sources AS s USING (source_id)
ORDER BY b.rule, b.week NULLS LAST, b.ts NULLS LAST, s.path, b.line_no
