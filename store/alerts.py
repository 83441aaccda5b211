"""Sent marks for credit-bug alerts: what `lanelog check --notify` delivered, and where.

A mark is written (and committed) as soon as its message is delivered, so a run
that stops halfway leaves exactly the delivered bugs marked.
"""

from __future__ import annotations

from datetime import UTC, datetime

import duckdb

from lanelog.store.sqlfile import load_resources

QUERIES = load_resources("lanelog.store", "alerts.sql")


def sent_to(con: duckdb.DuckDBPyConnection, receiver: str) -> set[str]:
    """The keys of the credit bugs already sent to the receiver (the sha256 of its URL)."""
    return {row[0] for row in QUERIES["sent_to"].rows(con, receiver=receiver)}


def mark_sent(con: duckdb.DuckDBPyConnection, bug_key: str, receiver: str) -> None:
    """Remember that the credit bug was delivered to the receiver."""
    QUERIES["mark_sent"].run(con, bug_key=bug_key, receiver=receiver,
                             sent_at=datetime.now(UTC).replace(tzinfo=None))
