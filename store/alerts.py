"""Sent marks and claims for webhook alerts: what `lanelog check --notify` delivered, and where.

An alert is claimed for a receiver before it is posted: the claim is written and
committed in a transaction of its own, one writer at a time (DuckDB's file lock), and
a run that finds a live claim of another run leaves that alert alone, so two runs at
once post it once.  A mark is written (and committed) as soon as its message is
delivered, with the claim dropped in the same transaction, so a run that stops halfway
leaves exactly the delivered alerts marked.  A claim a run left behind (it died, or
could not write its mark) is taken over once it is older than the claim expiry.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import duckdb

from lanelog.store.db import transaction
from lanelog.store.sqlfile import load_resources

QUERIES = load_resources("lanelog.store", "alerts.sql")
# How long a claim stands without its mark: past it, the run that made it is taken to have died.
CLAIM_EXPIRY_S = 600.0
# What claim() says of an alert: claimed by this run, sent before, or held by another run's claim.
CLAIMED, SENT, HELD = "claimed", "sent", "held"


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def sent_to(con: duckdb.DuckDBPyConnection, receiver: str) -> set[str]:
    """The keys of the alerts already sent to the receiver (the sha256 of its URL)."""
    return {row[0] for row in QUERIES["sent_to"].rows(con, receiver=receiver)}


def claim(con: duckdb.DuckDBPyConnection, bug_key: str, receiver: str, claimant: str, *, resend: bool = False,
          expiry_s: float = CLAIM_EXPIRY_S) -> str:
    """Claim the alert for the receiver, committed before this returns: CLAIMED, or SENT (sent
    before, and not `resend`), or HELD (another run's claim younger than `expiry_s`)."""
    now = _now()
    with transaction(con):
        state = QUERIES["claim_state"].rows(con, bug_key=bug_key, receiver=receiver,
                                            live_after=now - timedelta(seconds=expiry_s))
        sent, holder = state[0]
        if holder is not None and holder != claimant:
            return HELD
        if sent and not resend:
            return SENT
        QUERIES["claim"].run(con, bug_key=bug_key, receiver=receiver, claimant=claimant, claimed_at=now)
    return CLAIMED


def mark_sent(con: duckdb.DuckDBPyConnection, bug_key: str, receiver: str, claimant: str | None = None) -> None:
    """Remember that the alert was delivered to the receiver, and drop the claimant's claim on it."""
    with transaction(con):
        QUERIES["mark_sent"].run(con, bug_key=bug_key, receiver=receiver, sent_at=_now())
        if claimant is not None:
            QUERIES["release"].run(con, bug_key=bug_key, receiver=receiver, claimant=claimant)


def release(con: duckdb.DuckDBPyConnection, bug_key: str, receiver: str, claimant: str) -> None:
    """Give up the claimant's claim on an alert it did not deliver: the next run sends it at once."""
    with transaction(con):
        QUERIES["release"].run(con, bug_key=bug_key, receiver=receiver, claimant=claimant)
