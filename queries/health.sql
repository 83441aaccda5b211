-- Data health: what was read, what could not be used, and what could not be placed in a week.

-- name: sources
-- Each log ingested (identified by content): its last path, read position, lines, the
-- attempts and rejected lines it gave, its outcome lines (stored apart from its attempts:
-- they are no attempts), duplicates skipped (attempts and outcome lines), and when it was
-- read; for a log read from an object store, in_last_listing says whether the last listing
-- of its prefix held it (objects_read: ingest forgets an object its listing no longer finds).
-- params:
SELECT
    s.source_id, s.path, s.fingerprint, s.bytes_read, s.lines_read,
    coalesce(a.attempts, 0) AS attempts,
    coalesce(r.rejected, 0) AS rejected,
    s.duplicates, s.first_ingested, s.last_ingested,
    s.path IN (SELECT url FROM objects_read) AS in_last_listing,
    coalesce(o.outcomes, 0) AS outcomes
FROM sources AS s
LEFT JOIN (SELECT source_id, count(*) AS attempts FROM attempts GROUP BY source_id) AS a
    USING (source_id)
LEFT JOIN (SELECT source_id, count(*) AS rejected FROM rejected_lines GROUP BY source_id) AS r
    USING (source_id)
LEFT JOIN (SELECT source_id, count(*) AS outcomes FROM outcomes GROUP BY source_id) AS o
    USING (source_id)
ORDER BY s.source_id

-- name: rejected_lines
-- Lines that were not JSON objects (they have no week or repo, so no filter applies), with
-- the reason and the readable text, at most $limit of them in file order.
-- params: limit
SELECT s.path AS source, r.line_no, r.byte_offset, r.reason, r.text
FROM rejected_lines AS r
LEFT JOIN sources AS s USING (source_id)
ORDER BY s.path, r.line_no
LIMIT $limit

-- name: type_anomalies
-- Attempts in scope per field whose JSON type was not the expected one (the row is kept;
-- its figures use the seed's truthiness whatever the type).
-- params: since, until, repo
SELECT field, count(*) AS attempts
FROM (
    SELECT unnest(type_anomalies) AS field
    FROM in_scope($since, $until, $repo)
    WHERE len(type_anomalies) > 0
)
GROUP BY field
ORDER BY attempts DESC, field

-- name: undated
-- Attempts in scope with no usable ts (the undated bucket), at most $limit in file order,
-- each with why: "no ts" (absent or null), "out of range" (a date outside the supported
-- range, see lane_ts_in_range in the schema) or "not a date" (any other value).
-- params: since, until, repo, limit
SELECT source, line_no, attempt_id, repo, undated_why(j) AS why, raw
FROM (
    SELECT s.path AS source, a.line_no, a.attempt_id, a.repo, a.raw, json_extract(a.raw, '$.ts') AS j
    FROM in_scope($since, $until, $repo) AS a
    LEFT JOIN sources AS s USING (source_id)
    WHERE a.week IS NULL
    ORDER BY s.path, a.line_no
    LIMIT $limit
)
ORDER BY source, line_no

-- name: undated_counts
-- How many attempts in scope are undated, and how many of them carry a date outside the
-- supported range (counted over all of them, not only the listed ones).
-- params: since, until, repo
SELECT count(*) AS undated,
       count(*) FILTER (WHERE undated_why(json_extract(raw, '$.ts')) = 'out of range') AS out_of_range
FROM in_scope($since, $until, $repo)
WHERE week IS NULL

-- name: undated_outcomes
-- Outcome lines stored without a usable ts (no time, or one outside the supported range), at
-- most $limit in file order, each with why (as undated's) and how many there are in all: such
-- a close falls in no week, so its pull request reads as open (ingest warns of each one).
-- Filters do not apply: a line with no week is in no range, and Data health lists them all.
-- params: limit
SELECT s.path AS source, o.line_no, o.pr_repository, o.pr_number, o.state,
       undated_why(json_extract(o.raw, '$.ts')) AS why, o.raw, count(*) OVER () AS total
FROM outcomes AS o
LEFT JOIN sources AS s USING (source_id)
WHERE o.ts IS NULL
ORDER BY s.path, o.line_no
LIMIT $limit
