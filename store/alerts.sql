-- Which credit bugs were sent to which webhook (`lanelog check --notify`), so a nightly
-- run never repeats one.  A receiver is the sha256 of its URL: the URL is a secret and
-- is never stored.  The table (alerts_sent) is in schema.sql.

-- name: sent_to
-- The keys of the credit bugs already sent to one receiver.
-- params: receiver
SELECT bug_key FROM alerts_sent WHERE receiver = $receiver

-- name: mark_sent
-- One credit bug delivered to one receiver (sent again with --renotify: the time moves on).
-- params: bug_key, receiver, sent_at
INSERT OR REPLACE INTO alerts_sent VALUES ($bug_key, $receiver, $sent_at)
