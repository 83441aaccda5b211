-- Data health: what was read, what could not be used, and what could not be placed in a week.

-- name: sources
-- Each log ingested (identified by content): its last path, read position, lines, the
-- attempts and rejected lines it gave, duplicates skipped, and when it was read.
-- params:
SELECT
    s.source_id, s.path, s.fingerprint, s.bytes_read, s.lines_read,
    coalesce(a.attempts, 0) AS attempts,
    coalesce(r.rejected, 0) AS rejected,
    s.duplicates, s.first_ingested, s.last_ingested
FROM sources AS s
LEFT JOIN (SELECT source_id, count(*) AS attempts FROM attempts GROUP BY source_id) AS a
    USING (source_id)
LEFT JOIN (SELECT source_id, count(*) AS rejected FROM rejected_lines GROUP BY source_id) AS r
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
-- Attempts in scope with no usable ts (the undated bucket), at most $limit in file order.
-- params: since, until, repo, limit
SELECT s.path AS source, a.line_no, a.attempt_id, a.repo, a.raw
FROM in_scope($since, $until, $repo) AS a
LEFT JOIN sources AS s USING (source_id)
WHERE a.week IS NULL
ORDER BY s.path, a.line_no
LIMIT $limit
