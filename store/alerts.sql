-- Which alerts were sent to which webhook (`lanelog check --notify`), so a nightly run never
-- repeats one, and which are claimed by a run that is sending them, so two runs at once
-- never both send one.  A receiver is the sha256 of its URL: the URL is a secret and is
-- never stored.  The tables (alerts_sent, alerts_claimed) are in schema.sql.

-- name: sent_to
-- The keys of the alerts already sent to one receiver.
-- params: receiver
SELECT bug_key FROM alerts_sent WHERE receiver = $receiver

-- name: claim_state
-- Whether one alert was sent to one receiver, and the run holding a claim on it younger
-- than $live_after (a claim older than that was left by a run that died), if any.
-- params: bug_key, receiver, live_after
SELECT
    EXISTS (SELECT 1 FROM alerts_sent WHERE bug_key = $bug_key AND receiver = $receiver) AS sent,
    (SELECT claimant FROM alerts_claimed
     WHERE bug_key = $bug_key AND receiver = $receiver AND claimed_at >= $live_after) AS claimant

-- name: claim
-- One alert claimed for one receiver by one run (a claim left by a dead run is replaced).
-- params: bug_key, receiver, claimant, claimed_at
INSERT OR REPLACE INTO alerts_claimed VALUES ($bug_key, $receiver, $claimant, $claimed_at)

-- name: mark_sent
-- One alert delivered to one receiver (sent again with --renotify: the time moves on).
-- params: bug_key, receiver, sent_at
INSERT OR REPLACE INTO alerts_sent VALUES ($bug_key, $receiver, $sent_at)

-- name: release
-- The run's claim on one alert for one receiver given up (sent and marked, or not sent).
-- params: bug_key, receiver, claimant
DELETE FROM alerts_claimed WHERE bug_key = $bug_key AND receiver = $receiver AND claimant = $claimant
