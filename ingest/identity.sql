-- Which stored log a file is: sources matched by the fingerprint of their first bytes.

-- name: fingerprint_lengths
-- The distinct lengths stored logs were fingerprinted on, up to $n bytes: a log
-- fingerprinted while shorter than 4 KiB is matched on as many bytes as it had then.
-- params: n
SELECT DISTINCT fingerprint_bytes FROM sources WHERE fingerprint_bytes <= $n;

-- name: fingerprint_candidates
-- Stored logs whose fingerprint is one of $keys, the longest read first.
-- params: keys
SELECT source_id, bytes_read, lines_read, duplicates, tail_fingerprint,
       bytes_seen, seen_fingerprint
FROM sources
WHERE list_contains($keys, fingerprint)
ORDER BY bytes_read DESC, source_id;
