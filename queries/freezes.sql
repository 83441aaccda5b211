-- Freeze hygiene: which quarantine ids held attempts back, when, and which were reported expired.

-- name: freezes
-- Attempts per week that each quarantine id affected (once per listing of the id).
-- params: since, until, repo
SELECT quarantine_id, week, count(*) AS attempts
FROM (
    SELECT week, unnest(quarantine) AS quarantine_id
    FROM in_scope($since, $until, $repo)
    WHERE len(quarantine) > 0
)
GROUP BY quarantine_id, week
ORDER BY quarantine_id, week NULLS LAST

-- name: freeze_summary
-- Each quarantine id seen, live or expired: the attempts it held in quarantine (once per
-- listing), the first and last ts among them (NULL when all were undated), and how many
-- attempts reported it in expired_freezes (a dead row that must no longer suppress the test).
-- params: since, until, repo
WITH scoped AS (
    SELECT ts, quarantine, expired_freezes FROM in_scope($since, $until, $repo)
),
held AS (
    SELECT quarantine_id, count(*) AS attempts, min(ts) AS first_seen, max(ts) AS last_seen
    FROM (SELECT ts, unnest(quarantine) AS quarantine_id
          FROM scoped WHERE len(quarantine) > 0)
    GROUP BY quarantine_id
),
expired AS (
    SELECT quarantine_id, count(*) AS expired_reports
    FROM (SELECT unnest(expired_freezes) AS quarantine_id
          FROM scoped WHERE len(expired_freezes) > 0)
    GROUP BY quarantine_id
)
SELECT
    quarantine_id,
    coalesce(held.attempts, 0) AS attempts,
    held.first_seen,
    held.last_seen,
    coalesce(expired.expired_reports, 0) AS expired_reports
FROM held FULL OUTER JOIN expired USING (quarantine_id)
ORDER BY quarantine_id

-- name: freeze_owners
-- Who to ask about each freeze: the owner and expiry the router wrote in the line's
-- optional `freezes` object (read from the stored raw line), as the latest line that
-- listed the id gave them (ties: the later log line).  Only lines that list a freeze
-- carry the object.
-- params: since, until, repo
WITH listed AS (
    SELECT (coalesce(ts, TIMESTAMP '0001-01-01'), source_id, line_no) AS seen_at, e.key AS quarantine_id,
           e.value.owner AS owner, e.value.expires AS expires
    FROM (
        SELECT ts, source_id, line_no, unnest(map_entries(try(json_transform(json_extract(raw, '$.freezes'),
                   '"MAP(VARCHAR, STRUCT(owner VARCHAR, expires VARCHAR))"')))) AS e
        FROM in_scope($since, $until, $repo)
        WHERE (len(quarantine) > 0 OR len(expired_freezes) > 0)
          AND json_type(json_extract(raw, '$.freezes')) = 'OBJECT'
    )
)
SELECT quarantine_id, arg_max(owner, seen_at) AS owner, try_cast(arg_max(expires, seen_at) AS DATE) AS expires
FROM listed
GROUP BY quarantine_id
ORDER BY expires NULLS LAST, quarantine_id
